"""`claim scheduled == original` for a staged tile packed in a wider precision (issue 20: "a
hoisted constant stage" with `prec=f64` packing stayed unknown: "several precisions"). A plain
or widening-cast copy of a value the compute type holds exactly into a wider tensor keeps it
exactly, there and back (claims_terms.compute_type, valueexpr's widening casts); a narrowing
store still rounds and is refuted."""
from __future__ import annotations

from support.claims_corpus import scheduled_claim
from test_claims_value import claim_reports, replays
from test_stage_support import CPU, CPU_STAGES
from verified_sched.dsl import parse_text

HEAD = ("params N where N >= 1\ntensor x[N] f32\ntensor x64[N] f64\ntensor t[N] {p} local\n"
        "tensor y[N] f32\n")


def claim(p: str, first: str, second: str = "for i in 0 .. N { y[i] = x[i] * 2.0 }"):
    text = HEAD.format(p=p) + f"kernel first {{ {first} }}\nkernel second {{ {second} }}\nclaim first == second\n"
    return text, claim_reports(text)[0]


def test_copy_through_a_wider_tile_is_proved():
    for copy in ("t[i] = f64(x[i])", "t[i] = x[i]"):
        _, rep = claim("f64", f"for i in 0 .. N {{ {copy} }}\n for i in 0 .. N {{ y[i] = t[i] * 2.0 }}")
        assert rep.verdict == "legal", (copy, [(o.kind, o.message) for o in rep.obligations])


def test_copy_through_a_narrower_tile_is_refuted_and_replays():
    text, rep = claim("f16", "for i in 0 .. N { t[i] = x[i] }\n for i in 0 .. N { y[i] = t[i] * 2.0 }")
    assert rep.verdict == "illegal"
    assert replays(text, rep)


def test_wide_arithmetic_or_a_wide_source_is_not_a_copy():
    """An f64 value (an f64 input, a constant f32 does not hold) is not exact in f32: several
    compute types, not decided by value."""
    for first, second in (("for i in 0 .. N { t[i] = x64[i] }\n for i in 0 .. N { y[i] = t[i] * 2.0 }",
                           "for i in 0 .. N { y[i] = x64[i] * 2.0 }"),
                          ("for i in 0 .. N { t[i] = 0.1 }\n for i in 0 .. N { y[i] = t[i] * x[i] }",
                           "for i in 0 .. N { y[i] = 0.1 * x[i] }")):
        _, rep = claim("f64", first, second)
        assert rep.verdict != "legal"
        assert "several precisions" in rep.obligations[0].message


def test_packed_f64_stage_with_hoisted_f16_constant_is_proved():
    """test_stage_support's CPU packing: b packed in f64, the f16 constant a hoisted into f32."""
    program = parse_text(CPU.replace("STAGES", CPU_STAGES))
    (rep,) = claim_reports(scheduled_claim(program))
    assert rep.verdict == "legal", [(o.kind, o.message) for o in rep.obligations]
