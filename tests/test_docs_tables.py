"""The docs' tables that restate code are checked against the code: one page and one syntax row
per registered op (every option and word of its syntax named), each op page holding its
module's docstring (the formal statement of what the op does and what makes it legal), the
exit codes, every obligation kind, engine and profile, and the DSL's input limits."""
from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from verified_sched.core import exits, ir
from verified_sched.core import obligations
from verified_sched.dsl import limits
from verified_sched.core.op_syntax import Field, Outputs, Word
from verified_sched.ops import registry

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
OPS = [pytest.param(m, id=m.RECORD.SYNTAX.keyword) for m in registry.MODULES]


def _ops_table() -> dict:
    rows = {}
    for line in (DOCS / "ops" / "README.md").read_text().splitlines():
        m = re.match(r"^\| ([a-z_]+) \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


@pytest.mark.parametrize("module", OPS)
def test_every_op_has_a_page_and_a_syntax_row_naming_its_options(module):
    syntax = module.RECORD.SYNTAX
    page = DOCS / "ops" / f"{syntax.keyword}.md"
    assert page.is_file(), f"docs/ops/{syntax.keyword}.md is missing"
    row = _ops_table().get(syntax.keyword)
    assert row is not None, f"docs/ops/README.md has no syntax row for {syntax.keyword}"
    assert f"`{syntax.keyword}" in row
    for item in syntax.items:
        if isinstance(item, Word):
            assert item.text in row, (syntax.keyword, item.text)
    for option in syntax.options:
        assert option.name in row, (syntax.keyword, option.name)
        if isinstance(option.kind, tuple):
            for word in option.kind:
                assert word in row, (syntax.keyword, option.name, word)


@pytest.mark.parametrize("module", OPS)
def test_every_op_page_holds_its_modules_formal_statement(module):
    syntax = module.RECORD.SYNTAX
    doc = inspect.getdoc(module)
    assert doc, f"{module.__name__} has no docstring"
    page = (DOCS / "ops" / f"{syntax.keyword}.md").read_text()
    # the page quotes the module docstring (regenerate with docs/ops/README.md's recipe)
    squash = lambda s: " ".join(s.split())  # noqa: E731
    assert squash(doc) in squash(page), f"docs/ops/{syntax.keyword}.md does not hold {module.__name__}'s docstring"


def test_the_exit_code_table_is_the_code():
    text = (DOCS / "cli.md").read_text()
    table = dict(re.findall(r"^\| (\d) \| (.*) \|$", text, re.M))
    assert sorted(int(k) for k in table) == sorted((exits.OK, exits.FINDING, exits.USAGE, exits.UNKNOWN,
                                                     exits.INTERNAL))
    assert "legal" in table[str(exits.OK)] and "illegal" in table[str(exits.FINDING)]
    assert "usage" in table[str(exits.USAGE)] and "unknown" in table[str(exits.UNKNOWN)]
    assert "internal" in table[str(exits.INTERNAL)]


def test_every_obligation_kind_engine_and_profile_is_documented():
    text = (DOCS / "verification.md").read_text()
    for kind in obligations.KINDS:
        assert f"`{kind}`" in text, kind
    for engine in obligations.ENGINES:
        assert f"`{engine}`" in text or engine in text, engine
    for profile in ir.PROFILES:
        assert f"`{profile}`" in text, profile


LIMITS = {  # the README's "Input limits" rows: name -> value
    "file size": limits.MAX_FILE_BYTES, "nesting": limits.MAX_NESTING,
    "expression depth": limits.MAX_EXPR_DEPTH, "integer literal": limits.MAX_INT,
    "params": limits.MAX_PARAMS, "constraints": limits.MAX_CONSTRAINTS, "tensors": limits.MAX_TENSORS,
    "kernels": limits.MAX_KERNELS, "statements": limits.MAX_STATEMENTS, "schedule ops": limits.MAX_OPS,
}


def test_every_input_limit_is_documented_with_its_value():
    text = next(t for t in (p.read_text() for p in DOCS.rglob("*.md")) if "**Input limits**" in t)
    section = text[text.index("**Input limits**"):]
    for name, value in LIMITS.items():
        assert name in section and (f"{value:,}" in section or str(value) in section or "2^63" in section), name


def test_the_readme_fits_on_a_screen_and_links_every_docs_page():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    for page in DOCS.glob("*.md"):
        if page.name != "anchors.txt":
            assert f"docs/{page.name}" in readme, page.name


def test_every_relative_link_in_the_docs_resolves():
    for path in [REPO / "README.md", *DOCS.rglob("*.md")]:
        prose = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)  # not code blocks
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"^(https?:|mailto:|#)", target) or "<" in target:
                continue
            file = target.split("#", 1)[0]
            assert (path.parent / file).resolve().exists(), f"{path.relative_to(REPO)}: broken link {target}"
