"""Generators of DSL programs: `conv_backward` (direct convolution-backward nests with their
proved claims) and its command line `conv_backward_cli` (`vsched conv-backward`)."""
