"""Small helpers shared by the schedule ops: finding a loop, fresh names, replacing a
subtree, guarding leaves, renaming statement copies.

A statement is addressed by a path: a tuple of (field, index) steps from the kernel body,
where field is "body" (kernel or For), "then"/"orelse" (If) or "fallback" (TensorCore).
"""
from __future__ import annotations

import dataclasses

from ..core import ir
from ..core.errors import ScheduleError
from ..core.ir import Assign, For, If, Int, Kernel, TensorCore, Zero
from ..core.op_syntax import op_name
from ..analysis.simplify import Context, fold_index, simplify_kernel


def error(op, message: str) -> ScheduleError:
    """A precondition failure of `op`, located at the op's line in the schedule."""
    return ScheduleError(f"{op_name(op)}: {message}", loc=getattr(op, "loc", None), op=op.text())


def get_kernel(program: ir.Program, name: str, op) -> Kernel:
    try:
        return program.kernel(name)
    except KeyError:
        raise error(op, f"no kernel named '{name}'") from None


Site = ir.Scoped  # a statement with its path, enclosing loops and guards (ir.walk_scoped)


def sites(stmts: tuple):
    """Every statement below `stmts`, pre-order, as Site records (`ir.walk_scoped`)."""
    return ir.walk_scoped(stmts)


def split_name(name: str) -> tuple:
    """(base, k) of a loop reference: `i@2` -> ("i", 2) (the second loop named `i`), a plain
    `i` -> ("i", None). A malformed qualifier leaves the name whole (it then names no loop)."""
    base, at, k = name.partition("@")
    if at and k.isdigit() and int(k) >= 1:
        return base, int(k)
    return name, None


def base_name(name: str) -> str:
    """The loop variable a loop reference names: `i@2` -> `i`."""
    return split_name(name)[0]


def qualified_names(found: list, base: str) -> str:
    """`i@1 (line 3), i@2 (line 9)`: how to name each of the loops `found`, all named `base`."""
    def where(s) -> str:
        loc = s.stmt.loc
        return f" (line {loc.line})" if loc is not None and loc.line else ""
    return ", ".join(f"{base}@{k}{where(s)}" for k, s in enumerate(found, 1))


def loops_named(kernel: Kernel, base: str) -> list:
    """The loops named `base` in program order (pre-order: a loop before the loops inside it,
    an earlier statement before a later one): the k-th is what `base@k` names."""
    return [s for s in sites(kernel.body) if isinstance(s.stmt, For) and s.stmt.var == base]


def find_loop(kernel: Kernel, name: str, op, arg: str = "loop") -> Site:
    """The loop `name` names: a plain name that exactly one loop has, or `i@k`, the k-th loop
    named `i` in program order (`loops_named`) of the kernel as it stands. ScheduleError
    naming the argument otherwise (an ambiguous name lists the qualified names to use)."""
    base, k = split_name(name)
    found = loops_named(kernel, base)
    if not found:
        raise error(op, f"{arg} '{name}': no loop named '{base}' in kernel '{kernel.name}'")
    if k is None and len(found) > 1:
        raise error(op, f"{arg} '{name}': {len(found)} loops are named '{name}' in kernel "
                        f"'{kernel.name}'; name one of them: {qualified_names(found, base)}")
    if k is not None and k > len(found):
        raise error(op, f"{arg} '{name}': kernel '{kernel.name}' has {len(found)} loop(s) named "
                        f"'{base}': {qualified_names(found, base)}")
    return found[0 if k is None else k - 1]


def loop_site(program: ir.Program, kernel_name: str, op) -> tuple:
    """(kernel, site) of the loop an op names in its `loop` field (ScheduleError when the
    kernel or the loop is missing or the loop name is ambiguous)."""
    kernel = get_kernel(program, kernel_name, op)
    return kernel, find_loop(kernel, op.loop, op)


def zero_start_context(program: ir.Program, site: Site, op, message: str) -> Context:
    """The isl context at the loop `site` (context_at); ScheduleError `message` unless the loop
    provably starts at 0 there."""
    ctx = context_at(program, site)
    if not is_zero(program, site.stmt.lo, ctx):
        raise error(op, message)
    return ctx


def context_at(program: ir.Program, site: Site) -> Context:
    """The isl context of the statement at `site` (params, enclosing loops and guards)."""
    ctx = Context.of_program(program)
    # guards and loops interleave; a conjunction does not care about the order
    for loop in site.loops:
        ctx = ctx.with_loop(loop)
    for g in site.guards:
        ctx = ctx.add(g)
    return ctx


def _replace(stmts: tuple, path: tuple, new: tuple) -> tuple:
    (_, i), rest = path[0], path[1:]
    if not rest:
        return stmts[:i] + tuple(new) + stmts[i + 1:]
    s = stmts[i]
    (sub_field, _), = rest[:1]
    child = getattr(s, sub_field)
    s2 = dataclasses.replace(s, **{sub_field: _replace(child, rest, new)})
    return stmts[:i] + (s2,) + stmts[i + 1:]


def replace_at(kernel: Kernel, path: tuple, new) -> Kernel:
    """The kernel with the statement at `path` replaced by the statements `new`."""
    new = (new,) if not isinstance(new, tuple) else new
    return dataclasses.replace(kernel, body=_replace(kernel.body, path, new))


def rewrite_at(program: ir.Program, kernel: Kernel, path: tuple, new) -> ir.Program:
    """The program with the statement at `path` of `kernel` replaced by the statements `new`,
    simplified: how a loop op ends its `apply`."""
    return program.with_kernel(simplify_kernel(program, replace_at(kernel, path, new)))


def used_names(program: ir.Program, kernel: Kernel) -> set:
    """Names a fresh iterator must not take: params, tensors, kernels, every loop variable
    and every variable mentioned in the kernel."""
    names = set(program.params) | {t.name for t in program.tensors}
    names |= {k.name for k in program.kernels}
    for n in ir.nodes_of(kernel.body, (For, ir.Var, TensorCore)):
        if isinstance(n, For):
            names.add(n.var)
        elif isinstance(n, ir.Var):
            names.add(n.name)
        elif isinstance(n, TensorCore):
            names.add(n.lane)
    return names


def _declared_names(program: ir.Program, kernel: Kernel) -> set:
    """`used_names` read off the statements alone (params, tensors, kernels, loop variables,
    tensor-core lanes): the same set for a well-formed kernel, where every variable is a
    parameter or an enclosing loop's (analysis/wellformed.py), without walking every
    expression node of a deep nest at every op."""
    names = set(program.params) | {t.name for t in program.tensors}
    names |= {k.name for k in program.kernels}
    stack = list(kernel.body)
    while stack:
        s = stack.pop()
        if isinstance(s, For):
            names.add(s.var)
            stack.extend(s.body)
        elif isinstance(s, If):
            stack.extend(s.then)
            stack.extend(s.orelse)
        elif isinstance(s, TensorCore):
            names.add(s.lane)
            stack.extend(s.fallback)
    return names


def check_fresh(program, kernel, names, op, arg: str, reusable=()) -> None:
    """ScheduleError unless every name is an identifier, unused in the kernel (a name in
    `reusable`, the loop being replaced, may be taken again) and distinct from the others.
    `kernel` is the op's input, well formed (parsed, or checked after the op before)."""
    used = _declared_names(program, kernel) - set(reusable)
    seen = set()
    for n in names:
        if not n.isidentifier():
            raise error(op, f"{arg} '{n}': not a valid name")
        if n in used:
            raise error(op, f"{arg} '{n}': name already used in kernel '{kernel.name}'")
        if n in seen:
            raise error(op, f"{arg} '{n}': name given twice")
        seen.add(n)


def fresh_name(used: set, base: str) -> str:
    """`base`, or `base1`, `base2`, ... : the first not in `used` (added to it)."""
    name, k = base, 1
    while name in used:
        name, k = f"{base}{k}", k + 1
    used.add(name)
    return name


def is_zero(program, e, ctx: Context | None = None) -> bool:
    """Whether the index expression is provably 0 (structurally after normalization)."""
    return fold_index(e, ctx) == Int(0)


def map_leaves(stmts: tuple, fn, leaf=None) -> tuple:
    """Apply `fn` (stmt -> tuple of stmts) to every effectful leaf: Assign, Zero and
    TensorCore blocks (barriers are kept where they are, so they stay uniform), and to every
    statement for which `leaf(stmt)` holds (taken whole, not entered)."""
    out = []
    for s in stmts:
        match s:
            case _ if leaf is not None and leaf(s):
                out.extend(fn(s))
            case Assign() | Zero() | TensorCore():
                out.extend(fn(s))
            case For(body=b):
                out.append(dataclasses.replace(s, body=map_leaves(b, fn, leaf)))
            case If(then=t, orelse=e):
                out.append(dataclasses.replace(s, then=map_leaves(t, fn, leaf), orelse=map_leaves(e, fn, leaf)))
            case _:
                out.append(s)
    return tuple(out)


def reads_memory(cond) -> bool:
    return bool(ir.reads(cond))


def guard_leaves(stmts: tuple, cond) -> tuple:
    """Wrap every effectful leaf in `if cond { leaf }`. An `if` whose condition reads memory
    counts as a leaf and is wrapped whole: its condition must not be evaluated where `cond`
    fails (it could read outside storage there)."""
    return map_leaves(stmts, lambda s: (If(cond, (s,), loc=s.loc),),
                      leaf=lambda s: isinstance(s, If) and reads_memory(s.cond))


def copy_sids(stmts: tuple, k: int) -> tuple:
    """Rename the statement ids of a k-th copy of a body: S3 -> S3#k (the original statement id
    is the part before the first '#'), so copies of one statement stay distinguishable."""
    def fn(n):
        if isinstance(n, Assign):
            return dataclasses.replace(n, sid=f"{n.sid}#{k}")
        return None
    return tuple(ir.rewrite(s, fn) for s in stmts)


def original_sid(sid: str) -> str:
    return sid.split("#", 1)[0]


def subst(stmts: tuple, mapping: dict) -> tuple:
    """Substitute iterators in statements, provenance included."""
    return tuple(ir.substitute(s, mapping) for s in stmts)


def rename_loops(stmts: tuple, mapping: dict) -> tuple:
    """Rename loop variables (For.var) and their uses."""
    def fn(n):
        if isinstance(n, For) and n.var in mapping:
            return dataclasses.replace(n, var=mapping[n.var])
        if isinstance(n, ir.Var) and n.name in mapping:
            return ir.Var(mapping[n.name], loc=n.loc)
        return None
    return tuple(ir.rewrite(s, fn) for s in stmts)


def rename_segment_loops(stmts: tuple, suffix: str, used: set) -> tuple:
    """A later segment's copy of a body with its loops named apart: every loop `v` inside
    `stmts` becomes `v_SUFFIX` (`fresh_name` over `used`, which it extends), so an op that
    duplicates a loop into segments (split's partitioned tail, partition's segments after the
    first) leaves names a later op can address in each segment."""
    names = list(dict.fromkeys(n.var for n in ir.walk(stmts) if isinstance(n, For)))
    return rename_loops(stmts, {v: fresh_name(used, f"{v}_{suffix}") for v in names})


# ---------------------------------------------------------------- obligations


def decided(statement: str, status: str, message: str, counterexample=None,
            engine: str = "isl"):
    """The answer of one of an op's decision procedures (a `Procedure` goal's result)."""
    from ..core.obligations import Decided
    return Decided(status, message, statement, counterexample, engine=engine)


def goal(fn, ctx, kind: str):
    """The goal `kind` decided by `fn(ctx)` (-> Decided) when discharged
    (verified_sched.verify.discharge: its own budget, timing, unknown when the budget runs out); its
    statement is the "Formal statement" paragraph of `fn`'s docstring."""
    from ..core.obligations import Goal, Procedure, formal_statement
    return Goal(kind, formal_statement(fn) or kind, Procedure(lambda: fn(ctx)))


def pin_provenance(program: ir.Program, kernel_name: str) -> ir.Program:
    """The program with every assignment that has no provenance given its implicit one
    explicitly: the identity of its enclosing loops (what the polyhedral model assumes for an
    empty provenance). An op that substitutes or renames loops then carries the statement's
    identity along, instead of the statement silently taking its new loops as its identity
    (a statement created by an earlier op, like a stage's tile load). Constant-zero stores
    keep none: the model identifies them by the cell they write."""
    kernel = program.kernel(kernel_name)
    out = kernel
    for site in sites(kernel.body):
        s = site.stmt
        if not isinstance(s, Assign) or s.provenance or not site.loops:
            continue
        if isinstance(s.value, (ir.Int, ir.Float)) and s.value.value == 0 and not s.sid.startswith("S"):
            continue
        prov = tuple((lp.var, ir.Var(lp.var)) for lp in site.loops)
        out = replace_at(out, site.path, dataclasses.replace(s, provenance=prov))
    return program if out is kernel else program.with_kernel(out)
