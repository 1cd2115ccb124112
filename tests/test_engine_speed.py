"""The speed work on the isl engine keeps every relation the same (issue 12, throughput):

- valueflow.py compresses the schedule vectors (position blocks ranked, constant columns
  dropped): the flow is the one of the uncompressed 2d+1 vectors;
- order.py builds `before` per statement pair: `before_on` gives exactly `before`'s pieces
  of the pairs asked for, so intersecting or subtracting it equals doing so with `before`;
- memo.py memoizes a model's access and provenance maps per argument values: the same maps,
  and accesses that differ in what the maps depend on do not share an answer.
"""
from __future__ import annotations

import islpy as isl
import pytest

from polyhedral.model import Access, KernelModel
from polyhedral.order import before_on
from polyhedral.valueflow import THREADS, ValueFlow
from verified_sched.dsl.parser import parse_text

# a fuzz-drawn kernel (reversed twice) whose padded 2d+1 vectors had 27 dimensions
DEEP = """
params N, M where N >= 2, M >= 1

tensor x[N + 2 * M + 4, 2 * M + 3, 2 * M + 4] f32 pad(0, 0, 1)

kernel kern0 {
  zero x
  for i in 0 .. M + 2 {
    x[i + N, M + 1 - i, min(i, i)] += 3 * i
    if i + i == M or i <= 0 {
      if i < N and i % 2 <= 3 {
        x[floor(i / 2), i + M, floor(i / 2)] = min(max(4, x[min(i, i), max(i - 2, 0), i]), -2)
        x[0, 1, max(i - 1, 0)] = 2.0
      } else {
        x[i % 2, min(i, i), 2 * i] = min(x[i % 2, min(i, i), 2 * i], 1)
      }
      x[i + M, 1, i + 2] = i + -3 / 2.0
    } else {
      x[min(i, i), M + 1 - i, 1] = bf16(x[i % 4, i + i, M + 1 - i])
    }
  }
  x[2, 2, 0] = max(x[2, 2, 0], x[2, 2, 1])
}
"""

TILED = """
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32

kernel mm {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
  for i in 0 .. N {
    c[i, 0] = c[i, 0] + 1
  }
}
"""


class Uncompressed(ValueFlow):
    """The 2d+1 vectors as they were before the compression (the reference)."""

    @property
    def n_dims(self) -> int:
        return (self.depth + 1) * self.width + self.depth + len(THREADS) + 1

    def _vector(self, st, last: int) -> list:
        out = []
        for j, part in enumerate(st.sched):
            if j % 2 == 0:
                out += [str(x) for x in part] + ["0"] * (self.width - len(part))
            elif part.axis in THREADS:
                out.append("0")
            else:
                out.append(f"i{j // 2}")
        out += ["0"] * ((self.depth - st.depth) * (self.width + 1))
        hw = st.hw()
        out += [f"i{hw[a]}" if a in hw else "0" for a in THREADS]
        return out + [str(last)]

    def _final_sinks(self):
        self.__dict__["_vectors"] = dict(self._vectors)
        self._vectors[(None, 0)] = ["1000000"] + ["0"] * (self.n_dims - 1)
        return super()._final_sinks()


def _model(text, kernel, tag="K"):
    return KernelModel(parse_text(text), kernel, tag=tag)


@pytest.mark.parametrize("text, kernel", [(DEEP, "kern0"), (TILED, "mm")])
def test_compressed_value_flow_equals_the_uncompressed_one(text, kernel):
    new, ref = ValueFlow(_model(text, kernel)), Uncompressed(_model(text, kernel))
    assert new.n_dims < ref.n_dims
    assert new.source.is_equal(ref.source)
    assert new.no_source.is_equal(ref.no_source)
    assert new.order.is_equal(ref.order)
    assert not new.source.is_empty()


def test_compressed_vectors_keep_the_order_of_their_rows():
    f = ValueFlow(_model(DEEP, "kern0"))
    assert f.n_dims == 6  # 27 before the compression
    rows = list(f._vectors.values())
    assert len({len(r) for r in rows}) == 1
    assert f._vectors[(None, 0)][0] > max(r[0] for k, r in f._vectors.items() if k[0] is not None)


@pytest.mark.parametrize("text, kernel", [(DEEP, "kern0"), (TILED, "mm")])
def test_before_on_gives_the_pieces_of_before(text, kernel):
    full, part = _model(text, kernel), _model(text, kernel)
    rel = full.conflicts
    some = rel.intersect(full.before)
    assert not some.is_empty()
    assert "before" not in part.__dict__
    b = before_on(part, part.conflicts)
    assert "before" not in part.__dict__  # built for the conflicting pairs only
    assert part.conflicts.intersect(b).is_equal(some)
    assert part.conflicts.subtract(b).is_equal(rel.subtract(full.before))
    assert b.is_subset(full.before)
    assert part.before.is_equal(full.before)  # the whole order from the same pieces


def test_before_on_with_another_tuple_is_the_whole_order():
    m = _model(TILED, "mm")
    other = isl.UnionMap(f"{m.ptuple} -> {{ X[i] -> Y[j] }}")
    assert before_on(m, other).is_equal(m.before)


def test_memoized_maps_are_the_same_maps_per_argument_values():
    m, fresh = _model(TILED, "mm"), _model(TILED, "mm")
    st = next(s for s in m.stmts if s.acc_op)
    read = next(a for a in st.accesses if not a.write and not a.accumulator)
    again = Access(read.tensor, read.index, False)
    assert m.access_map(st, read) is m.access_map(st, again)  # equal fields: one answer
    assert m.access_map(st, read).is_equal(fresh.access_map(fresh.stmts[m.stmts.index(st)], read))
    other = Access(read.tensor, read.index[::-1], False)
    assert not m.access_map(st, other).is_equal(m.access_map(st, read))
    assert m.access_map(st, read, storage_view=True) is not m.access_map(st, read)
    assert m.prov_map(st) is m.prov_map(st)
    assert m.prov_map(st).is_equal(fresh.prov_map(fresh.stmts[m.stmts.index(st)]))
