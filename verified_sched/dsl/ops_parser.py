"""Parsing of schedule lines into the validated op records (verified_sched/ops/<op>.py).

Each op has fixed positional syntax followed by options: `key=value` or a
bare flag. Unknown ops, unknown keywords, flags given a value, values of the wrong kind and
non-positive factors are ParseErrors at their own position. The syntax of each op is
declared once, on its record (`SYNTAX`, verified_sched/core/op_syntax.py); this module
interprets it for every op of the registry (verified_sched/ops/registry.py).

Names of loops and tensors in a schedule are NOT resolved here: earlier ops create loops and
tensors (split -> io, ii; stage -> TILE; ...), so whether a name exists is a property of the
kernel at the point the op applies. A missing loop or tensor is the op's `precondition`
failure (a ScheduleError from its `apply`, with the op's loc), not a parse error.
"""
from __future__ import annotations

import dataclasses

from ..core import ir
from ..core.errors import ParseError
from ..core.op_syntax import LOOP_NAME, OPTIONS, Comma, Custom, Field, Outputs, Word, default
from .exprs import TokenStream


def parse_axis(ts: TokenStream) -> str:
    tok = ts.peek()
    if tok.kind != "id":
        raise ts.error(f"expected an axis type ({', '.join(ir.AXES)}), found {tok.describe()}")
    ts.next()
    axis = tok.text
    if axis in ("block", "thread") and ts.at_op("."):
        ts.next()
        part = ts.peek()
        if part.kind == "id":
            ts.next()
            axis = f"{axis}.{part.text}"
    if axis not in ir.AXES:
        raise ts.error(f"unknown axis type '{axis}' (expected one of {', '.join(ir.AXES)})", tok)
    return axis


def options(ts: TokenStream, op: str, spec: dict, seen: dict) -> dict:
    """Parse `key=value` / flag options up to the end of the line or a `->`."""
    while ts.peek().kind == "id":
        key = ts.next()
        kind = spec.get(key.text)
        if kind is None:
            allowed = ", ".join(spec) if spec else "none"
            raise ts.error(f"unknown keyword '{key.text}' for {op} (allowed: {allowed})", key)
        if key.text in seen:
            raise ts.error(f"keyword '{key.text}' given twice", key)
        if kind == "flag":
            if ts.at_op("="):
                raise ts.error(f"'{key.text}' is a flag and takes no value", ts.peek())
            seen[key.text] = True
            continue
        if not ts.at_op("="):
            raise ts.error(f"keyword '{key.text}' needs a value: {key.text}=...", key)
        ts.next()
        if kind == "posint":
            seen[key.text], _ = ts.int_literal(f"{op} {key.text}")
            continue
        val = ts.peek()
        if val.kind != "id" or val.text not in kind:
            raise ts.error(f"{op} {key.text} must be one of {', '.join(kind)}, found {val.describe()}", val)
        ts.next()
        seen[key.text] = val.text
    return seen


def outputs(ts: TokenStream, what: str, count: int | None = None) -> tuple:
    arrow = ts.expect_op("->", f"before the {what}")
    toks = ts.names(f"a {what}")
    names = [t.text for t in toks]
    for i, t in enumerate(toks):
        if t.text in names[:i]:
            raise ts.error(f"name '{t.text}' given twice", t)
    if count is not None and len(names) != count:
        raise ts.error(f"expected {count} {what}s after '->', got {len(names)}", arrow)
    return tuple(names)


def loop_ref(ts: TokenStream, what: str = LOOP_NAME) -> str:
    """A loop reference: a name, or `name@k` (k >= 1: the k-th loop of that name in the
    kernel, in program order), written without spaces."""
    tok = ts.name(what)
    at = ts.peek()
    if not (at.kind == "op" and at.text == "@"):
        return tok.text
    if (at.line, at.col) != (tok.line, tok.col + len(tok.text)):
        raise ts.error("write a qualified loop name without spaces: NAME@K", at)
    ts.next()
    k = ts.peek()
    if k.kind != "num" or (k.line, k.col) != (at.line, at.col + 1):
        raise ts.error(f"expected the loop's number after '{tok.text}@' (1 for the first loop named "
                       f"'{tok.text}'), found {k.describe()}", k)
    value, _ = ts.int_literal(f"the number in '{tok.text}@'")
    return f"{tok.text}@{value}"


def _refs(ts: TokenStream, what: str) -> tuple:
    out = [loop_ref(ts, what)]
    while ts.at_op(","):
        ts.next()
        out.append(loop_ref(ts, what))
    return tuple(out)


def _registry():
    # late import: the op modules import the DSL package; the registry imports an op's module
    # only when a schedule names it (record_named), so a file loads only the ops it uses
    from ..ops import registry

    return registry


def parse_op(ts: TokenStream):
    """One schedule line (the cursor is on the op name); returns an op record."""
    head = ts.peek()
    if head.kind != "id":
        raise ts.error(f"expected a schedule operation, found {head.describe()}")
    op = head.text
    registry = _registry()
    if op not in registry.KEYWORDS:
        raise ts.error(f"unknown schedule operation '{op}' (known: {', '.join(registry.KEYWORDS)})", head)
    ts.next()
    cls = registry.record_named(op)
    syntax = cls.SYNTAX
    kinds = syntax.option_kinds()
    values: dict = {}
    opts: dict = {}
    for item in syntax.items:
        match item:
            case Field(name=name, kind="name", what=what) if what == LOOP_NAME:
                values[name] = loop_ref(ts, what)
            case Field(name=name, kind="names", what=what) if what == LOOP_NAME:
                values[name] = _refs(ts, what)
            case Field(name=name, kind="name", what=what):
                values[name] = ts.name(what).text
            case Field(name=name, kind="names", what=what):
                values[name] = tuple(t.text for t in ts.names(what))
            case Field(name=name, kind="int", what=what):
                values[name], _ = ts.int_literal(what)
            case Field(name=name, kind="axis"):
                values[name] = parse_axis(ts)
            case Word(text=text, context=context):
                ts.expect_word(text, context)
            case Comma(context=context):
                ts.expect_op(",", context)
            case Outputs(fields=fields, what=what, count=count):
                got = outputs(ts, what, count)
                values.update({fields[0]: got} if count is None else dict(zip(fields, got)))
            case Custom(fields=fields, parse=parse):
                values.update(zip(fields, parse(ts, outputs)))
            case _ if item is OPTIONS:
                options(ts, op, kinds, opts)
    for o in syntax.options:
        if o.name not in opts and default(cls, o.name) is dataclasses.MISSING:
            raise ParseError(f"{op} needs {o.name}={o.name[0].upper()}", head.loc)
    rec = cls(**values, **opts, loc=head.loc)
    tok = ts.peek()
    if tok.kind == "id":  # an op without options followed by a word
        raise ts.error(f"unknown keyword '{tok.text}' for {op} (allowed: none)")
    ts.end_line(f"the {op} operation")
    return rec
