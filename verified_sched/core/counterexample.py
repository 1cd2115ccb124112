"""A refutation's counterexample as typed data: where (sizes, input values), what (statement
instances, cells, threads) and why (order, phase, barrier, profile, terms).

Writers build the types (`Counterexample(Instance(sizes), instances, order, cells=(Cell(t, index),),
extra={...})`); readers read the fields. `Counterexample.from_json(d)` reads the JSON object
every report has always carried (README
"Reports": `params`, `instances`, `cells`, `threads`, `order`, `inputs`, `seed`, `values`,
`barrier`, ... and keys of an op's own), and `to_json()` writes it back with the same keys
and values, so `vsched verify --json`, SARIF and the goldens keep their shape. Keys that have
no field of their own (an op's own facts: `kind`, `value`, `phase`, `term`, `position`, ...)
are kept, in order, in `extra`.

The parts:
  Instance   the problem instance a replay needs: `sizes` (the parameters, JSON `params`)
             and, where values matter, the input values (`inputs`/`seed`: `vsched run
             --inputs NAME --seed S`; `values`: `vsched run --set 'x[i]=V'`)
  Cell       one tensor cell (`tensor`, `index`)
  Thread     one hardware thread (`block`, `thread` coordinates; `reaches` a barrier or not)

A `Counterexample` is not a mapping: its JSON is `to_json()`. Where a writer's JSON had its keys
in another order than the fields' (an op's own key before `instances`, say), `key_order` keeps
that order, so the report's bytes stay the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Loc

def _take(data: dict, keys) -> tuple:
    """(values of `keys` (present and not null; else None), the other items in order)."""
    got = {k: data[k] for k in keys if data.get(k) is not None}
    return [got.get(k) for k in keys], {k: v for k, v in data.items() if k not in got}


def _put(out: dict, key: str, value) -> None:
    if value is not None:
        out[key] = value


@dataclass(frozen=True)
class Cell:
    tensor: str | None = None
    index: object = None  # list of ints (as given)
    extra: dict = field(default_factory=dict)  # e.g. the `access` that touches it

    @classmethod
    def from_json(cls, data) -> Cell | object:
        if not isinstance(data, dict):
            return data
        (tensor, index), extra = _take(data, ("tensor", "index"))
        return cls(tensor, index, extra)

    def to_json(self) -> dict:
        out: dict = {}
        _put(out, "tensor", self.tensor)
        _put(out, "index", self.index)
        return {**out, **self.extra}

    def __str__(self) -> str:
        return f"{self.tensor}[{', '.join(map(str, self.index or ()))}]"


@dataclass(frozen=True)
class Thread:
    block: dict | None = None  # {"block.x": 0, ...}
    thread: dict | None = None  # {"thread.x": 3, ...}
    reaches: bool | None = None  # of a barrier_uniformity refutation: reaches the barrier or not
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, data) -> Thread | object:
        if not isinstance(data, dict):
            return data
        (block, thread, reaches), extra = _take(data, ("block", "thread", "reaches"))
        return cls(block, thread, reaches, extra)

    def to_json(self) -> dict:
        out: dict = {}
        _put(out, "block", self.block)
        _put(out, "thread", self.thread)
        _put(out, "reaches", self.reaches)
        return {**out, **self.extra}

    @property
    def coordinates(self) -> dict:
        return {**(self.block or {}), **(self.thread or {})}


@dataclass(frozen=True)
class Instance:
    """The problem instance of a refutation: the sizes, and the input values where values
    matter (a named input kind and seed, or single input cells)."""

    sizes: dict | None = None  # JSON `params`
    inputs: str | None = None  # an input kind for `vsched run --inputs` (special, ...)
    seed: int | None = None
    values: object = None  # [{"tensor", "index", "value", "bits"}] for `vsched run --set`

    KEYS = ("params", "inputs", "seed", "values")

    @classmethod
    def from_json(cls, data: dict) -> tuple:
        """(the Instance, the other items of `data`)."""
        (sizes, inputs, seed, values), rest = _take(data, cls.KEYS)
        return cls(sizes, inputs, seed, values), rest

    def to_json(self) -> dict:
        out: dict = {}
        for key, value in zip(self.KEYS, (self.sizes, self.inputs, self.seed, self.values)):
            _put(out, key, value)
        return out


_OWN = ("instances", "cells", "threads", "order", "observed_by", "barrier", "profile")


@dataclass(frozen=True, eq=False)
class Counterexample:
    instance: Instance = field(default_factory=Instance)
    instances: object = None  # the statement instances involved: [{"kernel", "stmt", "at", ...}] (or text)
    order: dict | None = None  # {"before": ..., "after": ...}: their order before and after the op
    observed_by: dict | None = None  # the read that sees the other store
    cells: tuple | None = None  # Cell (or what an op wrote there)
    threads: tuple | None = None  # Thread
    barrier: Loc | str | None = None  # the barrier's position (or its name when it has none)
    profile: str | None = None  # the active profile of a `profile` refutation
    extra: dict = field(default_factory=dict)  # every other key, in order
    key_order: tuple = field(default=(), repr=False)  # JSON keys first in this order (of the JSON it was read from)

    @classmethod
    def from_json(cls, data, loc=None) -> Counterexample | None:
        """The typed counterexample of a JSON object (None for None); `loc(x)` reads the
        barrier's position when it is stored as data (the proof cache), else it stays as given."""
        if data is None or isinstance(data, Counterexample):
            return data
        if not isinstance(data, dict):
            raise TypeError(f"a counterexample is a JSON object, not {type(data).__name__}")
        instance, rest = Instance.from_json(data)
        (insts, cells, threads, order, observed, barrier, profile), extra = _take(rest, _OWN)
        if loc is not None and isinstance(barrier, dict):
            barrier = loc(barrier)
        return cls(instance, insts, order, observed,
                   None if cells is None else tuple(Cell.from_json(c) for c in cells),
                   None if threads is None else tuple(Thread.from_json(t) for t in threads),
                   barrier, profile, extra, tuple(data))

    def to_json(self, loc=str) -> dict:
        """The JSON object (the barrier's position written by `loc`: `FILE:LINE:COL` by default)."""
        out = self.instance.to_json()
        _put(out, "instances", self.instances)
        if self.cells is not None:
            out["cells"] = [c.to_json() if isinstance(c, Cell) else c for c in self.cells]
        if self.threads is not None:
            out["threads"] = [t.to_json() if isinstance(t, Thread) else t for t in self.threads]
        _put(out, "order", self.order)
        _put(out, "observed_by", self.observed_by)
        if self.barrier is not None:
            out["barrier"] = loc(self.barrier) if isinstance(self.barrier, Loc) else self.barrier
        _put(out, "profile", self.profile)
        out.update(self.extra)
        if self.key_order:  # read from JSON: its keys in their order (the bytes of a report stay the same)
            out = {**{k: out[k] for k in self.key_order if k in out}, **out}
        return out

    @property
    def sizes(self) -> dict:
        return self.instance.sizes or {}

    def __eq__(self, other) -> bool:  # equal JSON (a value read from JSON equals the one written)
        if isinstance(other, Counterexample):
            return self.to_json() == other.to_json()
        return NotImplemented

    __hash__ = None
