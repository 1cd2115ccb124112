"""The parts of a kernel an op's fuzz strategy draws over (each op's `possible` and
`draw_applicable`, verified_sched/fuzz/schedules.py): its statements with their loops, its
uniquely named loops, perfect nests, reductions, and fresh names. Pure structure over `ir`;
imports nothing from the ops, so every op module may use it.
"""
from __future__ import annotations

from ..core import ir


def statements(kernel: ir.Kernel) -> list:
    """(statement, enclosing For nodes outermost first) for every Assign (not those of a
    TensorCore's fallback)."""
    return [(x.stmt, x.loops) for x in ir.walk_scoped(kernel.body, _not_core)
            if isinstance(x.stmt, ir.Assign)]


def _not_core(x) -> bool:
    return not isinstance(x.stmt, ir.TensorCore)


_PER_KERNEL: dict = {}  # (id(kernel), what) -> (kernel, value): drawing asks every op kind of one kernel


def _per_kernel(kernel: ir.Kernel, what: str, compute):
    """`compute(kernel)`, computed once per kernel object (kernels are frozen)."""
    hit = _PER_KERNEL.get((id(kernel), what))
    if hit is not None and hit[0] is kernel:
        return hit[1]
    value = compute(kernel)
    if len(_PER_KERNEL) >= 512:
        _PER_KERNEL.clear()
    _PER_KERNEL[(id(kernel), what)] = (kernel, value)
    return value


def _loop_nodes(kernel: ir.Kernel) -> tuple:
    fors = ir.nodes_of(kernel.body, ir.For)
    names = [f.var for f in fors]
    return tuple(f for f in fors if names.count(f.var) == 1)


def loop_nodes(kernel: ir.Kernel) -> list:
    """The For nodes of the kernel whose variable no other loop uses (pre-order)."""
    return list(_per_kernel(kernel, "loops", _loop_nodes))


def loop_names(kernel: ir.Kernel) -> list:
    """The variables of `loop_nodes(kernel)`, in the same order."""
    return [f.var for f in loop_nodes(kernel)]


def has_loops(program: ir.Program, kernel_name: str) -> bool:
    """Whether the kernel has a uniquely named loop (what a loop op is drawn over)."""
    return bool(loop_nodes(program.kernel(kernel_name)))


def _loop_vars(kernel: ir.Kernel) -> frozenset:
    return frozenset(f.var for f in ir.nodes_of(kernel.body, ir.For))


def nested_pairs(kernel: ir.Kernel) -> list:
    """(outer, inner) loop names where the outer loop's body is exactly the inner loop."""
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
                if not ir.nodes_of(h.body, ir.For):
                    out.append((f.var, g.var, h.var))
    return out


def reductions(kernel: ir.Kernel) -> list:
    """(tensor, loop var) where the statement accumulates into tensor and the loop's variable
    does not occur in the target index (a reduction loop of that statement)."""
    out = []
    for s, loops in statements(kernel):
        if ir.accumulation(s) is None:
            continue
        used = set().union(*(ir.free_vars(e) for e in s.index)) if s.index else set()
        out += [(s.tensor, lp.var) for lp in loops if lp.var not in used]
    return out


def accumulated(kernel: ir.Kernel) -> list:
    """The tensors written by an accumulating statement, one entry per such statement."""
    return [s.tensor for s, _ in statements(kernel) if ir.accumulation(s) is not None]


def fresh(program: ir.Program, kernel: ir.Kernel, stem: str) -> str:
    """`stem0`, `stem1`, ...: the first that is no loop variable of the kernel and no tensor
    of the program (a name for a drawn op's new loop or tensor)."""
    taken = _per_kernel(kernel, "vars", _loop_vars) | {t.name for t in program.tensors}
    n = 0
    while f"{stem}{n}" in taken:
        n += 1
    return f"{stem}{n}"


def has_reductions(program: ir.Program, kernel_name: str) -> bool:
    """Whether the kernel has a reduction loop (`reductions`)."""
    return bool(reductions(program.kernel(kernel_name)))
