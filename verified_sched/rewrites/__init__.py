"""Whole-kernel rewrites: convolution backward, Winograd."""
