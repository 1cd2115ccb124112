"""The option coverage a fuzz campaign reports, derived from each op's spec (`fuzz_options`,
ops/spec.py) and its record's syntax (op_syntax.Option): an option whose default is one of its
words is reported per word (`split tail=guard`); any other option when it differs from its
default (`stage cooperative`); an entry `(flag, word)` also reports the flag at its default as
`word` (`stage local`). This module names no op."""
from __future__ import annotations

from ..core.op_syntax import default
from ..ops.registry import SPECS


def _entries(spec):
    """(option, label at its default or None) for each option the spec reports, in its order."""
    for entry in spec.fuzz_options:
        yield (entry, None) if isinstance(entry, str) else entry


def _per_word(spec, name: str):
    """The option's words when it is reported per word (its default is one of them), else None."""
    kind = spec.record.SYNTAX.option(name).kind
    return kind if isinstance(kind, tuple) and default(spec.record, name) in kind else None


def labels(spec) -> list:
    """The option labels of one op, in its spec's order."""
    out = []
    for name, off in _entries(spec):
        words = _per_word(spec, name)
        if words is not None:
            out += [f"{spec.keyword} {name}={w}" for w in words]
        else:
            out.append(f"{spec.keyword} {name}")
            if off is not None:
                out.append(f"{spec.keyword} {off}")
    return out


def op_options(ops) -> list:
    """The option labels the op records `ops` exercise."""
    by_record = {s.record: s for s in SPECS}
    out = []
    for op in ops:
        spec = by_record.get(type(op))
        for name, off in (_entries(spec) if spec is not None else ()):
            value = getattr(op, name)
            if _per_word(spec, name) is not None:
                out.append(f"{spec.keyword} {name}={value}")
            elif value != default(spec.record, name):
                out.append(f"{spec.keyword} {name}")
            elif off is not None:
                out.append(f"{spec.keyword} {off}")
    return out


# the options whose coverage is reported (every one of them should show up in a campaign)
OPTION_LABELS = [label for s in SPECS for label in labels(s)]
