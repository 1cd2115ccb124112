"""Token stream and the expression / condition parser shared by kernels and schedules.

Precedence, loosest first: `or`, `and`, `not`, comparisons, `+ -`, `* / %`, unary minus,
atoms. Binary operators associate to the left. A minus written directly before a number
literal is part of the literal (`-3` is Int(-3)); any other unary minus is Call("neg").
`floor(e / c)` is FloorDiv(e, c) and `e % c` is Mod(e, c), c a positive integer literal.
A call named by a precision (`f32(e)`, `i32(e)`, ...) is a cast.
"""
from __future__ import annotations

from ..core import ir
from ..core.errors import Loc, ParseError
from .lexer import Token
from .limits import MAX_NESTING

# Words that cannot name a tensor, parameter, iterator or kernel. Function and precision
# names are not reserved: a name directly followed by `(` is a call, anything else is not.
RESERVED = frozenset({
    "params", "profile", "tensor", "kernel", "schedule", "claim", "for", "in", "if", "else",
    "zero", "barrier", "tensor_core", "and", "or", "not", "true", "false", "where",
})

CMP_OPS = frozenset(ir.CMPOPS)


class TokenStream:
    """Cursor over the tokens with the small helpers every parser needs."""

    def __init__(self, tokens: list[Token], filename: str):
        self.tokens = tokens
        self.pos = 0
        self.filename = filename
        self.depth = 0  # current nesting (parentheses, calls, unary minus, not, blocks)

    def enter(self, tok: Token | None = None) -> None:
        """One more level of nesting; a ParseError past MAX_NESTING (the parser recurses)."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.depth = 0
            raise self.error(f"nesting deeper than {MAX_NESTING} levels (parentheses, calls, unary "
                             "minus, not, blocks; see Input limits in docs/cli.md)", tok)

    def leave(self) -> None:
        self.depth -= 1

    # ---------------------------------------------------------------- cursor

    def peek(self, k: int = 0) -> Token:
        return self.tokens[self.pos + k]  # the stream ends in several eof tokens

    def next(self) -> Token:
        tok = self.peek()
        if tok.kind != "eof":
            self.pos += 1
        return tok

    def at_op(self, *ops: str, k: int = 0) -> bool:
        tok = self.tokens[self.pos + k]
        return tok.kind == "op" and tok.text in ops

    def at_word(self, *words: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "id" and tok.text in words

    def error(self, message: str, tok: Token | None = None) -> ParseError:
        return ParseError(message, (tok or self.peek()).loc)

    def expect_op(self, op: str, context: str = "") -> Token:
        if not self.at_op(op):
            where = f" {context}" if context else ""
            raise self.error(f"expected '{op}'{where}, found {self.peek().describe()}")
        return self.next()

    def expect_word(self, word: str, context: str = "") -> Token:
        if not self.at_word(word):
            where = f" {context}" if context else ""
            raise self.error(f"expected '{word}'{where}, found {self.peek().describe()}")
        return self.next()

    def name(self, what: str = "a name") -> Token:
        tok = self.peek()
        if tok.kind != "id":
            raise self.error(f"expected {what}, found {tok.describe()}")
        if tok.text in RESERVED:
            raise self.error(f"'{tok.text}' is a reserved word and cannot be {what}")
        return self.next()

    def names(self, what: str = "a name") -> list[Token]:
        out = [self.name(what)]
        while self.at_op(","):
            self.next()
            out.append(self.name(what))
        return out

    def skip_nl(self) -> None:
        while self.peek().kind == "nl":
            self.pos += 1

    def end_line(self, what: str) -> None:
        """A line ends at a newline, a closing brace (left for the caller) or the file's end."""
        tok = self.peek()
        if tok.kind == "nl":
            self.next()
        elif not (tok.kind == "eof" or self.at_op("}")):
            raise self.error(f"unexpected {tok.describe()} after {what}")

    def int_literal(self, what: str, minimum: int | None = 1) -> tuple[int, Loc]:
        """An integer literal (optionally negative, so the error names the sign) >= minimum."""
        tok = self.peek()
        negative = False
        if self.at_op("-") and self.peek(1).kind == "num":
            negative = True
            self.next()
        num = self.next() if self.peek().kind == "num" else None
        if num is None or not isinstance(num.value, int):
            found = num.describe() if num else self.peek().describe()
            raise self.error(f"{what} must be an integer constant, found {found}", tok)
        value = -num.value if negative else num.value
        if minimum is not None and value < minimum:
            need = "positive" if minimum == 1 else f">= {minimum}"
            raise self.error(f"{what} must be {need}, got {value}", tok)
        return value, tok.loc

    # ---------------------------------------------------------------- expressions

    def expr(self) -> ir.Expr:
        left = self._mul()
        while self.at_op("+", "-"):
            op = self.next()
            left = ir.BinOp(op.text, left, self._mul(), loc=op.loc)
        return left

    def _mul(self) -> ir.Expr:
        left = self._unary()
        while self.at_op("*", "/", "%"):
            op = self.next()
            if op.text == "%":
                tok = self.peek()
                right = self._unary()
                if not (isinstance(right, ir.Int) and right.value > 0):
                    raise self.error("the divisor of '%' must be a positive integer constant", tok)
                left = ir.Mod(left, right.value, loc=op.loc)
            else:
                left = ir.BinOp(op.text, left, self._unary(), loc=op.loc)
        return left

    def _unary(self) -> ir.Expr:
        if self.at_op("-"):
            minus = self.next()
            tok = self.peek()
            if tok.kind == "num":
                self.next()
                return (ir.Int if isinstance(tok.value, int) else ir.Float)(-tok.value, loc=minus.loc)
            self.enter(minus)
            inner = self._unary()
            self.leave()
            return ir.Call("neg", (inner,), loc=minus.loc)
        return self._primary()

    def _primary(self) -> ir.Expr:
        tok = self.peek()
        if tok.kind == "num":
            self.next()
            return (ir.Int if isinstance(tok.value, int) else ir.Float)(tok.value, loc=tok.loc)
        if self.at_op("("):
            self.enter(self.next())
            e = self.expr()
            self.expect_op(")", "to close '('")
            self.leave()
            return e
        if tok.kind != "id":
            raise self.error(f"expected an expression, found {tok.describe()}")
        self.next()
        if self.at_op("["):
            self.enter(self.next())
            index = self._args("]")
            self.leave()
            return ir.Load(tok.text, tuple(index), loc=tok.loc)
        if self.at_op("("):
            self.enter(tok)
            call = self._call(tok)
            self.leave()
            return call
        if tok.text in RESERVED:
            raise self.error(f"unexpected '{tok.text}' in an expression", tok)
        return ir.Var(tok.text, loc=tok.loc)

    def _args(self, close: str) -> list:
        args = [self.expr()]
        while self.at_op(","):
            self.next()
            args.append(self.expr())
        self.expect_op(close, f"to close the argument list")
        return args

    def _call(self, fn: Token) -> ir.Expr:
        self.expect_op("(")
        name = fn.text
        if name == "where":
            cond = self.cond()
            self.expect_op(",", "after the condition of where")
            a = self.expr()
            self.expect_op(",", "in where(cond, a, b)")
            b = self.expr()
            self.expect_op(")", "to close where(")
            return ir.Where(cond, a, b, loc=fn.loc)
        args = self._args(")")
        if name == "floor":
            inner = args[0] if len(args) == 1 else None
            if not (isinstance(inner, ir.BinOp) and inner.op == "/" and isinstance(inner.b, ir.Int)
                    and inner.b.value > 0):
                raise self.error("floor takes 'e / c' with c a positive integer constant", fn)
            return ir.FloorDiv(inner.a, inner.b.value, loc=fn.loc)
        if name in ir.PRECISIONS:
            if len(args) != 1:
                raise self.error(f"the cast {name}(...) takes one argument", fn)
            return ir.Cast(name, args[0], loc=fn.loc)
        if name in ir.FUNCS:
            if len(args) != ir.FUNCS[name]:
                raise self.error(f"{name} takes {ir.FUNCS[name]} argument(s), got {len(args)}", fn)
            return ir.Call(name, tuple(args), loc=fn.loc)
        raise self.error(f"unknown function '{name}'", fn)

    # ---------------------------------------------------------------- conditions

    def cond(self) -> ir.Cond:
        return self._connected("or", self._and, ir.Or)

    def _and(self) -> ir.Cond:
        return self._connected("and", self._not, ir.And)

    def _connected(self, word: str, operand, node) -> ir.Cond:
        """operand (word operand)*, grouped to the left as `node`s located at each word."""
        left = operand()
        while self.at_word(word):
            op = self.next()
            left = node(left, operand(), loc=op.loc)
        return left

    def _not(self) -> ir.Cond:
        if self.at_word("not"):
            op = self.next()
            self.enter(op)
            inner = self._not()
            self.leave()
            return ir.Not(inner, loc=op.loc)
        return self._cond_atom()

    def _cond_atom(self) -> ir.Cond:
        tok = self.peek()
        if self.at_word("true", "false") and not self.at_op(*CMP_OPS, k=1):
            self.next()
            return ir.BoolConst(tok.text == "true", loc=tok.loc)
        if self.at_op("("):
            # `(` opens either a condition or an expression: try the condition first.
            start, depth = self.pos, self.depth
            try:
                self.enter(self.next())
                c = self.cond()
                self.expect_op(")")
                self.leave()
                return c
            except ParseError as err:
                if "nesting deeper than" in err.message:
                    raise
                first, first_pos = err, self.pos
                self.pos, self.depth = start, depth
            try:
                return self._cmp()
            except ParseError as err:
                # report the attempt that got further into the input
                raise (err if self.pos >= first_pos else first) from None
        return self._cmp()

    def _cmp(self) -> ir.Cond:
        start = self.peek().loc
        a = self.expr()
        op = self.peek()
        if not (op.kind == "op" and op.text in CMP_OPS):
            raise self.error(f"expected a comparison (< <= > >= == !=), found {op.describe()}")
        self.next()
        return ir.Cmp(op.text, a, self.expr(), loc=start)
