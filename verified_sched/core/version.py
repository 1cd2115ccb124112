"""The package's version, for reports (SARIF's tool.driver.version) and the proof cache's key.

A constant, not `importlib.metadata.version(...)`: importing importlib.metadata costs more than
the rest of `vsched verify`'s start-up (email, zipfile, pathlib...). pyproject.toml's
`version` must equal it (tests/test_cli_startup.py checks both, and the installed metadata)."""
from __future__ import annotations

VERSION = "0.1.0"


def package_version() -> str:
    return VERSION
