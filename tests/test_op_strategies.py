"""Each op module holds its fuzz strategy (docs/architecture.md, "Adding an op"): `possible`
and `draw_applicable` (and optionally `FUZZ_WEIGHT`, `draw_recipe`); fuzz/schedules.py only
dispatches through the registry and names no op. Per op: the hook draws records of the op's
own RECORD type on the fuzz families, and on some family kernel such a record applies."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_sched.errors import InternalError, ScheduleError, VschedError
from verified_sched.fuzz import schedules
from verified_sched.fuzz.families import family_programs
from verified_sched.fuzz.names import SHAPES
from verified_sched.op_syntax import op_name
from verified_sched.ops import apply_op
from verified_sched.ops.registry import MODULES, OP_NAMES, module_named

def _settings(examples: int):
    return settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))


def _applies(program, kernel, ops) -> bool:
    try:
        for op in ops:
            program = apply_op(program, kernel, op)
    except (ScheduleError, VschedError):
        return False
    return True


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.RECORD.SYNTAX.keyword)
def test_every_op_module_has_its_fuzz_hooks(mod):
    assert callable(mod.possible) and callable(mod.draw_applicable)
    weight = getattr(mod, "FUZZ_WEIGHT", 1)
    assert isinstance(weight, int) and weight >= 1
    assert schedules.weight(mod.RECORD.SYNTAX.keyword) == weight
    assert callable(getattr(mod, "draw_recipe", None) or (lambda: None))


@pytest.mark.parametrize("kind", tuple(OP_NAMES))
def test_the_hook_draws_the_ops_own_records_and_some_apply(kind):
    # on family kernels: draw_applicable gives the op's own records (or None), never where
    # `possible` says there is nothing; what the fuzzer tries for the op (draw_ops: the record,
    # or a recipe ending in it) applies on some kernel
    mod = module_named(kind)
    drawn, applied = [0], [0]

    @_settings(150)
    @given(st.data())
    def run(data):
        program = data.draw(family_programs(SHAPES))
        kernel = program.kernels[0].name
        if not mod.possible(program, kernel):
            return
        op = mod.draw_applicable(data.draw, program, kernel)
        assert op is None or isinstance(op, mod.RECORD) and op_name(op) == kind
        drawn[0] += op is not None
        ops = schedules.draw_ops(data.draw, kind, program, kernel, tuple(OP_NAMES))
        assert not ops or isinstance(ops[-1], mod.RECORD)
        applied[0] += bool(ops) and _applies(program, kernel, ops)

    run()
    assert drawn[0] >= 5 and applied[0] >= 1, (drawn, applied)


@pytest.mark.parametrize("kind", [m.RECORD.SYNTAX.keyword for m in MODULES if hasattr(m, "draw_recipe")])
def test_a_recipe_ends_in_its_op_and_applies_on_tiled_matmuls(kind):
    mod = module_named(kind)
    taken, applied = [0], [0]

    @_settings(40)
    @given(st.data())
    def run(data):
        program = data.draw(family_programs(("tiled",)))
        kernel = program.kernels[0].name
        assert mod.draw_recipe(data.draw, program, kernel, (kind,)) is None  # no split to tile with
        ops = mod.draw_recipe(data.draw, program, kernel, tuple(OP_NAMES))
        if ops is None:
            return
        assert isinstance(ops[-1], mod.RECORD) and len(ops) >= 7
        taken[0] += 1
        applied[0] += _applies(program, kernel, ops)

    run()
    assert taken[0] >= 5 and applied[0] >= 1, (taken, applied)


def _op_names_in(source: str) -> set:
    """What in `source` names an op: keyword string literals, `match` statements, imports of
    an op module other than the registry."""
    tree = ast.parse(source)
    found = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in OP_NAMES}
    found |= {"match" for n in ast.walk(tree) if isinstance(n, ast.Match)}
    return found | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
                    and n.module.startswith("ops.") and n.module != "ops.registry"}


def test_schedules_names_no_op():
    # fuzz/schedules.py dispatches through the registry (docstrings may mention ops)
    assert _op_names_in(Path(schedules.__file__).read_text()) == set()
    # the check is not vacuous: the old per-op dispatch is found
    old = ('from ..ops.split import Split\nWEIGHT = {"winograd": 6}\n'
           'def f(kind):\n    match kind:\n        case "split":\n            return 1\n')
    assert _op_names_in(old) == {"winograd", "split", "match", "ops.split"}


def test_an_op_module_without_its_hook_is_an_internal_error(monkeypatch):
    from verified_sched.dsl import parse_text
    from verified_sched.ops import reverse

    program = parse_text("params N where N >= 1\ntensor y[N] f32\nkernel k {\n  for i in 0 .. N {\n"
                         "    y[i] = 1.0\n  }\n}\n")
    assert schedules.possible("reverse", program, "k")
    monkeypatch.delattr(reverse, "draw_applicable")
    monkeypatch.delattr(reverse, "possible")
    with pytest.raises(InternalError, match="no fuzz hook 'possible'"):
        schedules.possible("reverse", program, "k")
    with pytest.raises(InternalError, match="no fuzz hook 'draw_applicable'"):
        schedules.draw_op(lambda s: None, "reverse", program, "k")


def test_op_modules_import_and_answer_possible_without_hypothesis():
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "from verified_sched.dsl import parse_text\n"
            "from verified_sched.ops.registry import MODULES\n"
            "p = parse_text('params N where N >= 1\\ntensor y[N] f32\\nkernel k {\\n  for i in 0 .. N {\\n"
            "    y[i] = 1.0\\n  }\\n}\\n')\n"
            "print(sorted(m.RECORD.SYNTAX.keyword for m in MODULES if m.possible(p, 'k')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # one loop, reading nothing: every loop op, nothing needing two loops, a read or a reduction
    assert out.split() == str(["pad", "partition", "retype", "reverse", "split", "unroll"]).split()
