"""The declared op contract (verified_sched/ops/spec.py): every registered op module ends with
`SPEC = OpSpec(...)`, every field of which has its declared type; no op module holds a
contract-like attribute its spec does not name (a misspelt optional attribute fails here
instead of being ignored); the op lists once kept by hand outside the registry are derived
from it and equal what they were."""
from __future__ import annotations

import ast
import collections.abc
import dataclasses
import difflib
import types
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from verified_sched.fuzz import records, reproducer, stats
from verified_sched.fuzz.check import op_options
from verified_sched.gate import parallel
from verified_sched.ops import registry
from verified_sched.ops.spec import ALL_GENERIC, OpSpec

MODULES = registry.MODULES
HINTS = typing.get_type_hints(OpSpec)
FIELDS = [f.name for f in dataclasses.fields(OpSpec)]
# a field's module attribute: hooks keep their name, values are UPPER_CASE (RECORD, GENERIC, ...)


def _is_callable_hint(hint) -> bool:
    """Whether the annotation is Callable or Optional[Callable]."""
    args = typing.get_args(hint) if typing.get_origin(hint) is typing.Union else (hint,)
    return any(typing.get_origin(a) is collections.abc.Callable for a in args)


CONTRACT = {(f if _is_callable_hint(HINTS[f]) else f.upper()): f for f in FIELDS}
RETIRED = {"REPLACES_GENERIC"}  # read nowhere (removed): must not come back
# the ops' own constants (not part of the contract) that their modules export
OWN_CONSTANTS = {"TAILS", "PARTITIONS", "MAX_COPIES", "FUZZ_AXES", "SWIZZLES", "THREADS", "MAX_BLOCKS", "NO_RANGES"}

# the hand-kept lists as they were before they were derived from the registry
OLD_STRUCTURAL = ("stage", "privatize", "expand_zero", "tensorize", "fuse_epilogue", "split_reduction", "winograd")
OLD_PRELOAD_OPS = {"verified_sched.ops.winograd.proofs", "verified_sched.ops.winograd.claim",
                   "verified_sched.ops.stage.dataflow", "verified_sched.ops.stage.swizzle"}
OLD_BY_NAME = ("split", "split", "interchange", "retype", "unroll", "pad")
OLD_TAILS = ("guard", "round_up", "shift_inward", "predicate", "predicate_loads", "predicate_stores",
             "shift_inward_and_blend", "round_up_and_blend")
OLD_PARTITIONS = ("auto", "never", "always", "serialize_edges", "unroll_edges")
OLD_OPTION_LABELS = ([f"split tail={t}" for t in OLD_TAILS] + [f"split partition={p}" for p in OLD_PARTITIONS] +
                     ["stage shared", "stage local", "stage cooperative", "stage swizzle", "stage pad_stride",
                      "stage prec", "stage hoisted", "stage pipeline"])


def _old_op_options(ops) -> list:
    """fuzz/check.op_options as it was kept by hand (split and stage named)."""
    out = []
    for op in ops:
        if type(op).SYNTAX.keyword == "split":
            out += [f"split tail={op.tail}", f"split partition={op.partition}"]
        elif type(op).SYNTAX.keyword == "stage":
            out.append("stage shared" if op.shared else "stage local")
            for name in ("cooperative", "swizzle", "pad_stride", "prec"):
                if getattr(op, name) is not None:
                    out.append(f"stage {name}")
            if op.hoisted:
                out.append("stage hoisted")
            if op.pipeline != 1:
                out.append("stage pipeline")
    return out


def _has_type(value, hint) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return True
    if origin is typing.Union:
        return any(_has_type(value, a) for a in args)
    if hint is type(None):
        return value is None
    if _is_callable_hint(hint):
        return callable(value)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_has_type(v, args[0]) for v in value)
        return len(value) == len(args) and all(_has_type(v, a) for v, a in zip(value, args))
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _key(m) -> str:
    return m.__name__.rsplit(".", 1)[-1]


def _own_assigned_names(m) -> set:
    """Names assigned at module level in the op's own files (its module, or every file of its folder)."""
    path = Path(m.__file__)
    files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
    out = set()
    for f in files:
        for node in ast.parse(f.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            out |= {t.id for t in targets if isinstance(t, ast.Name)}
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out.add(node.name)
    return out


def test_the_type_checker_is_not_vacuous():
    assert _has_type(3, int) and not _has_type(True, int) and not _has_type("3", int)
    assert _has_type(None, typing.Optional[typing.Callable]) and not _has_type(3, typing.Optional[typing.Callable])
    assert _has_type(("a", ("b", "c")), HINTS["fuzz_options"]) and not _has_type(("a", 1), HINTS["fuzz_options"])
    assert CONTRACT["RECORD"] == "record" and CONTRACT["draw_recipe"] == "draw_recipe" and "FUZZ_WEIGHT" in CONTRACT


@pytest.mark.parametrize("m", MODULES, ids=_key)
def test_every_op_module_declares_a_typed_spec(m):
    spec = m.SPEC
    assert type(spec) is OpSpec
    for name in FIELDS:
        value = getattr(spec, name)
        assert _has_type(value, HINTS[name]), f"{_key(m)}.SPEC.{name} = {value!r} is not a {HINTS[name]}"
    assert spec.record is m.RECORD and spec.keyword in registry.OP_NAMES
    assert set(spec.generic) <= set(ALL_GENERIC) and len(set(spec.generic)) == len(spec.generic)
    assert spec.fuzz_weight >= 1
    assert (spec.draw_by_name is None) == (spec.by_name_weight == 0) and spec.by_name_weight >= 0
    for entry in spec.fuzz_options:  # each reported option is one of the record's syntax options
        name = entry if isinstance(entry, str) else entry[0]
        assert spec.record.SYNTAX.option(name) is not None, f"{_key(m)}: fuzz option {name!r} not in its syntax"


@pytest.mark.parametrize("m", MODULES, ids=_key)
def test_every_spec_field_is_named_in_the_module_source(m):
    """The module's `SPEC = OpSpec(...)` names every field (no reliance on defaults)."""
    path = Path(m.__file__)
    calls = [n.value for n in ast.parse(path.read_text()).body if isinstance(n, ast.Assign)
             and [t.id for t in n.targets if isinstance(t, ast.Name)] == ["SPEC"]]
    assert len(calls) == 1 and isinstance(calls[0], ast.Call) and not calls[0].args
    assert [k.arg for k in calls[0].keywords] == FIELDS


def _violations(m, spec, own: set) -> list:
    """What an op module holds that its spec does not name: a contract attribute other than the
    spec's, a hook the spec leaves None, a retired or misspelt contract name, an UPPER_CASE
    name that is neither in the contract nor an op's own constant (`own`: names the op's files define)."""
    out = []
    visible = {n for n in vars(m) if not n.startswith("_")}
    for name, field in CONTRACT.items():
        if name not in visible:
            continue
        value, declared = getattr(m, name), getattr(spec, field)
        if declared is None and _is_callable_hint(HINTS[field]):
            out.append(f"{name}: a hook its SPEC.{field} leaves None")
        elif not (value is declared or value == declared):
            out.append(f"{name}: not what SPEC.{field} says")
    for name in sorted(visible & own - set(CONTRACT) - {"SPEC"}):
        close = difflib.get_close_matches(name, list(CONTRACT), n=1, cutoff=0.8)
        if name in RETIRED:
            out.append(f"{name}: a retired op attribute")
        elif close:
            out.append(f"{name}: a misspelt {close[0]}? (name it in SPEC)")
        elif name.isupper() and name not in OWN_CONSTANTS:
            out.append(f"{name}: an UPPER_CASE attribute its SPEC does not name (a contract attribute belongs "
                       "in SPEC; an op's own constant in OWN_CONSTANTS here)")
    return [f"{_key(m)}.{v}" for v in out]


@pytest.mark.parametrize("m", MODULES, ids=_key)
def test_no_op_module_holds_an_attribute_its_spec_does_not_name(m):
    assert _violations(m, m.SPEC, _own_assigned_names(m)) == []


def test_a_misspelt_or_unnamed_attribute_is_caught():
    from verified_sched.ops import reverse

    fake = types.ModuleType("verified_sched.ops.fake")
    fake.__dict__.update({k: v for k, v in vars(reverse).items() if not k.startswith("__")})
    extra = {"FUZZ_WIEGHT": 3, "draw_recipie": lambda *a: None, "REPLACES_GENERIC": True, "LIMIT": 9,
             "exact_at": lambda *a: True, "GENERIC": ("in_bounds",)}
    fake.__dict__.update(extra)
    found = _violations(fake, reverse.SPEC, _own_assigned_names(reverse) | set(extra))
    assert [v.split(":")[0] for v in found] == [
        "fake.GENERIC", "fake.exact_at", "fake.FUZZ_WIEGHT", "fake.LIMIT", "fake.REPLACES_GENERIC", "fake.draw_recipie"]


def test_specs_are_the_registry_in_order():
    assert registry.SPECS == tuple(m.SPEC for m in MODULES)
    assert [s.keyword for s in registry.SPECS] == list(registry.OP_NAMES)
    assert all(registry.spec_named(s.keyword) is s for s in registry.SPECS)


def test_all_generic_is_the_drivers():
    from verified_sched.verify.driver import GENERIC

    assert ALL_GENERIC == GENERIC


def test_structural_is_derived_and_unchanged():
    assert reproducer.STRUCTURAL == OLD_STRUCTURAL


def test_preload_is_derived_and_keeps_the_old_list():
    names = parallel.preload_modules()
    assert OLD_PRELOAD_OPS <= set(names)
    assert len(names) == len(set(names))


def test_by_name_ops_are_derived_and_unchanged():
    kinds = tuple(s.keyword for s in registry.SPECS if s.draw_by_name is not None for _ in range(s.by_name_weight))
    assert kinds == OLD_BY_NAME


def test_option_labels_are_derived_and_unchanged():
    assert stats.OPTION_LABELS == OLD_OPTION_LABELS


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(records.op_records())
def test_op_options_are_derived_and_unchanged(op):
    assert op_options([op]) == _old_op_options([op])
