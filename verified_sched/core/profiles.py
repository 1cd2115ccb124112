"""The verification profiles a file or `--profile` may name (docs/verification.md): what a
schedule may change about floating-point results. Its own module so that building the
`verify` command's parser (`--profile`'s choices) imports no IR."""
from __future__ import annotations

PROFILES = ("default", "approximate", "reproducible", "finite")
