"""The IR's vocabulary and its expression and condition nodes (re-exported by `ir`, which
adds statements, declarations and the traversal; use `ir.X`, not this module)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from .errors import InternalError, Loc

PRECISIONS = ("f16", "bf16", "f32", "f64", "i32")
FLOAT_PRECISIONS = ("f16", "bf16", "f32", "f64")
MEMORIES = ("global", "shared", "local", "constant")
HW_AXES = ("block.x", "block.y", "block.z", "thread.x", "thread.y", "thread.z")
AXES = ("serial", "vectorized", "unrolled") + HW_AXES
PARALLEL_AXES = ("vectorized",) + HW_AXES
BINOPS = ("+", "-", "*", "/")
CMPOPS = ("<", "<=", ">", ">=", "==", "!=")
# name -> arity of the scalar/index functions
FUNCS = {"min": 2, "max": 2, "fma": 3, "neg": 1, "exp": 1, "log": 1, "sqrt": 1, "relu": 1, "abs": 1}
PROFILES = ("default", "approximate", "reproducible")


def loc_field():
    return field(default=None, compare=False, repr=False, kw_only=True)


def require(ok: bool, msg: str) -> None:
    if not ok:
        raise InternalError(msg)


def as_tuple(obj, name: str) -> None:
    """Coerce a list field to a tuple (frozen dataclasses must hold hashable values)."""
    value = getattr(obj, name)
    if isinstance(value, list):
        object.__setattr__(obj, name, tuple(value))


class Node:
    """Marker base class of every IR node."""

    loc: Optional[Loc]


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Int(Node):
    value: int
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        require(isinstance(self.value, int) and not isinstance(self.value, bool), f"Int({self.value!r})")


@dataclass(frozen=True)
class Float(Node):
    value: float
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))


@dataclass(frozen=True)
class Var(Node):
    """A loop iterator or a size parameter (used as an index or as a value)."""

    name: str
    loc: Optional[Loc] = loc_field()


@dataclass(frozen=True)
class BinOp(Node):
    """a op b with op in + - * /; `/` is real division (scalar positions only)."""

    op: str
    a: "Expr"
    b: "Expr"
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        require(self.op in BINOPS, f"BinOp op {self.op!r}")


@dataclass(frozen=True)
class FloorDiv(Node):
    """floor(a / divisor) with a constant positive divisor (mathematical, not truncating)."""

    a: "Expr"
    divisor: int
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        require(isinstance(self.divisor, int) and self.divisor > 0, f"FloorDiv divisor {self.divisor!r}")


@dataclass(frozen=True)
class Mod(Node):
    """a mod divisor, result in [0, divisor) (mathematical, not C's %)."""

    a: "Expr"
    divisor: int
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        require(isinstance(self.divisor, int) and self.divisor > 0, f"Mod divisor {self.divisor!r}")


@dataclass(frozen=True)
class Call(Node):
    """min, max (index or scalar), fma(a, b, c) = a*b + c, and unary neg/exp/log/sqrt/relu/abs."""

    fn: str
    args: tuple
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        as_tuple(self, "args")
        require(self.fn in FUNCS, f"Call fn {self.fn!r}")
        require(len(self.args) == FUNCS[self.fn], f"{self.fn} takes {FUNCS[self.fn]} arguments")


@dataclass(frozen=True)
class Where(Node):
    cond: "Cond"
    a: "Expr"
    b: "Expr"
    loc: Optional[Loc] = loc_field()


@dataclass(frozen=True)
class Cast(Node):
    prec: str
    a: "Expr"
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        require(self.prec in PRECISIONS, f"Cast prec {self.prec!r}")


@dataclass(frozen=True)
class Load(Node):
    """A tensor read; used inside an index it is a dynamic (non-affine) index."""

    tensor: str
    index: tuple
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        as_tuple(self, "index")


Expr = Union[Int, Float, Var, BinOp, FloorDiv, Mod, Call, Where, Cast, Load]

# ---------------------------------------------------------------- conditions


@dataclass(frozen=True)
class Cmp(Node):
    op: str
    a: Expr
    b: Expr
    loc: Optional[Loc] = loc_field()

    def __post_init__(self):
        require(self.op in CMPOPS, f"Cmp op {self.op!r}")


@dataclass(frozen=True)
class And(Node):
    a: "Cond"
    b: "Cond"
    loc: Optional[Loc] = loc_field()


@dataclass(frozen=True)
class Or(Node):
    a: "Cond"
    b: "Cond"
    loc: Optional[Loc] = loc_field()


@dataclass(frozen=True)
class Not(Node):
    a: "Cond"
    loc: Optional[Loc] = loc_field()


@dataclass(frozen=True)
class BoolConst(Node):
    value: bool
    loc: Optional[Loc] = loc_field()


Cond = Union[Cmp, And, Or, Not, BoolConst]
