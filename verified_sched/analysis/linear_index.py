"""Linear forms of integer index expressions: `c1*a1 + ... + k` as (terms: dict atom -> coef,
const), the simplifier's canonical index form (analysis/simplify.py re-exports these names).
Atoms are variables and the parts outside linear arithmetic (products of two symbols,
floor/mod, min/max, reads), each with its own inside in canonical form.
"""
from __future__ import annotations

import operator

from ..core.ir import BinOp, Call, FloorDiv, Int, Load, Mod, Var

# Canonical renders of sums of variables, remembered by identity: id(node) -> (node, terms,
# const). `render_linear` records the form it rendered when every atom is a variable (the
# form `linear_form` would compute from the rendered tree: the same terms in the same order),
# so a later `linear_form`, `norm_index` or `fold_index` of that very object reads it back
# instead of walking k terms again (n nested splits: every op's index has n terms and passes
# the simplifier, the coalescing, the int64 check and well-formedness). Holding the node keeps
# its id from being reused; the oldest entries go first past `_FORMS_SIZE`.
_FORMS: dict = {}
_FORMS_SIZE = 4096
_VAR_ONLY = {Var}
_NAME = operator.attrgetter("name")


def known_form(e):
    """(terms, const) of `e` when `e` is a canonical render of a sum of variables recorded by
    `render_linear` (the caller must not mutate the terms), else None."""
    hit = _FORMS.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1], hit[2]
    return None


def _remember(node, items: list, const: int) -> None:
    if len(_FORMS) >= _FORMS_SIZE:
        try:  # (the oldest entry; another thread may have taken it first)
            _FORMS.pop(next(iter(_FORMS)), None)
        except (StopIteration, RuntimeError):
            pass
    _FORMS[id(node)] = (node, items if isinstance(items, dict) else dict(items), const)


def add_linear(la: tuple, lb: tuple, sign: int = 1) -> tuple:
    """`la + sign * lb` of two linear forms (terms: dict atom -> coef, const); zero terms go."""
    terms = dict(la[0])
    for k, c in lb[0].items():
        terms[k] = terms.get(k, 0) + sign * c
    return {k: c for k, c in terms.items() if c != 0}, la[1] + sign * lb[1]


def scale_linear(la: tuple, k: int) -> tuple:
    """`k * la` of a linear form (terms, const); zero terms go."""
    return {t: c * k for t, c in la[0].items() if c * k != 0}, la[1] * k


def _add_into(la: tuple, lb: tuple, sign: int) -> tuple:
    """`add_linear` reusing `la`'s terms dict (a form linear_form just built for its caller
    alone): a left-deep sum of k terms costs O(k), not O(k^2) dict copies."""
    terms = la[0]
    for k, c in lb[0].items():
        v = terms.get(k, 0) + sign * c
        if v:
            terms[k] = v
        else:
            terms.pop(k, None)
    return terms, la[1] + sign * lb[1]


def linear_form(e, dyn=True):
    """(terms: dict atom -> coef, const) for an integer index expression, or None (the terms
    dict is the caller's own).

    With `dyn` a Load is an atom (a dynamic index); without it a Load makes `e` a scalar
    expression, which is never rearranged (float arithmetic does not reassociate)."""
    hit = _FORMS.get(id(e))
    if hit is not None and hit[0] is e:
        return dict(hit[1]), hit[2]
    return _form(e, dyn)


def _form(e, dyn):
    match e:
        case Int(value=v):
            return {}, v
        case Var():
            return {e: 1}, 0
        case BinOp(op=("+" | "-") as op, a=a, b=b):
            la, lb = _form(a, dyn), _form(b, dyn)
            if la is None or lb is None:
                return None
            return _add_into(la, lb, 1 if op == "+" else -1)
        case BinOp(op="*", a=a, b=b):
            la, lb = _form(a, dyn), _form(b, dyn)
            if la is None or lb is None:
                return None
            if not la[0]:
                la, lb = lb, la
            if not lb[0]:
                return scale_linear(la, lb[1])
            return {BinOp("*", render_linear(*la), render_linear(*lb)): 1}, 0
        case FloorDiv(a=a, divisor=d):
            la = _form(a, dyn)
            if la is None:
                return None
            terms, const = la
            whole = {t: c // d for t, c in terms.items() if c % d == 0}
            rest = {t: c for t, c in terms.items() if c % d != 0}
            if not rest:
                return whole, const // d
            # floor((d*A + B + k)/d) = A + floor((B + k mod d)/d) + k div d
            inner = FloorDiv(render_linear(rest, const % d), d)
            out = dict(whole)
            out[inner] = out.get(inner, 0) + 1
            return out, const // d
        case Mod(a=a, divisor=d):
            la = _form(a, dyn)
            if la is None:
                return None
            terms = {t: c % d for t, c in la[0].items() if c % d != 0}
            if not terms:
                return {}, la[1] % d
            return {Mod(render_linear(terms, la[1] % d), d): 1}, 0
        case Call(fn=("min" | "max") as fn, args=(a, b)):
            la, lb = _form(a, dyn), _form(b, dyn)
            if la is None or lb is None:
                return None
            if la[0] == lb[0]:
                pick = min if fn == "min" else max
                return la[0], pick(la[1], lb[1])
            return {Call(fn, (render_linear(*la), render_linear(*lb))): 1}, 0
        case Call(fn="neg", args=(a,)):
            la = _form(a, dyn)
            return None if la is None else scale_linear(la, -1)
        case Load(tensor=t, index=idx) if dyn:
            return {Load(t, tuple(norm_index(x) for x in idx)): 1}, 0
    return None


def render_linear(terms: dict, const: int):
    c0 = const
    pos = [(t, c) for t, c in terms.items() if c > 0]
    neg = [(t, c) for t, c in terms.items() if c < 0]
    out = None
    if not pos and neg and const != 0:  # lead with the constant: 3 - N rather than -1 * N + 3
        out, const = Int(const), 0
    for t, c in pos + neg:
        mag = abs(c)
        term = t if mag == 1 else BinOp("*", Int(mag), t)
        if out is None:
            out = term if c > 0 else BinOp("*", Int(-1), t) if mag == 1 else BinOp("*", Int(c), t)
        else:
            out = BinOp("+" if c > 0 else "-", out, term)
    if out is None:
        return Int(const)
    if const > 0:
        out = BinOp("+", out, Int(const))
    elif const < 0:
        out = BinOp("-", out, Int(-const))
    if type(out) is BinOp and set(map(type, terms)) == _VAR_ONLY:
        _remember(out, pos + neg, c0)
    return out


def substitute_form(e, mapping: dict):
    """`norm_index(ir.substitute(e, mapping))` computed on the recorded form of `e` (a canonical
    render of a sum of variables) without walking its tree, or None when `e` has no recorded
    form or a replacement is not a sum of variables (the caller substitutes the tree). The
    terms are added in the order the tree walk of `linear_form` adds them (each term in turn,
    a replaced term's own terms in their order, a coefficient that reaches 0 dropped), so the
    render is the very one the walk gives."""
    hit = _FORMS.get(id(e))
    if hit is None or hit[0] is not e:
        return None
    terms, const = hit[1], hit[2]
    if mapping.keys().isdisjoint(map(_NAME, terms)):
        return e
    acc: dict = {}
    for t, k in terms.items():
        r = mapping.get(t.name)
        if r is None:
            part = ((t, k),)
        else:
            lf = linear_form(r)
            if lf is None or not all(type(a) is Var for a in lf[0]):
                return None
            part = [(a, k * c) for a, c in lf[0].items()]
            const += k * lf[1]
        for a, c in part:
            v = acc.get(a, 0) + c
            if v:
                acc[a] = v
            else:
                acc.pop(a, None)
    return render_linear(acc, const)


def is_index_expr(e, dyn=True) -> bool:
    return linear_form(e, dyn) is not None


def norm_index(e):
    """Canonical linear form of an integer index expression (the same object if unchanged or
    if `e` is not an index expression)."""
    hit = _FORMS.get(id(e))
    if hit is not None and hit[0] is e:
        return e  # a canonical render already
    lin = linear_form(e)
    if lin is None:
        return e
    out = render_linear(*lin)
    return adopt(e, out) if out == e else out


def adopt(e, out):
    """`e`, an expression equal to the render `out`: its recorded form (if any) now also
    recorded for `e` (callers hand back `e` itself when it is already canonical)."""
    hit = _FORMS.get(id(out))
    if hit is not None and hit[0] is out and e is not out:
        _FORMS.pop(id(out), None)
        _remember(e, hit[1], hit[2])
    return e
