"""The schedule op records, re-exported for users and tests (`from verified_sched.ops.schedule
import Split`).

Every op's record lives in its own module, `verified_sched/ops/<op>.py`, next to its syntax
(`SYNTAX`, verified_sched/core/op_syntax.py), its `apply` and its obligations;
`verified_sched/ops/registry.py` lists them. The package itself imports the records from their
op modules (or `ops.registry.OP_NAMES`); nothing in it imports this module.
"""
from __future__ import annotations

from ..core.op_syntax import op_name
from .expand_zero import ExpandZero
from .fuse_epilogue import FuseEpilogue
from .interchange import Interchange
from .pad import Pad
from .partition import Partition
from .privatize import Privatize
from .retype import Retype
from .reverse import Reverse
from .shift import Shift
from .split import PARTITIONS, TAILS, Split
from .split_reduction import SplitReduction
from .stage import SWIZZLES, Stage
from .tensorize import Tensorize
from .unroll import Unroll
from .winograd import Winograd

__all__ = ["PARTITIONS", "SWIZZLES", "TAILS", "ExpandZero", "FuseEpilogue", "Interchange", "Pad", "Partition",
           "Privatize", "Retype", "Reverse", "Shift", "Split", "SplitReduction", "Stage", "Tensorize", "Unroll", "Winograd",
           "op_name"]
