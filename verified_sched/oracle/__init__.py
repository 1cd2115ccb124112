"""The oracle: comparisons of two kernels' runs, and which backends run on each side."""
