"""A message that quotes source positions, with the positions as data.

`Message(template, locations)`: `template` is a `str.format` template in which `{0}`, `{1}`,
... stand for `locations[0]`, `locations[1]`, ... (literal braces doubled), and `locations` are
`errors.Loc`s. `str(message)` is the text users read (each location as `FILE:LINE:COL`, as
`str(Loc)` always wrote it). A position is never searched for in text: whoever quotes a
location says so (`Message(...)`, `Message.quoting(text, locations)`), so a result stored
under one layout of a file (the proof cache) is rendered for another by mapping its
locations (`relocated`), not by rewriting strings.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import Loc


def escape(text: str) -> str:
    """`text` as a template quoting nothing (braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def loc_json(loc: Loc) -> dict:
    """A location as JSON data."""
    return {"file": loc.file, "line": loc.line, "col": loc.col}


def loc_from_json(data: dict) -> Loc:
    return Loc(str(data["file"]), int(data["line"]), int(data["col"]))


def _split(text: str, shown: str) -> list:
    """`text` split at each occurrence of `shown` that no digit follows."""
    pieces, start, at = [], 0, text.find(shown)
    while at >= 0:
        end = at + len(shown)
        if end < len(text) and text[end].isdigit():
            at = text.find(shown, at + 1)
            continue
        pieces.append(text[start:at])
        start = end
        at = text.find(shown, end)
    pieces.append(text[start:])
    return pieces


@dataclass(frozen=True)
class Message:
    template: str
    locations: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "locations", tuple(self.locations))

    @classmethod
    def plain(cls, text: str) -> Message:
        """A message that quotes no location."""
        return cls(escape(text), ())

    @classmethod
    def quoting(cls, text: str, locations) -> Message:
        """The message whose text is `text`, the given locations (those it quotes, as their
        producer knows them) made placeholders: each occurrence of `str(loc)` in the text (not
        followed by a digit: `f:1:2` is not in `f:1:23`) becomes `{n}`; a location the text
        does not quote is dropped."""
        parts, kept = [text], []  # even indexes: text; odd: locations (their index in kept)
        for loc in locations:
            if loc in kept:
                continue
            out, shown = [], str(loc)
            for i, part in enumerate(parts):
                if i % 2:
                    out.append(part)
                    continue
                pieces = _split(part, shown)
                for j, piece in enumerate(pieces):
                    if j:
                        out.append(len(kept))
                    out.append(piece)
            if len(out) > len(parts):
                kept.append(loc)
                parts = out
        template = "".join(f"{{{p}}}" if i % 2 else escape(p) for i, p in enumerate(parts))
        return cls(template, tuple(kept))

    def __str__(self) -> str:
        return self.template.format(*(str(loc) for loc in self.locations))

    def relocated(self, where) -> Message:
        """The message with each location mapped by `where(loc)`."""
        return Message(self.template, tuple(where(loc) for loc in self.locations))

    def to_json(self, loc=loc_json) -> dict:
        """{"template", "locations"}, each location written by `loc` (default: its file, line
        and column)."""
        return {"template": self.template, "locations": [loc(x) for x in self.locations]}

    @classmethod
    def from_json(cls, data: dict, loc=loc_from_json) -> Message:
        return cls(str(data["template"]), tuple(loc(x) for x in data.get("locations") or ()))
