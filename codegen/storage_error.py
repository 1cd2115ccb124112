"""`OutOfStorage`, the finding both runners of the oracle raise: the bounds-checked C build
(codegen/checked.py) at an access outside a tensor's storage, and the oracle
(verified_sched/oracle/compare.py) when a run changed a guard cell. Its own module so that neither imports
the other for it; `verified_sched.oracle.compare` re-exports it."""
from __future__ import annotations

from verified_sched.core.errors import VschedError


class OutOfStorage(VschedError):
    """A kernel wrote outside a tensor's storage (into the oracle's guard cells): a finding
    about the kernel, which the CLI reports like a run-time failure (exit 1)."""

    def __init__(self, kernel: str, tensor: str, message: str):
        super().__init__(message)
        self.kernel, self.tensor = kernel, tensor
