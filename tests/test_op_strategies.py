"""Each op module holds its fuzz strategy (docs/architecture.md, "Adding an op"), named by its
SPEC: `possible`, `draw_applicable`, `fuzz_weight` (and optionally `draw_recipe`); fuzz/schedules.py only
dispatches through the registry and names no op. Per op: the hook draws records of the op's
own RECORD type on the fuzz families, and on some family kernel such a record applies."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from verified_sched.core.errors import ScheduleError, VschedError
from verified_sched.fuzz import schedules
from verified_sched.fuzz.families import family_programs
from verified_sched.ops.fuzz_names import SHAPES
from verified_sched.core.op_syntax import op_name
from verified_sched.ops import apply_op
from verified_sched.ops.registry import MODULES, OP_NAMES, module_named


def _settings(examples: int, **kw):
    # derandomized whatever the profile: a fixed set of kernels, whose coverage is asserted
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), **kw)


def _applies(program, kernel, ops) -> bool:
    try:
        for op in ops:
            program = apply_op(program, kernel, op)
    except (ScheduleError, VschedError):
        return False
    return True


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.RECORD.SYNTAX.keyword)
def test_every_op_module_has_its_fuzz_hooks(mod):
    spec = mod.SPEC
    assert callable(spec.possible) and callable(spec.draw_applicable)
    assert isinstance(spec.fuzz_weight, int) and spec.fuzz_weight >= 1
    assert schedules.weight(spec.keyword) == spec.fuzz_weight
    assert spec.draw_recipe is None or callable(spec.draw_recipe)


@st.composite
def _tried(draw, kind: str, shapes: tuple):
    """(program, kernel, what the fuzzer tries for op `kind` on a family kernel: draw_ops, its
    record or a recipe ending in it, [] where `possible` says there is nothing to draw over)."""
    program = draw(family_programs(shapes))
    kernel = program.kernels[0].name
    if not module_named(kind).possible(program, kernel):
        return program, kernel, []
    return program, kernel, schedules.draw_ops(draw, kind, program, kernel, tuple(OP_NAMES))


@pytest.mark.parametrize("kind", tuple(OP_NAMES))
def test_some_family_kernel_gets_a_record_of_the_op_that_applies(kind):
    mod = module_named(kind)

    def applies(tried) -> bool:
        program, kernel, ops = tried
        return bool(ops) and isinstance(ops[-1], mod.RECORD) and _applies(program, kernel, ops)

    found = None
    for shape in SHAPES:  # the first family, in SHAPES order, on which one of 25 draws applies
        try:
            found = find(_tried(kind, (shape,)), applies, settings=_settings(25, phases=[Phase.generate]))
            break
        except NoSuchExample:
            continue
    assert found is not None and isinstance(found[2][-1], mod.RECORD), kind


@pytest.mark.parametrize("kind", tuple(OP_NAMES))
def test_the_hook_draws_only_the_ops_own_records(kind):
    mod = module_named(kind)

    @_settings(30)
    @given(st.data())
    def run(data):
        program = data.draw(family_programs(SHAPES))
        kernel = program.kernels[0].name
        if mod.possible(program, kernel):
            op = mod.draw_applicable(data.draw, program, kernel)
            assert op is None or isinstance(op, mod.RECORD) and op_name(op) == kind

    run()


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


def test_an_op_spec_without_its_fuzz_hooks_cannot_be_declared():
    """The fuzz hooks are required fields of the op's spec: a module that forgets one fails
    when it is imported, never silently while fuzzing."""
    import dataclasses

    from verified_sched.ops import reverse
    from verified_sched.ops.spec import OpSpec

    fields = {f.name: getattr(reverse.SPEC, f.name) for f in dataclasses.fields(OpSpec)}
    for hook in ("possible", "draw_applicable"):
        with pytest.raises(TypeError, match=hook):
            OpSpec(**{k: v for k, v in fields.items() if k != hook})


def test_op_modules_import_and_answer_possible_without_hypothesis():
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "from verified_sched.dsl import parse_text\n"
            "from verified_sched.ops.registry import MODULES\n"
            "p = parse_text('params N where N >= 1\\ntensor y[N] f32\\nkernel k {\\n  for i in 0 .. N {\\n"
            "    y[i] = 1.0\\n  }\\n}\\n')\n"
            "print(sorted(m.RECORD.SYNTAX.keyword for m in MODULES if m.possible(p, 'k')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # one loop, reading nothing: every loop op, nothing needing two loops, a read or a reduction
    assert out.split() == str(["pad", "partition", "retype", "reverse", "shift", "split", "unroll"]).split()
