"""Parsing of schedule lines into the validated op records of verified_sched.schedule.

Each op has fixed positional syntax followed by options: `key=value` or a
bare flag. Unknown ops, unknown keywords, flags given a value, values of the wrong kind and
non-positive factors are ParseErrors at their own position.

Names of loops and tensors in a schedule are NOT resolved here: earlier ops create loops and
tensors (split -> io, ii; stage -> TILE; ...), so whether a name exists is a property of the
kernel at the point the op applies. A missing loop or tensor is the op's `precondition`
failure (a ScheduleError from its `apply`, with the op's loc), not a parse error.
"""
from __future__ import annotations

from .. import ir
from .. import schedule as S
from ..errors import Loc, ParseError
from .exprs import TokenStream

# option kinds: "flag", "posint", or a tuple of allowed words
_OPTIONS = {
    "split": {"tail": S.TAILS, "partition": S.PARTITIONS},
    "unroll": {"materialize": "flag"},
    "stage": {"shared": "flag", "cooperative": "posint", "swizzle": S.SWIZZLES,
              "pad_stride": "posint", "hoisted": "flag", "pipeline": "posint",
              "prec": ir.PRECISIONS},
    "tensorize": {"simd": "posint"},
    "fuse_epilogue": {"shared": "flag"},
    "split_reduction": {"blocks": "posint"},
}


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


def _options(ts: TokenStream, op: str, seen: dict) -> dict:
    """Parse `key=value` / flag options up to the end of the line or a `->`."""
    spec = _OPTIONS.get(op, {})
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


def _outputs(ts: TokenStream, what: str, count: int | None = None) -> tuple:
    arrow = ts.expect_op("->", f"before the {what}")
    toks = ts.names(f"a {what}")
    names = [t.text for t in toks]
    for i, t in enumerate(toks):
        if t.text in names[:i]:
            raise ts.error(f"name '{t.text}' given twice", t)
    if count is not None and len(names) != count:
        raise ts.error(f"expected {count} {what}s after '->', got {len(names)}", arrow)
    return tuple(names)


def parse_op(ts: TokenStream):
    """One schedule line (the cursor is on the op name); returns an op record."""
    head = ts.peek()
    if head.kind != "id":
        raise ts.error(f"expected a schedule operation, found {head.describe()}")
    op = head.text
    if op not in S.OP_NAMES:
        raise ts.error(f"unknown schedule operation '{op}' (known: {', '.join(S.OP_NAMES)})", head)
    ts.next()
    loc = head.loc
    opts: dict = {}
    match op:
        case "split":
            loop = ts.name("a loop name").text
            ts.expect_word("by", "in split")
            factor, _ = ts.int_literal("split factor")
            outer, inner = _outputs(ts, "loop name", 2)
            _options(ts, op, opts)
            rec = S.Split(loop, factor, outer, inner, opts.get("tail", "guard"),
                          opts.get("partition", "auto"), loc=loc)
        case "interchange":
            a = ts.name("a loop name").text
            ts.expect_op(",", "between the two loops of interchange")
            rec = S.Interchange(a, ts.name("a loop name").text, loc=loc)
        case "retype":
            loop = ts.name("a loop name").text
            ts.expect_word("as", "in retype")
            rec = S.Retype(loop, parse_axis(ts), loc=loc)
        case "unroll":
            loop = ts.name("a loop name").text
            _options(ts, op, opts)
            rec = S.Unroll(loop, opts.get("materialize", False), loc=loc)
        case "partition":
            rec = _partition(ts, loc)
        case "pad":
            loop = ts.name("a loop name").text
            ts.expect_word("to", "in pad")
            to, _ = ts.int_literal("pad multiple")
            rec = S.Pad(loop, to, loc=loc)
        case "stage":
            src = ts.name("a tensor name").text
            ts.expect_word("over", "in stage")
            over = tuple(t.text for t in ts.names("a loop name"))
            (tile,) = _outputs(ts, "tile name", 1)
            _options(ts, op, opts)
            rec = S.Stage(src, over, tile, opts.get("shared", False), opts.get("cooperative"),
                          opts.get("swizzle"), opts.get("pad_stride"), opts.get("hoisted", False),
                          opts.get("pipeline", 1), opts.get("prec"), loc=loc)
        case "privatize":
            t = ts.name("a tensor name").text
            ts.expect_word("over", "in privatize")
            over = ts.name("a loop name").text
            (acc,) = _outputs(ts, "accumulator name", 1)
            rec = S.Privatize(t, over, acc, loc=loc)
        case "expand_zero":
            t = ts.name("a tensor name").text
            rec = S.ExpandZero(t, _outputs(ts, "loop name"), loc=loc)
        case "tensorize":
            i, j, k = _three_loops(ts)
            _options(ts, op, opts)
            rec = S.Tensorize(i, j, k, opts.get("simd", 32), loc=loc)
        case "fuse_epilogue":
            t = ts.name("a tensor name").text
            _options(ts, op, opts)
            rec = S.FuseEpilogue(t, opts.get("shared", False), loc=loc)
        case "split_reduction":
            loop = ts.name("a loop name").text
            ts.expect_word("of", "in split_reduction")
            t = ts.name("a tensor name").text
            _options(ts, op, opts)
            outer, inner, partials = _outputs(ts, "name", 3)
            _options(ts, op, opts)
            if "blocks" not in opts:
                raise ParseError("split_reduction needs blocks=B", loc)
            rec = S.SplitReduction(loop, t, opts["blocks"], outer, inner, partials, loc=loc)
        case "winograd":
            rec = S.Winograd(loc=loc)
        case _:  # pragma: no cover - OP_NAMES and this match are kept in step
            raise ParseError(f"schedule operation '{op}' has no parser", loc)
    tok = ts.peek()
    if tok.kind == "id":  # an op without options followed by a word
        raise ts.error(f"unknown keyword '{tok.text}' for {op} (allowed: none)")
    ts.end_line(f"the {op} operation")
    return rec


def _three_loops(ts: TokenStream) -> tuple:
    out = [ts.name("a loop name").text]
    for _ in range(2):
        ts.expect_op(",", "tensorize takes three loops: i, j, k")
        out.append(ts.name("a loop name").text)
    return tuple(out)


def _partition(ts: TokenStream, loc: Loc) -> S.Partition:
    loop = ts.name("a loop name").text
    if ts.at_word("auto"):
        ts.next()
        names = _outputs(ts, "loop name")
        if len(names) < 2:
            raise ts.error("partition auto needs at least two segment names", ts.peek())
        return S.Partition(loop, None, names, loc=loc)
    ts.expect_word("at", "or 'auto' in partition")
    points = [ts.expr()]
    while ts.at_op(","):
        ts.next()
        points.append(ts.expr())
    names = _outputs(ts, "loop name", len(points) + 1)
    return S.Partition(loop, tuple(points), names, loc=loc)
