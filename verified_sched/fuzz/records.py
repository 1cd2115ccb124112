"""Schedule op records drawn by name only: `schedules_for` (ops over a kernel's loops,
preconditions not guaranteed), `op_records` (any syntactically valid record of every op kind,
for parser round trips) and `sizes_for`. For schedules drawn to apply, see `fuzz.schedules`.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .. import ir
from .. import schedule as S
from ..sizes import example_sizes
from .names import PARAM_NAMES, aff_expr


def _loop_names(kernel: ir.Kernel) -> list:
    return [n.var for n in ir.walk(kernel.body) if isinstance(n, ir.For)]


@st.composite
def schedules_for(draw, program: ir.Program, kernel_name: str, max_ops: int = 3):
    """A tuple of split / interchange / retype / unroll / pad records over the kernel's loops
    (names created by a split are used by later ops). Preconditions may fail."""
    loops = _loop_names(program.kernel(kernel_name))
    ops = []
    fresh = iter(range(1000))
    for _ in range(draw(st.integers(1, max_ops))):
        if not loops:
            break
        loop = draw(st.sampled_from(loops))
        kind = draw(st.sampled_from(("split", "split", "interchange", "retype", "unroll", "pad")))
        if kind == "interchange" and len(loops) < 2:
            kind = "split"
        match kind:
            case "split":
                n = next(fresh)
                outer, inner = f"{loop}o{n}", f"{loop}i{n}"
                tail = draw(st.sampled_from(("guard", "guard") + S.TAILS))
                ops.append(S.Split(loop, draw(st.integers(2, 8)), outer, inner, tail))
                loops = [x for x in loops if x != loop] + [outer, inner]
            case "interchange":
                other = draw(st.sampled_from([x for x in loops if x != loop]))
                ops.append(S.Interchange(loop, other))
            case "retype":
                ops.append(S.Retype(loop, draw(st.sampled_from(ir.AXES))))
            case "unroll":
                ops.append(S.Unroll(loop, draw(st.booleans())))
            case _:
                ops.append(S.Pad(loop, draw(st.integers(2, 8))))
    return tuple(ops)


_IDS = st.sampled_from(("i", "j", "k", "io", "ii", "t0", "acc", "a_tile", "s_part"))
_POS = st.integers(1, 64)


@st.composite
def op_records(draw, params: tuple = PARAM_NAMES):
    """Any syntactically valid schedule op record (for parser/printer round trips)."""
    kind = draw(st.sampled_from(tuple(S.OP_NAMES)))
    i = draw
    match kind:
        case "split":
            outer, inner = i(st.lists(_IDS, min_size=2, max_size=2, unique=True))
            return S.Split(i(_IDS), i(_POS), outer, inner, i(st.sampled_from(S.TAILS)),
                           i(st.sampled_from(S.PARTITIONS)))
        case "interchange":
            return S.Interchange(i(_IDS), i(_IDS))
        case "retype":
            return S.Retype(i(_IDS), i(st.sampled_from(ir.AXES)))
        case "unroll":
            return S.Unroll(i(_IDS), i(st.booleans()))
        case "partition":
            if not params or i(st.booleans()):
                return S.Partition(i(_IDS), None, tuple(f"p{n}" for n in range(i(st.integers(2, 3)))))
            forms = st.builds(lambda p, c, k: aff_expr({p: c, 1: k}), st.sampled_from(params),
                              st.integers(1, 3), st.integers(-2, 2))
            points = tuple(i(st.lists(forms, min_size=1, max_size=2)))
            return S.Partition(i(_IDS), points, tuple(f"p{n}" for n in range(len(points) + 1)))
        case "pad":
            return S.Pad(i(_IDS), i(_POS))
        case "stage":
            opt = lambda s: i(st.none() | s)  # noqa: E731
            return S.Stage(i(_IDS), tuple(i(st.lists(_IDS, min_size=1, max_size=3))), i(_IDS),
                           i(st.booleans()), opt(_POS), opt(st.sampled_from(S.SWIZZLES)), opt(_POS),
                           i(st.booleans()), i(st.integers(1, 3)), opt(st.sampled_from(ir.PRECISIONS)))
        case "privatize":
            return S.Privatize(i(_IDS), i(_IDS), i(_IDS))
        case "expand_zero":
            return S.ExpandZero(i(_IDS), tuple(f"z{n}" for n in range(i(st.integers(1, 3)))))
        case "tensorize":
            return S.Tensorize(i(_IDS), i(_IDS), i(_IDS), i(_POS))
        case "fuse_epilogue":
            return S.FuseEpilogue(i(_IDS), i(st.booleans()))
        case "split_reduction":
            return S.SplitReduction(i(_IDS), i(_IDS), i(_POS), "kb", "kk", "parts")
        case "winograd":
            return S.Winograd()
        case _:
            raise ValueError(f"op_records: no generator for schedule op {kind!r}")


def sizes_for(program: ir.Program, count: int = 4):
    """Concrete sizes satisfying the constraints (minimal, odd and random small sets)."""
    return st.sampled_from(example_sizes(program, count=count))
