"""The lazy op registry (verified_sched/ops/registry.py, issue 24 item 6): one line per op, its
DSL keyword, which names its module; an op's module is imported when it is first named, so a
registry line cannot drift from its module (checked here) and what enumerates every op
(`MODULES`, `OP_NAMES`, `OP_TYPES`, `SPECS`) still sees all of them."""
from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verified_sched.core.errors import InternalError
from verified_sched.ops import registry
from verified_sched.ops.spec import OpSpec

OPS_DIR = Path(registry.__file__).parent


def _fresh(code: str) -> list:
    """The op modules (verified_sched.ops.<op>, folders' parts too) imported after `code` runs
    in a fresh process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    code += ("\nimport sys, json\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('verified_sched.ops.'))))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    mods = json.loads(p.stdout.splitlines()[-1])
    return sorted({m.split(".")[2] for m in mods} & set(registry.KEYWORDS))


@pytest.mark.parametrize("keyword", registry.KEYWORDS)
def test_every_registry_line_is_a_module_with_that_spec(keyword):
    """The line `keyword` is ops/<keyword>(.py or /__init__.py), ending with a SPEC whose record's
    DSL keyword is that line."""
    mod = importlib.import_module(f"verified_sched.ops.{keyword}")
    assert isinstance(mod.SPEC, OpSpec)
    assert mod.SPEC.keyword == keyword == mod.SPEC.record.SYNTAX.keyword
    assert registry.module_named(keyword) is mod and registry.spec_named(keyword) is mod.SPEC
    assert registry.record_named(keyword) is mod.SPEC.record


def test_every_op_module_is_registered_once():
    """A module (or folder `__init__`) of ops/ that declares `SPEC = OpSpec(` has its line."""
    declared = {p.stem if p.name != "__init__.py" else p.parent.name
                for p in [*OPS_DIR.glob("*.py"), *OPS_DIR.glob("*/__init__.py")]
                if re.search(r"^SPEC = OpSpec\(", p.read_text(), re.M)}
    assert declared == set(registry.KEYWORDS)
    assert len(set(registry.KEYWORDS)) == len(registry.KEYWORDS)


def test_the_enumerations_are_every_op_in_keyword_order():
    assert tuple(m.SPEC.keyword for m in registry.MODULES) == registry.KEYWORDS
    assert tuple(registry.OP_NAMES) == registry.KEYWORDS
    assert registry.OP_TYPES == tuple(registry.OP_NAMES.values())
    assert registry.SPECS == tuple(m.SPEC for m in registry.MODULES)
    with pytest.raises(AttributeError):
        registry.NO_SUCH_LIST  # noqa: B018 - the module __getattr__ knows only the four


def test_naming_an_op_imports_only_its_module():
    assert _fresh("import verified_sched.ops.registry") == []
    assert _fresh("from verified_sched.ops import registry\nregistry.spec_named('reverse')") == ["reverse"]
    assert _fresh("from verified_sched.ops import registry\nregistry.SPECS") == sorted(registry.KEYWORDS)


def test_parsing_imports_only_the_ops_a_schedule_names():
    code = ("from verified_sched.dsl import parse_text\n"
            "parse_text('params N where N >= 1\\ntensor a[N] f32\\n"
            "kernel k {\\n  for i in 0 .. N {\\n    a[i] = 1.0\\n  }\\n}\\n"
            "schedule k {\\n  split i by 4 -> io, ii\\n  unroll ii\\n}\\n', 'x.vs')\n")
    assert _fresh(code) == ["split", "unroll"]


def test_an_unknown_keyword_is_a_key_error_and_an_unregistered_record_an_internal_error():
    with pytest.raises(KeyError):
        registry.module_named("nosuch")
    reverse = registry.record_named("reverse")

    @dataclasses.dataclass(frozen=True)
    class Impostor(reverse):  # reverse's keyword, but not its record
        pass

    for record in (Impostor("i"), object()):
        with pytest.raises(InternalError, match="has no registered module"):
            registry.spec_for(record)
    assert registry.spec_for(reverse("i")) is registry.spec_named("reverse")
