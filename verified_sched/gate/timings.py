"""How long each file took to verify last time: a scheduling hint for `vsched verify -j N`.

Parallel workers take the files longest first, so no long proof is left to start last while
the other workers idle. The duration of a file's last verification is the best estimate of
its next one; a file never timed (new, or edited) is estimated from its size, at the rate of
the timed ones. The store holds durations only, never a verdict: it is read and written also
under `--no-cache`, and a stale or missing entry only makes the order worse, never a result
different.

Layout: `<cache root>/timings/durations.json` (the proof cache's root, gate/cache.py), a JSON
object {sha256 of the file's text (first 24 hex digits): seconds}, at most `LIMIT` entries
(the newest kept), recorded by runs that verify more than one file, written to a private
temporary file and moved into place. Best effort: a damaged file reads as empty, a folder
that cannot be written stores nothing, and of two runs writing at once the last one wins.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .cache import cache_root, write_json_atomic

LIMIT = 5000  # entries kept (about 200 kB)


def timing_dir() -> Path:
    return cache_root() / "timings"  # also listed by `vsched cache info|clear` (cache.py)


def _store() -> Path:
    return timing_dir() / "durations.json"


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def load() -> dict:
    """{text key: seconds}; empty when there is no readable store."""
    try:
        data = json.loads(_store().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(k, str) and isinstance(v, (int, float)) and v >= 0}


def estimates(texts: list, known: dict | None = None) -> list:
    """Estimated seconds per text: the recorded duration, else the text's length at the
    average rate (seconds per character) of the recorded ones in this list."""
    known = load() if known is None else known
    keys = [text_key(t) for t in texts]
    timed = [(known[k], len(t)) for k, t in zip(keys, texts) if k in known]
    chars = sum(n for _, n in timed)
    rate = sum(s for s, _ in timed) / chars if timed and chars else 1e-4
    return [known[k] if k in known else len(t) * rate for k, t in zip(keys, texts)]


def record(durations: list) -> bool:
    """Merge (text, seconds) pairs into the store; False when nothing could be written."""
    if not durations:
        return False
    data = load()
    for text, seconds in durations:
        key = text_key(text)
        data.pop(key, None)  # re-inserted last: the newest entries are kept
        data[key] = round(float(seconds), 4)
    if len(data) > LIMIT:
        data = dict(list(data.items())[-LIMIT:])
    return write_json_atomic(_store(), data, separators=(",", ":"))
