"""Issue 20: docs/semantics.md's "Semantics, precisions and dtypes" section agrees with the semantics
table (verified_sched/core/semantics.py): the table of operations is generated from it, and the
DSL grammar's function list and the precision table state what the table defines.

Regenerate the operations table with
`python -c "from verified_sched.core.semantics import markdown; print(markdown())"`.
"""
from __future__ import annotations

import re
from pathlib import Path

from verified_sched.core.dtypes import NP_DTYPE
from verified_sched.core import semantics

README = (Path(__file__).resolve().parents[1] / "docs" / "semantics.md").read_text()


def _section() -> str:
    start = README.index("# Semantics, precisions and dtypes")
    return README[start:README.index("\n## ", start + 1)]


def test_readme_operations_table_is_generated_from_the_semantics_table():
    text = _section()
    begin, end = "<!-- semantics-table:begin -->\n", "<!-- semantics-table:end -->"
    table = text[text.index(begin) + len(begin):text.index(end)]
    assert table == semantics.markdown()


def test_readme_function_list_is_the_tables():
    dsl = (Path(__file__).resolve().parents[1] / "docs" / "dsl.md").read_text()
    grammar = re.search(r"^FN\s+:=\s+(.*)$", dsl, re.M).group(1).split()
    assert grammar == list(semantics.FUNCS)


def test_readme_precision_table_states_the_tables_arithmetic():
    words = {"float": "f32", "double": "f64", "int32": "i32"}
    rows = [(p, d.split()[0].rstrip(":"), a.split()[0].rstrip(","))
            for p, d, a in re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|$", _section(), re.M)]
    assert {p for p, _, _ in rows} == set(semantics.CASTS)
    for prec, dtype, arithmetic in rows:
        assert words[arithmetic] == semantics.COMPUTE[prec], prec
        assert NP_DTYPE[prec].name == dtype, prec
