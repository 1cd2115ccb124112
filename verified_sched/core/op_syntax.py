"""The syntax of a schedule op, declared once on its record: the DSL parser
(dsl/ops_parser.py), the printer (`OpRecord.text`) and the argument validation
(`OpRecord.__post_init__`) are all derived from it.

A record is a frozen dataclass deriving from `OpRecord` with a class attribute
`SYNTAX = Syntax(keyword, items, options)`:

- `items`: the positional syntax, in order: `Field(name, kind, what)` (a record field:
  kind "name" a loop or tensor name, "names" a comma-separated list of names, "int" a
  positive integer literal, "axis" an axis type), `Word(text, context)` (a literal keyword
  such as `by`), `Comma(context)`, `Outputs(fields, what, count)` (`-> a, b`: one field per
  name, or one tuple field taking them all when `count` is None), `OPTIONS` (where `key=value`
  options may stand; printed at the first such place) and `Custom(fields, parse, text, draw)`
  for a form none of these say (partition's `auto | at e, ...`).
- `options`: `Option(name, kind)`, kind "flag", "posint" or a tuple of allowed words; the
  default is the dataclass field's default (no default: the option is required). An option
  is printed when it differs from its default (`always=True`: always).

Validation (`__post_init__`): every "int" field and "posint" option (unless None) is a
positive integer, every word option one of its words, every "name" field a string, every
"axis" field an axis type; otherwise a `ScheduleError` "KEYWORD: FIELD VALUE: ..." at the
op's location (the parser reports the same conditions earlier, at the token).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

from .errors import ScheduleError

KINDS = ("name", "names", "int", "axis")


@dataclass(frozen=True)
class Field:
    name: str  # the record's attribute
    kind: str  # one of KINDS
    what: str  # what the parser expects here ("a loop name", "split factor")


@dataclass(frozen=True)
class Word:
    text: str
    context: str = ""


@dataclass(frozen=True)
class Comma:
    context: str = ""


@dataclass(frozen=True)
class Outputs:
    fields: tuple  # record attributes, one per name; one tuple attribute when count is None
    what: str
    count: Optional[int] = None


@dataclass(frozen=True)
class Custom:
    fields: tuple  # the attributes `parse` returns, in order
    parse: Callable  # (ts, outputs) -> tuple of values; outputs(ts, what, count) parses `-> a, b`
    text: Callable  # (record) -> text after the keyword's previous parts (with its leading space)
    draw: Callable  # (hypothesis draw, param names) -> tuple of values (the fuzz strategy)


class _Options:
    def __repr__(self) -> str:
        return "OPTIONS"


OPTIONS = _Options()


@dataclass(frozen=True)
class Option:
    name: str
    kind: object  # "flag" | "posint" | tuple of words
    always: bool = False  # printed even at its default


@dataclass(frozen=True)
class Syntax:
    keyword: str
    items: tuple = ()
    options: tuple = ()

    def option(self, name: str) -> Optional[Option]:
        return next((o for o in self.options if o.name == name), None)

    def option_kinds(self) -> dict:
        return {o.name: o.kind for o in self.options}


def loc_field():
    """The `loc` field every record ends with (its source location; not compared, not shown)."""
    return dataclasses.field(default=None, compare=False, repr=False, kw_only=True)


LOOP_NAME = "a loop name"  # what a loop reference says: `i`, or `i@2` (the second loop named i)


def loop_field(name: str = "loop") -> Field:
    """A positional loop-name field: a loop reference, `i` or `i@k` (ops.common.find_loop)."""
    return Field(name, "name", LOOP_NAME)


def tensor_field(name: str = "tensor") -> Field:
    """A positional tensor-name field."""
    return Field(name, "name", "a tensor name")


def default(cls, name: str):
    """The dataclass default of field `name` of record class `cls` (MISSING if required)."""
    f = cls.__dataclass_fields__[name]
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # pragma: no cover - records use plain defaults
        return f.default_factory()
    return dataclasses.MISSING


class OpRecord:
    """Base of every schedule op record: `text()` and validation derived from `SYNTAX`."""

    SYNTAX: Syntax

    def __post_init__(self) -> None:
        validate(self)

    def text(self) -> str:
        return render(self)

    def check(self) -> None:
        """Record-specific argument checks beyond the syntax's (override; raise `invalid`)."""


def op_name(op) -> str:
    """The DSL keyword of an op record."""
    if not isinstance(op, OpRecord):
        raise TypeError(op)
    return type(op).SYNTAX.keyword


def render(op) -> str:
    """The op in DSL syntax: the keyword, the items, the options (not at their default)."""
    syn = type(op).SYNTAX
    out = syn.keyword
    opts_done = False
    for item in syn.items:
        match item:
            case Field(name=name, kind="names"):
                out += " " + ", ".join(getattr(op, name))
            case Field(name=name):
                out += f" {getattr(op, name)}"
            case Word(text=text):
                out += f" {text}"
            case Comma():
                out += ","
            case Outputs(fields=fields, count=None):
                out += " -> " + ", ".join(getattr(op, fields[0]))
            case Outputs(fields=fields):
                out += " -> " + ", ".join(getattr(op, f) for f in fields)
            case Custom(text=text):
                out += text(op)
            case _ if item is OPTIONS and not opts_done:
                opts_done = True
                out += _options_text(op, syn)
    return out


def _options_text(op, syn: Syntax) -> str:
    out = ""
    for o in syn.options:
        value = getattr(op, o.name)
        if not o.always and value == default(type(op), o.name):
            continue
        out += f" {o.name}" if o.kind == "flag" else f" {o.name}={value}"
    return out


def invalid(op, message: str) -> ScheduleError:
    """An argument error of record `op` (a precondition failure at the op's location)."""
    try:
        text = render(op)
    except (TypeError, AttributeError):  # the bad argument may not even print
        text = type(op).SYNTAX.keyword
    return ScheduleError(f"{type(op).SYNTAX.keyword}: {message}", loc=getattr(op, "loc", None), op=text)


def _positive(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def validate(op) -> None:
    """The checks every record gets from its syntax, then the record's own `check()`."""
    from .ir import AXES

    syn = type(op).SYNTAX
    for item in syn.items:
        if not isinstance(item, Field):
            continue
        value = getattr(op, item.name)
        if item.kind == "int" and not _positive(value):
            raise invalid(op, f"{item.name} {value!r}: must be a positive integer")
        if item.kind == "name" and not isinstance(value, str):
            raise invalid(op, f"{item.name} {value!r}: must be a name")
        if item.kind == "axis" and value not in AXES:
            raise invalid(op, f"{item.name} '{value}': not one of {', '.join(AXES)}")
    for o in syn.options:
        value = getattr(op, o.name)
        if value is None or value is dataclasses.MISSING:
            continue
        if o.kind == "posint" and not _positive(value):
            raise invalid(op, f"{o.name} {value!r}: must be a positive integer")
        if isinstance(o.kind, tuple) and value not in o.kind:
            raise invalid(op, f"{o.name} '{value}': not one of {', '.join(o.kind)}")
    op.check()
