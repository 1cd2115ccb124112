"""The interpreter's GPU block semantics: threads of one block run phase by phase between
barriers, in a seeded random order; barrier divergence is a KernelError naming the threads."""
from __future__ import annotations

from .scalar import KernelError


def who(tids, axes) -> str:
    """A readable set of thread indices: runs of one axis compressed (`thread.x 32-63`)."""
    tids = sorted(tids)
    if len(axes) == 1:
        vals = [t[0] for t in tids]
        runs, start, prev = [], vals[0], vals[0]
        for v in vals[1:] + [None]:
            if v is None or v != prev + 1:
                runs.append(f"{start}" if start == prev else f"{start}-{prev}")
                start = v
            prev = v
        return f"{axes[0]} {', '.join(runs)} ({len(tids)} thread{'s' * (len(tids) != 1)})"
    names = [", ".join(f"{a}={i}" for a, i in zip(axes, t)) or "the only thread" for t in tids]
    return "; ".join(names[:4]) + (f"; ... ({len(names)} threads)" if len(names) > 4 else "")


def run_phases(threads, axes, where, rng):
    """Run the threads of one block phase by phase between barriers."""
    live, phase = threads, 0
    while live:
        phase += 1
        rng.shuffle(live)
        waiting, finished = [], []
        for tidx, g in live:
            b = next(g, None)
            (finished if b is None else waiting).append((tidx, g, b))
        if not waiting:
            return
        first = waiting[0][2]
        if finished:
            raise KernelError(
                f"barrier divergence in block {where}: the barrier of phase {phase} is reached by "
                f"{who([t for t, _, _ in waiting], axes)} but not by "
                f"{who([t for t, _, _ in finished], axes)}, which finished", first.loc)
        other = [w for w in waiting if w[2] is not first]
        if other:
            at_first = [t for t, _, b in waiting if b is first]
            raise KernelError(
                f"barrier divergence in block {where}: in phase {phase} {who(at_first, axes)} wait at "
                f"the barrier at {first.loc or '?'} but {who([t for t, _, _ in other], axes)} at "
                f"the barrier at {other[0][2].loc or '?'}", first.loc)
        live = [(t, g) for t, g, _ in waiting]
