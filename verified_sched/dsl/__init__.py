"""The .vs DSL: `parse_text`, `parse_file` (parser.py) and the printer (core/printer.py).

Grammar (EBNF; NL is a newline, dropped inside ( ) [ ] and after a token that cannot end a
line, such as a binary operator, `,`, `->`, `..`, `=`, `and`, `or`, `not`, `where`):

    file       := { item | NL }
    item       := params | profile | tensor | kernel | schedule | claim | inputs   (any order)
    params     := "params" [ NAME {"," NAME} ] [ "where" cond {"," cond} ] NL
    inputs     := "inputs" NAME {"," NAME} ( "int" "in" "[" NUM "," NUM "]"
                                           | "in" "[" NUM "," NUM "]" "grid" GRID ) NL
                  (declared input values; core/inputs.py: NUM -8, 0.5, 1/4; GRID a power of two)
    profile    := "profile" ("default" | "finite" | "approximate" | "reproducible") NL
    tensor     := "tensor" NAME "[" expr {"," expr} "]" PREC [MEMORY] [ "pad" "(" INT {"," INT} ")" ] NL
                  PREC: f16 bf16 f32 f64 i32; MEMORY: global (default) shared local constant
    kernel     := "kernel" NAME block
    block      := "{" { stmt NL } "}"
    stmt       := "for" NAME "in" expr ".." expr [ ":" AXIS ] block
                | "if" cond block [ "else" ( block | if-stmt ) ]
                | "zero" NAME | "barrier"
                | "tensor_core" NAME "(" INT "," INT "," INT ")" block   (printed form of TensorCore)
                | NAME "[" expr {"," expr} "]" ("=" | "+=" | "-=" | "*=") expr
                  (`t[I] op= e` is sugar for `t[I] = t[I] op e`)
    AXIS       := serial | vectorized | unrolled | block.x|y|z | thread.x|y|z
    schedule   := "schedule" NAME "{" { op NL } "}"          (ops: see ops_parser.py)
    claim      := "claim" NAME "==" NAME NL
    cond       := cond "or" cond | cond "and" cond | "not" cond | "(" cond ")"
                | expr CMP expr | "true" | "false"              CMP: < <= > >= == !=
    expr       := expr ("+" | "-") expr | expr ("*" | "/") expr | expr "%" INT
                | "-" expr | "(" expr ")" | INT | FLOAT | NAME | NAME "[" expr {"," expr} "]"
                | "floor" "(" expr "/" INT ")" | FN "(" expr {"," expr} ")"
                | "where" "(" cond "," expr "," expr ")" | PREC "(" expr ")"      (a cast)
                  FN: min max fma neg exp log sqrt relu abs tanh erf rsqrt pow

Comments run from `#` to the end of the line.
"""
__all__ = ["parse_text", "parse_file", "parse_expr", "parse_cond"]


def __getattr__(name: str):
    """The parser's entry points, imported on first use: reading a file within the input limits
    (dsl/limits.py) and a proof-cache hit parse nothing (benchmarks/startup.py)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import parser

    return getattr(parser, name)
