"""Seeded mutations of .vs sources, for robustness testing (tests/test_dsl_fuzz.py and
benchmarks/dsl_fuzz.py, which puts tests/ on sys.path): every mutant must end with exit 0, 1,
2 or 3, never a traceback.

A mutant is a corpus file with one to three edits: a token deleted, duplicated, swapped with
its neighbour or replaced (by another name of the file, a keyword, a small or huge number, a
stray character), the file truncated, an operand wrapped in deep parentheses, a chain of
unary minus or a long sum, a statement wrapped in deeply nested loops, many parameters
declared. Deterministic for a given seed.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

from verified_sched.ops.registry import MODULES

_TOKEN = re.compile(r"\s+|#[^\n]*|\d+\.\d+(?:[eE][+-]?\d+)?|\d+|[A-Za-z_]\w*|\.\.|->|[+\-*]=|[=!<>]=|.", re.S)
# words of the language (ops excepted) a "keyword" edit puts in, then every op's keyword, from
# the op registry (so a new op is mutated in without touching this file)
LANGUAGE = ("params", "tensor", "kernel", "schedule", "claim", "for", "in", "if", "else", "zero",
            "barrier", "where", "and", "or", "not", "true", "false", "by", "f32", "i32", "f16",
            "shared", "vectorized", "thread.x", "block.x", "floor")
KEYWORDS = LANGUAGE + tuple(m.RECORD.SYNTAX.keyword for m in MODULES)
NUMBERS = ("0", "1", "-1", "2", "3", "7", "32", "1024", "65536", "2147483648", "9223372036854775807",
           "9223372036854775808", "18446744073709551616", "1" + "0" * 40, "7" * 4301, "1e999",
           "1e308", "0.0", "-0", "1e-320")
SMALL = ("0", "1", "2", "3", "4", "5", "8", "16", "17", "31", "33", "64")
STRAYS = ("@", "$", "\x00", "\u00e9", "{", "}", "(", ")", "[", "]", ",", ":", "..", "->", "=",
          "+=", "%", "/", "\n", "\t", "'", '"', "\\", "`", "~")


def corpus(root) -> list[tuple[str, str]]:
    """(name, text) of tests/cases/*.vs and examples/*.vs under the repository `root`."""
    root = Path(root)
    files = sorted((root / "tests" / "cases").glob("*.vs")) + sorted((root / "examples").glob("*.vs"))
    return [(f"{p.parent.name}/{p.name}", p.read_text()) for p in files]


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _significant(tokens: list[str]) -> list[int]:
    return [k for k, t in enumerate(tokens) if not t.isspace() and not t.startswith("#")]


def _operands(tokens: list[str]) -> list[int]:
    """Positions of names and numbers inside kernels (after the first `kernel`)."""
    start = next((k for k, t in enumerate(tokens) if t == "kernel"), len(tokens))
    return [k for k in range(start, len(tokens))
            if re.fullmatch(r"[A-Za-z_]\w*|\d+(\.\d+)?", tokens[k]) and tokens[k] not in KEYWORDS]


def _mutate_once(text: str, rng: random.Random) -> tuple[str, str]:
    tokens = _tokens(text) or [""]
    sig = _significant(tokens) or [0]
    ops = _operands(tokens)
    kind = rng.choice(("delete", "duplicate", "swap", "name", "name", "keyword", "stray", "truncate",
                       "parens", "minus", "sum", "nest", "params") + ("number",) * 5 + ("small",) * 4)
    k = rng.choice(sig)
    if kind in ("parens", "minus", "sum") and ops:
        k = rng.choice(ops)
    depth = rng.choice((2, 5, 30, 63, 64, 65, 100, 250, 400, 1000))
    match kind:
        case "delete":
            tokens[k] = ""
        case "duplicate":
            tokens[k] = tokens[k] + " " + tokens[k]
        case "swap":
            j = sig[min(sig.index(k) + 1, len(sig) - 1)]
            tokens[k], tokens[j] = tokens[j], tokens[k]
        case "name":
            names = sorted({t for t in tokens if re.fullmatch(r"[A-Za-z_]\w*", t)}) or ["x"]
            tokens[k] = rng.choice(names)
        case "keyword":
            tokens[k] = rng.choice(KEYWORDS)
        case "number" | "small":
            nums = [j for j in sig if tokens[j][:1].isdigit()] or [k]
            tokens[rng.choice(nums)] = rng.choice(NUMBERS if kind == "number" else SMALL)
        case "stray":
            tokens.insert(k, rng.choice(STRAYS))
        case "truncate":
            return text[:rng.randrange(len(text) + 1)], kind
        case "parens":
            tokens[k] = "(" * depth + tokens[k] + ")" * depth
        case "minus":
            tokens[k] = "-" * min(depth, 300) + tokens[k]
        case "sum":
            tokens[k] = "(" + " + ".join([tokens[k]] * depth) + ")"
        case "nest":
            lines = text.split("\n")
            body = [i for i, line in enumerate(lines) if "=" in line and "[" in line] or [0]
            i = rng.choice(body)
            loops = "".join(f"for zz{d} in 0 .. 2 {{\n" for d in range(depth))
            lines[i] = loops + lines[i] + "\n" + "}\n" * depth
            return "\n".join(lines), f"nest{depth}"
        case "params":
            count = rng.choice((10, 64, 65, 200, 10_000))
            return f"params {', '.join(f'P{j}' for j in range(count))}\n" + text, f"params{count}"
    return "".join(tokens), kind


def mutants(sources: list[tuple[str, str]], count: int, seed: int = 0):
    """`count` mutants (label, text) of the given (name, text) sources, deterministic for `seed`."""
    rng = random.Random(seed)
    for n in range(count):
        name, text = sources[rng.randrange(len(sources))]
        kinds = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            text, kind = _mutate_once(text, rng)
            kinds.append(kind)
        yield f"{n:05d}:{name}:{'+'.join(kinds)}", text
