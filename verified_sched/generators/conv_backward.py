"""Convolution backward as direct loop nests, each proved against the forward chain rule.

From a forward 2-D convolution (layout, stride, padding, dilation, groups) this module emits a
DSL file (README "Convolution backward") holding:

- `forward`: y[out] += x[in] * w[win] over (n, oh, ow, f, kh, kw, c) with padding guards;
- `*_grad_reference`: the same nest with its product re-aimed by the chain rule
  (dx[in] += dy[out] * w[win], dw[win] += x[in] * dy[out], db[f] += dy[out]);
- the DIRECT kernels, which iterate the cells of the gradient they write and reduce inside:
  `input_grad` is a stride-1 correlation of the zero-inserted, p' = d(K-1) - p padded dy with
  the spatially flipped weight (zero insertion and padding are guards, never a materialized
  tensor; p' may be negative), `weight_grad` reduces over (n, oh, ow) reading the padded input,
  `bias_grad` sums dy over all but f. Groups are expanded in the index arithmetic
  (f = FG*floor(c/CG) + fg, w channel c % CG); there are no transposes in either layout;
- `claim direct == reference` per requested gradient, proved by contraction equivalence.

The command line (`vsched conv-backward`, with `--against torch-mlir`) is
`cli/conv_backward.py`; this module imports nothing of it nor of `mlir/`.

Sizes are numbers (inlined) or symbols (params with constraints). OH = floor((H + 2p -
d(KH-1) - 1)/s) + 1 appears as written; the constraint H + 2p - d(KH-1) - 1 >= 0 keeps OH >= 1.
With groups > 1 the channel sizes must be numbers: FG*floor(c/CG) with a symbolic CG is not
quasi-affine, so no isl proof could exist.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from ..core.errors import UsageError

Size = Union[int, str]
GRADS = ("input", "weight", "bias")
LAYOUTS = ("nhwc", "nchw")
_SYMBOL = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")


# ---------------------------------------------------------------- affine text helper


class Lin:
    """An affine form sum(coeff * name) + const, rendered as DSL text."""

    def __init__(self, terms: dict | None = None, const: int = 0):
        self.terms = {k: v for k, v in (terms or {}).items() if v}
        self.const = const

    @staticmethod
    def of(value: Size) -> "Lin":
        return Lin({}, value) if isinstance(value, int) else Lin({value: 1})

    def __add__(self, other):
        other = other if isinstance(other, Lin) else Lin.of(other)
        terms = dict(self.terms)
        for k, v in other.terms.items():
            terms[k] = terms.get(k, 0) + v
        return Lin(terms, self.const + other.const)

    def __neg__(self):
        return Lin({k: -v for k, v in self.terms.items()}, -self.const)

    def __sub__(self, other):
        other = other if isinstance(other, Lin) else Lin.of(other)
        return self + (-other)

    def __rmul__(self, k: int):
        return Lin({n: k * v for n, v in self.terms.items()}, k * self.const)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def text(self) -> str:
        out = ""
        for name, k in self.terms.items():
            mag = name if abs(k) == 1 else f"{abs(k)}*{name}"
            out += (("-" if k < 0 else "") + mag) if not out else (f" - {mag}" if k < 0 else f" + {mag}")
        if not out:
            return str(self.const)
        if self.const:
            out += f" - {-self.const}" if self.const < 0 else f" + {self.const}"
        return out


def rel(lin: Lin, op: str) -> str:
    """`lin op 0` with positive terms on the left, the rest on the right (readable guards)."""
    left = Lin({k: v for k, v in lin.terms.items() if v > 0})
    right = Lin({k: -v for k, v in lin.terms.items() if v < 0}, -lin.const)
    return f"{left.text()} {op} {right.text()}"


def floor_div(lin: Lin, s: int) -> str:
    return lin.text() if s == 1 else f"floor(({lin.text()}) / {s})"


# ---------------------------------------------------------------- the convolution


@dataclass(frozen=True)
class Axis:
    """One spatial axis: input extent, kernel extent, stride, padding, dilation, iterators."""

    size: Size
    k: Size
    s: int
    p: int
    d: int
    o: str  # output iterator
    i: str  # input iterator
    kv: str  # window iterator

    def extent_minus_one(self) -> Lin:
        """L = H + 2p - d(K-1) - 1, so OH = floor(L/s) + 1."""
        return Lin.of(self.size) + 2 * self.p - self.d * (Lin.of(self.k) - 1) - 1

    def out_text(self) -> str:
        ell = self.extent_minus_one()
        if ell.is_const:
            return str(ell.const // self.s + 1)
        return (ell + 1).text() if self.s == 1 else f"floor(({ell.text()}) / {self.s}) + 1"

    def in_index(self) -> Lin:
        """The forward read position s*o + d*k - p."""
        return self.s * Lin({self.o: 1}) + self.d * Lin({self.kv: 1}) - self.p

    def bound_guards(self) -> list[str]:
        """0 <= s*o + d*k - p < H; both hold by construction when p == 0."""
        if self.p == 0:
            return []
        e = self.in_index()
        return [rel(e, ">="), rel(e - Lin.of(self.size), "<")]

    def pprime(self) -> Lin:
        return self.d * (Lin.of(self.k) - 1) - self.p

    def zero_inserted(self) -> tuple[list[str], str]:
        """Guards and dy index of the correlation: the read position j = i + d*k' - p' into the
        zero-inserted dy (length H + 2p - d(K-1), dy[j/s] where s divides j, zero elsewhere)."""
        pp = self.pprime()
        j = Lin({self.i: 1}) + self.d * Lin({self.kv: 1}) - pp
        guards = [f"({j.text()}) % {self.s} == 0"] if self.s > 1 else []
        if not (pp.is_const and pp.const <= 0):  # p' <= 0: every j lands inside (no padding)
            guards += [rel(j, ">="), rel(j - (self.extent_minus_one() + 1), "<")]
        return guards, floor_div(j, self.s)

    def flipped(self) -> str:
        """K - 1 - k, the spatially flipped window position."""
        last = Lin.of(self.k) - 1
        return f"{last.text()} - {self.kv}"


@dataclass(frozen=True)
class Conv:
    n: Size
    c: Size
    f: Size
    cg: Size
    ah: Axis
    aw: Axis
    layout: str
    groups: int
    grads: tuple

    @property
    def fg(self) -> int:
        return self.f // self.groups  # groups > 1 only: F is a number then

    def x_cell(self, name, n, ih, iw, ch):
        return f"{name}[{n}, {ih}, {iw}, {ch}]" if self.layout == "nhwc" else f"{name}[{n}, {ch}, {ih}, {iw}]"

    def w_cell(self, name, f, kh, kw, c):
        return f"{name}[{f}, {kh}, {kw}, {c}]" if self.layout == "nhwc" else f"{name}[{f}, {c}, {kh}, {kw}]"

    def o_cell(self, name, n, oh, ow, f):
        return f"{name}[{n}, {oh}, {ow}, {f}]" if self.layout == "nhwc" else f"{name}[{n}, {f}, {oh}, {ow}]"

    def x_channel(self) -> str:
        """The input channel read for output channel f and in-group channel c."""
        if self.groups == 1:
            return "c"
        base = "f" if self.fg == 1 else f"floor(f / {self.fg})"
        return f"{base} + c" if self.cg == 1 else f"{self.cg}*{base} + c"


def _loops(*pairs):
    return [(v, str(hi)) for v, hi in pairs]


def _nest(loops, guards, stmt) -> list[str]:
    lines, depth = [], 1
    for var, hi in loops:
        lines.append("  " * depth + f"for {var} in 0 .. {hi} {{")
        depth += 1
    if guards:
        lines.append("  " * depth + "if " + " and ".join(guards) + " {")
        lines.append("  " * (depth + 1) + stmt)
        lines.append("  " * depth + "}")
    else:
        lines.append("  " * depth + stmt)
    for d in range(depth - 1, 0, -1):
        lines.append("  " * d + "}")
    return lines


def _kernel(name: str, zero: str, body: list[str]) -> list[str]:
    return [f"kernel {name} {{", f"  zero {zero}", *body, "}", ""]


def _forward_loops(cv: Conv):
    h, w = cv.ah, cv.aw
    if cv.layout == "nhwc":
        return _loops(("n", cv.n), ("oh", h.out_text()), ("ow", w.out_text()), ("f", cv.f),
                      ("kh", h.k), ("kw", w.k), ("c", cv.cg))
    return _loops(("n", cv.n), ("f", cv.f), ("oh", h.out_text()), ("ow", w.out_text()),
                  ("c", cv.cg), ("kh", h.k), ("kw", w.k))


def _output_loops(cv: Conv):
    h, w = cv.ah, cv.aw
    if cv.layout == "nhwc":
        return _loops(("n", cv.n), ("oh", h.out_text()), ("ow", w.out_text()), ("f", cv.f))
    return _loops(("n", cv.n), ("f", cv.f), ("oh", h.out_text()), ("ow", w.out_text()))


def _forward_terms(cv: Conv):
    """Guards and the x, w, out cells of the forward nest (shared by forward and references)."""
    h, w = cv.ah, cv.aw
    guards = h.bound_guards() + w.bound_guards()
    x = cv.x_cell("x", "n", h.in_index().text(), w.in_index().text(), cv.x_channel())
    return guards, x, cv.w_cell("w", "f", "kh", "kw", "c")


def emit_kernels(cv: Conv) -> list[str]:
    """forward, then per requested gradient its chain-rule reference and its direct kernel."""
    guards, x, wc = _forward_terms(cv)

    def out(name):
        return cv.o_cell(name, "n", "oh", "ow", "f")

    lines = _kernel("forward", "y", _nest(_forward_loops(cv), guards, f"{out('y')} += {x} * {wc}"))
    h, w = cv.ah, cv.aw
    if "input" in cv.grads:
        dx_cell = cv.x_cell("dx", "n", h.in_index().text(), w.in_index().text(), cv.x_channel())
        lines += _kernel("input_grad_reference", "dx",
                         _nest(_forward_loops(cv), guards, f"{dx_cell} += {out('dy')} * {wc}"))
        lines += _kernel("input_grad", "dx", _input_grad_direct(cv))
    if "weight" in cv.grads:
        dw_cell = cv.w_cell("dw", "f", "kh", "kw", "c")
        lines += _kernel("weight_grad_reference", "dw",
                         _nest(_forward_loops(cv), guards, f"{dw_cell} += {x} * {out('dy')}"))
        wloops = (_loops(("f", cv.f), ("kh", h.k), ("kw", w.k), ("c", cv.cg)) if cv.layout == "nhwc"
                  else _loops(("f", cv.f), ("c", cv.cg), ("kh", h.k), ("kw", w.k)))
        red = _loops(("n", cv.n), ("oh", h.out_text()), ("ow", w.out_text()))
        lines += _kernel("weight_grad", "dw", _nest(wloops + red, guards, f"{dw_cell} += {x} * {out('dy')}"))
    if "bias" in cv.grads:
        lines += _kernel("bias_grad_reference", "db", _nest(_output_loops(cv), [], f"db[f] += {out('dy')}"))
        red = _loops(("n", cv.n), ("oh", h.out_text()), ("ow", w.out_text()))
        lines += _kernel("bias_grad", "db", _nest(_loops(("f", cv.f)) + red, [], f"db[f] += {out('dy')}"))
    return lines


def _input_grad_direct(cv: Conv) -> list[str]:
    """dx[n, ih, iw, c] = sum over k', f in c's group of dyz[ih + d k' - p'] * w[f, K-1-k', c%CG]."""
    h, w = cv.ah, cv.aw
    if cv.groups == 1:
        fvar, f, wc = "f", "f", "c"
        fext = cv.f
    else:
        fvar, fext = "fg", cv.fg
        base = "c" if cv.cg == 1 else f"floor(c / {cv.cg})"
        f = f"{base} + fg" if fext == 1 else f"{fext}*{base} + fg"
        wc = "0" if cv.cg == 1 else f"c % {cv.cg}"
    gh, jh = h.zero_inserted()
    gw, jw = w.zero_inserted()
    cells = _loops(("n", cv.n), ("ih", h.size), ("iw", w.size), ("c", cv.c))
    if cv.layout == "nhwc":
        red = _loops(("kh", h.k), ("kw", w.k), (fvar, fext))
    else:
        cells = [cells[0], cells[3], cells[1], cells[2]]
        red = _loops((fvar, fext), ("kh", h.k), ("kw", w.k))
    dx = cv.x_cell("dx", "n", "ih", "iw", "c")
    stmt = f"{dx} += {cv.o_cell('dy', 'n', jh, jw, f)} * {cv.w_cell('w', f, h.flipped(), w.flipped(), wc)}"
    return _nest(cells + red, gh + gw, stmt)


# ---------------------------------------------------------------- validation and the file


def _size(value, what: str) -> Size:
    if isinstance(value, str):
        value = value.strip()
        if re.fullmatch(r"[+-]?[0-9]+", value):
            value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise UsageError(f"{what}: expected a positive integer or a symbol, got {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise UsageError(f"{what} must be >= 1, got {value}")
        return value
    if not _SYMBOL.match(value):
        raise UsageError(f"{what}: {value!r} is not a size symbol (an identifier starting with an "
                         f"uppercase letter; lowercase names are iterators and keywords)")
    return value


def _pair(value, what: str, least: int) -> tuple[int, int]:
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
        try:
            value = tuple(int(p) for p in parts)
        except ValueError:
            raise UsageError(f"{what}: expected an integer or 'h,w', got {value!r}") from None
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    value = tuple(value)
    if len(value) == 1:
        value = value * 2
    if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise UsageError(f"{what}: expected an integer or two integers 'h,w', got {value!r}")
    if min(value) < least:
        raise UsageError(f"{what} must be >= {least}, got {value[0]},{value[1]}")
    return value


def make_conv(x, w, layout="nhwc", stride=1, padding=0, dilation=1, groups=1, grads=GRADS) -> Conv:
    """Validate a forward convolution description (raises UsageError with a clear message)."""
    if layout not in LAYOUTS:
        raise UsageError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    x, w = tuple(x), tuple(w)
    if len(x) != 4:
        raise UsageError(f"x takes four sizes N,H,W,C, got {len(x)}")
    if len(w) != 4:
        raise UsageError(f"w takes four sizes F,KH,KW,CG, got {len(w)}")
    n, hh, ww, c = (_size(v, k) for v, k in zip(x, ("N", "H", "W", "C")))
    f, kh, kw, cg = (_size(v, k) for v, k in zip(w, ("F", "KH", "KW", "CG")))
    sh, sw = _pair(stride, "stride", 1)
    ph, pw = _pair(padding, "padding", 0)
    dh, dw = _pair(dilation, "dilation", 1)
    if isinstance(groups, str) and groups.strip().isdigit():
        groups = int(groups)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise UsageError(f"groups must be a positive integer, got {groups!r}")
    if isinstance(grads, str):
        grads = [g.strip() for g in grads.split(",") if g.strip()]
    bad = sorted(set(grads) - set(GRADS))
    if bad or not grads:
        what = f"unknown gradient {', '.join(bad)}" if bad else "no gradient requested"
        raise UsageError(f"grads: {what}; choose a non-empty subset of {','.join(GRADS)}")
    grads = tuple(g for g in GRADS if g in set(grads))
    if groups > 1:
        sym = [k for k, v in (("C", c), ("F", f), ("CG", cg)) if isinstance(v, str)]
        if sym:
            raise UsageError(f"with groups > 1, {', '.join(sym)} must be numbers: the group "
                             f"index arithmetic FG*floor(c/CG) is quasi-affine only for constant sizes")
        if c % groups:
            raise UsageError(f"C = {c} is not divisible by groups = {groups}")
        if f % groups:
            raise UsageError(f"F = {f} is not divisible by groups = {groups}")
    if isinstance(c, int) and isinstance(cg, int) and cg * groups != c:
        raise UsageError(f"CG = {cg} must equal C/groups = {c}/{groups}")
    ah = Axis(hh, kh, sh, ph, dh, "oh", "ih", "kh")
    aw = Axis(ww, kw, sw, pw, dw, "ow", "iw", "kw")
    for axis, name in ((ah, "H"), (aw, "W")):
        ell = axis.extent_minus_one()
        if ell.is_const and ell.const < 0:
            raise UsageError(f"the output {name} extent is empty: {name} + 2*padding - "
                             f"dilation*(K-1) - 1 = {ell.const} < 0")
    return Conv(n, c, f, cg, ah, aw, layout, groups, grads)


def _params(cv: Conv) -> list[str]:
    values = (cv.n, cv.ah.size, cv.aw.size, cv.c, cv.f, cv.ah.k, cv.aw.k, cv.cg)
    names = list(dict.fromkeys(v for v in values if isinstance(v, str)))
    if not names:
        return []
    cons = [f"{p} >= 1" for p in names]
    if cv.groups == 1 and cv.c != cv.cg:
        a, b = (cv.c, cv.cg) if isinstance(cv.c, str) else (cv.cg, cv.c)
        cons.append(f"{a} == {b}")
    for axis in (cv.ah, cv.aw):
        ell = axis.extent_minus_one()
        if not ell.is_const:
            cons.append(rel(ell, ">="))
    cons = list(dict.fromkeys(cons))
    return [f"params {', '.join(names)} where {', '.join(cons)}", ""]


def conv_backward_dsl(x, w, layout="nhwc", stride=1, padding=0, dilation=1, groups=1,
                      grads=GRADS) -> str:
    """The DSL file (forward, references, direct kernels, claims) for one convolution."""
    cv = make_conv(x, w, layout, stride, padding, dilation, groups, grads)
    h, wa = cv.ah, cv.aw
    head = [
        "# Convolution backward (generated by `vsched conv-backward`): direct gradient nests and",
        "# the forward convolution's chain rule, with one proved claim per gradient.",
        f"# layout {cv.layout}, x = {','.join(map(str, (cv.n, h.size, wa.size, cv.c)))}, "
        f"w = {','.join(map(str, (cv.f, h.k, wa.k, cv.cg)))}, stride {h.s},{wa.s}, "
        f"padding {h.p},{wa.p}, dilation {h.d},{wa.d}, groups {cv.groups}",
        "",
    ]
    oh, ow = h.out_text(), wa.out_text()
    x_dims = cv.x_cell("", cv.n, h.size, wa.size, cv.c)
    w_dims = cv.w_cell("", cv.f, h.k, wa.k, cv.cg)
    o_dims = cv.o_cell("", cv.n, oh, ow, cv.f)
    tensors = [f"tensor x{x_dims} f32", f"tensor w{w_dims} f32", f"tensor dy{o_dims} f32",
               f"tensor y{o_dims} f32"]
    if "input" in cv.grads:
        tensors.append(f"tensor dx{x_dims} f32")
    if "weight" in cv.grads:
        tensors.append(f"tensor dw{w_dims} f32")
    if "bias" in cv.grads:
        tensors.append(f"tensor db[{cv.f}] f32")
    claims = [f"claim {g}_grad == {g}_grad_reference" for g in cv.grads]
    return "\n".join(head + _params(cv) + tensors + [""] + emit_kernels(cv) + claims) + "\n"
