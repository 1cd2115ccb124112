"""Hypothesis: random split factors, retypes and stage options over a row-sum family (GPU,
extents not multiples of the tiles: edge guards) and a CPU packing family. Whenever verify says
legal, the staged kernel runs equal to the unscheduled one (emulated / C); staging never
leaves an obligation unknown here."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from codegen.build import load_c
from codegen.emulate import load_emulated
from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

from test_stage_support import scheduled

FAM = """
params N, K where N >= 1, K >= 1
tensor x[N, K] f32
tensor y[N] f32
kernel rowsum {
  zero y
  for i in 0 .. N { for k in 0 .. K { y[i] += x[i, k] } }
}
schedule rowsum {
  split i by FI -> bi, ii
  split k by FK -> ko, ki
  interchange ii, ko
  retype bi as block.x
  RETYPE
  stage x over ii, ki -> x_tile OPTS
}
"""
SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check(p, kernel, sizes_list, runner_for):
    (report,) = verify_program(p, timeout=60.0)
    assert report.verdict != "unknown", [o.to_json() for o in report.obligations if o.status == "unknown"]
    if report.verdict != "legal":
        return report.verdict
    q = scheduled(p, kernel)
    run = runner_for(q)
    for sizes in sizes_list:
        for seed in range(2):
            r = compare_kernels(p, kernel, kernel, sizes, seed=seed, runner_ref=load_c(p).run,
                                runner_cand=lambda k, s, a, sd=seed: run(k, s, a, sd), program_cand=q)
            assert r.ok, r.text()
    return "legal"


@SETTINGS
@given(fi=st.sampled_from([2, 4, 8]), fk=st.sampled_from([2, 3, 4]), thread=st.booleans(),
       opts=st.sampled_from(["shared", "shared pad_stride=3", "", "prec=f64"]),
       n=st.integers(1, 9), k=st.integers(1, 9))
def test_gpu_rowsum_stages(fi, fk, thread, opts, n, k):
    src = FAM.replace("FI", str(fi)).replace("FK", str(fk)).replace("OPTS", opts)
    src = src.replace("RETYPE", "retype ii as thread.x" if thread else "")
    p = parse_text(src)

    def emulated(q):
        mod = load_emulated(q, detect_races=True)
        return lambda kk, s, a, sd: mod.run(kk, s, a, seed=sd)
    verdict = _check(p, "rowsum", [{"N": n, "K": k}, {"N": fi + 1, "K": 2 * fk}], emulated)
    if "shared" in opts or not thread:
        assert verdict == "legal"


CPU = """
params N, M, K where N >= 1, M >= 1, K >= 1
tensor a[N, K] f16 constant
tensor b[K, M] f32
tensor c[N, M] f32
kernel mm {
  zero c
  for i in 0 .. N { for j in 0 .. M { for k in 0 .. K { c[i, j] += a[i, k] * b[k, j] } } }
}
schedule mm {
  split k by FK -> ko, ki
  split j by FJ -> jo, ji
  interchange ji, ko
  STAGES
}
"""


@SETTINGS
@given(fk=st.sampled_from([1, 2, 3, 4]), fj=st.sampled_from([2, 4, 8]), bprec=st.sampled_from(["", " prec=f64"]),
       hoist=st.booleans(), n=st.integers(1, 5), m=st.integers(1, 9), k=st.integers(1, 9))
def test_cpu_packing_stages(fk, fj, bprec, hoist, n, m, k):
    stages = f"stage b over ki, ji -> b_pack{bprec}"
    if hoist:
        stages += "\n  stage a over ki -> a_pack hoisted prec=f32"
    p = parse_text(CPU.replace("FK", str(fk)).replace("FJ", str(fj)).replace("STAGES", stages))
    verdict = _check(p, "mm", [{"N": n, "M": m, "K": k}], lambda q: (lambda kk, s, a, sd, r=load_c(q).run: r(kk, s, a)))
    assert verdict == "legal"
