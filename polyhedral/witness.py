"""Counterexamples that replay: prefer sizes at which the difference shows.

A refuted reassociation is a rounding difference: at tiny sizes (two terms, or one term on each
side of the reordering) the reordered sum can be exactly the same, so `vsched run` at the
printed sizes would show nothing. `sample_large` samples a violation with every parameter at
least 8 (else 4, else anything), so each reordered cell accumulates many terms.
"""
from __future__ import annotations

import islpy as isl

from .isltools import point_of


def sample_large(u, floors=(8, 4)):
    """A point of the (union) map or set `u` with every parameter >= the first floor that
    leaves a point; None when `u` is empty."""
    space = u.get_space()
    names = [space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))]
    for lo in floors if names else ():
        cond = " and ".join(f"{n} >= {lo}" for n in names)
        params = isl.Set(f"[{', '.join(names)}] -> {{ : {cond} }}", context=u.get_ctx())
        pt = point_of(u.intersect_params(params))
        if pt is not None:
            return pt
    return point_of(u)
