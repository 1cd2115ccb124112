"""Fresh names for the Winograd rewrite's minted tensors, loops and statement ids."""
from __future__ import annotations

from ...core import ir


class Names:
    """Fresh names against everything the program already uses."""

    def __init__(self, program: ir.Program, kernel: ir.Kernel):
        self.taken = {p if isinstance(p, str) else p.name for p in program.params}
        self.taken |= {t.name for t in program.tensors} | {k.name for k in program.kernels}
        self.taken |= {n.var for n in ir.walk(kernel.body) if isinstance(n, ir.For)}
        nums = [int(n.sid[1:]) for n in ir.walk(kernel.body)
                if isinstance(n, ir.Assign) and n.sid[:1] == "S" and n.sid[1:].isdigit()]
        self.next_sid = max(nums, default=-1) + 1

    def fresh(self, base: str) -> str:
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        return name

    def sid(self) -> str:
        self.next_sid += 1
        return f"S{self.next_sid - 1}"
