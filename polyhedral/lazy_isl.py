"""`isl`: islpy, imported on first use. What only parses a program or reads a cached result
loads the op modules and the engine modules they name, but not isl's native library; the
first attribute read (`isl.Set`, ...) imports islpy, and each name is then a plain attribute."""
from __future__ import annotations


class _Isl:
    def __getattr__(self, name: str):
        import islpy

        value = getattr(islpy, name)
        setattr(self, name, value)  # later reads find it without __getattr__
        return value


isl = _Isl()
