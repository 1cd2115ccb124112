"""DSL text of IR nodes. Contract: parse_text(print_program(p)) == p (== ignores loc).

Parentheses are minimal by precedence but keep the tree's shape exactly: binary operators
associate to the left, so a right operand of equal precedence is parenthesized (`a - (b - c)`,
and also `a + (b + c)`, which is a different tree from `a + b + c`). A negative literal prints
as `-3`, which parses back as the literal; neg applied to a literal prints `-(3)`.
"""
from __future__ import annotations

from .. import ir
from ..schedule import OP_TYPES
from .inputs import inputs_text

_ADD, _MUL, _UNARY, _ATOM = 1, 2, 3, 4
_OR, _AND, _NOT, _CATOM = 1, 2, 3, 4


def _num(value) -> str:
    if isinstance(value, float):
        text = repr(value)
        if text in ("inf", "-inf", "nan"):
            raise ValueError(f"the DSL has no literal for {text}")
        return text
    return str(value)


def _expr(e, prec: int) -> tuple[str, int]:
    """(text, precedence of the text's top operator)."""
    match e:
        case ir.Int(value=v) | ir.Float(value=v):
            text = _num(v)
            return text, (_UNARY if text.startswith("-") else _ATOM)
        case ir.Var(name=n):
            return n, _ATOM
        case ir.BinOp(op=op, a=a, b=b):
            level = _ADD if op in "+-" else _MUL
            return f"{_sub(a, level)} {op} {_sub(b, level + 1)}", level
        case ir.Mod(a=a, divisor=c):
            return f"{_sub(a, _MUL)} % {c}", _MUL
        case ir.FloorDiv(a=a, divisor=c):
            return f"floor({_sub(a, _MUL)} / {c})", _ATOM
        case ir.Call(fn="neg", args=(a,)):
            inner = _sub(a, _UNARY)
            if isinstance(a, (ir.Int, ir.Float)) or inner.startswith("-"):
                inner = f"({expr_text(a)})"
            return f"-{inner}", _UNARY
        case ir.Call(fn=fn, args=args):
            return f"{fn}({', '.join(expr_text(x) for x in args)})", _ATOM
        case ir.Where(cond=c, a=a, b=b):
            return f"where({cond_text(c)}, {expr_text(a)}, {expr_text(b)})", _ATOM
        case ir.Cast(prec=p, a=a):
            return f"{p}({expr_text(a)})", _ATOM
        case ir.Load(tensor=t, index=index):
            return f"{t}[{', '.join(expr_text(x) for x in index)}]", _ATOM
    raise TypeError(f"not an expression: {e!r}")


def _sub(e, need: int) -> str:
    text, p = _expr(e, need)
    return text if p >= need else f"({text})"


def expr_text(e) -> str:
    return _expr(e, 0)[0]


def _cond(c) -> tuple[str, int]:
    match c:
        case ir.Cmp(op=op, a=a, b=b):
            return f"{expr_text(a)} {op} {expr_text(b)}", _CATOM
        case ir.BoolConst(value=v):
            return ("true" if v else "false"), _CATOM
        case ir.Or(a=a, b=b):
            return f"{_csub(a, _OR)} or {_csub(b, _OR + 1)}", _OR
        case ir.And(a=a, b=b):
            return f"{_csub(a, _AND)} and {_csub(b, _AND + 1)}", _AND
        case ir.Not(a=a):
            inner, p = _cond(a)
            return (f"not {inner}" if isinstance(a, (ir.Not, ir.BoolConst)) else f"not ({inner})"), _NOT
    raise TypeError(f"not a condition: {c!r}")


def _csub(c, need: int) -> str:
    text, p = _cond(c)
    return text if p >= need else f"({text})"


def cond_text(c) -> str:
    return _cond(c)[0]


# ---------------------------------------------------------------- statements


def _assign_text(s: ir.Assign) -> str:
    target = ir.Load(s.tensor, s.index)
    lhs = expr_text(target)
    v = s.value
    if isinstance(v, ir.BinOp) and v.op in "+-*" and v.a == target:
        return f"{lhs} {v.op}= {expr_text(v.b)}"
    return f"{lhs} = {expr_text(v)}"


def _stmt_lines(s, ind: str) -> list[str]:
    match s:
        case ir.For(var=v, lo=lo, hi=hi, axis=axis, body=body):
            ax = "" if axis == "serial" else f" : {axis}"
            head = f"{ind}for {v} in {expr_text(lo)} .. {expr_text(hi)}{ax} {{"
            return [head, *_block(body, ind + "  "), ind + "}"]
        case ir.Assign():
            return [ind + _assign_text(s)]
        case ir.Zero(tensor=t):
            return [f"{ind}zero {t}"]
        case ir.Barrier():
            return [ind + "barrier"]
        case ir.If():
            return _if_lines(s, ind, ind)
        case ir.TensorCore(lane=lane, shape=shape, fallback=fallback):
            lane_name = lane.name if isinstance(lane, ir.Var) else lane
            head = f"{ind}tensor_core {lane_name} ({', '.join(str(x) for x in shape)}) {{"
            return [head, *_block(fallback, ind + "  "), ind + "}"]
    raise TypeError(f"not a statement: {s!r}")


def _if_lines(s: ir.If, first: str, ind: str) -> list[str]:
    lines = [f"{first}if {cond_text(s.cond)} {{", *_block(s.then, ind + "  ")]
    if not s.orelse:
        return lines + [ind + "}"]
    if len(s.orelse) == 1 and isinstance(s.orelse[0], ir.If):
        chained = _if_lines(s.orelse[0], "", ind)
        return lines + [f"{ind}}} else {chained[0]}", *chained[1:]]
    return lines + [ind + "} else {", *_block(s.orelse, ind + "  "), ind + "}"]


def _block(body, ind: str) -> list[str]:
    return [line for s in body for line in _stmt_lines(s, ind)]


def stmt_text(s, indent: int = 0) -> str:
    """One statement (with its body) as DSL lines."""
    return "\n".join(_stmt_lines(s, " " * indent))


def print_kernel(kernel: ir.Kernel) -> str:
    return "\n".join([f"kernel {kernel.name} {{", *_block(kernel.body, "  "), "}"]) + "\n"


def tensor_text(t: ir.Tensor) -> str:
    s = f"tensor {t.name}[{', '.join(expr_text(d) for d in t.dims)}] {t.prec}"
    if t.memory != "global":
        s += f" {t.memory}"
    if any(t.pad):
        s += f" pad({', '.join(str(p) for p in t.pad)})"
    return s


def schedule_text(s: ir.Schedule) -> str:
    return "\n".join([f"schedule {s.kernel} {{", *(f"  {op.text()}" for op in s.ops), "}"]) + "\n"


def print_program(program: ir.Program) -> str:
    head = []
    if program.profile is not None:
        head.append(f"profile {program.profile}")
    if program.params or program.constraints:
        line = "params " + ", ".join(program.params)
        if program.constraints:
            line = line.rstrip() + " where " + ", ".join(cond_text(c) for c in program.constraints)
        head.append(line)
    head += [inputs_text(r) for r in program.inputs]
    parts = []
    if head:
        parts.append("\n".join(head) + "\n")
    if program.tensors:
        parts.append("\n".join(tensor_text(t) for t in program.tensors) + "\n")
    parts += [print_kernel(k) for k in program.kernels]
    parts += [schedule_text(s) for s in program.schedules]
    if program.claims:
        parts.append("\n".join(f"claim {c.a} == {c.b}" for c in program.claims) + "\n")
    return "\n".join(parts)


def node_text(node) -> str:
    """Any IR node or op record as DSL text (for messages)."""
    if isinstance(node, OP_TYPES):
        return node.text()
    if isinstance(node, (ir.Cmp, ir.And, ir.Or, ir.Not, ir.BoolConst)):
        return cond_text(node)
    if isinstance(node, ir.Kernel):
        return print_kernel(node)
    if isinstance(node, ir.Program):
        return print_program(node)
    if isinstance(node, ir.Tensor):
        return tensor_text(node)
    if isinstance(node, (ir.For, ir.Assign, ir.Zero, ir.If, ir.Barrier, ir.TensorCore)):
        return stmt_text(node)
    return expr_text(node)
