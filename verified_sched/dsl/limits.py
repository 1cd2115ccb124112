"""Input limits of the .vs DSL: what a file may hold before vsched refuses it with a clear
`FILE:LINE:COL` error (exit 2) instead of running out of stack, memory or time.

Every limit is far above what a real loop nest needs (the corpus and the examples use a small
fraction of each); the README's "Input limits" table names them. The checks themselves are
iterative, so they hold for any input.
"""
from __future__ import annotations

import dataclasses
import os
import stat

from typing import TYPE_CHECKING

from ..core.errors import Loc, ParseError

if TYPE_CHECKING:  # imported where the program is walked: reading a file needs no IR (a proof-cache hit)
    from ..core import ir

MAX_FILE_BYTES = 1 << 20  # a .vs file: 1 MiB
MAX_NESTING = 128  # nested ( ), [ ], calls, unary minus, not, and for/if/tensor_core blocks
MAX_EXPR_DEPTH = 200  # depth of one expression tree: `a + b + c` is 2 deep (left-associative)
MAX_INT = 2**63 - 1  # integer literals lie in the int64 range
MAX_PARAMS = 2048  # size parameters
MAX_CONSTRAINTS = 4096  # size constraints
MAX_TENSORS = 256  # tensor declarations
MAX_KERNELS = 256  # kernels (and as many schedules)
MAX_STATEMENTS = 10_000  # statements (loops, ifs, assignments, ...) over all kernels
MAX_OPS = 256  # ops in one schedule



def read_source(path) -> str:
    """The text of a .vs file: a regular file (not a FIFO, device or folder) of at most
    MAX_FILE_BYTES bytes of UTF-8, checked before reading more than the limit."""
    name = str(path)
    where = Loc(name, 1, 1)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}", where) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise ParseError(f"cannot read {name}: {kind} (give a .vs file)", where)
        if info.st_size > MAX_FILE_BYTES:
            raise ParseError(f"{name} has {info.st_size} bytes; the limit is {MAX_FILE_BYTES} "
                             f"(file size)", where)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}", where) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise ParseError(f"{name} has more than {MAX_FILE_BYTES} bytes (file size limit)", where)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ParseError(f"cannot read {name}: not UTF-8 text (byte {data[err.start]:#04x})",
                         Loc(name, line, col)) from None


def int_literal(text: str, loc: Loc) -> int:
    """An integer literal's value, refused beyond the int64 range (before converting, so a
    literal of thousands of digits costs nothing)."""
    digits = text.lstrip("0") or "0"
    if len(digits) > 19 or int(digits) > MAX_INT:
        shown = text if len(text) <= 24 else f"{text[:10]}...{text[-6:]} ({len(text)} digits)"
        raise ParseError(f"integer literal {shown} does not fit in int64 (at most {MAX_INT})", loc)
    return int(digits)


def float_literal(text: str, loc: Loc) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        shown = text if len(text) <= 24 else f"{text[:10]}...{text[-6:]}"
        raise ParseError(f"float literal {shown} overflows to infinity (the largest is about 1.8e308)", loc)
    return value


def _children(node, node_type: type):
    """Direct child nodes, the `node_type` (ir.Node) values among its fields (iteratively
    flattening tuples, e.g. an Assign's provenance pairs)."""
    stack = [getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "loc"]
    out = []
    while stack:
        v = stack.pop()
        if isinstance(v, node_type):
            out.append(v)
        elif isinstance(v, tuple):
            stack.extend(v)
    return out


def _over(what: str, n: int, limit: int, loc, fallback: Loc) -> ParseError:
    return ParseError(f"{what}: {n} (the limit is {limit}; see Input limits in docs/cli.md)",
                      loc or fallback)


def expr_depth(root) -> tuple[int, object]:
    """(depth, deepest node) of an expression or condition, iteratively: a leaf is 0 deep."""
    from ..core import ir

    best, where = 0, root
    stack = [(root, 0)]
    while stack:
        node, d = stack.pop()
        if d > best:
            best, where = d, node
        stack.extend((child, d + 1) for child in _children(node, ir.Node))
    return best, where


def check_program_limits(program: ir.Program) -> None:
    """ParseError (at the offending node) when a program exceeds a count or depth limit."""
    from ..core import ir

    statement_types = (ir.For, ir.Assign, ir.Zero, ir.If, ir.Barrier, ir.TensorCore)
    fallback = program.loc or Loc("<input>", 1, 1)
    counts = (("params", len(program.params), MAX_PARAMS),
              ("constraints", len(program.constraints), MAX_CONSTRAINTS),
              ("tensors", len(program.tensors), MAX_TENSORS),
              ("kernels", len(program.kernels), MAX_KERNELS),
              ("schedules", len(program.schedules), MAX_KERNELS))
    for what, n, limit in counts:
        if n > limit:
            raise _over(f"too many {what}", n, limit, None, fallback)
    for sched in program.schedules:
        if len(sched.ops) > MAX_OPS:
            raise _over(f"too many ops in the schedule of {sched.kernel}", len(sched.ops), MAX_OPS,
                        sched.loc, fallback)
    exprs = [(c, c) for c in program.constraints]  # (expression or condition root, its owner)
    for t in program.tensors:
        exprs += [(d, t) for d in _children(t, ir.Node)]
    stack = list(program.kernels)
    statements = 0
    while stack:
        node = stack.pop()
        if isinstance(node, statement_types):
            statements += 1
            if statements > MAX_STATEMENTS:
                raise _over("too many statements", statements, MAX_STATEMENTS, node.loc, fallback)
        for child in _children(node, ir.Node):
            if isinstance(child, statement_types):
                stack.append(child)
            else:
                exprs.append((child, node))
    for root, owner in exprs:
        depth, _ = expr_depth(root)
        if depth > MAX_EXPR_DEPTH:
            loc = getattr(root, "loc", None) or getattr(owner, "loc", None)
            raise _over("expression too deep", depth, MAX_EXPR_DEPTH, loc, fallback)
