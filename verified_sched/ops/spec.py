"""`OpSpec`: the declared contract of a schedule op. Each op module (ops/<op>.py or the
`__init__` of ops/<op>/) ends with one `SPEC = OpSpec(...)` naming every field; the registry
(ops/registry.py) lists the specs, and every consumer (the verifier, `vsched run`, the fuzzer,
claims) reads the typed fields, never a module attribute by name. tests/test_op_spec.py checks
each spec's field types and that no op module holds a contract-like attribute its spec omits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

# every generic goal the driver adds (verify.driver.GENERIC, the same tuple: tests/test_op_spec.py)
ALL_GENERIC = ("in_bounds", "coverage", "dependence", "reassociation", "independence")


@dataclass(frozen=True)
class OpSpec:
    """One op's contract. Required: everything up to `fuzz_options`; the optional hooks
    default to None (the op has none)."""

    record: type  # its op record class (an op_syntax.OpRecord; its SYNTAX is the DSL form)
    apply: Callable  # (program, kernel_name, op) -> program (pure; ScheduleError on a failed precondition)
    obligations: Callable  # (ctx) -> its own goals (obligations.Goal); the driver adds the generic ones
    generic: tuple[str, ...]  # the generic goals it keeps, among ALL_GENERIC (ALL_GENERIC: all of them)
    own_reassociates: bool  # its own goals may reassociate (verify/reassociation.py looks at them)
    exact_rounding: bool  # it only moves accesses: every value is rounded as before
    structural: bool  # it adds or replaces statements (not only loops): a fuzz reproducer's family
    fuzz_weight: int  # how often it is drawn among the possible ops (fuzz/schedules.py)
    possible: Callable  # (program, kernel_name) -> bool: anything to draw it over?
    draw_applicable: Callable  # (draw, program, kernel_name) -> a record over the kernel, or None
    # its syntax options whose coverage a fuzz campaign reports (fuzz/options.py): an option's
    # name, or (flag, word) to report the flag unset as `word` too
    fuzz_options: tuple[Union[str, tuple[str, str]], ...]
    draw_by_name: Optional[Callable] = None  # (draw, loop, loops, fresh) -> (record, loops after) or None
    by_name_weight: int = 0  # how often draw_by_name is drawn among them (fuzz/records.schedules_for)
    draw_recipe: Optional[Callable] = None  # (draw, program, kernel_name, ops) -> [records] or None
    exact_at: Optional[Callable] = None  # (program, kernel, sizes, inputs) -> bool (`vsched run`)
    claim_goals: Optional[Callable] = None  # (program, a, b, profile, timeout) -> goals or None

    @property
    def keyword(self) -> str:
        """The op's DSL keyword."""
        return self.record.SYNTAX.keyword
