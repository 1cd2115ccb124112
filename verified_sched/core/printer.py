"""DSL text of IR nodes. Contract: parse_text(print_program(p)) == p (== ignores loc).

Parentheses are minimal by precedence but keep the tree's shape exactly: binary operators
associate to the left, so a right operand of equal precedence is parenthesized (`a - (b - c)`,
and also `a + (b + c)`, which is a different tree from `a + b + c`). A negative literal prints
as `-3`, which parses back as the literal; neg applied to a literal prints `-(3)`.
"""
from __future__ import annotations

from . import ir
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


def _num_text(e) -> str:
    return _num(e.value)


def _expr_prec(e) -> int:
    """Precedence of the top operator of `e`'s text (without printing it)."""
    match e:
        case ir.Int() | ir.Float():
            return _UNARY if _num_text(e).startswith("-") else _ATOM
        case ir.BinOp(op=op):
            return _ADD if op in "+-" else _MUL
        case ir.Mod():
            return _MUL
        case ir.Call(fn="neg"):
            return _UNARY
        case ir.Cmp() | ir.BoolConst():
            return _CATOM
        case ir.Or():
            return _OR
        case ir.And():
            return _AND
        case ir.Not():
            return _NOT
    return _ATOM


def _pieces(e) -> list:
    """The text of `e` as a list of strings and (child, needed precedence) pairs, in order."""
    match e:
        case ir.Int() | ir.Float():
            return [_num_text(e)]
        case ir.Var(name=n):
            return [n]
        case ir.BinOp(op=op, a=a, b=b):
            level = _ADD if op in "+-" else _MUL
            return [(a, level), f" {op} ", (b, level + 1)]
        case ir.Mod(a=a, divisor=c):
            return [(a, _MUL), f" % {c}"]
        case ir.FloorDiv(a=a, divisor=c):
            return ["floor(", (a, _MUL), f" / {c})"]
        case ir.Call(fn="neg", args=(a,)):
            # `-3` would read back as a literal and `--x` is not DSL: parenthesize both
            if isinstance(a, (ir.Int, ir.Float)) or (isinstance(a, ir.Call) and a.fn == "neg"):
                return ["-(", (a, 0), ")"]
            return ["-", (a, _UNARY)]
        case ir.Call(fn=fn, args=args):
            return [f"{fn}(", *_joined(args), ")"]
        case ir.Where(cond=c, a=a, b=b):
            return ["where(", (c, 0), ", ", (a, 0), ", ", (b, 0), ")"]
        case ir.Cast(prec=p, a=a):
            return [f"{p}(", (a, 0), ")"]
        case ir.Load(tensor=t, index=index):
            return [f"{t}[", *_joined(index), "]"]
        case ir.Cmp(op=op, a=a, b=b):
            return [(a, 0), f" {op} ", (b, 0)]
        case ir.BoolConst(value=v):
            return ["true" if v else "false"]
        case ir.Or(a=a, b=b):
            return [(a, _OR), " or ", (b, _OR + 1)]
        case ir.And(a=a, b=b):
            return [(a, _AND), " and ", (b, _AND + 1)]
        case ir.Not(a=a):
            if isinstance(a, (ir.Not, ir.BoolConst)):
                return ["not ", (a, 0)]
            return ["not (", (a, 0), ")"]
    raise TypeError(f"not an expression or condition: {e!r}")


def _joined(items) -> list:
    out: list = []
    for k, x in enumerate(items):
        if k:
            out.append(", ")
        out.append((x, 0))
    return out


def _text(root) -> str:
    """Text of an expression or condition, iteratively (an explicit stack, no recursion), in
    time linear in the length of the text: deep sums and long chains of unary minus print in
    one pass."""
    out: list[str] = []
    stack: list = [(root, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, need = item
        parts = _pieces(node)
        if _expr_prec(node) < need:
            parts = ["(", *parts, ")"]
        stack.extend(reversed(parts))
    return "".join(out)


def expr_text(e) -> str:
    return _text(e)


def cond_text(c) -> str:
    return _text(c)


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
    if t.scratch:
        s += " scratch"
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


