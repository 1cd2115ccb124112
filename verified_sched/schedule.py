"""The schedule op records, re-exported for users and tests (`from verified_sched.schedule
import Split`).

Every op's record lives in its own module, `verified_sched/ops/<op>.py`, next to its syntax
(`SYNTAX`, verified_sched/op_syntax.py), its `apply` and its obligations;
`verified_sched/ops/registry.py` lists them. The package itself imports the records from their
op modules (or `ops.registry.OP_NAMES`); nothing in it imports this module.
"""
from __future__ import annotations

from .op_syntax import op_name
from .ops.expand_zero import ExpandZero
from .ops.fuse_epilogue import FuseEpilogue
from .ops.interchange import Interchange
from .ops.pad import Pad
from .ops.partition import Partition
from .ops.privatize import Privatize
from .ops.retype import Retype
from .ops.reverse import Reverse
from .ops.shift import Shift
from .ops.split import PARTITIONS, TAILS, Split
from .ops.split_reduction import SplitReduction
from .ops.stage import SWIZZLES, Stage
from .ops.tensorize import Tensorize
from .ops.unroll import Unroll
from .ops.winograd import Winograd

__all__ = ["PARTITIONS", "SWIZZLES", "TAILS", "ExpandZero", "FuseEpilogue", "Interchange", "Pad", "Partition",
           "Privatize", "Retype", "Reverse", "Shift", "Split", "SplitReduction", "Stage", "Tensorize", "Unroll", "Winograd",
           "op_name"]
