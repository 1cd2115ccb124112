"""What `vsched run` and `vsched exec` check before allocating anything at concrete sizes.

- Memory: the storage of every global tensor, times the copies the command keeps (the oracle
  holds the inputs, two guarded copies and their snapshots, plus float64 temporaries for the
  comparison), must fit in the memory available (MemAvailable, or an address-space limit set
  with `ulimit -v`); otherwise a UsageError names the bytes asked for.
- Work: a kernel whose statement instances (the product of its loop extents, bounded the
  same way) exceed MAX_INSTANCES would run for hours in any backend; it is refused.
- int64: the compiled kernels compute loop bounds, indices and linear offsets in int64. Every
  such integer expression is bounded by interval arithmetic over the loops' ranges at these
  sizes; one that could leave [-2^62, 2^62] (a margin for the C backend's floor/mod
  compensation and loop increments) is refused instead of wrapping silently.
"""
from __future__ import annotations

import math
import os

from ..core import ir
from ..core.errors import UsageError

INT_LIMIT = 2**62
MAX_INSTANCES = 10**12  # statement instances of one kernel run: hours of compute in any backend
RUN_COPIES = 6  # arrays the oracle holds per tensor: inputs, 2 guarded copies, 2 snapshots, scratch
RUN_TEMP_BYTES = 24  # float64 temporaries per compared cell
EXEC_COPIES = 2  # exec: the zero-filled storage and the fitted input


def available_memory() -> int:
    """Bytes this process may still allocate: MemAvailable (Linux), else physical memory,
    capped by RLIMIT_AS / RLIMIT_DATA when set."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        avail = None
    if avail is None:
        try:
            avail = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = 1 << 40
    try:
        import resource

        for lim in (resource.RLIMIT_AS, getattr(resource, "RLIMIT_DATA", resource.RLIMIT_AS)):
            soft, _ = resource.getrlimit(lim)
            if soft != resource.RLIM_INFINITY and soft > 0:
                avail = min(avail, soft)
    except (ImportError, ValueError, OSError):
        pass
    return avail


def _fmt_bytes(n: int) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n} bytes ({n / size:.1f} {unit})"
    return f"{n} bytes"


def _sizes_text(sizes: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def tensor_bytes(programs, sizes: dict) -> tuple[int, int, str]:
    """(total storage bytes of the distinct global tensors, the largest tensor's cell count,
    its name) over `programs` at `sizes`."""
    from verified_sched.core.dtypes import NP_DTYPE, global_tensors, storage_shape

    seen, total, big, big_name = set(), 0, 0, ""
    for program in programs:
        for t in global_tensors(program):
            if t.name in seen:
                continue
            seen.add(t.name)
            cells = math.prod(max(d, 0) for d in storage_shape(t, sizes))
            total += cells * NP_DTYPE[t.prec].itemsize
            if cells > big:
                big, big_name = cells, t.name
    return total, big, big_name


def check_memory(programs, sizes: dict, copies: int = RUN_COPIES, temp_bytes: int = RUN_TEMP_BYTES,
                 available: int | None = None) -> int:
    """The bytes the command would allocate; UsageError when more than is available."""
    total, big, big_name = tensor_bytes(programs, sizes)
    need = total * copies + big * temp_bytes
    avail = available_memory() if available is None else available
    if need > avail:
        raise UsageError(f"sizes {_sizes_text(sizes)} ask for {_fmt_bytes(total)} of tensor storage "
                         f"(largest: {big_name}, {big} cells), about {_fmt_bytes(need)} with the "
                         f"copies this command keeps: more than the {_fmt_bytes(avail)} available; "
                         "use smaller --size")
    return need


# ---------------------------------------------------------------- int64 index arithmetic


def _interval(e, env: dict, fail):
    """(lo, hi) of an integer expression over `env` (name -> (lo, hi)); None when `e` is not
    integer index arithmetic. Calls fail(e, lo, hi) for every subexpression out of range."""
    match e:
        case ir.Int(value=v):
            out = (v, v)
        case ir.Var(name=n):
            out = env.get(n)
        case ir.BinOp(op=op, a=a, b=b) if op in "+-*":
            x, y = _interval(a, env, fail), _interval(b, env, fail)
            if x is None or y is None:
                return None
            if op == "+":
                out = (x[0] + y[0], x[1] + y[1])
            elif op == "-":
                out = (x[0] - y[1], x[1] - y[0])
            else:
                products = [p * q for p in x for q in y]
                out = (min(products), max(products))
        case ir.FloorDiv(a=a, divisor=c):
            x = _interval(a, env, fail)
            out = None if x is None else (x[0] // c, x[1] // c)
        case ir.Mod(a=a, divisor=c):
            x = _interval(a, env, fail)
            out = None if x is None else (0, c - 1)
        case ir.Call(fn="min" | "max" as fn, args=(a, b)):
            x, y = _interval(a, env, fail), _interval(b, env, fail)
            if x is None or y is None:
                return None
            f = min if fn == "min" else max
            out = (f(x[0], y[0]), f(x[1], y[1]))
        case ir.Call(fn="neg", args=(a,)):
            x = _interval(a, env, fail)
            out = None if x is None else (-x[1], -x[0])
        case ir.Load():
            out = (-(2**31), 2**31 - 1)  # a dynamic index: an i32 read
        case _:
            return None
    if out is not None and max(abs(out[0]), abs(out[1])) > INT_LIMIT:
        fail(e, *out)
    return out


def check_int64(program: ir.Program, kernel: str, sizes: dict, max_instances: int = MAX_INSTANCES) -> None:
    """UsageError when the kernel's loop bounds, indices or linear offsets could leave the
    int64 range the compiled code computes them in, at these sizes."""
    from verified_sched.core.dtypes import storage_shape

    from ..core.printer import expr_text

    def fail(e, lo, hi):
        raise UsageError(f"at sizes {_sizes_text(sizes)}, the index arithmetic `{expr_text(e)}` in kernel "
                         f"{kernel} reaches [{lo}, {hi}], beyond the int64 range the compiled kernels "
                         "compute in (|value| <= 2^62 is required); use smaller --size")

    params = {p: (int(v), int(v)) for p, v in sizes.items()}
    strides = {}
    for t in program.tensors:
        shape = storage_shape(t, sizes) if t.memory in ("global", "constant") else None
        if shape is not None:
            acc, st = 1, []
            for d in reversed(shape):
                st.append(acc)
                acc *= max(d, 1)
            strides[t.name] = st[::-1]

    def access(tensor, index, env):
        ivs = [_interval(x, env, fail) for x in index]
        st = strides.get(tensor)
        if st is None or any(v is None for v in ivs):
            return
        lo = sum(min(v[0] * s, v[1] * s) for v, s in zip(ivs, st))
        hi = sum(max(v[0] * s, v[1] * s) for v, s in zip(ivs, st))
        if max(abs(lo), abs(hi)) > INT_LIMIT:
            fail(ir.Load(tensor, tuple(index)), lo, hi)

    stack = [(s, params, 1) for s in program.kernel(kernel).body]
    total = 0
    while stack:
        s, env, count = stack.pop()
        total += count
        if total > max_instances:
            raise UsageError(f"at sizes {_sizes_text(sizes)}, kernel {kernel} would run more than "
                             f"{max_instances:.0e} statement instances (the product of its loop extents); "
                             "use smaller --size")
        for node in ir.fact(s, _expr_nodes):
            if isinstance(node, ir.Load):
                access(node.tensor, node.index, env)
        match s:
            case ir.For(var=v, lo=lo, hi=hi, body=body):
                a, b = _interval(lo, env, fail), _interval(hi, env, fail)
                inner = {**env, v: (a[0], max(a[0], b[1] - 1))} if a and b else env
                trips = max(0, b[1] - a[0]) if a and b else 1
                stack += [(x, inner, count * trips) for x in body]
            case ir.Assign(tensor=t, index=index):
                access(t, index, env)
            case ir.If(cond=c, then=then, orelse=orelse):
                for node in _cond_exprs(c):
                    _interval(node, env, fail)
                stack += [(x, env, count) for x in then + orelse]
            case ir.TensorCore(fallback=fallback):
                stack += [(x, env, count) for x in fallback]


def _expr_nodes(s) -> list:
    """Loads in the expressions that belong to statement `s` itself (not its body)."""
    match s:
        case ir.Assign(index=index, value=value):
            roots = list(index) + [value]
        case ir.For(lo=lo, hi=hi):
            roots = [lo, hi]
        case ir.If(cond=c):
            roots = [c]
        case _:
            roots = []
    out, stack = [], roots
    while stack:
        n = stack.pop()
        if isinstance(n, ir.Load):
            out.append(n)
        if isinstance(n, ir.Node) and not isinstance(n, (ir.For, ir.If, ir.Assign)):
            for f in ("a", "b", "cond", "args", "index"):
                v = getattr(n, f, None)
                if isinstance(v, tuple):
                    stack.extend(v)
                elif isinstance(v, ir.Node):
                    stack.append(v)
    return out


def _cond_exprs(c) -> list:
    out, stack = [], [c]
    while stack:
        n = stack.pop()
        if isinstance(n, ir.Cmp):  # index comparisons only (a data comparison is not int64 arithmetic)
            if not any(ir.nodes_of(x, (ir.Load, ir.Float, ir.Cast)) for x in (n.a, n.b)):
                out += [n.a, n.b]
        elif isinstance(n, (ir.And, ir.Or)):
            stack += [n.a, n.b]
        elif isinstance(n, ir.Not):
            stack.append(n.a)
    return out


def check_run(programs_kernels, sizes: dict, copies: int = RUN_COPIES, temp_bytes: int = RUN_TEMP_BYTES,
              max_instances: int = MAX_INSTANCES) -> None:
    """Both checks for a list of (program, kernel) pairs at `sizes`."""
    check_memory([p for p, _ in programs_kernels], sizes, copies, temp_bytes)
    for program, kernel in programs_kernels:
        check_int64(program, kernel, sizes, max_instances)
