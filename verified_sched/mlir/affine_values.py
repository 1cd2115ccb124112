"""What the affine import shares: parsing (generic form through iree-opt where xdsl lacks a custom
syntax), op names of unregistered ops, the pending statement records, memref views, and the
translation of SSA values (index values through affine maps, loaded values through the
importer's staleness check)."""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field

from verified_sched.core import ir
from verified_sched.core.errors import Loc

from .affine_maps import fold, map_results
from .import_body import BodyTranslator, add, mul
from .ximport import MlirImportError, parse_module, prop


def opname(op) -> str:
    """The op's name; an unregistered op's own name (xdsl names them all alike)."""
    if hasattr(op, "op_name") and "op_name__" in getattr(op, "attributes", {}):
        return op.attributes["op_name__"].data
    return op.name


_OP_LINE = re.compile(r'^(\s*)(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)')


def locate_ops(module, text: str, filename: str) -> dict:
    """{id(op): Loc} from the text's op lines, matched in order with a pre-order walk by the
    ops' own names (unregistered ones included; named linalg ops' implicit regions skipped)."""
    lines = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _OP_LINE.match(line)
        if m:
            lines.append((m.group(2), Loc(filename, n, m.start(2) + 1)))
    out, pos = {}, 0
    for op in module.walk():
        name = opname(op)
        for k in range(pos, min(pos + 64, len(lines))):
            if lines[k][0] == name:
                out[id(op)] = lines[k][1]
                pos = k + 1
                break
    return out


def find_iree_opt(path: str | None = None) -> str | None:
    if path:
        return path
    found = shutil.which("iree-opt")
    if found:
        return found
    try:
        import iree.compiler.tools.binaries as b  # noqa: F401 - the wheel ships the tool
        from iree.compiler.tools.binaries import find_tool
        return find_tool("iree-opt")
    except Exception:  # noqa: BLE001 - any failure: no tool
        return None


def generic_form(text: str, filename: str, iree_opt: str | None = None, extra=()) -> str | None:
    """The text in MLIR's generic form (None when no iree-opt is installed)."""
    tool = find_iree_opt(iree_opt)
    if tool is None:
        return None
    try:
        r = subprocess.run([tool, "--mlir-print-op-generic", *extra, "-"], input=text, capture_output=True,
                           text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise MlirImportError(f"cannot run {tool}: {e}") from None
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["error"])[0]
        m = re.match(r"<stdin>:(\d+):(\d+): (?:error: )?(.*)", first)
        if m:
            raise MlirImportError(f"cannot parse the MLIR: {m.group(3)[:400]}",
                                  Loc(filename, int(m.group(1)), int(m.group(2))))
        raise MlirImportError(f"cannot parse the MLIR: {first[:400]}")
    return r.stdout


def parse_affine_module(text: str, filename: str, iree_opt: str | None = None):
    if "linalg." in text and find_iree_opt(iree_opt) is not None:  # named ops as linalg.generic
        text = generic_form(text, filename, iree_opt, ("--linalg-generalize-named-ops",))
    try:
        return parse_module(text, filename)
    except MlirImportError as e:
        generic = generic_form(text, filename, iree_opt)
        if generic is None:
            raise
        try:
            return parse_module(generic, filename)
        except MlirImportError:
            raise e from None


def memref_root(v):
    """The argument or allocation a memref value views (through subview and cast)."""
    op = getattr(v, "op", None)
    while op is not None and hasattr(op, "name") and opname(op) in ("memref.subview", "memref.cast"):
        v = op.operands[0]
        op = getattr(v, "op", None)
    return v


@dataclass
class MemView:
    """A memref value: cell idx of it is cell offsets + strides * idx of tensor `base`; `root`
    (the argument or allocation it views) keys the stores to it."""

    base: str
    shape: list
    offsets: list
    strides: list
    root: object
    prec: str

    def cell(self, idx) -> tuple:
        return tuple(add(o, mul(s, i)) for o, s, i in zip(self.offsets, self.strides, idx))


@dataclass
class Loop:
    var: str
    lo: object
    hi: object
    body: list = field(default_factory=list)
    axis: str = "serial"  # "vectorized" for affine.parallel/scf.parallel: the independence obligation


@dataclass
class Guard:
    cond: object
    then: list = field(default_factory=list)
    orelse: list = field(default_factory=list)


@dataclass
class Slot:
    """A position in a body kept for a copy of a loaded value (filled only when needed)."""

    stmt: object = None


@dataclass
class LoadInfo:
    root: object
    epoch: int
    stack: tuple
    slot: Slot
    expr: object
    prec: str
    copied: bool = False


def final(stmts: list) -> tuple:
    """The pending statements as IR (empty slots dropped)."""
    out = []
    for s in stmts:
        if isinstance(s, Slot):
            if s.stmt is not None:
                out.append(s.stmt)
        elif isinstance(s, Loop):
            out.append(ir.For(s.var, s.lo, s.hi, s.axis, final(s.body)))
        elif isinstance(s, Guard):
            out.append(ir.If(s.cond, final(s.then), final(s.orelse)))
        else:
            out.append(s)
    return tuple(out)


class Values(BodyTranslator):
    """SSA values as DSL expressions: block arguments from `reads`, loads through the
    importer's `fresh`, index values through affine maps and memref views."""

    def __init__(self, importer):
        super().__init__(importer, {}, [])

    def translate(self, v):
        if v in self.imp.loads:
            return self.imp.fresh(v)
        return super().translate(v)

    def index(self, v):
        if v in self.reads:
            return self.reads[v]
        if v in self.imp.loads:
            return self.imp.fresh(v)
        op = getattr(v, "op", None)
        name = opname(op) if op is not None and hasattr(op, "name") else None
        if name in ("affine.apply", "affine.min", "affine.max"):
            exprs = map_results(prop(op, "map"), [self.index(x) for x in op.operands])
            if name == "affine.apply":
                return exprs[0]
            return fold(exprs, "min" if name == "affine.min" else "max")
        if name == "memref.dim":
            view = self.imp.view(op.operands[0], op)
            k = self.index(op.operands[1])
            if not isinstance(k, ir.Int) or not 0 <= k.value < len(view.shape):
                raise self.imp.error(op, "a dimension that is not a constant within the rank")
            return view.shape[k.value]
        if name == "arith.ceildivsi" or name == "arith.ceildivui":
            a, b = (self.index(x) for x in op.operands)
            if not isinstance(b, ir.Int) or b.value <= 0:
                raise self.imp.error(op, f"'{name}' by a non-constant or non-positive divisor")
            return ir.FloorDiv(add(a, ir.Int(b.value - 1)), b.value)
        if name in ("arith.maxui", "arith.minui"):
            a, b = (self.index(x) for x in op.operands)
            return ir.Call("max" if "max" in name else "min", (a, b))
        if name == "arith.muli":
            a, b = (self.index(x) for x in op.operands)
            if not isinstance(a, ir.Int) and not isinstance(b, ir.Int):
                raise self.imp.error(op, "a product of two non-constant index values (not affine)")
        return super().index(v)
