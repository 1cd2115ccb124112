"""The planted semantic bugs of benchmarks/mutation_score.py (`--semantic`): bugs in the meaning
of expressions, not in an op's apply code: the semantics table, the z3 value comparison, the
claim comparison's term rules, the finite profile, the barrier order, the interpreter's
evaluation and the C emitter's spelling and typing.

Each mutant replaces ONE object at run time, in a fresh process (`apply`): `module` is imported,
`target` (a name, attribute or subscript path in it: `NAME`, `Class.method`, `DICT["key"].attr`)
is resolved, and `new` (a Python expression, or a `def new(...)` block, evaluated in a copy of
the module's namespace with `orig` bound to the replaced object and `z3`, `np`, `math`,
`operator`, `dataclasses` available) takes its place. Every other binding of the very same
object in a loaded module (a `from X import f`, a table dict holding it) is rebound too, so the
bug is in the definition, wherever it is used. Files are never edited.

This table is the only place that names the patch targets: when modules move, update `module`
and `target` here (tests/test_semantic_mutants.py checks that every target resolves).
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import math
import operator
import sys
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SemanticMutant:
    name: str
    module: str
    target: str
    new: str
    what: str


# (a*b)*w and a*(b*w): the factors of nested products flattened into one sorted set
_FLAT_PRODUCTS = """def new(n, dom):
    def flat(shape, leaves):
        if isinstance(shape, tuple) and shape[:2] == ("o", "*") and len(shape) >= 4:
            out = []
            for s in shape[2:4]:
                k = leaf_count(s)
                out += flat(s, leaves[:k])
                leaves = leaves[k:]
            return out
        return [(shape, leaves)]
    res = []
    for d, shape, leaves in orig(n, dom):
        parts = sorted(flat(shape, leaves), key=lambda p: repr(p[0]))
        if len(parts) > 1:
            shape = ("o", "*") + tuple(p[0] for p in parts)
            leaves = [m for p in parts for m in p[1]]
        res.append((d, shape, leaves))
    return res
"""

_C_FMAX = """def new(self, e, ct):
    if ct not in ("float", "double"):
        return orig(self, e, ct)
    a, b = e.args
    fn = {"float": "fmaxf", "double": "fmax"}[ct]
    return (f"{fn}({self.s(a, ct)[0]}, {self.s(b, ct)[0]})", ATOM)
"""

SEM = "verified_sched.core.semantics"
SEM_EV = "verified_sched.core.semantics_ev"  # the table's exact evaluation (numpy scalars)
SEM_Z3 = "verified_sched.core.semantics_z3"  # the table's z3 column
FP = "smt.fp"

SEMANTIC_MUTANTS = (
    # ---- the z3 value comparison (the table's z3 column, smt/fp.py, verified_sched/values/value_smt.py)
    SemanticMutant("z3_equal_signed_zero", FP, "differ",
                   "lambda a, b: z3.Not(z3.fpEQ(a, b)) if z3.is_fp(a) else a != b",
                   "bitwise equality decided by IEEE == (fpEQ): -0.0 equals +0.0"),
    SemanticMutant("z3_equal_nan_unequal", FP, "differ",
                   "lambda a, b: z3.Or(a != b, z3.fpIsNaN(a)) if z3.is_fp(a) else a != b",
                   "a NaN compared unequal to itself in the claim comparison"),
    SemanticMutant("z3_narrowing_dropped", FP, "round_to", "lambda x, compute, storage: x",
                   "a store into a narrower tensor (f16, bf16, f32 from f64) not rounded in z3"),
    SemanticMutant("z3_fma_contracted", SEM, 'ROWS["fma"]',
                   "dataclasses.replace(orig, z3=lambda ct, a, b, c: z3.fpAdd(z3.RNE(), z3.fpMul(z3.RNE(), a, b), c) "
                   "if z3.is_fp(a) else orig.z3(ct, a, b, c))",
                   "fma encoded as a * b + c (two roundings) in the table's z3 column"),
    SemanticMutant("z3_round_toward_zero", SEM_Z3, "rne", "lambda: z3.RTZ()",
                   "z3 arithmetic rounds toward zero instead of to nearest even (overflow saturates)"),
    SemanticMutant("z3_max_not_ieee", SEM, 'ROWS["max"]',
                   "dataclasses.replace(orig, z3=lambda ct, a, b: z3.fpMax(a, b) if z3.is_fp(a) else orig.z3(ct, a, b))",
                   "max encoded as z3's fpMax (maxNum: drops a NaN, -0/+0 unspecified) in the table's z3 column"),
    SemanticMutant("z3_abs_clears_sign", SEM, 'ROWS["abs"]',
                   "dataclasses.replace(orig, z3=lambda ct, a: z3.fpAbs(a) if z3.is_fp(a) else orig.z3(ct, a))",
                   "abs encoded as fpAbs in the table's z3 column: abs(-0.0) = +0.0 (the table says a < 0 ? -a : a)"),
    # ---- the claim comparison's term rules (verified_sched/values/claims_terms.py, finite_zero.py)
    SemanticMutant("claim_const_python_eq", "verified_sched.values.claims_terms", "same_const", "lambda a, b: a == b",
                   "constants compared with Python == (-0.0 == 0.0, NaN != NaN)"),
    SemanticMutant("claim_plus_zero_noop", "verified_sched.values.finite_zero", "never_negzero", "lambda n: True",
                   "+0.0 added to any value taken as a no-op (-0.0 + 0.0 is +0.0)"),
    SemanticMutant("claim_product_factor_set", "verified_sched.values.claims_terms", "flat_terms", _FLAT_PRODUCTS,
                   "a sum's product terms compared by their factor set ((a*b)*w == a*(b*w))"),
    SemanticMutant("finite_f64_read_as_f32", "verified_sched.values.finite_zero", "Limits.leaf_ok",
                   "lambda self, tensor: tensor in self.precs",
                   "finite profile: an f64 input converted to f32 assumed finite (1e300 -> inf)"),
    # ---- barriers (polyhedral/race.py)
    SemanticMutant("barrier_order_dropped", "polyhedral.race", "barrier_order",
                   "lambda model: model.union_map([])",
                   "orders established only by barriers are not dependences the ops keep"),
    # ---- the semantics table's evaluation (the interpreter and every reference)
    SemanticMutant("table_min_not_ieee", SEM, 'ROWS["min"].ev["f32"]', "lambda a, b: a if a < b else b",
                   "f32 min as a < b ? a : b (not IEEE minimum: NaN and -0 lost)"),
    SemanticMutant("table_i32_no_wrap", SEM_EV, "wrap32", "lambda x: x",
                   "i32 arithmetic in int64 (no two's complement wrap)"),
    SemanticMutant("table_i32_div_floors", SEM_EV, 'EV["div"]["i32"]',
                   "lambda a, b: 0 if b == 0 else wrap32(a // b)",
                   "i32 division floors (Python //) instead of truncating"),
    SemanticMutant("table_fma_contracted", SEM, 'ROWS["fma"].ev["f32"]', "lambda a, b, c: a * b + c",
                   "f32 fma evaluated as a * b + c (two roundings)"),
    SemanticMutant("table_bf16_round_toward_zero", SEM_EV, "_f2bf",
                   "lambda v: int(np.float32(v).view(np.uint32)) >> 16",
                   "a store to bf16 truncates the f32 bits (round toward zero, not nearest even)"),
    SemanticMutant("table_f16_narrowing_dropped", SEM_EV, 'TO_STORAGE["f16"]', "lambda v: v",
                   "the f16 narrowing (a cast f16(...), a store) evaluated as a no-op"),
    SemanticMutant("table_neg_not_integer", SEM, 'ROWS["neg"]', "dataclasses.replace(orig, integer=False)",
                   "integer typing: neg of an integer typed as the statement's type (-N compared in int32)"),
    SemanticMutant("table_mul_interval_same_sign_corners", SEM, 'ROWS["mul"]',
                   "dataclasses.replace(orig, interval=lambda a, b: (a[0] * b[0], a[1] * b[1]))",
                   "range analysis: a product's interval from the lo*lo and hi*hi corners only (signs mixed)"),
    # ---- the C emitter (codegen/c_expr.py)
    SemanticMutant("c_max_is_fmax", "codegen.c_expr", "ScalarC.fn_max", _C_FMAX,
                   "C spells float max as fmaxf (drops a NaN, -0/+0 either way)"),
    SemanticMutant("c_i32_reads_not_integer", "codegen.c_expr", "is_int_expr",
                   "lambda e, program: semantics.integer_typed(e, lambda t: None)",
                   "C typing: an i32 read is not an integer (compared and indexed in the statement's type)"),
)

BY_NAME = {m.name: m for m in SEMANTIC_MUTANTS}


def _path(target: str):
    """[("name", x) | ("attr", x) | ("item", key)] of a target path."""
    node = ast.parse(target, mode="eval").body
    steps = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            steps.append(("attr", node.attr))
            node = node.value
        elif isinstance(node, ast.Subscript):
            steps.append(("item", ast.literal_eval(node.slice)))
            node = node.value
        else:
            raise ValueError(f"not a patch target: {target!r}")
    steps.append(("attr", node.id))
    return steps[::-1]


def _get(obj, step):
    kind, key = step
    return obj[key] if kind == "item" else getattr(obj, key)


def resolve(m: SemanticMutant):
    """(module, parent object, last step, the original object); raises when a step is missing."""
    mod = importlib.import_module(m.module)
    steps = _path(m.target)
    parent = mod
    for step in steps[:-1]:
        parent = _get(parent, step)
    return mod, parent, steps[-1], _get(parent, steps[-1])


def _namespace(mod, orig) -> dict:
    import z3
    ns = dict(vars(mod))
    ns.update(orig=orig, z3=z3, np=np, math=math, operator=operator, dataclasses=dataclasses)
    return ns


def _rebind(orig, new, packages=("verified_sched", "polyhedral", "smt", "codegen")) -> int:
    """Every other binding of `orig` reachable from a loaded module of the packages: module
    globals, and (three levels deep) the values of dicts and lists and the attributes of the
    packages' own objects they hold (a table row's `ev`, the interpreter's per-type `Num`
    objects that copied the table's functions). Classes are left alone. Returns the count."""
    seen, count = set(), 0

    def ours(obj) -> bool:
        return type(obj).__module__.split(".")[0] in packages and not isinstance(obj, type)

    def visit(obj, depth: int) -> None:
        nonlocal count
        if depth > 3 or id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, dict):
            items, put = list(obj.items()), obj.__setitem__
        elif isinstance(obj, list):
            items, put = list(enumerate(obj)), obj.__setitem__
        elif ours(obj) and hasattr(obj, "__dict__"):
            items, put = list(vars(obj).items()), (lambda k, v: object.__setattr__(obj, k, v))
        else:
            return
        for k, v in items:
            if v is orig:
                put(k, new)
                count += 1
            else:
                visit(v, depth + 1)

    for name, mod in list(sys.modules.items()):
        if mod is None or name.split(".")[0] not in packages:
            continue
        for key, val in list(vars(mod).items()):
            if val is orig:
                setattr(mod, key, new)
                count += 1
            elif isinstance(val, (dict, list)) or ours(val):
                visit(val, 1)
    return count


# the entry points whose imports bind what the probes use (imported before patching)
ENTRY = ("verified_sched.cli", "verified_sched.verify.driver", "verified_sched.interp.interpreter", "codegen.build",
         "codegen.checked", "verified_sched.oracle.compare", "codegen.c", "verified_sched.values.claims_value", "polyhedral.checks",
         "verified_sched.values.value_smt", "smt.fp")


def apply(m: SemanticMutant) -> None:
    """Plant `m` in this process."""
    for name in ENTRY + (m.module,):
        importlib.import_module(name)
    mod, parent, (kind, key), orig = resolve(m)
    ns = _namespace(mod, orig)
    if m.new.startswith("def "):
        exec(compile(m.new, f"<mutant {m.name}>", "exec"), ns)
        new = ns["new"]
    else:
        new = eval(compile(m.new, f"<mutant {m.name}>", "eval"), ns)
    if kind == "item":
        parent[key] = new
    else:
        setattr(parent, key, new)
    if not isinstance(orig, (int, float, str, bool)):
        _rebind(orig, new)
