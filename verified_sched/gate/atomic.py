"""Report files written whole or not at all: `vsched verify -o FILE` and `--html FILE` write a
temporary file beside FILE and rename it over FILE only when the run completes, so an
interrupted or failed run leaves the previous report intact (a CI step that uploads it with
`if: always()` then uploads the last complete one) and never a truncated file."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..core.errors import UsageError


@contextlib.contextmanager
def atomic_output(path: str, what: str = "-o"):
    """Yield a text file that becomes `path` when the block ends normally; on any exception
    (KeyboardInterrupt too) it is removed and `path` is untouched."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise UsageError(f"{what} {path}: cannot write there: {e.strerror or e}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # the permissions a plain open() would have given
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: str, text: str, what: str) -> None:
    with atomic_output(path, what) as f:
        f.write(text)
