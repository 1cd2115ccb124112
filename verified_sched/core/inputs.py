"""The `inputs` directive: declared value ranges of input tensors (for exactness proofs).

    inputs a, b int in [-8, 8]              integers in [-8, 8]
    inputs a in [-1, 1] grid 1/16           multiples of 1/16 (a power of two) in [-1, 1]

The same text is accepted in a comment, `# inputs: a, b int in [-8, 8]`, so a file stays
readable by tools that predate the directive.
"""
from __future__ import annotations

import re
from fractions import Fraction

from . import ir
from .errors import Loc, ParseError

_LINE = re.compile(r"^inputs\s+(?P<names>[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*)\s+(?P<int>int\s+)?in\s*"
                   r"\[\s*(?P<lo>[-+]?[\d./]+)\s*,\s*(?P<hi>[-+]?[\d./]+)\s*\]\s*(grid\s+(?P<grid>\S+))?\s*$")
SYNTAX = "inputs NAME, ... int in [LO, HI]  or  inputs NAME, ... in [LO, HI] grid 1/2^k"


def grid_exponent(text: str) -> int:
    """e such that the grid is 2^-e ("1/16" -> 4, "2^-3" -> 3, "0.5" -> 1, "4" -> -2)."""
    m = re.fullmatch(r"2\^(-?\d+)", text)
    g = Fraction(2) ** int(m.group(1)) if m else Fraction(text)
    if g <= 0:
        raise ValueError("grid must be positive")
    e = 0
    while g < 1:
        g, e = g * 2, e + 1
    while g > 1 and g.denominator == 1 and g.numerator % 2 == 0:
        g, e = g / 2, e - 1
    if g != 1:
        raise ValueError("grid must be a power of two")
    return e


def parse_inputs_line(text: str, loc: Loc | None = None) -> ir.InputRange:
    """Parse one `inputs ...` line (without a leading '#')."""
    m = _LINE.match(text.strip())
    if not m:
        raise ParseError(f"expected '{SYNTAX}'", loc)
    try:
        lo, hi = Fraction(m.group("lo")), Fraction(m.group("hi"))
        if m.group("int") and m.group("grid"):
            raise ValueError("give either 'int' or a grid")
        if not m.group("int") and not m.group("grid"):
            raise ValueError("give 'int' or 'grid 1/2^k': exactness needs a grid")
        e = 0 if m.group("int") else grid_exponent(m.group("grid"))
    except (ValueError, ZeroDivisionError) as exc:
        raise ParseError(f"inputs: {exc}", loc) from None
    if lo > hi:
        raise ParseError("inputs: empty range", loc)
    names = tuple(n.strip() for n in m.group("names").split(","))
    return ir.InputRange(names, lo, hi, e, text=text.strip(), loc=loc)


def inputs_text(r: ir.InputRange) -> str:
    """Canonical DSL text of a range."""
    names = ", ".join(r.tensors)
    if r.grid_exp == 0:
        return f"inputs {names} int in [{r.lo}, {r.hi}]"
    grid = f"1/{2 ** r.grid_exp}" if r.grid_exp > 0 else str(2 ** -r.grid_exp)
    return f"inputs {names} in [{r.lo}, {r.hi}] grid {grid}"


def ranges_from_comments(text: str, filename: str = "<string>") -> list:
    """Every `# inputs: ...` comment line of a .vs source (the parser adds them to
    Program.inputs, so the comment form means the same as the directive)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("#") and s[1:].strip().startswith("inputs:"):
            body = s[1:].strip()[len("inputs:"):].strip()
            out.append(parse_inputs_line("inputs " + body, Loc(filename, n, line.index("#") + 1)))
    return out
