"""expand_zero T -> z0, z1, ...

Replace the unique `zero T` of the kernel by a nest of serial loops, one per storage dimension
of T (trailing padding included, since `zero` clears padding too), assigning 0 (0.0 for float
tensors, 0 for i32) to every cell: `for z0 in 0 .. D0 { for z1 in 0 .. D1 + P1 { T[z0, z1] = 0 } }`.
The new assignment has statement id `Z_<T>` and no provenance: verification identifies a
constant-zero store by the cell it writes (polyhedral/model.py), so the nest stands for the
same instances as the whole-tensor zero. One name per axis (arity mismatch, a missing or a
repeated `zero T` are precondition failures). No op-specific obligation: coverage (every
storage cell exactly once) is the driver's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..core import ir
from ..core.errors import Loc
from ..core.ir import Assign, Float, For, Int, Var, Zero
from ..core.op_syntax import OpRecord, Outputs, Syntax, loc_field, tensor_field
from . import common, drawing, kernel_parts
from .common import error
from .spec import ALL_GENERIC, OpSpec


@dataclass(frozen=True)
class ExpandZero(OpRecord):
    SYNTAX = Syntax("expand_zero", (tensor_field(), Outputs(("names",), "loop name")))
    tensor: str
    names: tuple
    loc: Optional[Loc] = loc_field()


RECORD = ExpandZero  # the op record this module applies (ops/registry.py)


def apply(program: ir.Program, kernel_name: str, op: ExpandZero) -> ir.Program:
    kernel = common.get_kernel(program, kernel_name, op)
    try:
        tensor = program.tensor(op.tensor)
    except KeyError:
        raise error(op, f"tensor '{op.tensor}': no such tensor") from None
    found = [s for s in common.sites(kernel.body)
             if isinstance(s.stmt, Zero) and s.stmt.tensor == op.tensor]
    if not found:
        raise error(op, f"tensor '{op.tensor}': kernel '{kernel.name}' has no `zero {op.tensor}`")
    if len(found) > 1:
        raise error(op, f"tensor '{op.tensor}': kernel '{kernel.name}' has {len(found)} "
                        f"`zero {op.tensor}` statements (expand_zero needs a unique one)")
    if len(op.names) != tensor.rank:
        raise error(op, f"names: tensor '{op.tensor}' has {tensor.rank} dimension(s) but "
                        f"{len(op.names)} name(s) were given")
    common.check_fresh(program, kernel, op.names, op, "name")
    site = found[0]
    zero = Int(0) if tensor.prec == "i32" else Float(0.0)
    stmt = Assign(op.tensor, tuple(Var(n) for n in op.names), zero, sid=f"Z_{op.tensor}",
                  provenance=(), loc=site.stmt.loc)
    body = (stmt,)
    for name, dim in reversed(tuple(zip(op.names, tensor.storage_dims()))):
        body = (For(name, Int(0), dim, "serial", body, loc=site.stmt.loc),)
    return common.rewrite_at(program, kernel, site.path, body)


def obligations(ctx) -> list:
    """No op-specific obligation (the generic coverage compares the cells written)."""
    return []


# ---------------------------------------------------------------- fuzz strategy (fuzz/schedules.py)


def _zeroed(kernel: ir.Kernel) -> list:
    return [z.tensor for z in ir.nodes_of(kernel.body, Zero)]


def possible(program: ir.Program, kernel_name: str) -> bool:
    return bool(_zeroed(program.kernel(kernel_name)))


def draw_applicable(draw, program: ir.Program, kernel_name: str):
    """A `zero` statement's tensor expanded into fresh loop names (None when there is none)."""
    kernel = program.kernel(kernel_name)
    zeros = _zeroed(kernel)
    if not zeros:
        return None
    t = drawing.pick(draw, zeros)
    return ExpandZero(t, tuple(kernel_parts.fresh(program, kernel, f"z{d}_") for d in range(program.tensor(t).rank)))


SPEC = OpSpec(record=RECORD, apply=apply, obligations=obligations, generic=ALL_GENERIC,
              own_reassociates=False, exact_rounding=False, structural=True, fuzz_weight=1,
              possible=possible, draw_applicable=draw_applicable, fuzz_options=(),
              draw_by_name=None, by_name_weight=0,
              draw_recipe=None, exact_at=None,
              claim_goals=None)
