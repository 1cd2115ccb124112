"""Whole-kernel rewrites: Winograd (the convolution-backward generator is in `generators/`)."""
