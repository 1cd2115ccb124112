"""What a refutation looks like at its sizes: the data behind the HTML report's pictures.

A counterexample names sizes and one or two statement instances ("A" and "B"), usually of
the program after the refuted op. `scene` rebuilds the programs before and after that op,
locates both instances in each (directly by their iterators, or through provenance by their
original instance), and enumerates with isl, at the counterexample's sizes, a 2-D slice of
each involved statement's iteration domain: the two dims in which the instances differ, the
other dims fixed at the instance's values. Every point of a slice gets its rank in the
sequential execution order (the order the C backend runs; parallel loops are marked as
unordered on their axis). `cell_grid` does the same for the cells of the conflicting tensor.
Everything here is plain data; html.py draws it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import islpy as isl

from polyhedral.affine import NonAffine
from polyhedral.model import KernelModel
from ..core import ir
from ..core.errors import VschedError
from .cells import cell_grid
from .geometry import MAX_X, MAX_Y, DrawError, choose_dims, window

MAX_IMAGES = 8  # images of one original instance located through provenance

# what the counterexample's "order" texts say about instance A (first) and B (second)
_FIRST_A = ("the first runs before the second",)
_FIRST_B = ("the second runs before the first",)


@dataclass
class View:
    """A 2-D slice of one statement's iteration domain (x inner, y outer; None: absent)."""

    sid: str
    loops: list  # [(name, axis, "lo .. hi")] of the statement, outermost first
    x: int | None
    y: int | None
    fixed: dict  # loop name -> value, the dims not drawn
    xs: range
    ys: range
    points: dict = field(default_factory=dict)  # (xv, yv) -> rank in the sequential order
    marks: dict = field(default_factory=dict)  # "A"/"B" -> (xv, yv)
    off: dict = field(default_factory=dict)  # "A"/"B" -> why not in this slice
    ghosts: dict = field(default_factory=dict)  # "A"/"B" -> (xv, yv): where it would be (not run)
    line: int | None = None  # the statement's source line


@dataclass
class Panel:
    title: str
    views: list
    order: str  # the order of A and B in words
    first: str | None  # "A" or "B" runs first; None: unordered or not both here
    missing: list = field(default_factory=list)  # "A"/"B" not found in this program


@dataclass
class Scene:
    panels: list
    grids: list
    notes: list
    lines: dict  # source line -> "op" | "stmt" | "kernel"


# ---------------------------------------------------------------- programs and models


def program_at(program: ir.Program, kernel: str, upto: int) -> ir.Program:
    """The program after the first `upto` ops of `kernel`'s schedule (ScheduleError if one
    does not apply)."""
    from ..ops import apply_op

    sched = program.schedule_for(kernel)
    for op in (sched.ops if sched else ())[:upto]:
        program = apply_op(program, kernel, op)
    return program


def kernel_of(program: ir.Program, obligation: dict, hint: str | None = None) -> list:
    """Kernel names an obligation of a merged report may belong to: its op text at its index
    (`hint`, the kernel the report says it belongs to, first)."""
    op, k = obligation.get("op", ""), obligation.get("op_index", 0)
    if k == 0 and op.startswith("kernel "):
        return [op[len("kernel "):]]
    if k == 0 and op.startswith("claim "):
        a, _, b = op[len("claim "):].partition(" == ")
        return [a, b]
    names = [s.kernel for s in program.schedules if len(s.ops) >= k >= 1 and s.ops[k - 1].text() == op]
    return [hint] if hint in names else names


def report_kernels(program: ir.Program, merged: dict) -> list:
    """For each obligation of a merged report, the kernel it belongs to (None: unknown or a
    claim): `verify_program` lists each kernel's obligations after its own `kernel NAME` ones;
    a report of one kernel names it in its "kernel" field."""
    names = {k.name for k in program.kernels}
    current = merged.get("kernel") if merged.get("kernel") in names else None
    out = []
    for o in merged.get("obligations") or []:
        op = str(o.get("op", ""))
        if op.startswith("kernel ") and op[len("kernel "):] in names:
            current = op[len("kernel "):]
        out.append(None if op.startswith("claim ") else current)
    return out


def _display(lp) -> str:
    return "cell" + lp.var[2:] if lp.var.startswith("_z") else lp.var


def _loops(st) -> list:
    from ..core.printer import expr_text

    return [(_display(lp), lp.axis, f"{expr_text(lp.lo)} .. {expr_text(lp.hi)}") for lp in st.loops]


def _fix_params(obj, model: KernelModel, params: dict):
    eqs = " and ".join(f"{model.pnames[p]} = {int(v)}" for p, v in params.items() if p in model.pnames)
    missing = [p for p in model.pnames if p not in params]
    if missing:
        raise DrawError(f"the counterexample gives no value for {', '.join(missing)}")
    return obj.intersect_params(isl.Set(f"{model.ptuple} -> {{ : {eqs or '1 = 1'} }}"))


def _val(v: int) -> isl.Val:
    return isl.Val.int_from_si(isl.DEFAULT_CONTEXT, int(v))


def _points(s: isl.Set, n: int, cap: int) -> list:
    out = []

    def take(pt):
        if len(out) < cap:
            out.append(tuple(pt.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n)))
    s.foreach_point(take)
    return out


def _domain(model, st, params) -> isl.Set:
    return _fix_params(model.domains[st.name], model, params)


def _direct(model, inst, params) -> list:
    """[(stmt, values)]: the instance by its iterators, when this model has that statement."""
    at = inst.get("at")
    if not isinstance(at, dict):
        return []
    names, vals = list(at), [at[n] for n in at]
    if any(not isinstance(v, int) for v in vals):
        return []
    for st in model.stmts:
        if st.sid == inst.get("stmt") and [_display(lp) for lp in st.loops] == names:
            d = _domain(model, st, params)
            for k, v in enumerate(vals):
                d = d.fix_val(isl.dim_type.set, k, _val(v))
            if not d.is_empty():
                return [(st, tuple(vals))]
    return []


def _via_provenance(model, inst, params) -> list:
    """[(stmt, values)]: the instances of this model that stand for the instance's original."""
    orig = inst.get("original")
    if not isinstance(orig, dict) or any(not isinstance(v, int) for v in orig.values()):
        return []
    out = []
    for st in model.stmts:
        if st.sid != inst.get("stmt") or list(st.orig_names) != list(orig):
            continue
        try:
            m = _fix_params(model.prov_map(st), model, params)
        except NonAffine:
            continue
        target = isl.Set(model.space(f"{st.orig_tuple}[{', '.join(str(v) for v in orig.values())}]"))
        dom = m.intersect_range(_fix_params(target, model, params)).domain()
        out += [(st, v) for v in _points(dom, st.depth, MAX_IMAGES)]
    return out


def locate(model, inst, params, direct_first: bool) -> list:
    first, second = (_direct, _via_provenance) if direct_first else (_via_provenance, _direct)
    return first(model, inst, params) or second(model, inst, params)


# ---------------------------------------------------------------- slices


def _bound(d: isl.Set, k: int, fallback: list) -> tuple:
    lo, hi = d.dim_min_val(k), d.dim_max_val(k)
    if not (lo.is_int() and hi.is_int()):
        return min(fallback), max(fallback)
    return min(lo.to_python(), *fallback), max(hi.to_python(), *fallback)


def seq_key(st, vals) -> tuple:
    """Sequential (C backend) order of an instance: its schedule vector (P0, v1, P1, ...)."""
    key = [st.sched[0]]
    for k, v in enumerate(vals):
        key += [v, st.sched[2 * k + 2]]
    return tuple(key)


def make_view(model, st, marks: dict, params: dict, ghosts: dict | None = None, named=(),
              dims: tuple | None = None) -> View:
    """The slice of `st`'s domain through its first mark, with the marks placed; `ghosts`:
    instances that are not in this program, drawn where they would be; `named`: loop names
    the op mentions (drawn first); `dims`: force the (x, y) dims."""
    ghosts = ghosts or {}
    vals = list(marks.values()) + list(ghosts.values())
    d = _domain(model, st, params)
    names = [_display(lp) for lp in st.loops]
    if dims is None:
        extents = [(lambda b: b[1] - b[0] + 1)(_bound(d, k, [m[k] for m in vals])) for k in range(st.depth)]
        dims = choose_dims(st.depth, vals, extents, {k for k, n in enumerate(names) if n in named})
    x, y = dims
    anchor = vals[0]
    for k in range(st.depth):
        if k not in (x, y):
            d = d.fix_val(isl.dim_type.set, k, _val(anchor[k]))
    ranges = {}
    for k, size in ((x, MAX_X), (y, MAX_Y)):
        if k is not None:
            lo, hi = _bound(d, k, [m[k] for m in vals])
            ranges[k] = window(lo, hi, [m[k] for m in vals], size)
            d = d.lower_bound_val(isl.dim_type.set, k, _val(ranges[k].start))
            d = d.upper_bound_val(isl.dim_type.set, k, _val(ranges[k].stop - 1))
    view = View(st.sid, _loops(st), x, y, {names[k]: anchor[k] for k in range(st.depth) if k not in (x, y)},
                ranges.get(x, range(0, 1)), ranges.get(y, range(0, 1)),
                line=getattr(getattr(st.node, "loc", None), "line", None))
    for pt in _points(d, st.depth, MAX_X * MAX_Y + 1):
        view.points[(pt[x] if x is not None else 0, pt[y] if y is not None else 0)] = seq_key(st, pt)
    for label, m in list(marks.items()) + [(f"{g}?", v) for g, v in ghosts.items()]:
        others = {names[k]: m[k] for k in range(st.depth) if k not in (x, y) and m[k] != anchor[k]}
        if others:
            view.off[label[0]] = ("at " + ", ".join(f"{n}={v}" for n, v in others.items())
                                  + ", outside this slice (drawn in its own slice)")
        elif label.endswith("?"):
            view.ghosts[label[0]] = (m[x] if x is not None else 0, m[y] if y is not None else 0)
        else:
            view.marks[label] = (m[x] if x is not None else 0, m[y] if y is not None else 0)
    return view


def _ghost(model, inst) -> tuple | None:
    """(stmt, values) where an instance this program does not run would sit: its original
    iterators in a statement of the same identity whose loops carry those names."""
    where = {**(inst.get("at") or {}), **(inst.get("original") or {})}
    for st in model.stmts:
        vals = [where.get(_display(lp)) for lp in st.loops]
        if st.sid == inst.get("stmt") and all(isinstance(v, int) for v in vals):
            return st, tuple(vals)
    return None


def order_of(model, found: dict, params: dict, text: str | None) -> tuple:
    """(words, "A"/"B"/None): the verifier's order text for this panel when it gave one, else
    the model's order relation between the located instances."""
    if text:
        low = text.lower()
        first = "A" if any(s in low for s in _FIRST_A) else "B" if any(s in low for s in _FIRST_B) else None
        return text.replace("the first", "A").replace("the second", "B"), first
    if "A" not in found or "B" not in found:
        return "", None
    (sa, va), (sb, vb) = found["A"][0], found["B"][0]
    if sa is sb and va == vb:
        return "A and B are one and the same instance here", None

    def runs_before(s, vs, t, vt) -> bool:
        c = model.before_pair(s, t)
        if c is None:
            return False
        m = isl.Map(model.space(f"{model.tup(s, 'a')} -> {model.tup(t, 'b')} : {c}"))
        m = _fix_params(m, model, params)
        for k, v in enumerate(vs):
            m = m.fix_val(isl.dim_type.in_, k, _val(v))
        for k, v in enumerate(vt):
            m = m.fix_val(isl.dim_type.out, k, _val(v))
        return not m.is_empty()
    if runs_before(sa, va, sb, vb):
        return "A runs before B", "A"
    if runs_before(sb, vb, sa, va):
        return "B runs before A", "B"
    extra = " (barriers may order them)" if model.barriers else ""
    return "A and B are unordered (may run in parallel or in any order)" + extra, None


def make_panel(title, model, insts: dict, params, direct_labels, order_text, named=()) -> Panel:
    found = {}
    for label, inst in insts.items():
        hits = locate(model, inst, params, inst.get("kernel") in direct_labels)
        if hits:
            found[label] = hits
    by_stmt = {}
    for label, hits in found.items():
        st, vals = hits[0]
        by_stmt.setdefault(st.name, (st, {}, {}))[1][label] = vals
    missing = [lbl for lbl in insts if lbl not in found]
    for label in missing:
        g = _ghost(model, insts[label])
        if g is not None:
            by_stmt.setdefault(g[0].name, (g[0], {}, {}))[2][label] = g[1]
    views = []
    for st, marks, ghosts in by_stmt.values():
        view = make_view(model, st, marks, params, ghosts, named)
        views.append(view)
        for label in view.off:  # an instance outside the first slice gets a slice of its own
            alone = ({label: marks[label]}, {}) if label in marks else ({}, {label: ghosts[label]})
            views.append(make_view(model, st, alone[0], params, alone[1], dims=(view.x, view.y)))
    ranks = sorted({k for v in views for k in v.points.values()})
    index = {k: n + 1 for n, k in enumerate(ranks)}
    for v in views:
        v.points = {p: index[k] for p, k in v.points.items()}
    words, first = order_of(model, found, params, order_text)
    return Panel(title, views, words, first, missing)


# ---------------------------------------------------------------- the whole picture


def _grid(programs: list, cex: dict, insts: dict):
    """The cell grid in the first program that declares the tensor (after the op, else before)."""
    for n, prog in enumerate(programs):
        try:
            return cell_grid(prog, cex, insts)
        except VschedError:
            if n == len(programs) - 1:
                raise
    return None


def _instances(cex: dict) -> dict:
    insts = [i for i in cex.get("instances") or [] if isinstance(i, dict)]
    return dict(zip("AB", insts[:2]))


def scene(program: ir.Program, obligation: dict, kernel: str | None = None) -> Scene:
    """Panels (before/after the op, or the kernel), cell grids and source lines to highlight
    for one refuted obligation of a merged report (`kernel`: the one it belongs to, when
    known: report_kernels)."""
    cex = obligation.get("counterexample") or {}
    params = cex.get("params") or {}
    insts = _instances(cex) if isinstance(cex, dict) else {}
    lines, notes, panels, grids = {}, [], [], []
    k = obligation.get("op_index", 0)
    order = cex.get("order") if isinstance(cex.get("order"), dict) else {}
    named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", obligation.get("op", "")))
    for kernel in kernel_of(program, obligation, kernel):
        try:
            kern = program.kernel(kernel)
        except KeyError:
            continue
        if kern.loc is not None:
            lines.setdefault(kern.loc.line, "kernel")
        if k >= 1:
            op = program.schedule_for(kernel).ops[k - 1]
            if getattr(op, "loc", None) is not None:
                lines[op.loc.line] = "op"
        if not insts:
            continue
        try:
            if k >= 1:
                before = program_at(program, kernel, k - 1)
                after = program_at(program, kernel, k)
                # polyhedral/race.py's "before" describes the program after the op (the barrier phase)
                phase = str(order.get("before", "")).startswith("unordered (")
                said = (None, order.get("before")) if phase else (order.get("before"), order.get("after"))
                was = "the kernel as written" if k == 1 else f"after ops 1..{k - 1}"
                progs = [(f"before op [{k}] ({was})", before, "before", said[0]),
                         (f"after op [{k}]", after, "after", said[1])]
            elif obligation.get("op", "").startswith("claim "):
                if not any(i.get("kernel") == kernel for i in insts.values()):
                    continue
                progs = [(f"kernel {kernel}", program, kernel, None)]
            else:
                progs = [("the kernel as written", program, "kernel", order.get("before"))]
            for title, prog, label, text in progs:
                model = KernelModel(prog, kernel, tag="V")
                panel = make_panel(title, model, insts, params, (label,), text, named)
                panels.append(panel)
                for v in panel.views:
                    if v.line is not None:
                        lines.setdefault(v.line, "stmt")
            grid = _grid([p[1] for p in reversed(progs)], cex, insts)
            if grid is not None:
                grids.append(grid)
        except (DrawError, VschedError, NonAffine, isl.Error, KeyError) as e:
            notes.append(f"could not draw kernel {kernel}: {getattr(e, 'message', None) or e}")
        if not obligation.get("op", "").startswith("claim ") and any(p.views for p in panels):
            break
    if insts and not panels and not notes:
        notes.append("no statement of the program matches the counterexample's instances")
    return Scene(panels, grids, notes, lines)
