"""IR -> isl text for the Winograd obligations (affine and quasi-affine only).

Small on purpose: the Winograd nests are rectangular loops with affine indices, so a direct
rendering of loop bounds, guards and accesses is enough. Names are prefixed (`p_` for
parameters, `i_` for iterators) so that no user name collides with an isl keyword; points are
read back by position and mapped to the user's names.
"""
from __future__ import annotations

from polyhedral.lazy_isl import isl

from polyhedral.memo import isl_set

from polyhedral import affine
from polyhedral.affine import NonAffine

from ...core import budget, ir


class _Names(dict):
    """isl names of the IR names: `p_` + a parameter, `i_` + anything else (an iterator)."""

    def __init__(self, params: set):
        super().__init__()
        self.params = params

    def __contains__(self, name) -> bool:
        return True

    def __missing__(self, name: str) -> str:
        return ("p_" if name in self.params else "i_") + name


def param_names(program: ir.Program) -> list[str]:
    return [p if isinstance(p, str) else p.name for p in program.params]


def aff(e, params: set) -> str:
    """isl text of an integer index expression (`polyhedral.affine`, the one IR -> isl
    translator, with prefixed names)."""
    return affine.aff(e, _Names(params))


def cond(c, params: set, negate: bool = False) -> str:
    """isl text of a condition (`negate`: of its negation)."""
    return affine.cond(ir.Not(c) if negate else c, _Names(params))


def context(program: ir.Program) -> tuple[str, str, set]:
    """("[p_N, ...]", "constraint text", parameter set) for the program's parameters."""
    names = param_names(program)
    ps = set(names)
    head = "[" + ", ".join("p_" + n for n in names) + "]"
    cons = " and ".join(cond(c, ps) for c in program.constraints) or "1 = 1"
    return head, cons, ps


def params_set(program: ir.Program, extra: str = "") -> isl.Set:
    head, cons, _ = context(program)
    more = f" and {extra}" if extra else ""
    return isl_set(f"{head} -> {{ [] : {cons}{more} }}")


def implied(program: ir.Program, c) -> bool:
    """Do the parameter constraints imply `c` (an affine condition over params)? False when
    not decidable here (non-affine)."""
    try:
        _, _, ps = context(program)
        bad = params_set(program, cond(c, ps, negate=True))
    except NonAffine:
        return False
    except isl.Error:
        if budget.exhausted():  # out of budget: unknown, not "not implied"
            raise
        return False
    return bad.is_empty()


def sample(s: isl.Set, params: list[str], dims: list[str]) -> dict | None:
    """A point of `s` as {name: value} (parameters looked up by name, set dims by position),
    or None if `s` is empty."""
    if s.is_empty():
        return None
    return point_values(s.sample_point(), params, dims)


def point_values(pt: isl.Point, params: list[str], dims: list[str]) -> dict:
    """An isl point as {name: value} (parameters looked up by name, set dims by position)."""
    space = pt.get_space()
    out = {}
    for name in params:
        pos = space.find_dim_by_name(isl.dim_type.param, "p_" + name)
        if pos >= 0:
            out[name] = int(pt.get_coordinate_val(isl.dim_type.param, pos).to_python())
    for pos, name in enumerate(dims):
        out[name] = int(pt.get_coordinate_val(isl.dim_type.set, pos).to_python())
    return out
