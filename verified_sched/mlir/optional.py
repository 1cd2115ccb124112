"""The optional extras of the MLIR/IREE features, imported when first needed."""
from __future__ import annotations

import importlib

from verified_sched.core.errors import UsageError


def require(message: str, *modules: str) -> tuple:
    """The named modules, imported; UsageError `message` (how to install them) when one is
    missing."""
    try:
        return tuple(importlib.import_module(m) for m in modules)
    except ImportError:
        raise UsageError(message) from None
