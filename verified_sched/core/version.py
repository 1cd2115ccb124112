"""The installed package's version, for reports (SARIF's tool.driver.version) and the proof
cache's key."""
from __future__ import annotations


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("verified_sched")
    except PackageNotFoundError:
        return "0+unknown"
