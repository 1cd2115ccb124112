"""Claims decided by value (verified_sched/values/claims_value.py) and the value-based dependence fixes.

Item 0: for every legal kernel of the corpus (tests/cases and examples), the fully scheduled program plus the original kernel
under another name and `claim scheduled == original` must be proved, and mutants of the
scheduled kernel whose results differ refuted with a counterexample that replays.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from verified_sched.oracle.compare import compare_kernels
from support.claims_corpus import claim_reports, legal_corpus, own_reports, scheduled_claim
from verified_sched.core import ir
from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program

CASES = Path(__file__).resolve().parent / "cases"
# every legal kernel of tests/cases and examples (legal by its golden verify report):
# `claim scheduled == original` is proved for each (tests/support/claims_corpus.py, which also
# runs as a script and reports proved / unknown / refuted per file)
LEGAL = [f"{key}/{stem}" for key, stem in legal_corpus()]
# Not proved, with the reason (never proved wrongly): none.
NOT_PROVED: dict = {}


def test_the_legal_corpus_is_collected():
    assert len(LEGAL) >= 60 and any(n.startswith("examples/") for n in LEGAL)


@pytest.mark.parametrize("name", LEGAL)
def test_scheduled_equals_original_by_value(name):
    own = own_reports(*name.split("/"))
    assert own
    for r in own:  # every one, split_reduction (scratch partials) and winograd_odd included
        assert r.verdict == NOT_PROVED.get(name, "legal"), [(o.kind, o.status, o.message) for o in r.obligations]


def replays(text: str, report, rtol=None) -> bool:
    """At the counterexample's sizes the two kernels of the claim differ when run."""
    program = parse_text(text)
    cex = next(o.counterexample.to_json() for o in report.obligations if o.status == "refuted")
    a, b = report.kernel.split(" == ")
    runner = None
    if any(isinstance(n, ir.Barrier) for k in program.kernels for n in ir.walk(k.body)):
        from codegen.emulate import load_emulated  # threads phase by phase between barriers
        runner = load_emulated(program, seed=0).run
    rep = compare_kernels(program, b, a, cex["params"], cex.get("seed", 0), cex.get("inputs", "random"),
                          rtol=rtol, atol=rtol or 0.0, runner_ref=runner, runner_cand=runner,
                          values=cex.get("values"))
    return not rep.ok


MUTANTS = [
    # (case, text whose first occurrence is in the scheduled kernel, replacement)
    ("privatize_matmul", "c[i, 8 * jo + ji_st] = c_acc[ji_st]", "c[i, 8 * jo + ji_st] = 2.0 * c_acc[ji_st]"),
    ("fuse_epilogue", "+ bias[j]", "+ bias[0]"),
    ("expand_zero_split", "c[zi, 8 * zjo + zji] = 0.0", "c[zi, 8 * zjo + zji] = 1.0"),
    ("stencil_interchange_legal", "0.5 * A[i - 1, j]", "0.25 * A[i - 1, j]"),
    ("relu_shift_inward", "y[min(8 * io, N - 8) + ii] = max(x[min(8 * io, N - 8) + ii], 0)",
     "y[min(8 * io, N - 8) + ii] = max(x[min(8 * io, N - 8)], 0)"),
    ("concat_partition", "y[i1] = b[i1 - N]", "y[i1] = a[i1 - N]"),
    ("stage_shared_matmul", "a[16 * bi + ti, 16 * ko + ki_a_tile]", "a[16 * bi + ti, ki_a_tile]"),
    ("stage_swizzle_matmul", "c[16 * bi + ti, 16 * bj + tj] +=", "c[16 * bi + tj, 16 * bj + ti] +="),
    ("unroll_materialize", None, None),  # drop one unrolled accumulation (below)
]


@pytest.mark.parametrize("case, old, new", MUTANTS)
def test_mutated_scheduled_kernels_are_refuted_and_replay(case, old, new):
    text = scheduled_claim(CASES / f"{case}.vs")
    if old is None:
        lines = text.splitlines()
        k = next(n for n, line in enumerate(lines) if "+=" in line)
        text = "\n".join(lines[:k] + lines[k + 1:]) + "\n"
    else:
        assert old in text
        text = text.replace(old, new, 1)
    report = next(r for r in claim_reports(text) if r.kernel.endswith("_original"))
    assert report.verdict == "illegal", [(o.kind, o.status, o.message) for o in report.obligations]
    assert replays(text, report)


HEAD = """params N where N >= 2
tensor a[N] f32
tensor b[N] f32
tensor w[N] f32
tensor c[N] f32
tensor y[N] f32
"""


def one_claim(body: str, profile: str = "default"):
    text = f"profile {profile}\n" + HEAD + body + "\nclaim first == second\n"
    return text, claim_reports(text)[0]


def test_same_stores_in_another_order_are_refuted_and_replay():
    """Item 1: the last writer differs (a multiset of stores would call these equal)."""
    text, rep = one_claim("kernel first { for i in 0 .. N { y[i] = a[i] }\n for i in 0 .. N { y[i] = b[i] } }\n"
                          "kernel second { for i in 0 .. N { y[i] = b[i] }\n for i in 0 .. N { y[i] = a[i] } }")
    assert rep.verdict == "illegal"
    cex = rep.obligations[0].counterexample.to_json()
    assert cex["cells"][0]["tensor"] == "y" and "N" in cex["params"]
    assert replays(text, rep)


def test_last_writer_inside_one_nest_is_compared():
    text, rep = one_claim("kernel first { for i in 0 .. N { for j in 0 .. 2 { y[i] = a[i] * (1.0 - j) + b[i] * j } } }\n"
                          "kernel second { for i in 0 .. N { for j in 0 .. 2 { y[i] = a[i] * j + b[i] * (1.0 - j) } } }")
    assert rep.verdict == "illegal"


def test_fma_is_not_a_rounded_product_plus_c():
    """Item 2: fma(a, b, c) against c + a*b: refused by reproducible, licensed (and said) by default."""
    body = ("kernel first { zero c\n for i in 0 .. N { for k in 0 .. N { c[i] = fma(a[k], b[i], c[i]) } } }\n"
            "kernel second { zero c\n for i in 0 .. N { for k in 0 .. N { c[i] += a[k] * b[i] } } }")
    _, rep = one_claim(body, "reproducible")
    assert rep.verdict == "illegal"
    assert [o.kind for o in rep.obligations if o.status == "refuted"] == ["reassociation"]
    _, rep = one_claim(body, "default")
    red = next(o for o in rep.obligations if o.kind == "reassociation")
    assert rep.verdict == "legal" and red.reassociates and "fma" in red.message


def test_fma_outside_a_reduction_is_refuted():
    text, rep = one_claim("kernel first { for i in 0 .. N { y[i] = fma(a[i], b[i], w[i]) } }\n"
                          "kernel second { for i in 0 .. N { y[i] = w[i] + a[i] * b[i] } }")
    assert rep.verdict == "illegal"
    assert rep.obligations[0].counterexample.to_json()["cells"][0]["tensor"] == "y"


@pytest.mark.parametrize("profile", ["default", "reproducible"])
def test_product_association_is_refuted(profile):
    text, rep = one_claim("kernel first { for i in 0 .. N { y[i] = a[i] * b[i] * w[i] } }\n"
                          "kernel second { for i in 0 .. N { y[i] = a[i] * (b[i] * w[i]) } }", profile)
    assert rep.verdict == "illegal"


def test_identical_trees_are_bitwise_equal_and_two_term_products_commute():
    _, rep = one_claim("kernel first { for i in 0 .. N { y[i] = a[i] * b[i] + w[i] } }\n"
                       "kernel second { for i in 0 .. N { y[i] = w[i] + b[i] * a[i] } }", "reproducible")
    assert rep.verdict == "legal"
    assert any("bitwise" in o.message for o in rep.obligations) and not rep.reassociates


def test_copies_and_transposes_are_seen_through():
    _, rep = one_claim("kernel first { for i in 0 .. N { c[N - 1 - i] = a[i] }\n"
                       " for i in 0 .. N { y[i] = c[N - 1 - i] * b[i] } }\n"
                       "kernel second { for i in 0 .. N { c[i] = a[N - 1 - i] }\n"
                       " for i in 0 .. N { y[i] = a[i] * b[i] } }")
    assert rep.verdict == "legal"


def test_two_accumulations_in_one_nest_are_one_sum_in_a_claim():
    """Item 8 (claims): s += a; s += b in one nest against two nests: one sum, reordered."""
    _, rep = one_claim("kernel first { zero y\n for i in 0 .. N { for k in 0 .. N { y[i] += a[k]\n y[i] += b[k] } } }\n"
                       "kernel second { zero y\n for i in 0 .. N { for k in 0 .. N { y[i] += a[k] } }\n"
                       " for i in 0 .. N { for k in 0 .. N { y[i] += b[k] } } }")
    assert rep.verdict == "legal" and rep.reassociates


def test_integer_sum_reordered_is_exact_in_a_claim():
    """Item 9 (claims): wrapping integer + is associative and commutative."""
    text = ("profile reproducible\nparams N where N >= 2\ntensor x[N, N] i32\ntensor s[N] i32\n"
            "kernel first { zero s\n for i in 0 .. N { for k in 0 .. N { s[i] += x[i, k] } } }\n"
            "kernel second { zero s\n for k in 0 .. N { for i in 0 .. N { s[i] += x[i, N - 1 - k] } } }\n"
            "claim first == second\n")
    rep = claim_reports(text)[0]
    assert rep.verdict == "legal" and not rep.reassociates


def test_data_dependent_control_is_unknown_never_proved():
    _, rep = one_claim("kernel first { for i in 0 .. N { if a[i] > 0 { y[i] = b[i] } } }\n"
                       "kernel second { for i in 0 .. N { if a[i] > 0 { y[i] = b[i] } } }")
    assert rep.verdict == "unknown"


# ---------------------------------------------------------------- dependence (items 7-10)


def verdict(text: str, profile=None):
    reps = verify_program(parse_text(text), profile=profile)
    return reps[-1]


def test_two_zero_statements_of_one_tensor_are_two_statements():
    """Item 7: a spurious WAW between the zero of one phase and the accumulation of another."""
    rep = verdict("params N where N >= 1\ntensor a[N] f32\ntensor b[N] f32\ntensor c[N] f32\n"
                  "tensor d[N] f32\ntensor e[N] f32\nkernel two_phases {\n zero c\n"
                  " for i in 0 .. N { c[i] += a[i] }\n for j in 0 .. N { d[j] = c[j] }\n zero c\n"
                  " for k in 0 .. N { c[k] += b[k] }\n for l in 0 .. N { e[l] = c[l] }\n}\n"
                  "schedule two_phases { split k by 4 -> ko, ki }\n")
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations if o.status != "proved"]


TWO_ACC = """params N, K where N >= 1, K >= 1
tensor a[N, K, K] f32
tensor b[N, K, K] f32
tensor s[N] f32
kernel two_sums {
  zero s
  for i in 0 .. N { for k1 in 0 .. K { for k2 in 0 .. K {
    s[i] += a[i, k1, k2]
    s[i] += b[i, k1, k2]
  } } }
}
schedule two_sums { interchange k1, k2 }
"""


def test_two_accumulations_into_one_cell_are_one_reduction():
    """Item 8: reordering them is a licensed reassociation, refused by reproducible."""
    rep = verdict(TWO_ACC)
    assert rep.verdict == "legal" and rep.reassociates
    rep = verdict(TWO_ACC, "reproducible")
    assert [o.kind for o in rep.obligations if o.status == "refuted"] == ["reassociation"]


def test_integer_reduction_reordered_is_exact_under_reproducible():
    """Item 9."""
    rep = verdict("profile reproducible\nparams N, K where N >= 1, K >= 1\ntensor x[N, K, K] i32\n"
                  "tensor s[N] i32\nkernel isum {\n zero s\n for i in 0 .. N { for k1 in 0 .. K {"
                  " for k2 in 0 .. K { s[i] += x[i, k1, k2] } } }\n}\nschedule isum { interchange k1, k2 }\n")
    assert rep.verdict == "legal" and not rep.reassociates


def test_overwritten_waw_pair_reversed_is_not_a_violation():
    """Item 10: the reversed pair's cell is overwritten later in both orders."""
    head = "params N where N >= 2\ntensor a[N, N] f32\ntensor b[2 * N] f32\ntensor c[2 * N] f32\n"
    dead = verdict(head + "kernel k {\n for i in 0 .. N { for j in 0 .. N { c[i + j] = a[i, j] } }\n"
                   " for x in 0 .. 2 * N { c[x] = b[x] }\n}\nschedule k { interchange i, j }\n")
    assert dead.verdict == "legal"
    live = verdict(head + "kernel k {\n for i in 0 .. N { for j in 0 .. N { c[i + j] = a[i, j] } }\n"
                   " for x in 0 .. N { c[x] = b[x] }\n}\nschedule k { interchange i, j }\n")
    assert live.verdict == "illegal"  # cells N .. 2N-2 keep the last S0 write: the order matters


def test_in_place_stencil_in_the_wrong_order_is_refuted_and_replays():
    """Item 1: the same stores, but a read sees the input instead of the updated cell."""
    text = ("params N, M where N >= 2, M >= 2\ntensor x[N, M] f32\ntensor A[N, M] f32\n"
            "kernel first { for i in 1 .. N { for j in 0 .. M - 1 { A[i, j] = 0.5 * A[i - 1, j + 1] + x[i, j] } } }\n"
            "kernel second { for j in 0 .. M - 1 { for i in 1 .. N { A[i, j] = 0.5 * A[i - 1, j + 1] + x[i, j] } } }\n"
            "claim first == second\n")
    rep = claim_reports(text)[0]
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_copy_through_narrower_tensor_is_refuted():
    """A store into an f16 tile rounds (issue 20): z3 models the rounding, so a value copied
    through it against the unrounded value is refuted, and the refutation replays."""
    text = ("params N where N >= 1\ntensor a[N] f32\ntensor t[N] f16\ntensor y[N] f32\n"
            "kernel first { for i in 0 .. N { t[i] = a[i] }\n for i in 0 .. N { y[i] = t[i] } }\n"
            "kernel second { for i in 0 .. N { t[i] = a[i] }\n for i in 0 .. N { y[i] = a[i] } }\n"
            "claim first == second\n")
    rep = claim_reports(text)[0]
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_copy_through_narrower_tensor_against_inline_cast_is_proved():
    """The same copy against `cast f16` written inline: equal bitwise, decided by z3."""
    text = ("params N where N >= 1\ntensor a[N] f32\ntensor t[N] f16\ntensor y[N] f32\n"
            "kernel first { for i in 0 .. N { t[i] = a[i] }\n for i in 0 .. N { y[i] = t[i] * 2.0 } }\n"
            "kernel second { for i in 0 .. N { t[i] = a[i] }\n for i in 0 .. N { y[i] = f16(a[i]) * 2.0 } }\n"
            "claim first == second\n")
    assert claim_reports(text)[0].verdict == "legal"


def test_winograd_claim_is_decided_by_the_op_proofs():
    """The Winograd-transformed kernel against the direct one: proved by the winograd op's own
    obligations under approximate (the profile that licenses it), unknown under default; a
    mutated transform is no longer the rewrite, so it is never proved."""
    text = scheduled_claim(CASES / "winograd_odd.vs")
    rep = next(r for r in claim_reports(text) if r.kernel.endswith("_original"))
    assert rep.verdict == "legal"
    kinds = {o.kind for o in rep.obligations}
    assert {"profile", "coverage", "in_bounds", "equivalence"} <= kinds
    rep = next(r for r in claim_reports(text.replace("profile approximate", "profile default"))
               if r.kernel.endswith("_original"))
    # unknown by the op's proofs, then refuted by a bitwise run: default does not license
    # Winograd's rounding (issue 20: an unknown claim is refuted by running)
    assert rep.verdict == "illegal"
    assert "approximate" in rep.obligations[0].message
    assert any(o.status == "refuted" and o.engine == "run" for o in rep.obligations)
    old = "d_wU[0, 3, f_u, c_u] = b[f_u, 0, 2, c_u]"
    assert old in text
    rep = next(r for r in claim_reports(text.replace(old, "d_wU[0, 3, f_u, c_u] = b[f_u, 0, 1, c_u]"))
               if r.kernel.endswith("_original"))
    assert rep.verdict != "legal"
