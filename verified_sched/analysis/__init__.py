"""Analyses of a program: concrete sizes, integer ranges, resources, well-formedness, linear forms, the simplifier."""
