"""Kernels and helpers shared by the test_stage_* files (no tests here)."""
from __future__ import annotations

from pathlib import Path

from verified_sched.dsl import parse_file, parse_text
from verified_sched.verify.driver import verify_program
from support.scheduling import scheduled  # noqa: F401 (re-exported: test_race_leader, test_stage_fuzz)

CASES = Path(__file__).resolve().parent / "cases"

ROWSUM = """
params T, K where T >= 1, K >= 1
tensor x[32 * T, 8 * K] f32
tensor y[32 * T] f32
kernel rowsum {
  zero y
  for i in 0 .. 32 * T { for k in 0 .. 8 * K { y[i] += x[i, k] } }
}
schedule rowsum {
  split i by 32 -> bi, ii
  split k by 8 -> ko, ki
  interchange ii, ko
  retype bi as block.x
  stage x over ii, ki -> x_tile shared OPTS
}
"""

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
  split k by 4 -> ko, ki
  split j by 8 -> jo, ji
  interchange ji, ko
  STAGES
}
"""
CPU_STAGES = "stage b over ki, ji -> b_pack prec=f64\n  stage a over ki -> a_pack prec=f32 hoisted"


def case(name: str):
    return parse_file(str(CASES / f"{name}.vs"))


def rowsum(opts: str = ""):
    return parse_text(ROWSUM.replace("OPTS", opts))


def cpu(stages: str = CPU_STAGES):
    return parse_text(CPU.replace("STAGES", stages))


def stage_obligations(program):
    """(verdict, obligations of the stage ops) of the program's only kernel."""
    (report,) = verify_program(program, timeout=60.0)  # generous: CI machines are shared
    obs = [o for o in report.obligations if o.op.startswith("stage")]
    return report.verdict, obs, report

# lane-aware staging: the compute runs in a thread.x loop over columns; `a` is staged by a
# fresh cooperative lane loop (tile loops serial), `b` by a fresh thread.x copy loop
LANES = """
params TN, TM, TK where TN >= 1, TM >= 1, TK >= 1
tensor a[16 * TN, 16 * TK] f32
tensor b[16 * TK, 16 * TM] f32
tensor c[16 * TN, 16 * TM] f32
kernel matmul {
  zero c
  for i in 0 .. 16 * TN { for j in 0 .. 16 * TM { for k in 0 .. 16 * TK { c[i, j] += a[i, k] * b[k, j] } } }
}
schedule matmul {
  split i by 16 -> bi, ii
  split j by 16 -> bj, tj
  split k by 16 -> ko, ki
  interchange ii, bj
  interchange tj, ko
  interchange ii, ko
  interchange ii, tj
  retype bi as block.y
  retype bj as block.x
  retype tj as thread.x
  stage a over ii, ki -> a_tile shared OPTS
  stage b over ki, tj -> b_tile shared
}
"""


def lanes(opts: str = "cooperative=16"):
    return parse_text(LANES.replace("OPTS", opts))

# no anchor (no outer-part symbol, no reused thread axis): the load nest goes in front of the
# outermost tile loop, under the enclosing thread loop's representative thread
BROADCAST = """
params B where B >= 1
tensor x[8] f32
tensor y[B, 32] f32
kernel bc {
  for b in 0 .. B : block.x { for t in 0 .. 32 : thread.x { for k in 0 .. 8 { y[b, t] += x[k] } } }
}
schedule bc { stage x over k -> xt shared }
"""


def broadcast():
    return parse_text(BROADCAST)
