"""Deprecated location: the strategies live in `verified_sched.fuzz.strategies` (re-exported
here so existing imports keep working)."""
from .fuzz.strategies import *  # noqa: F401,F403
from .fuzz.strategies import __all__  # noqa: F401
