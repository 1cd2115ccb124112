"""privatize: corpus verdicts, the documented guard classes and beyond them,
preconditions, and runs of legal results against the unscheduled kernel (C and emulation,
poisoned outputs); refutations replay in the emulator's race detector (the goals themselves:
test_privatize_proofs.py)."""
from __future__ import annotations

import re

import pytest

from codegen.build import load_c
from codegen.emulate import RaceError, load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_file, parse_text
from verified_sched.core.errors import ScheduleError
from verified_sched.interp.interpreter import run_kernel
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json
from support.scheduling import scheduled


def report(program):
    return file_report_json(verify_program(program), "t")


def refuted(rep, kinds):
    return [o for o in rep["obligations"] if o["status"] == "refuted" and o["kind"] in kinds]


def assert_runs_equal(program, kernel, sizes, seed=1, allow_vacuous=False):
    """The scheduled kernel equals the unscheduled one in C and in the emulator (races
    detected) and in the interpreter, bitwise, on poisoned outputs; never vacuously (unless allowed: then the
    vacuity is returned for the caller to aggregate)."""
    vacuous = False
    after = scheduled(program, kernel)
    interp = lambda k, s, a: run_kernel(after, k, s, a, seed=seed)  # noqa: E731
    for ref, cand in ((load_c(program).run, load_c(after).run),
                      (load_emulated(program, seed).run, load_emulated(after, seed, detect_races=True).run),
                      (load_c(program).run, interp)):
        rep = compare_kernels(program, kernel, kernel, sizes, seed, runner_ref=ref, runner_cand=cand,
                              program_cand=after)
        assert rep.equal, rep.text()
        assert allow_vacuous or not rep.vacuous
        vacuous = vacuous or rep.vacuous
    return vacuous


def replays(program, kernel, sizes, seed=1) -> bool:
    """The refutation shows at `sizes`: a race the emulator detects, or a different output."""
    after = scheduled(program, kernel)
    try:
        rep = compare_kernels(program, kernel, kernel, sizes, seed, runner_ref=load_emulated(program, seed).run,
                              runner_cand=load_emulated(after, seed, detect_races=True).run, program_cand=after)
    except RaceError:
        return True
    return not rep.equal


# ---------------------------------------------------------------- corpus


def test_privatize_matmul_is_legal_and_runs_equal(cases_dir):
    program = parse_file(cases_dir / "privatize_matmul.vs")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    kinds = {o["kind"] for o in rep["obligations"] if o["op"].startswith("privatize")}
    assert {"coverage", "dataflow", "privatize_condition", "race", "in_bounds", "dependence"} <= kinds
    for sizes in ({"N": 1, "M": 1, "K": 1}, {"N": 3, "M": 13, "K": 5}, {"N": 2, "M": 16, "K": 3}):
        assert_runs_equal(program, "matmul", sizes)


def test_privatize_matmul_shape(cases_dir):
    after = scheduled(parse_file(cases_dir / "privatize_matmul.vs"), "matmul")
    acc = after.tensor("c_acc")
    assert acc.memory == "local" and acc.prec == "f32" and len(acc.dims) == 1
    from verified_sched.core.printer import print_kernel
    text = print_kernel(after.kernel("matmul"))
    assert re.search(r"c_acc\[ji_ld\] = c\[i, 8 \* jo \+ ji_ld\]", text)
    assert re.search(r"c\[i, 8 \* jo \+ ji_st\] = c_acc\[ji_st\]", text)
    assert text.count("8 * jo + ji_ld < M") == 1 and text.count("8 * jo + ji_st < M") == 1  # edge guard


def test_privatize_lane_guard_is_refuted_with_threads_and_cell(cases_dir):
    program = parse_file(cases_dir / "privatize_lane_guard.vs")
    rep = report(program)
    assert rep["verdict"] == "illegal"
    [cond] = refuted(rep, ("privatize_condition",))
    cex = cond["counterexample"]
    assert cex["params"] and cex["cells"] == [{"tensor": "s", "index": [0]}]
    assert len(cex["instances"]) == 2 and len(cex["threads"]) == 2
    t1, t2 = (th["t"] for th in cex["threads"])
    assert t1 != t2 and 0 in (t1, t2)  # lane 0 updates; another lane stores back a stale copy
    assert refuted(rep, ("race",))
    assert replays(program, "lane0", cex["params"])


# ---------------------------------------------------------------- guard classes

HEADER = "params K where K >= 1\ntensor x[K] f32\n"


def lane_program(tensor_decl: str, body: str) -> object:
    return parse_text(HEADER + tensor_decl + "\nkernel g {\n  zero s\n  for t in 0 .. 32 : thread.x {\n"
                      "    for k in 0 .. K {\n" + body + "\n    }\n  }\n}\n"
                      "schedule g {\n  privatize s over k -> s_acc\n}\n")


def test_invariant_guard_gates_the_transfers():
    program = lane_program("tensor s[1] f32", "      if t == 0 {\n        s[0] += x[k]\n      }")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    from verified_sched.core.printer import print_kernel
    text = print_kernel(scheduled(program, "g").kernel("g"))
    assert text.count("if t == 0") == 3  # init-load, update, store-back
    assert_runs_equal(program, "g", {"K": 5})


def test_invariant_conjunct_beside_a_data_test_gates_the_transfers():
    program = lane_program("tensor s[1] f32", "      if x[k] > 0 and t == 0 {\n        s[0] += x[k]\n      }")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    assert_runs_equal(program, "g", {"K": 7})


def test_hardware_mixing_guard_outside_the_classes_is_legal_when_safe():
    # each lane owns its cell: a lane skipping updates stores back its own untouched copy
    program = lane_program("tensor s[32] f32", "      if t + k < 20 {\n        s[t] += x[k]\n      }")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    assert_runs_equal(program, "g", {"K": 25})


def test_varying_guard_without_hardware_symbols_stays_on_the_update():
    program = lane_program("tensor s[32] f32", "      if k < K - 1 {\n        s[t] = max(s[t], x[k])\n      }")
    rep = report(program)
    assert rep["verdict"] == "legal"
    from verified_sched.core.printer import print_kernel
    assert print_kernel(scheduled(program, "g").kernel("g")).count("k < K - 1") == 1
    assert_runs_equal(program, "g", {"K": 4})


def test_data_dependent_guard_sequential_is_legal():
    program = parse_text(HEADER + "tensor s[1] f32\nkernel g {\n  zero s\n  for k in 0 .. K {\n"
                         "    if x[k] > 0 {\n      s[0] += x[k]\n    }\n  }\n}\n"
                         "schedule g {\n  privatize s over k -> s_acc\n}\n")
    assert report(program)["verdict"] == "legal"
    assert_runs_equal(program, "g", {"K": 9})


def test_shared_cell_with_data_guard_across_threads_is_not_legal():
    program = lane_program("tensor s[1] f32", "      if x[k] > 100 {\n        s[0] += x[k]\n      }")
    rep = report(program)
    assert rep["verdict"] != "legal"  # the kernel races already; never proved


def test_two_inner_loops_fold_into_one_tile_axis():
    program = parse_text("params N, K where N >= 1, K >= 1\ntensor x[K, 4, 3] f32\ntensor y[N, 6] f32\n"
                         "kernel g {\n  for n in 0 .. N {\n    for k in 0 .. K {\n      for a in 0 .. 4 {\n"
                         "        for b in 0 .. 3 {\n          y[n, a + b] += x[k, a, b]\n        }\n      }\n"
                         "    }\n  }\n}\nschedule g {\n  privatize y over k -> yt\n}\n")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    after = scheduled(program, "g")
    assert [str(getattr(d, "value", d)) for d in after.tensor("yt").dims] == ["6"]
    assert_runs_equal(program, "g", {"N": 2, "K": 3})


# ---------------------------------------------------------------- preconditions

MATMUL = """params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32
kernel mm {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        BODY
      }
    }
  }
}
"""


@pytest.mark.parametrize("body,op,message", [
    ("c[i, j] += a[i, k] * b[k, j]", "privatize c over q -> acc", "over 'q': no loop named 'q'"),
    ("c[i, j] += a[i, k] * b[k, j]", "privatize z over k -> acc", "tensor 'z': no tensor"),
    ("c[i, j] += a[i, k] * b[k, j]", "privatize c over k -> a", "accumulator 'a': a tensor of that name"),
    ("c[i, j] += a[i, k] * b[k, j]", "privatize c over k -> j", "accumulator 'j'"),
    ("c[i, j] += a[i, k] * b[k, j]", "privatize a over k -> acc", "mentions 'k' itself"),
    ("c[i, j] += c[i, 0] * b[k, j]", "privatize c over k -> acc", "two index vectors"),
    ("c[i, j] += a[i, k] * b[k, j]", "privatize c over i -> acc", "mentions 'i' itself"),
    ("c[i, j] += a[i, k]\n        c[0, j] += 1", "privatize c over k -> acc", "two index vectors"),
])
def test_preconditions(body, op, message):
    program = parse_text(MATMUL.replace("BODY", body) + f"schedule mm {{\n  {op}\n}}\n")
    with pytest.raises(ScheduleError, match=re.escape(message)) as e:
        scheduled(program, "mm")
    assert e.value.loc is not None and "privatize" in e.value.message


def test_read_only_tile_is_legal():
    program = parse_text(MATMUL.replace("BODY", "c[i, j] += a[i, k] * b[k, j]")
                         + "schedule mm {\n  privatize b over i -> bt\n}\n")
    rep = report(program)
    assert rep["verdict"] == "legal", [o["message"] for o in rep["obligations"] if o["status"] != "proved"]
    assert_runs_equal(program, "mm", {"N": 2, "M": 3, "K": 4})


def test_precondition_parallel_loop_inside():
    program = parse_text("params N where N >= 1\ntensor x[N, 8] f32\ntensor s[8] f32\nkernel g {\n"
                         "  for k in 0 .. N {\n    for v in 0 .. 8 : vectorized {\n      s[v] += x[k, v]\n"
                         "    }\n  }\n}\nschedule g {\n  privatize s over k -> st\n}\n")
    with pytest.raises(ScheduleError, match="vectorized loop 'v'"):
        scheduled(program, "g")


def test_vectorized_lanes_sharing_the_accumulator_are_refuted():
    # lanes of a vectorized loop enclosing `over` would share one accumulator
    program = parse_text("params N where N >= 1\ntensor x[N, 8] f32\ntensor s[1] f32\nkernel g {\n"
                         "  for v in 0 .. 8 : vectorized {\n    for k in 0 .. N {\n"
                         "      if v + k < 1 {\n        s[0] += x[k, v]\n      }\n    }\n  }\n}\n"
                         "schedule g {\n  privatize s over k -> st\n}\n")
    rep = report(program)
    assert rep["verdict"] == "illegal"
    assert refuted(rep, ("privatize_condition", "race"))
