"""Counterexamples replay: the sizes of a refuted coverage or dependence make the kernels
before and after the op differ on random inputs (interpreter), an in_bounds cell lies outside
storage, and a refuted claim's cell differs between the two kernels."""
from __future__ import annotations

import pytest

from verified_sched.dsl import parse_file
from verified_sched.ops import apply_op
from verified_sched.analysis.sizes import eval_int
from verified_sched.verify.driver import verify_program
from test_ops_support import logical, run_interp


def refuted(path, kind):
    program = parse_file(path)
    for rep in verify_program(program):
        for o in rep.obligations:
            if o.status == "refuted" and o.kind == kind:
                return program, rep, o
    raise AssertionError(f"no refuted {kind}")


def steps(program, kernel, upto):
    cur, out = program, [program]
    for op in program.schedule_for(kernel).ops[:upto]:
        cur = apply_op(cur, kernel, op)
        out.append(cur)
    return out


def outputs(program, kernel, sizes, seed=0):
    arrays = run_interp(program, kernel, sizes, seed)
    return {n: logical(program, n, a, sizes) for n, a in arrays.items()}


@pytest.mark.parametrize("name,kind", [("rowsum_shift_inward", "coverage"),
                                       ("stencil_interchange_illegal", "dependence"),
                                       ("sum_interchange_reproducible", "reassociation")])
def test_coverage_and_dependence_counterexamples_replay(cases_dir, name, kind):
    program, rep, o = refuted(cases_dir / f"{name}.vs", kind)
    sizes = o.counterexample.sizes
    before, after = steps(program, rep.kernel, o.op_index)[-2:]
    a, b = outputs(before, rep.kernel, sizes), outputs(after, rep.kernel, sizes)
    cells = o.counterexample.to_json()["cells"]
    assert cells
    if kind == "reassociation":
        # a reordered sum: the same terms, so only rounding may differ; the cell is named
        assert all(c["tensor"] in a for c in cells)
        return
    assert any(a[n].tobytes() != b[n].tobytes() for n in a), "kernels agree at the counterexample's sizes"


@pytest.mark.parametrize("name", ["matmul_round_up_oob", "relu_shift_inward_small"])
def test_in_bounds_counterexample_leaves_storage(cases_dir, name):
    program, rep, o = refuted(cases_dir / f"{name}.vs", "in_bounds")
    sizes = o.counterexample.sizes
    cell = o.counterexample.to_json()["cells"][0]
    dims = [eval_int(d, sizes) for d in program.tensor(cell["tensor"]).storage_dims()]
    assert any(not 0 <= c < d for c, d in zip(cell["index"], dims))
    inst = o.counterexample.to_json()["instances"][0]
    assert inst["writes"]["index"] is not None and inst["at"]


def test_claim_counterexample_cell_differs(cases_dir):
    program, rep, o = refuted(cases_dir / "claim_matmul_off_by_one.vs", "equivalence")
    sizes = o.counterexample.sizes
    cell = o.counterexample.to_json()["cells"][0]
    a, b = outputs(program, "full", sizes), outputs(program, "short", sizes)
    t = cell["tensor"]
    assert a[t][tuple(cell["index"])] != b[t][tuple(cell["index"])]
    assert o.counterexample.to_json()["term"] and o.counterexample.to_json()["missing_in"] == "short"
