"""Direct 3x3 convolutions as DSL text: eligible Winograd sites and near misses.

Used by the fuzzer's conv family (`fuzz/families.py`, `vsched fuzz` kernel shape `conv`),
the Winograd tests and benchmarks/winograd.py, so every variant of the recognition rules is
written once, in the DSL users write.
"""
from __future__ import annotations


def conv_source(*, layout: str = "nhwc", stride: int = 1, dilation: int = 1, offset: int = 0,
                prec: str = "f32", two_channel_axes: bool = False, profile: str = "approximate",
                sizes: dict | None = None, constraints: str = "", inputs: str = "",
                window: int = 3, perfect: bool = True, schedule: bool = True) -> str:
    """A `zero d` + direct convolution kernel `conv` with a `winograd` schedule.

    sizes: fixed values for some of N, OH, OW, C, F (the rest stay parameters).
    layout nhwc: a[N, H, W, C], b[F, 3, 3, C], d[N, OH, OW, F]; nchw: a[N, C, H, W],
    b[F, C, 3, 3], d[N, F, OH, OW]. two_channel_axes splits C into C x C2.
    """
    sizes = dict(sizes or {})
    names = ["N", "OH", "OW", "C", "F"] + (["C2"] if two_channel_axes else [])
    val = {n: str(sizes[n]) if n in sizes else n for n in names}
    params = [n for n in names if n not in sizes]
    cons = [f"{n} >= {2 if n in ('OH', 'OW') else 1}" for n in params]
    if constraints:
        cons.append(constraints)
    ext = (window - 1) * dilation
    H = f"{stride} * {val['OH']} + {ext - stride + 1 + 2 * offset}" if stride != 1 or offset else f"{val['OH']} + {ext}"
    W = f"{stride} * {val['OW']} + {ext - stride + 1 + 2 * offset}" if stride != 1 or offset else f"{val['OW']} + {ext}"

    def win(o, k):
        s = f"{stride} * {o}" if stride != 1 else o
        kk = f"{dilation} * {k}" if dilation != 1 else k
        off = f" + {offset}" if offset else ""
        return f"{s} + {kk}{off}"
    ch = ["c", "c2"] if two_channel_axes else ["c"]
    chd = [val["C"], val["C2"]] if two_channel_axes else [val["C"]]
    if layout == "nhwc":
        a_dims = [val["N"], H, W] + chd
        b_dims = [val["F"], str(window), str(window)] + chd
        d_dims = [val["N"], val["OH"], val["OW"], val["F"]]
        a_idx = ["n", win("oh", "kh"), win("ow", "kw")] + ch
        b_idx = ["f", "kh", "kw"] + ch
        d_idx = ["n", "oh", "ow", "f"]
    else:
        a_dims = [val["N"]] + chd + [H, W]
        b_dims = [val["F"]] + chd + [str(window), str(window)]
        d_dims = [val["N"], val["F"], val["OH"], val["OW"]]
        a_idx = ["n"] + ch + [win("oh", "kh"), win("ow", "kw")]
        b_idx = ["f"] + ch + ["kh", "kw"]
        d_idx = ["n", "f", "oh", "ow"]
    loops = [("n", val["N"]), ("oh", val["OH"]), ("ow", val["OW"]), ("f", val["F"]),
             ("kh", str(window)), ("kw", str(window))] + list(zip(ch, chd))
    lines = [f"profile {profile}"]
    if params:
        lines.append(f"params {', '.join(params)} where {', '.join(cons)}")
    if inputs:
        lines.append(f"inputs {inputs}")
    lines += ["", f"tensor a[{', '.join(a_dims)}] {prec}", f"tensor b[{', '.join(b_dims)}] {prec}",
              f"tensor d[{', '.join(d_dims)}] {prec}", "", "kernel conv {", "  zero d"]
    ind = "  "
    for i, (v, hi) in enumerate(loops):
        lines.append(f"{ind}for {v} in 0 .. {hi} {{")
        ind += "  "
        if not perfect and i == 3:
            lines.append(f"{ind}d[{', '.join(d_idx)}] = d[{', '.join(d_idx)}] + 0.0")
    lines.append(f"{ind}d[{', '.join(d_idx)}] += a[{', '.join(a_idx)}] * b[{', '.join(b_idx)}]")
    for _ in loops:
        ind = ind[:-2]
        lines.append(f"{ind}}}")
    lines.append("}")
    if schedule:
        lines += ["", "schedule conv {", "  winograd", "}"]
    return "\n".join(lines) + "\n"
