"""Tokenizer of the .vs DSL.

Newlines end statements, declarations and schedule lines, so they are tokens. They are
dropped inside ( ) and [ ], and after a token that cannot end a line (a binary operator, a
comma, `->`, `..`, `=`, `and`, ...), which lets long expressions continue on the next line.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..core.errors import Loc, ParseError
from .limits import float_literal, int_literal


class Token(NamedTuple):
    kind: str  # "num", "id", "op", "nl", "eof"
    value: object  # int | float for num; the text otherwise
    text: str
    file: str
    line: int
    col: int

    @property
    def loc(self) -> Loc:
        return Loc(self.file, self.line, self.col)

    def describe(self) -> str:
        match self.kind:
            case "nl":
                return "end of line"
            case "eof":
                return "end of file"
            case _:
                return repr(self.text)


_OPS = ("..", "->", "+=", "-=", "*=", "==", "!=", "<=", ">=", "<", ">", "=", "+", "-", "*", "/",
        "%", "(", ")", "[", "]", "{", "}", ",", ":", ".", "@")
_TOKEN_RE = re.compile(
    r"(?P<ws>[ \t\r\f]+)|(?P<comment>#[^\n]*)|(?P<nl>\n)"
    r"|(?P<float>\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)"
    r"|(?P<int>\d+)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in _OPS) + ")"
)
# A newline right after one of these continues the line.
_CONTINUES = {"..", "->", "+=", "-=", "*=", "==", "!=", "<=", ">=", "<", ">", "=", "+", "-", "*",
              "/", "%", "(", "[", "{", ",", ":", "."}
_CONTINUE_WORDS = {"and", "or", "not", "where"}


def tokenize(text: str, filename: str) -> list[Token]:
    tokens: list[Token] = []
    depth = 0  # nesting of ( and [
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        col = pos - line_start + 1
        if m is None:
            raise ParseError(f"unexpected character {text[pos]!r}", Loc(filename, line, col))
        kind = m.lastgroup
        tok_text = m.group()
        pos = m.end()
        match kind:
            case "ws" | "comment":
                continue
            case "nl":
                line, line_start = line + 1, pos
                if depth > 0 or not tokens or tokens[-1].kind == "nl":
                    continue
                last = tokens[-1]
                if (last.kind == "op" and last.text in _CONTINUES) or (
                        last.kind == "id" and last.text in _CONTINUE_WORDS):
                    continue
                tokens.append(Token("nl", "\n", "\n", filename, line - 1, col))
            case "float":
                value = float_literal(tok_text, Loc(filename, line, col))
                tokens.append(Token("num", value, tok_text, filename, line, col))
            case "int":
                value = int_literal(tok_text, Loc(filename, line, col))
                tokens.append(Token("num", value, tok_text, filename, line, col))
            case "id":
                tokens.append(Token("id", tok_text, tok_text, filename, line, col))
            case _:
                if tok_text in "([":
                    depth += 1
                elif tok_text in ")]" and depth > 0:
                    depth -= 1
                tokens.append(Token("op", tok_text, tok_text, filename, line, col))
    tokens += [Token("eof", None, "", filename, line, pos - line_start + 1)] * 4
    return tokens
