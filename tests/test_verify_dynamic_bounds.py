"""in_bounds of dynamic indices: decided by z3 with the index reads as symbols, bounded by the
enclosing guards and the tensor's declared `inputs` range; never proved without them."""
import pytest

from verified_sched.dsl import parse_text
from verified_sched.verify.driver import verify_program
from verified_sched.verify.kernel_report import file_report_json

SRC = """params N, V, D where N >= 1, V >= {vmin}, D >= 1
{inputs}
tensor ids[N] i32
tensor g[N, D] f32
tensor emb[V, D] f32
kernel eb {{
  zero emb
  for n in 0 .. N {{
    for d in 0 .. D {{
      if {guard} {{
        emb[ids[n], d] += g[n, d]
      }}
    }}
  }}
}}
"""


def in_bounds_status(guard, inputs="", vmin=1):
    rep = file_report_json(verify_program(parse_text(SRC.format(guard=guard, inputs=inputs, vmin=vmin))), "f")
    (o,) = [o for o in rep["obligations"] if o["kind"] == "in_bounds"]
    return o["status"]


@pytest.mark.parametrize("guard, inputs, vmin, status", [
    ("ids[n] >= 0 and ids[n] < V", "", 1, "proved"),
    ("ids[n] < V and 0 <= ids[n]", "", 1, "proved"),
    ("ids[n] >= 0", "", 1, "unknown"),                      # no upper bound: data could break it
    ("ids[n] < V", "", 1, "unknown"),
    ("d >= 0", "inputs ids int in [0, 7]", 8, "proved"),     # the declared range bounds it
    ("d >= 0", "inputs ids int in [0, 8]", 8, "unknown"),    # 8 == V is out of range at V = 8
    ("ids[n] >= 0 and ids[n] <= V", "", 1, "unknown"),       # off by one
])
def test_dynamic_index_bounded_by_guards_and_declared_ranges(guard, inputs, vmin, status):
    assert in_bounds_status(guard, inputs, vmin) == status


def test_a_written_index_tensor_is_not_identified_across_reads():
    """ids is rewritten before the scatter: the guard's read proves nothing about the index's."""
    src = SRC.format(guard="ids[n] >= 0 and ids[n] < V", inputs="", vmin=1).replace(
        "    for d in 0 .. D {\n", "    ids[n] = ids[n] + 1\n    for d in 0 .. D {\n", 1)
    rep = file_report_json(verify_program(parse_text(src)), "f")
    assert [o["status"] for o in rep["obligations"] if o["kind"] == "in_bounds"] == ["unknown"]


def test_guarded_embedding_backward_split_reduction_is_legal(repo_root):
    from verified_sched.dsl import parse_file

    path = repo_root / "examples" / "embedding_backward.vs"
    rep = file_report_json(verify_program(parse_file(path)), str(path))
    assert rep["verdict"] == "legal" and rep["reassociates"]
    assert any(o["kind"] == "injective_partials" and o["status"] == "proved" for o in rep["obligations"])
