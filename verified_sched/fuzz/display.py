"""What `vsched fuzz` shows: a live panel on a terminal (examples/s, verdict mix, findings, op
coverage) and the final table."""
from __future__ import annotations

import contextlib
import io
import time

from rich.console import Console
from rich.table import Table

from ..ops.registry import OP_NAMES
from .stats import OPTION_LABELS


def _verdicts(camp) -> str:
    v = camp.stats.verdicts
    return ", ".join(f"{k} {v.get(k, 0)}" for k in ("legal", "illegal", "unknown", "error"))


def panel(camp) -> Table:
    s = camp.stats
    t = Table(title=f"vsched fuzz: {camp.workers} worker(s)", show_header=False)
    rate = s.examples / camp.seconds if camp.seconds else 0.0
    t.add_row("examples", f"{s.examples} ({rate:.1f}/s, {camp.seconds:.0f} s)")
    t.add_row("verdicts", _verdicts(camp))
    t.add_row("findings", ", ".join(f"{f['kind']} {f['path']}" for f in camp.findings) or "none")
    t.add_row("ops drawn", " ".join(f"{op}:{sum(s.per_op.get(op, {}).values())}" for op in OP_NAMES))
    return t


PROGRESS_EVERY = 10.0  # seconds between two progress lines off a terminal


def progress_line(camp) -> str:
    s = camp.stats
    rate = s.examples / camp.seconds if camp.seconds else 0.0
    return (f"vsched fuzz: {s.examples} examples in {camp.seconds:.0f} s ({rate:.1f}/s); {_verdicts(camp)}; "
            f"{len(camp.findings)} finding(s)")


def progress_lines(stream, clock=time.monotonic, every: float = PROGRESS_EVERY):
    """A callable(camp) printing `progress_line` on `stream` at most once per `every` seconds
    of `clock` (the first after `every` seconds): progress a log or a CI job shows."""
    last = [clock()]

    def update(camp):
        now = clock()
        if now - last[0] >= every:
            last[0] = now
            print(progress_line(camp), file=stream, flush=True)
    return update


@contextlib.contextmanager
def live(camp, enabled: bool, lines: bool = False):
    """A callable(camp) refreshing the panel on stderr when `enabled` (a terminal); else,
    with `lines`, printing a progress line now and then; else a no-op."""
    if not enabled:
        import sys

        yield progress_lines(sys.stderr) if lines else (lambda c: None)
        return
    from rich.live import Live

    with Live(panel(camp), console=Console(stderr=True), refresh_per_second=2, transient=True) as lv:
        yield lambda c: lv.update(panel(c))


def final_table(camp) -> str:
    s = camp.stats
    buf = io.StringIO()
    con = Console(file=buf, width=110, force_terminal=False)
    rate = s.examples / camp.seconds if camp.seconds else 0.0
    con.print(f"vsched fuzz: {s.examples} examples in {camp.seconds:.1f} s on {camp.workers} worker(s) "
              f"({rate:.2f}/s); {_verdicts(camp)}")
    t = Table(title="per op (schedules containing it)")
    for col in ("op", "legal", "illegal", "unknown"):
        t.add_column(col, justify="left" if col == "op" else "right")
    for op in OP_NAMES:
        c = s.per_op.get(op, {})
        t.add_row(op, *(str(c.get(v, 0)) for v in ("legal", "illegal", "unknown")))
    con.print(t)
    con.print("options: " + ", ".join(f"{k} {s.options.get(k, 0)}" for k in OPTION_LABELS))
    if s.unknown_kinds:
        con.print("unknown obligations: " + ", ".join(f"{k} {v}" for k, v in s.unknown_kinds.most_common()))
    if s.replays:
        con.print("counterexample replays: " + ", ".join(f"{k} {v}" for k, v in sorted(s.replays.items())))
    lens = ", ".join(f"{k} ops: {v}" for k, v in sorted(s.schedule_lengths.items()))
    con.print(f"schedule lengths: {lens}")
    con.print("sizes run: " + ", ".join(f"{k} {v}" for k, v in sorted(s.sizes.items())))
    if s.repeats:
        con.print(f"repeats skipped: {s.repeats} (drawn again within a batch: not checked, not counted)")
    if s.times:
        con.print("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in s.times.items()))
    if camp.findings:
        f = Table(title=f"findings (the same kind, op and signature counted once: {camp.duplicates} "
                        "duplicate(s) not repeated)")
        for col in ("kind", "op", "count", "reproducer", "what"):
            f.add_column(col)
        for rec in camp.findings:
            f.add_row(rec["kind"], rec.get("op", ""), str(rec.get("count", 1)), rec["path"],
                      rec["message"].splitlines()[0][:120])
        con.print(f)
        con.print("reproduce: " + "; ".join(_reproduce_command(rec) for rec in camp.findings))
    else:
        con.print("no findings")
    return buf.getvalue().rstrip()


def _reproduce_command(rec: dict) -> str:
    """The first `# reproduce:` command of a reproducer (it runs from where the campaign was
    started: reproducer.write)."""
    import re

    try:
        with open(rec["path"], encoding="utf-8") as f:
            m = re.search(r"^# reproduce: (.*?)(\s+#.*)?$", f.read(), re.M)
    except OSError:
        m = None
    return m.group(1) if m else rec["path"]
