"""The hypothesis strategies moved to `verified_sched.fuzz.strategies` (documented there);
re-exported here so existing imports keep working."""
from .fuzz.strategies import (FuzzExample, OPS, SAFE_FUNCS, SHAPES, admitted_sizes, aff_expr,
                              applicable_schedule, family_programs, fuzz_examples, kernels_for, number,
                              op_records, programs, schedules_for, sizes_for)

__all__ = ["programs", "kernels_for", "number", "SAFE_FUNCS", "aff_expr", "op_records", "schedules_for",
           "sizes_for", "family_programs", "SHAPES", "OPS", "applicable_schedule", "admitted_sizes",
           "fuzz_examples", "FuzzExample"]
