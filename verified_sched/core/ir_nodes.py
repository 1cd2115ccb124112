"""The IR's vocabulary: its node classes and constants (re-exported by `verified_sched.core.ir`,
which is the name to import; the traversals live there).

One expression family serves index and scalar positions; `analysis/wellformed.py` checks that index
positions are integer typed. Every node has an optional `loc` (source position) that takes no
part in equality.
"""
from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Union

from .errors import InternalError, Loc
from .profiles import PROFILES  # noqa: F401 - ir.PROFILES (core/profiles.py: no IR for `verify --help`)

PRECISIONS = ("f16", "bf16", "f32", "f64", "i32")
FLOAT_PRECISIONS = ("f16", "bf16", "f32", "f64")
MEMORIES = ("global", "shared", "local", "constant")
HW_AXES = ("block.x", "block.y", "block.z", "thread.x", "thread.y", "thread.z")
AXES = ("serial", "vectorized", "unrolled") + HW_AXES
PARALLEL_AXES = ("vectorized",) + HW_AXES
BINOPS = ("+", "-", "*", "/")
CMPOPS = ("<", "<=", ">", ">=", "==", "!=")
# name -> arity of the scalar/index functions
FUNCS = {"min": 2, "max": 2, "fma": 3, "neg": 1, "exp": 1, "log": 1, "sqrt": 1, "relu": 1, "abs": 1,
         "tanh": 1, "erf": 1, "rsqrt": 1, "pow": 2}
# exp, log, sqrt, tanh and erf are libm's (the same call in C and, through ctypes, in the
# interpreter); rsqrt(x) is 1 / sqrt(x), two roundings, in every backend


def _loc_field():
    return field(default=None, compare=False, repr=False, kw_only=True)


def _check(ok: bool, msg: str) -> None:
    if not ok:
        raise InternalError(msg)


def _tuple(obj, *names: str) -> None:
    """Coerce list fields to tuples (frozen dataclasses must hold hashable values)."""
    for name in names:
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
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        if not isinstance(self.value, int) or isinstance(self.value, bool):  # (no message built when fine)
            _check(False, f"Int({self.value!r})")


@dataclass(frozen=True)
class Float(Node):
    """A float literal. Two are equal when their IEEE-754 doubles are identical bit for bit
    (one meaning: `-0.0` is not `0.0`, a NaN equals the same NaN), never by Python's float
    `==`, so trees that compare equal compute the same values."""

    value: float
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))

    def __eq__(self, other):
        if other.__class__ is not Float:
            return NotImplemented
        return _float_bits(self.value) == _float_bits(other.value)

    def __hash__(self):
        return hash((Float, _float_bits(self.value)))


def _float_bits(v: float) -> bytes:
    return struct.pack("<d", v)


@dataclass(frozen=True)
class Var(Node):
    """A loop iterator or a size parameter (used as an index or as a value)."""

    name: str
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class BinOp(Node):
    """a op b with op in + - * /; `/` is real division (scalar positions only)."""

    op: str
    a: "Expr"
    b: "Expr"
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        if self.op not in BINOPS:
            _check(False, f"BinOp op {self.op!r}")


@dataclass(frozen=True)
class _ByConstant(Node):
    """The fields of FloorDiv and Mod: an operand and a constant positive divisor."""

    a: "Expr"
    divisor: int
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _check(isinstance(self.divisor, int) and self.divisor > 0,
               f"{type(self).__name__} divisor {self.divisor!r}")


@dataclass(frozen=True)
class FloorDiv(_ByConstant):
    """floor(a / divisor) with a constant positive divisor (mathematical, not truncating)."""


@dataclass(frozen=True)
class Mod(_ByConstant):
    """a mod divisor, result in [0, divisor) (mathematical, not C's %)."""


@dataclass(frozen=True)
class Call(Node):
    """min, max (index or scalar), fma(a, b, c) = a*b + c, pow(a, b), and unary
    neg/exp/log/sqrt/relu/abs/tanh/erf/rsqrt."""

    fn: str
    args: tuple
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "args")
        _check(self.fn in FUNCS, f"Call fn {self.fn!r}")
        _check(len(self.args) == FUNCS[self.fn], f"{self.fn} takes {FUNCS[self.fn]} arguments")


@dataclass(frozen=True)
class Where(Node):
    cond: "Cond"
    a: "Expr"
    b: "Expr"
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class Cast(Node):
    prec: str
    a: "Expr"
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _check(self.prec in PRECISIONS, f"Cast prec {self.prec!r}")


@dataclass(frozen=True)
class Load(Node):
    """A tensor read; used inside an index it is a dynamic (non-affine) index."""

    tensor: str
    index: tuple
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "index")


Expr = Union[Int, Float, Var, BinOp, FloorDiv, Mod, Call, Where, Cast, Load]

# ---------------------------------------------------------------- conditions


@dataclass(frozen=True)
class Cmp(Node):
    op: str
    a: Expr
    b: Expr
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        if self.op not in CMPOPS:
            _check(False, f"Cmp op {self.op!r}")


@dataclass(frozen=True)
class _Connective(Node):
    """The fields of And and Or: two conditions."""

    a: "Cond"
    b: "Cond"
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class And(_Connective):
    pass


@dataclass(frozen=True)
class Or(_Connective):
    pass


@dataclass(frozen=True)
class Not(Node):
    a: "Cond"
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class BoolConst(Node):
    value: bool
    loc: Optional[Loc] = _loc_field()


Cond = Union[Cmp, And, Or, Not, BoolConst]

# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class For(Node):
    """for var in lo .. hi (hi exclusive) with an axis type."""

    var: str
    lo: Expr
    hi: Expr
    axis: str
    body: tuple
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "body")
        if self.axis not in AXES:
            _check(False, f"For axis {self.axis!r}")


@dataclass(frozen=True)
class Assign(Node):
    """tensor[index] = value, with a stable statement id and a provenance map.

    `provenance` maps each ORIGINAL iterator name to an expression over the CURRENT
    iterators (identity right after parsing). Schedule ops update it so verification can map
    every executed instance back to the original instance it stands for.
    """

    tensor: str
    index: tuple
    value: Expr
    sid: str = ""
    provenance: tuple = ()
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "index", "provenance")


@dataclass(frozen=True)
class Zero(Node):
    """Zero every storage cell of a tensor, padding included."""

    tensor: str
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class If(Node):
    cond: Cond
    then: tuple
    orelse: tuple = ()
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "then", "orelse")


@dataclass(frozen=True)
class Barrier(Node):
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class TensorCore(Node):
    """A tensor-core block over an m x n x k tile with its scalar fallback (Tensorize).

    Its meaning is exactly `fallback` run once by lane 0; backends may render an intrinsic.
    """

    lane: str
    shape: tuple
    fallback: tuple
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "shape", "fallback")


Stmt = Union[For, Assign, Zero, If, Barrier, TensorCore]

# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Tensor(Node):
    name: str
    dims: tuple
    prec: str = "f32"
    memory: str = "global"
    pad: tuple = ()
    # a global tensor that holds intermediate values only (split_reduction's partials): stored,
    # allocated and bounds-checked like any other, but not observable (claims and `vsched run`
    # do not compare it)
    scratch: bool = False
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "dims", "pad")
        if not self.pad:
            object.__setattr__(self, "pad", (0,) * len(self.dims))
        _check(self.prec in PRECISIONS, f"Tensor prec {self.prec!r}")
        _check(self.memory in MEMORIES, f"Tensor memory {self.memory!r}")
        _check(not self.scratch or self.memory == "global", f"tensor {self.name}: scratch is global")
        _check(len(self.pad) == len(self.dims), f"tensor {self.name}: pad rank != dims rank")
        _check(all(isinstance(p, int) and p >= 0 for p in self.pad), f"tensor {self.name}: bad pad")

    @property
    def rank(self) -> int:
        return len(self.dims)

    def storage_dims(self) -> tuple:
        """Dims including trailing padding cells."""
        return tuple(d if p == 0 else BinOp("+", d, Int(p)) for d, p in zip(self.dims, self.pad))


@dataclass(frozen=True)
class Kernel(Node):
    name: str
    body: tuple
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "body")


@dataclass(frozen=True)
class Schedule(Node):
    kernel: str
    ops: tuple  # of op records (verified_sched/ops/<op>.py, ops.registry)
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "ops")


@dataclass(frozen=True)
class Claim(Node):
    a: str
    b: str
    loc: Optional[Loc] = _loc_field()


@dataclass(frozen=True)
class InputRange(Node):
    """`inputs a, b int in [-8, 8]` / `inputs a in [-1, 1] grid 1/16`: the values the named
    tensors may hold (multiples of 2^-grid_exp in [lo, hi]); used by exactness obligations."""

    tensors: tuple
    lo: Fraction
    hi: Fraction
    grid_exp: int = 0
    text: str = field(default="", compare=False)
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        _tuple(self, "tensors")
        _check(self.lo <= self.hi, "InputRange lo > hi")

    @property
    def magnitude(self) -> Fraction:
        return max(abs(self.lo), abs(self.hi))


@dataclass(frozen=True)
class Program(Node):
    """A whole .vs file."""

    params: tuple = ()
    constraints: tuple = ()  # of Cond over params
    profile: Optional[str] = None  # None: not stated in the file (acts as "default")
    tensors: tuple = ()
    kernels: tuple = ()
    schedules: tuple = ()
    claims: tuple = ()
    inputs: tuple = ()  # of InputRange
    loc: Optional[Loc] = _loc_field()

    def __post_init__(self):
        for name in ("params", "constraints", "tensors", "kernels", "schedules", "claims", "inputs"):
            _tuple(self, name)
        _check(self.profile is None or self.profile in PROFILES, f"profile {self.profile!r}")

    def tensor(self, name: str) -> Tensor:
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(name)

    def kernel(self, name: str) -> Kernel:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    def schedule_for(self, kernel: str) -> Optional[Schedule]:
        for s in self.schedules:
            if s.kernel == kernel:
                return s
        return None

    def with_kernel(self, kernel: Kernel) -> "Program":
        """The program with the kernel of the same name replaced (or appended)."""
        names = [k.name for k in self.kernels]
        if kernel.name in names:
            ks = tuple(kernel if k.name == kernel.name else k for k in self.kernels)
        else:
            ks = self.kernels + (kernel,)
        return dataclasses.replace(self, kernels=ks)

    def with_tensor(self, tensor: Tensor) -> "Program":
        names = [t.name for t in self.tensors]
        if tensor.name in names:
            ts = tuple(tensor if t.name == tensor.name else t for t in self.tensors)
        else:
            ts = self.tensors + (tensor,)
        return dataclasses.replace(self, tensors=ts)


# ---------------------------------------------------------------- hashes, computed once per node


def _cached_hash(cls) -> None:
    """Give a frozen node class a hash computed once per object (the dataclass hash walks the
    whole subtree at every call: `ops/apply_memo` keys the program by value at every op, and
    a subtree the op did not touch, or one shared by a store, its loads and its provenance,
    keeps the hash it had). The hash is kept in the object's `__dict__` as `_hash`, not a
    field (equality, `repr` and `dataclasses.replace` ignore it), and is left out of pickles
    and copies (`Node.__getstate__`): str hashes differ between processes."""
    plain = cls.__dict__["__hash__"]

    def __hash__(self):
        d = self.__dict__
        if "_hash" in d:
            return d["_hash"]
        h = d["_hash"] = plain(self)
        return h

    cls.__hash__ = __hash__


def _node_getstate(self):
    d = self.__dict__  # without the cached hash and facts (core/ir.py: nodes_of)
    kept = ("_hash", "_facts", "_canon")  # (polyhedral/memo.py `canonical`: an object of this process)
    return {k: v for k, v in d.items() if k not in kept} if any(k in d for k in kept) else d


Node.__getstate__ = _node_getstate
for _cls in (BinOp, Call, Where, Load, Cmp, For, Assign, If, TensorCore, Kernel, Program):
    _cached_hash(_cls)
del _cls
