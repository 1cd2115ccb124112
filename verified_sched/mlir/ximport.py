"""Parsing MLIR text with xdsl, and the small helpers the importer shares: element types,
integer attributes, and the source position (FILE:LINE:COL) of each operation.

xdsl keeps no source positions on operations, so `locate` scans the text: every line that
starts an operation (`%a, %b = dialect.op ...` or `dialect.op ...`) in textual order, matched
in order against the operations of a pre-order walk (which is textual order).
"""
from __future__ import annotations

import itertools
import re

from verified_sched.core.errors import Loc, UsageError

_OP_LINE = re.compile(r'^(\s*)(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)')


class MlirImportError(UsageError):
    """MLIR the importer cannot translate (printed FILE:LINE:COL: message, exit 2)."""


def xdsl_modules():
    try:
        from xdsl.context import Context
        from xdsl.dialects import get_all_dialects
        from xdsl.parser import Parser
    except ImportError:
        raise UsageError("'vsched import' needs xdsl: pip install 'verified_sched[iree]' (xdsl==0.74.0)") from None
    return Context, get_all_dialects, Parser


_UTIL = re.compile(r"\butil\.(func|return)\b")


def util_as_func(text: str) -> str:
    """IREE's `util.func`/`util.return` (what IREE's torch input pipeline emits) as
    `func.func`/`func.return`: the same syntax for functions on tensors, and the same length,
    so positions are kept (xdsl has no util dialect)."""
    return _UTIL.sub(lambda m: f"func.{m.group(1)}", text)


_MULTI_DEF = re.compile(r"%([A-Za-z0-9_$.-]+):(\d+)(\s*=)")
_MULTI_USE = re.compile(r"%([A-Za-z0-9_$.-]+)#(\d+)")
_REGION_RESULTS = re.compile(r"^(\s*\} -> )\((.*)\)[ \t]*$", re.M)


def split_results(text: str) -> str:
    """`%4:2 = op` and its uses `%4#0` as `%r4_0, %r4_1 = op` and `%r4_0`: the same program in
    a form xdsl 0.74 parses (it cannot parse a `%4#0` operand in some custom syntaxes, such as
    tensor.expand_shape's)."""
    def stem(name):
        return "r" + re.sub(r"\W", "_", name)

    text = _MULTI_DEF.sub(lambda m: ", ".join(f"%{stem(m.group(1))}_{k}" for k in range(int(m.group(2))))
                          + m.group(3), text)
    text = _MULTI_USE.sub(lambda m: f"%{stem(m.group(1))}_{m.group(2)}", text)
    return _REGION_RESULTS.sub(r"\1\2", text)  # `} -> (T1, T2)` of a linalg op: xdsl wants `} -> T1, T2`


_RESOURCE = re.compile(r'^\s*"?([^":\s]+)"?\s*:\s*"0x([0-9A-Fa-f]*)"', re.M)
_HANDLE = re.compile(r"dense_resource<([^>]+)>")
_RESOURCE_IDS = itertools.count()


def take_resources(text: str) -> tuple:
    """(text, {handle: hex blob}): the file's `{-# dialect_resources #-}` blobs, the section
    blanked (lines kept, so positions are), and every `dense_resource<NAME>` renamed to a handle
    unique in this process (xdsl renames a handle it has seen before, in any module)."""
    if "{-#" not in text:
        return text, {}
    head, _, tail = text.partition("{-#")
    section, _, rest = tail.partition("#-}")
    blobs = {m.group(1): m.group(2) for m in _RESOURCE.finditer(section)}
    names = {}

    def rename(m):
        names.setdefault(m.group(1), f"vsched_resource_{next(_RESOURCE_IDS)}")
        return f"dense_resource<{names[m.group(1)]}>"

    head = _HANDLE.sub(rename, head)
    blank = "\n" * (section.count("\n"))
    return head + blank + rest, {new: blobs[old] for old, new in names.items() if old in blobs}


def parse_module(text: str, filename: str):
    """The xdsl ModuleOp of `text` (every dialect registered, unregistered ops allowed;
    util.func read as func.func; multi-result values split, split_results)."""
    text = split_results(util_as_func(text))
    Context, get_all_dialects, Parser = xdsl_modules()
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, _with_named_ops(factory) if name == "linalg" else factory)
    try:
        return Parser(ctx, text, filename).parse_module()
    except Exception as e:  # noqa: BLE001 - xdsl raises ParseError/VerifyException/others on bad text
        message = str(e).strip()
        m = re.search(r":(\d+):(\d+)", message)
        loc = Loc(filename, int(m.group(1)), int(m.group(2))) if m else None
        first = message.splitlines()[-1] if message else type(e).__name__
        raise MlirImportError(f"cannot parse the MLIR: {first[:400]}", loc) from None


# named linalg ops xdsl 0.74 does not define, parsed with the syntax of one it does (the
# importer reads only their operands and attributes: generalize.py gives their meaning)
EXTRA_NAMED = {"linalg.batch_matmul": "MatmulOp", "linalg.batch_matmul_transpose_b": "MatmulOp",
               "linalg.pooling_nhwc_max": "PoolingNchwMaxOp", "linalg.pooling_nhwc_sum": "PoolingNchwMaxOp",
               "linalg.pooling_nchw_sum": "PoolingNchwMaxOp", "linalg.pooling_nhwc_min": "PoolingNchwMaxOp",
               "linalg.depthwise_conv_2d_nhwc_hwc": "Conv2DNhwc_HwcfOp",
               "linalg.depthwise_conv_2d_nchw_chw": "Conv2DNhwc_HwcfOp",
               "linalg.depthwise_conv_2d_nhwc_hwcm": "Conv2DNhwc_HwcfOp"}


def _with_named_ops(factory):
    def make():
        import warnings

        from xdsl.dialects.linalg import ops as linalg_ops
        from xdsl.ir import Dialect

        base = factory()
        known = {op.name for op in base.operations}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            extra = [type(name.replace(".", "_"), (getattr(linalg_ops, like),), {"name": name, "__module__": __name__})
                     for name, like in EXTRA_NAMED.items() if name not in known]
        return Dialect("linalg", [*base.operations, *extra], [*base.attributes])

    return make


def locate(module, text: str, filename: str) -> dict:
    """{id(op): Loc} for the operations of `module`, from the text's op lines."""
    lines = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _OP_LINE.match(line)
        if m:
            lines.append((m.group(2), Loc(filename, n, m.start(2) + 1)))
    out, pos = {}, 0
    for op in _textual_ops(module):
        for k in range(pos, min(pos + 64, len(lines))):
            if lines[k][0] == op.name:
                out[id(op)] = lines[k][1]
                pos = k + 1
                break
    return out


def _textual_ops(op):
    """Pre-order walk skipping the implicit regions of named ops (not written in the text)."""
    yield op
    if op.name.startswith("linalg.") and op.name != "linalg.generic":
        return
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from _textual_ops(inner)


def elem_of(ty) -> str:
    """'f32', 'f16', 'bf16', 'f64', 'i32', 'i1', 'i64', 'index' or the type's text."""
    text = str(ty)
    return {"f32": "f32", "f16": "f16", "bf16": "bf16", "f64": "f64", "i32": "i32", "i1": "i1",
            "i64": "i64", "index": "index"}.get(text, text)


def prop(op, name: str):
    """A property or attribute of op (None when absent; attributes may be falsy)."""
    attr = op.properties.get(name)
    return op.attributes.get(name) if attr is None else attr


def int_value(op, name: str = "value") -> int:
    attr = prop(op, name)
    value = getattr(attr, "value", attr)
    value = getattr(value, "data", value)
    return int(value)


def shape_of(ty) -> tuple:
    return tuple(int(d) for d in ty.get_shape())


def array_values(op, name: str) -> tuple:
    attr = prop(op, name)
    if attr is None:
        return ()
    if hasattr(attr, "get_values"):
        return tuple(int(v) for v in attr.get_values())
    return tuple(int(getattr(getattr(v, "value", v), "data", v)) for v in attr.data)
