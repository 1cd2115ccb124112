"""Recursive-descent parser of the .vs DSL (README "The DSL"; grammar in dsl/__init__.py).

Hand-written rather than generated so every error names the exact offending token and
stays fast; the result is run through `wellformed.check_program`, so names, arity and types
are checked before anything else sees the Program.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from ..core import ir
from ..core.errors import Loc, ParseError
from .exprs import TokenStream
from .lexer import tokenize
from .limits import check_program_limits, read_source
from ..core.inputs import parse_inputs_line, ranges_from_comments
from .ops_parser import parse_axis, parse_op

_TOP = ("params", "profile", "tensor", "kernel", "schedule", "claim", "inputs")


class _Parser(TokenStream):
    def __init__(self, text: str, filename: str):
        super().__init__(tokenize(text, filename), filename)
        self.params: list[str] = []
        self.param_locs: dict[str, Loc] = {}
        self.constraints: list = []
        self.profile: str | None = None
        self.tensors: list = []
        self.kernels: list = []
        self.schedules: list = []
        self.claims: list = []
        self.inputs: list = []
        self._sid = 0

    # ---------------------------------------------------------------- top level

    def program(self) -> ir.Program:
        while True:
            self.skip_nl()
            tok = self.peek()
            if tok.kind == "eof":
                break
            if tok.kind != "id" or tok.text not in _TOP:
                raise self.error(f"expected a declaration ({', '.join(_TOP)}), found {tok.describe()}")
            getattr(self, "_" + tok.text)()
        return ir.Program(tuple(self.params), tuple(self.constraints), self.profile,
                          tuple(self.tensors), tuple(self.kernels), tuple(self.schedules),
                          tuple(self.claims), tuple(self.inputs), loc=Loc(self.filename, 1, 1))

    def _params(self) -> None:
        self.next()
        if not self.at_word("where"):
            for tok in self.names("a parameter name"):
                if tok.text in self.param_locs:
                    raise self.error(f"parameter '{tok.text}' declared twice "
                                     f"(first at {self.param_locs[tok.text]})", tok)
                self.params.append(tok.text)
                self.param_locs[tok.text] = tok.loc
        if self.at_word("where"):
            self.next()
            self._constraint()
            while self.at_op(","):
                self.next()
                self._constraint()
        self.end_line("the params declaration")

    def _constraint(self) -> None:
        """One constraint (`a and b` stays one And constraint: the round trip is exact)."""
        self.constraints.append(self.cond())

    def _profile(self) -> None:
        head = self.next()
        if self.profile is not None:
            raise self.error("profile given twice", head)
        tok = self.peek()
        if tok.kind != "id" or tok.text not in ir.PROFILES:
            raise self.error(f"unknown profile {tok.describe()} (expected one of {', '.join(ir.PROFILES)})")
        self.next()
        self.profile = tok.text
        self.end_line("the profile")

    def _tensor(self) -> None:
        head = self.next()
        name = self.name("a tensor name")
        self.expect_op("[", "after the tensor name")
        dims = [self.expr()]
        while self.at_op(","):
            self.next()
            dims.append(self.expr())
        self.expect_op("]", "to close the dimensions")
        prec = self.peek()
        if prec.kind != "id" or prec.text not in ir.PRECISIONS:
            raise self.error(f"unknown precision {prec.describe()} (expected one of {', '.join(ir.PRECISIONS)})")
        self.next()
        memory, pad, scratch = None, None, None
        while self.peek().kind == "id":
            tok = self.peek()
            if tok.text in ir.MEMORIES and memory is None:
                memory = self.next().text
            elif tok.text == "scratch" and scratch is None:
                scratch = self.next()
            elif tok.text == "pad" and pad is None:
                self.next()
                self.expect_op("(", "after pad")
                pad = [self.int_literal("a padding", minimum=0)[0]]
                while self.at_op(","):
                    self.next()
                    pad.append(self.int_literal("a padding", minimum=0)[0])
                self.expect_op(")", "to close pad(")
                if len(pad) != len(dims):
                    raise self.error(f"pad gives {len(pad)} values for {len(dims)} dimensions", tok)
            else:
                raise self.error(f"unexpected '{tok.text}' in a tensor declaration "
                                 f"(memory {', '.join(ir.MEMORIES)}, scratch or pad(...) expected)")
        if scratch is not None and memory not in (None, "global"):
            raise self.error(f"scratch: only a global tensor can be scratch ({memory} tensors are never "
                             f"observable)", scratch)
        self.end_line("the tensor declaration")
        self.tensors.append(ir.Tensor(name.text, tuple(dims), prec.text, memory or "global",
                                      tuple(pad or ()), scratch is not None, loc=head.loc))

    def _kernel(self) -> None:
        head = self.next()
        name = self.name("a kernel name")
        self._sid = 0
        body = self._block(f"kernel {name.text}")
        self.end_line("the kernel")
        self.kernels.append(ir.Kernel(name.text, body, loc=head.loc))

    def _schedule(self) -> None:
        head = self.next()
        name = self.name("a kernel name")
        self.skip_nl()
        opening = self.expect_op("{", "to open the schedule")
        ops = []
        while True:
            self.skip_nl()
            if self.at_op("}"):
                self.next()
                break
            if self.peek().kind == "eof":
                raise ParseError("'{' of the schedule is never closed", opening.loc)
            ops.append(parse_op(self))
        self.end_line("the schedule")
        self.schedules.append(ir.Schedule(name.text, tuple(ops), loc=head.loc))

    def _inputs(self) -> None:
        """`inputs a, b int in [-8, 8]` (grammar in core/inputs.py): the line's tokens are
        re-joined and parsed as one directive."""
        head = self.peek()
        parts, prev = [], None
        while self.peek().kind not in ("nl", "eof"):
            tok = self.next()
            if prev is not None and prev.kind in ("id", "num") and tok.kind in ("id", "num"):
                parts.append(" ")
            parts.append(tok.text)
            prev = tok
        self.inputs.append(parse_inputs_line("".join(parts), head.loc))
        self.end_line("the inputs directive")

    def _claim(self) -> None:
        head = self.next()
        a = self.name("a kernel name")
        self.expect_op("==", "in claim A == B")
        b = self.name("a kernel name")
        self.end_line("the claim")
        self.claims.append(ir.Claim(a.text, b.text, loc=head.loc))

    # ---------------------------------------------------------------- statements

    def _block(self, what: str, loops: tuple = ()) -> tuple:
        self.skip_nl()  # a brace on the next line is fine
        opening = self.expect_op("{", f"to open the body of {what}")
        self.enter(opening)
        body = []
        while True:
            self.skip_nl()
            tok = self.peek()
            if self.at_op("}"):
                self.next()
                self.leave()
                return tuple(body)
            if tok.kind == "eof":
                raise ParseError(f"'{{' of {what} is never closed", opening.loc)
            body.append(self._stmt(loops))
            self.end_line("the statement")

    def _stmt(self, loops: tuple) -> ir.Stmt:
        tok = self.peek()
        if tok.kind != "id":
            raise self.error(f"expected a statement, found {tok.describe()}")
        match tok.text:
            case "for":
                return self._for(loops)
            case "if":
                return self._if(loops)
            case "zero":
                self.next()
                return ir.Zero(self.name("a tensor name").text, loc=tok.loc)
            case "barrier":
                self.next()
                return ir.Barrier(loc=tok.loc)
            case "tensor_core":
                return self._tensor_core(loops)
            case word if word in _TOP:
                raise self.error(f"unexpected '{word}' inside a block (is a '}}' missing?)")
        if not self.at_op("[", k=1):
            raise self.error(f"expected a statement (for, if, zero, barrier or an assignment "
                             f"'{tok.text}[...] = ...'), found {tok.describe()}")
        return self._assign(loops)

    def _for(self, loops: tuple) -> ir.For:
        head = self.next()
        var = self.name("a loop iterator name")
        self.expect_word("in", "in for loop")
        lo = self.expr()
        self.expect_op("..", "between the loop bounds")
        hi = self.expr()
        axis = "serial"
        if self.at_op(":"):
            self.next()
            axis = parse_axis(self)
        body = self._block(f"loop {var.text}", loops + (var.text,))
        return ir.For(var.text, lo, hi, axis, body, loc=head.loc)

    def _if(self, loops: tuple) -> ir.If:
        head = self.next()
        cond = self.cond()
        then = self._block("if", loops)
        orelse: tuple = ()
        k = 0
        while self.peek(k).kind == "nl":
            k += 1
        if self.peek(k).kind == "id" and self.peek(k).text == "else":  # `else` may open a line
            self.pos += k
            self.next()
            orelse = (self._if(loops),) if self.at_word("if") else self._block("else", loops)
        return ir.If(cond, then, orelse, loc=head.loc)

    def _tensor_core(self, loops: tuple) -> ir.TensorCore:
        head = self.next()
        lane = self.name("a lane iterator name").text
        self.expect_op("(", "before the tile shape (m, n, k)")
        shape = [self.int_literal("a tile extent")[0]]
        while self.at_op(","):
            self.next()
            shape.append(self.int_literal("a tile extent")[0])
        self.expect_op(")", "to close the tile shape")
        body = self._block("tensor_core", loops)
        return ir.TensorCore(lane, tuple(shape), body, loc=head.loc)

    def _assign(self, loops: tuple) -> ir.Assign:
        name = self.next()
        self.next()  # [
        index = tuple(self._args("]"))
        op = self.peek()
        if not self.at_op("=", "+=", "*=", "-="):
            raise self.error(f"expected '=', '+=', '-=' or '*=' after {name.text}[...], found {op.describe()}")
        self.next()
        value = self.expr()
        if op.text != "=":
            value = ir.BinOp(op.text[0], ir.Load(name.text, index, loc=name.loc), value, loc=op.loc)
        sid = f"S{self._sid}"
        self._sid += 1
        prov = tuple((v, ir.Var(v)) for v in loops)
        return ir.Assign(name.text, index, value, sid, prov, loc=name.loc)


def parse_text(text: str, filename: str = "<string>", check: bool = True) -> ir.Program:
    """Parse and check a whole .vs source; raises ParseError with a loc. `check=False` skips
    the well-formedness check (only for tests that build deliberately malformed programs)."""
    from ..analysis.wellformed import check_program

    program = _Parser(text, filename).program()
    commented = ranges_from_comments(text, filename)  # `# inputs: ...`, read like the directive
    if commented:
        program = dataclasses.replace(program, inputs=program.inputs + tuple(commented))
    check_program_limits(program)
    if check:
        check_program(program)
    return program


def parse_file(path, check: bool = True) -> ir.Program:
    """Parse a .vs file: a regular file within the input limits (dsl/limits.py)."""
    path = Path(path)
    return parse_text(read_source(path), str(path), check)


def _parse_fragment(text: str, filename: str, what: str, method: str):
    ts = TokenStream(tokenize(text, filename), filename)
    ts.skip_nl()
    node = getattr(ts, method)()
    ts.skip_nl()
    if ts.peek().kind != "eof":
        raise ts.error(f"unexpected {ts.peek().describe()} after the {what}")
    return node


def parse_expr(text: str, filename: str = "<expr>") -> ir.Expr:
    """One expression (no name checks): for tests, tools and messages."""
    return _parse_fragment(text, filename, "expression", "expr")


def parse_cond(text: str, filename: str = "<cond>") -> ir.Cond:
    """One condition (no name checks)."""
    return _parse_fragment(text, filename, "condition", "cond")
