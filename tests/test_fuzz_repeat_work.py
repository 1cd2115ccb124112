"""Work a fuzz example used to repeat, done once (issue 25 item 3, campaign throughput):

- a family program's text is parsed once per text (fuzz/families.py `parsed`): a batch draws
  the same few texts again and again;
- the questions a run asks of its IR (interp/interpreter.py: the tensors a kernel uses, a
  launch's hardware loops and barrier; oracle/compare.py: the tensors written, read before
  written, read inside an index) are answered once per IR object (interp/node_memo.py): an
  example compares the same two programs at two size sets, a replay at several sizes and seeds.

Work is counted (parses, memo misses), never timed; the answers are those of a fresh run.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from verified_sched.core.printer import print_program
from verified_sched.dsl import parse_text
from verified_sched.fuzz import families
from verified_sched.interp import interpreter
from verified_sched.interp.interpreter import run_kernel
from verified_sched.interp.node_memo import NodeMemo
from verified_sched.oracle import compare
from verified_sched.oracle.compare import compare_kernels, random_inputs

PROGRAM = """params N, M where N >= 1, M >= 1
tensor a[N, M] f32
tensor ix[N] i32
tensor c[N, M] f32
tensor s[N] f32
kernel k {
  for i in 0 .. N { s[i] = 0.0
    for j in 0 .. M {
      c[i, j] = a[ix[i], j] * 2.0
      s[i] += c[i, j] } } }
"""
SIZES = ({"N": 3, "M": 4}, {"N": 5, "M": 2})


def test_a_family_text_drawn_twice_is_parsed_once(monkeypatch):
    calls = []
    monkeypatch.setattr(families, "_PARSED", {})
    monkeypatch.setattr(families, "parse_text", lambda text, name: calls.append(text) or parse_text(text, name))
    text = PROGRAM
    first = families.parsed(text, "<fuzz matmul>")
    second = families.parsed(text, "<fuzz matmul>")
    assert len(calls) == 1 and second is first
    assert first == parse_text(text, "<fuzz matmul>")
    families.parsed(text, "<fuzz tiled>")  # another name: its own parse (locations name it)
    assert len(calls) == 2


def test_the_parse_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(families, "_PARSED", {})
    monkeypatch.setattr(families, "PARSED_LIMIT", 3)
    for n in range(6):
        families.parsed(PROGRAM.replace("2.0", f"{n}.0"), "<fuzz matmul>")
    assert len(families._PARSED) <= 3  # noqa: SLF001 - the memo itself


@settings(max_examples=15, deadline=None, database=None)
@given(families.family_programs())
def test_family_programs_draw_what_a_fresh_parse_gives(program):
    assert print_program(program) == print_program(parse_text(print_program(program)))


def test_node_memo_answers_once_per_object_and_extra():
    calls = []
    memo = NodeMemo(lambda obj, extra: calls.append((obj, extra)) or (len(obj), extra))
    a, b = [1, 2], [1, 2]  # equal values, different objects
    assert memo(a) == memo(a) == (2, None) and len(calls) == 1
    assert memo(b) == (2, None) and len(calls) == 2  # identity, not equality
    assert memo(a, ("k",)) == (2, ("k",)) and len(calls) == 3
    assert memo(a, ("k",)) == (2, ("k",)) and len(calls) == 3 and memo.misses == 3


def test_node_memo_starts_afresh_past_its_limit():
    memo = NodeMemo(lambda obj, extra: id(obj), limit=2)
    keep = [object() for _ in range(5)]
    for o in keep:
        memo(o)
    assert len(memo.entries) <= 2 and memo.misses == 5


def _outputs(program, sizes, seed):
    arrays = random_inputs(program, ["k"], sizes, seed)
    return {k: v.tobytes() for k, v in run_kernel(program, "k", sizes, arrays, seed).items()}


def test_a_kernel_run_at_two_sizes_asks_its_ir_once(monkeypatch):
    program = parse_text(PROGRAM)
    used = NodeMemo(interpreter._USED.fn)  # noqa: SLF001 - counting the memo's work
    shape = NodeMemo(interpreter._LAUNCH_SHAPE.fn)  # noqa: SLF001
    monkeypatch.setattr(interpreter, "_USED", used)
    monkeypatch.setattr(interpreter, "_LAUNCH_SHAPE", shape)
    runs = [_outputs(program, sizes, seed) for sizes in SIZES for seed in range(2)]
    assert used.misses == 1 and shape.misses == len(program.kernel("k").body)
    again = parse_text(PROGRAM)  # an equal program, fresh objects: the same bits
    assert runs == [_outputs(again, sizes, seed) for sizes in SIZES for seed in range(2)]


def test_comparing_two_programs_at_two_sizes_asks_each_once(monkeypatch):
    ref, cand = parse_text(PROGRAM), parse_text(PROGRAM.replace("* 2.0", "* 2.0 + 0.0"))
    memos = {}
    for name in ("_WRITTEN", "_READ_FIRST", "_INDEX_EXTENTS"):
        memos[name] = NodeMemo(getattr(compare, name).fn)
        monkeypatch.setattr(compare, name, memos[name])
    interp = lambda p: lambda k, sizes, arrays: run_kernel(p, k, sizes, arrays)  # noqa: E731
    reps = [compare_kernels(ref, "k", "k", sizes, seed, runner_ref=interp(ref), runner_cand=interp(cand),
                            program_cand=cand) for sizes in SIZES for seed in range(2)]
    assert memos["_WRITTEN"].misses == 2 and memos["_READ_FIRST"].misses == 2
    assert memos["_INDEX_EXTENTS"].misses == 1  # the inputs are drawn for the reference program
    assert all(r.equal for r in reps)
    # the public functions still hand out fresh values the caller may change
    w = compare.written(ref, ["k"])
    w.append("x")
    assert compare.written(ref, ["k"]) == ["c", "s"]
    assert compare.read_before_written(ref, ["k"]) == {"a", "ix"}
    ext = compare.index_extents(ref, ["k"])
    assert set(ext) == {"ix"} and len(ext["ix"]) == 1
    ext["ix"].append("M")
    assert len(compare.index_extents(ref, ["k"])["ix"]) == 1
    assert np.all(random_inputs(ref, ["k"], SIZES[0], 0)["ix"] < SIZES[0]["N"])
