/* error: fuse_epilogue: the tail loop 'j' runs over 0 .. M - 1, not over the dim 0 .. M of 'c' */
