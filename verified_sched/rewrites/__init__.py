"""Whole-kernel rewrites (DESIGN.md section 6): convolution backward, Winograd."""
