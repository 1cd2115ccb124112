"""Schedules drawn to apply: each op is drawn against the kernel as the previous ops left it
(its loops, nests, reductions, zeroed and read tensors), applied, and redrawn when its
preconditions fail, so most drawn schedules run to the end. Tiled matmuls also get the
tensorize and shared-stage recipes (split i, j, k by the tile; interchange to bi, bj, ko, ii,
ji, ki; retype to blocks and threads), which random single ops would almost never reach.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .. import ir
from ..errors import ScheduleError, VschedError
from ..op_syntax import op_name
from ..ops import apply_op
from ..ops.expand_zero import ExpandZero
from ..ops.fuse_epilogue import FuseEpilogue
from ..ops.interchange import Interchange
from ..ops.pad import Pad
from ..ops.partition import Partition
from ..ops.privatize import Privatize
from ..ops.registry import OP_NAMES, module_named
from ..ops.retype import Retype
from ..ops.split import PARTITIONS, TAILS, Split
from ..ops.split_reduction import SplitReduction
from ..ops.stage import SWIZZLES, Stage
from ..ops.tensorize import Tensorize
from ..ops.unroll import Unroll
from ..ops.winograd import Winograd

OPS = tuple(OP_NAMES)  # every op of the DSL (ops/registry.py)
# structural ops apply to fewer kernels: drawn more often where they can apply
WEIGHT = {"winograd": 6, "tensorize": 4, "stage": 3, "split_reduction": 2, "privatize": 2, "fuse_epilogue": 8}
AXES = ("serial", "vectorized", "unrolled", "block.x", "block.y", "thread.x", "thread.y")


# ---------------------------------------------------------------- kernel structure


def statements(kernel: ir.Kernel) -> list:
    """(statement, enclosing For nodes outermost first) for every Assign (not those of a
    TensorCore's fallback)."""
    return [(x.stmt, x.loops) for x in ir.walk_scoped(kernel.body, _not_core)
            if isinstance(x.stmt, ir.Assign)]


def _not_core(x) -> bool:
    return not isinstance(x.stmt, ir.TensorCore)


def loop_nodes(kernel: ir.Kernel) -> list:
    fors = [n for n in ir.walk(kernel.body) if isinstance(n, ir.For)]
    names = [f.var for f in fors]
    return [f for f in fors if names.count(f.var) == 1]


def nested_pairs(kernel: ir.Kernel) -> list:
    return [(f.var, f.body[0].var) for f in loop_nodes(kernel)
            if len(f.body) == 1 and isinstance(f.body[0], ir.For)]


def chains3(kernel: ir.Kernel) -> list:
    """Three perfectly nested loops whose innermost body holds no loop."""
    out = []
    for f in loop_nodes(kernel):
        if len(f.body) == 1 and isinstance(f.body[0], ir.For):
            g = f.body[0]
            if len(g.body) == 1 and isinstance(g.body[0], ir.For):
                h = g.body[0]
                if not any(isinstance(n, ir.For) for n in ir.walk(h.body)):
                    out.append((f.var, g.var, h.var))
    return out


def _reductions(kernel: ir.Kernel) -> list:
    """(tensor, loop var) where the statement accumulates into tensor and the loop's variable
    does not occur in the target index (a reduction loop of that statement)."""
    out = []
    for s, loops in statements(kernel):
        if ir.accumulation(s) is None:
            continue
        used = set().union(*(ir.free_vars(e) for e in s.index)) if s.index else set()
        out += [(s.tensor, lp.var) for lp in loops if lp.var not in used]
    return out


def _fresh(cur: ir.Program, kernel: ir.Kernel, stem: str) -> str:
    taken = {f.var for f in ir.walk(kernel.body) if isinstance(f, ir.For)} | {t.name for t in cur.tensors}
    n = 0
    while f"{stem}{n}" in taken:
        n += 1
    return f"{stem}{n}"


# ---------------------------------------------------------------- one op of each kind


def possible(kind: str, cur: ir.Program, kname: str) -> bool:
    """Whether the kernel has anything an op of `kind` could be drawn over."""
    kernel = cur.kernel(kname)
    loops = loop_nodes(kernel)
    match kind:
        case "interchange":
            return len(loops) >= 2
        case "expand_zero":
            return any(isinstance(z, ir.Zero) for z in ir.walk(kernel.body))
        case "privatize" | "split_reduction":
            return bool(_reductions(kernel))
        case "tensorize":
            return bool(chains3(kernel))
        case "fuse_epilogue":
            return any(ir.accumulation(s) is not None for s, _ in statements(kernel)) and \
                sum(isinstance(s, ir.For) for s in kernel.body) >= 2
        case "winograd":
            return len(loops) >= 6
        case "stage":
            return any(loops_ and ir.reads(s.value) for s, loops_ in statements(kernel))
        case "split" | "retype" | "unroll" | "partition" | "pad":
            return bool(loops)
    hook = getattr(module_named(kind), "possible", None)  # an op that draws itself (ops/registry.py)
    return bool(loops) if hook is None else hook(cur, kname)


def _draw_op(draw, kind: str, cur: ir.Program, kname: str):
    """An op record of `kind` over the current kernel, or None when the kernel has nothing it
    could apply to."""
    kernel = cur.kernel(kname)
    loops = [f.var for f in loop_nodes(kernel)]
    pick = lambda xs: draw(st.sampled_from(xs))  # noqa: E731
    match kind:
        case "split":
            if not loops:
                return None
            v = pick(loops)
            tail = pick(("guard", "guard", "guard") + TAILS)
            part = pick(("auto", "auto", "auto") + PARTITIONS)
            return Split(v, pick((2, 2, 3, 4, 8, 16)), _fresh(cur, kernel, v + "o"), _fresh(cur, kernel, v + "i"),
                         tail, part)
        case "interchange":
            pairs = nested_pairs(kernel)
            if pairs and draw(st.integers(0, 4)):
                return Interchange(*pick(pairs))
            if len(loops) < 2:
                return None
            a = pick(loops)
            return Interchange(a, pick([x for x in loops if x != a]))
        case "retype":
            return Retype(pick(loops), pick(AXES)) if loops else None
        case "unroll":
            const = [f.var for f in loop_nodes(kernel) if isinstance(f.hi, ir.Int) and isinstance(f.lo, ir.Int)]
            if not loops:
                return None
            return Unroll(pick(const) if const and draw(st.integers(0, 3)) else pick(loops), draw(st.booleans()))
        case "partition":
            if not loops:
                return None
            v = pick(loops)
            if draw(st.booleans()) or not cur.params:
                return Partition(v, None, tuple(_fresh(cur, kernel, f"{v}p{n}_") for n in range(2)))
            p = pick(tuple(cur.params))
            c = pick((0, 1, 2, -1))
            bp = ir.Var(p) if c == 0 else ir.BinOp("+" if c > 0 else "-", ir.Var(p), ir.Int(abs(c)))
            if draw(st.booleans()):
                bp = ir.Int(pick((1, 2, 3)))
            return Partition(v, (bp,), (_fresh(cur, kernel, f"{v}p0_"), _fresh(cur, kernel, f"{v}p1_")))
        case "pad":
            return Pad(pick(loops), pick((2, 4, 8))) if loops else None
        case "expand_zero":
            zeros = [z.tensor for z in ir.walk(kernel.body) if isinstance(z, ir.Zero)]
            if not zeros:
                return None
            t = pick(zeros)
            return ExpandZero(t, tuple(_fresh(cur, kernel, f"z{d}_") for d in range(cur.tensor(t).rank)))
        case "stage":
            return _draw_stage(draw, cur, kernel)
        case "privatize":
            reds = _reductions(kernel)
            if not reds:
                return None
            t, v = pick(reds)
            return Privatize(t, v, _fresh(cur, kernel, f"{t}_acc"))
        case "tensorize":
            chains = chains3(kernel)
            return Tensorize(*pick(chains), pick((32, 32, 16))) if chains else None
        case "fuse_epilogue":
            written = [s.tensor for s, _ in statements(kernel) if ir.accumulation(s) is not None]
            return FuseEpilogue(pick(written), draw(st.integers(0, 4)) == 0) if written else None
        case "split_reduction":
            reds = _reductions(kernel)
            if not reds:
                return None
            t, v = pick(reds)
            return SplitReduction(v, t, draw(st.integers(1, 8)), _fresh(cur, kernel, v + "b"),
                                  _fresh(cur, kernel, v + "k"), _fresh(cur, kernel, t + "_part"))
        case "winograd":
            return Winograd()
    hook = getattr(module_named(kind), "draw_applicable", None)  # ops/registry.py
    if hook is None:
        raise ValueError(f"no generator for schedule op {kind!r}")
    return hook(draw, cur, kname)


def _draw_stage(draw, cur: ir.Program, kernel: ir.Kernel):
    cands = []
    for s, loops in statements(kernel):
        for load in ir.reads(s.value):
            if cur.tensor(load.tensor).memory == "global" and loops:
                cands.append((load.tensor, loops))
    if not cands:
        return None
    tensor, loops = draw(st.sampled_from(cands))
    hw = any(ir.is_hardware(lp.axis) for lp in loops)
    n = draw(st.integers(1, min(2, len(loops))))
    start = draw(st.integers(0, len(loops) - n))
    over = tuple(lp.var for lp in loops[start:start + n])
    shared = hw and draw(st.integers(0, 3)) > 0
    opt = lambda s: draw(st.none() | s) if draw(st.integers(0, 2)) == 0 else None  # noqa: E731
    return Stage(tensor, over, _fresh(cur, kernel, f"{tensor}_tile"), shared,
                 opt(st.sampled_from((2, 4, 8))) if shared else None,
                 opt(st.sampled_from(SWIZZLES)), opt(st.integers(1, 3)),
                 draw(st.integers(0, 5)) == 0, draw(st.sampled_from((1, 1, 1, 2))),
                 opt(st.sampled_from(("f32", "f64"))))


def _tile(kernel: ir.Kernel):
    """The tile T of a `tiled` family kernel (loops `for i in 0 .. T * TN`), else None."""
    chains = chains3(kernel)
    if not chains:
        return None
    first = next(f for f in loop_nodes(kernel) if f.var == chains[0][0])
    hi = first.hi
    if isinstance(hi, ir.BinOp) and hi.op == "*" and isinstance(hi.a, ir.Int):
        return chains[0], hi.a.value
    return None


def recipe(draw, cur: ir.Program, kname: str, target: str) -> list:
    """Ops that tile a `tiled` matmul and end in `target` (tensorize or stage), or []."""
    found = _tile(cur.kernel(kname))
    if found is None:
        return []
    (i, j, k), t = found
    ops = [Split(i, t, "bi", "ii"), Split(j, t, "bj", "ji"), Split(k, t, "ko", "ki"),
           Interchange("ii", "bj"), Interchange("ji", "ko"), Interchange("ii", "ko")]
    if target == "tensorize":
        ops += [Retype("bi", "block.y"), Retype("bj", "block.x")] if draw(st.booleans()) else []
        return ops + [Tensorize("ii", "ji", "ki", draw(st.sampled_from((32, 16))))]
    gpu = draw(st.booleans())
    if gpu:
        ops = ops[:4] + [Retype("bi", "block.y"), Retype("bj", "block.x"), Retype("ii", "thread.y"),
                         Retype("ji", "thread.x")]
    src = draw(st.sampled_from((("a", ("ii", "ki")), ("b", ("ki", "ji")))))
    return ops + [Stage(src[0], src[1], f"{src[0]}_tile", gpu, None, draw(st.sampled_from((None,) + SWIZZLES))
                        if gpu else None, None, False, 1, None)]


# ---------------------------------------------------------------- schedules


@st.composite
def applicable_schedule(draw, program: ir.Program, kname: str, ops: tuple = OPS, min_ops: int = 1,
                        max_ops: int = 4, attempts: int = 6, precondition_rate: float = 0.05) -> tuple:
    """A schedule (tuple of op records) for kernel `kname` of `program`, each op drawn from
    `ops` against the kernel as the previous ops left it and kept when it applies (redrawn up
    to `attempts` times otherwise). With probability `precondition_rate` an op that does not
    apply is kept as the last op, so precondition refutations are exercised too."""
    unknown = [o for o in ops if o not in OP_NAMES]
    if unknown or not ops:
        raise ValueError(f"unknown schedule op(s) {unknown} (known: {', '.join(OP_NAMES)})")
    cur, out = program, []
    want = draw(st.integers(min_ops, max_ops))
    rate = int(1 / precondition_rate) if precondition_rate > 0 else 0
    while len(out) < want:
        kinds = tuple(k for k in ops if possible(k, cur, kname) for _ in range(WEIGHT.get(k, 1)))
        for _ in range(attempts if kinds else 0):
            kind = draw(st.sampled_from(kinds))
            if kind in ("tensorize", "stage") and {"split", "interchange"} <= set(ops) and \
                    _tile(cur.kernel(kname)) is not None and draw(st.booleans()):
                seq = [op for op in recipe(draw, cur, kname, kind) if op_name(op) in ops]
            else:
                op = _draw_op(draw, kind, cur, kname)
                seq = [op] if op is not None else []
            if not seq:
                continue
            try:
                nxt = cur
                for op in seq:
                    nxt = apply_op(nxt, kname, op)
            except (ScheduleError, VschedError):
                if rate and draw(st.integers(0, rate - 1)) == 0:
                    return tuple(out + seq)
                continue
            out += seq
            cur = nxt
            break
        else:
            break
    return tuple(out)
