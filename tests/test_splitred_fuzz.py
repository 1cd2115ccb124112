"""Hypothesis: split_reduction on generated reductions. Legal implies equal runs (tolerance:
the two passes regroup the sum); every refutation replays at its counterexample sizes."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verified_sched.oracle.compare import compare_kernels
from verified_sched.dsl import parse_text
from verified_sched.interp.interpreter import run_kernel
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json
from support.scheduling import scheduled

# name -> (params, tensors, loops, target index, term, reduction loop)
TEMPLATES = {
    "row": ("N, K", "tensor x[N, K] f32\ntensor s[N] f32", ["i in 0 .. N", "k in 0 .. K"], "i", "x[i, k]", "k"),
    "prod": ("N, K", "tensor x[N, K] f32\ntensor y[K] f32\ntensor s[N] f32", ["i in 0 .. N", "k in 0 .. K"], "i",
             "x[i, k] * y[k]", "k"),
    "mat": ("N, M, K", "tensor a[N, K] f32\ntensor b[K, M] f32\ntensor s[N, M] f32",
            ["i in 0 .. N", "j in 0 .. M", "k in 0 .. K"], "i, j", "a[i, k] * b[k, j]", "k"),
    "scalar": ("N, K", "tensor x[K] f32\ntensor s[N] f32", ["k in 0 .. K"], "0", "x[k]", "k"),
    "nopin": ("N, M, K", "tensor x[N, M, K] f32\ntensor s[N] f32", ["i in 0 .. N", "j in 0 .. M", "k in 0 .. K"],
              "i", "x[i, j, k]", "k"),
}


def source(name: str, op: str, blocks: int, parallel: bool, profile: str) -> str:
    params, tensors, loops, idx, term, red = TEMPLATES[name]
    cons = ", ".join(f"{p} >= 1" for p in params.split(", "))
    target = f"s[{idx}]"
    update = {"+": f"{target} += {term}", "*": f"{target} = {target} * ({term})",
              "max": f"{target} = max({target}, {term})", "min": f"{target} = min({target}, {term})"}[op]
    body = update
    for lp in reversed(loops):
        body = f"for {lp} {{\n{body}\n}}"
    sched = f"split_reduction {red} of s blocks={blocks} -> rb, ri, sp"
    if parallel:
        sched += "\nretype rb as block.x"
    return (f"profile {profile}\nparams {params} where {cons}\n{tensors}\nkernel r {{\n{body}\n}}\n"
            f"schedule r {{\n{sched}\n}}\n")


@settings(max_examples=30)
@given(name=st.sampled_from(sorted(TEMPLATES)), op=st.sampled_from(["+", "*", "max", "min"]),
       blocks=st.integers(1, 6), parallel=st.booleans(), profile=st.sampled_from(["default", "reproducible"]),
       sizes=st.tuples(st.integers(1, 7), st.integers(1, 5), st.integers(1, 11)))
def test_split_reduction_random(name, op, blocks, parallel, profile, sizes):
    p = parse_text(source(name, op, blocks, parallel, profile))
    rep = file_report_json(verify_program(p), "f")
    obls = rep["obligations"]
    assert not [o for o in obls if o["status"] == "unknown"], obls
    refuted = [o for o in obls if o["status"] == "refuted"]
    if rep["verdict"] == "legal":
        assert name != "nopin"
        assert not (profile == "reproducible" and op in "+*")
        env = dict(zip([x.strip() for x in TEMPLATES[name][0].split(",")], sizes))
        after = scheduled(p)
        cmp = compare_kernels(p, "r", "r", env, seed=blocks, program_cand=after, rtol=1e-4, atol=1e-6,
                              runner_ref=lambda k, s, a: run_kernel(p, k, s, a),
                              runner_cand=lambda k, s, a: run_kernel(after, k, s, a))
        assert cmp.equal and not cmp.vacuous, cmp.text()
        return
    kinds = {o["kind"] for o in refuted}
    assert kinds <= {"injective_partials", "equivalence", "reassociation"}, refuted
    assert ("equivalence" in kinds) <= (name == "nopin")  # the shared partial cell loses terms
    for o in refuted:
        if o["kind"] == "equivalence":
            continue
        cex = o["counterexample"]
        a, b = cex["instances"]
        if o["kind"] == "injective_partials":
            # replay: two iterations of the enclosing loops share the partial cell sp[rb, i]
            assert name == "nopin" and a["at"]["i"] == b["at"]["i"] and a["at"]["j"] != b["at"]["j"]
            assert a["at"]["rb"] == b["at"]["rb"]
        else:
            # replay: two original terms of one target cell, regrouped under reproducible
            assert profile == "reproducible" and op in "+*"
            assert a["writes"] == b["writes"] and a["at"] != b["at"]
            assert cex["params"]["K"] >= 2
