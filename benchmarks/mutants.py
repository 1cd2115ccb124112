"""The planted bugs of benchmarks/mutation_score.py: one textual edit each, in an op's or a
rewrite's apply code (never in the verifier). Each edit must match its file exactly `nth`
occurrence of `old` (0-based); a stale mutant (text not found) is reported, never skipped.

A mutant is a realistic miscompile of the kind tensor compilers have shipped: an off-by-one
guard, a lost tail iteration, a dropped barrier, a wrong swizzle, a skipped remainder, a
swapped index, an uninitialised accumulator, a sign lost in a transform matrix, ...
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the repository root
    old: str
    new: str
    what: str
    nth: int = 0


SPLIT = "verified_sched/ops/split.py"
PART = "verified_sched/ops/partition.py"
STAGE = "verified_sched/ops/stage/apply.py"
STAGE_TILE = "verified_sched/ops/stage/tile.py"
PRIV = "verified_sched/ops/privatize/apply.py"
SRED = "verified_sched/ops/split_reduction/apply.py"
TENS = "verified_sched/ops/tensorize/apply.py"
FUSE = "verified_sched/ops/fuse_epilogue.py"
WINO = "verified_sched/ops/winograd/apply.py"

MUTANTS = (
    # ---- split: tails and partitions
    Mutant("split_floor_count", SPLIT, "count = FloorDiv(BinOp(\"+\", n, Int(f - 1)), f)",
           "count = FloorDiv(n, f)", "split: tile count rounds down (the tail iterations are lost)"),
    Mutant("split_guard_off_by_one", SPLIT, "return i, Cmp(\"<\", i, n), None",
           "return i, Cmp(\"<=\", i, n), None", "split: remainder guard i <= N (one extra lane)"),
    Mutant("split_shift_off_by_one", SPLIT, "base = Call(\"min\", (tile, BinOp(\"-\", n, Int(f))))",
           "base = Call(\"min\", (tile, BinOp(\"-\", n, Int(f - 1))))",
           "split shift_inward: last tile shifted to N - F + 1 (runs past the end)"),
    Mutant("split_shift_no_min", SPLIT, "base = Call(\"min\", (tile, BinOp(\"-\", n, Int(f))))",
           "base = tile", "split shift_inward: the last tile is not shifted back"),
    Mutant("split_blend_new_lane", SPLIT, "return i, Cmp(\"<\", i, n), Cmp(\">=\", i, tile)",
           "return i, Cmp(\"<\", i, n), Cmp(\">\", i, tile)",
           "split shift_inward_and_blend: the first lane of each tile counts as a duplicate"),
    Mutant("split_guard_dropped", SPLIT,
           "        case \"guard\" | \"predicate\" | \"predicate_stores\":\n            return common.guard_leaves(b, p)",
           "        case \"guard\" | \"predicate\" | \"predicate_stores\":\n            return b",
           "split guard/predicate: the remainder guard is dropped"),
    Mutant("split_blend_swapped", SPLIT, "dataclasses.replace(s, value=Where(cond, v, old, loc=s.loc))",
           "dataclasses.replace(s, value=Where(cond, old, v, loc=s.loc))",
           "split *_and_blend: the blend keeps the old value on live lanes"),
    Mutant("split_loads_mask_inverted", SPLIT,
           "                return Where(cond, e, _zero_of(program, e.tensor), loc=e.loc)",
           "                return Where(cond, _zero_of(program, e.tensor), e, loc=e.loc)",
           "split predicate_loads: the mask zeroes the live lanes' loads"),
    Mutant("split_tail_skipped", SPLIT,
           "tail = _nest(to, ti, split_at, count, f, axis_o, axis_i, tail_b, loop.loc)",
           "tail = _nest(to, ti, count, count, f, axis_o, axis_i, tail_b, loop.loc)",
           "split partition: the tail segment is empty (skipped remainder)"),
    Mutant("split_main_too_long", SPLIT,
           "main = _nest(op.outer, op.inner, Int(0), split_at, f, loop.axis, \"serial\",",
           "main = _nest(op.outer, op.inner, Int(0), count, f, loop.axis, \"serial\",",
           "split partition: the main segment also runs the tail tile"),
    # ---- interchange, unroll, pad, partition, expand_zero
    Mutant("interchange_guards_dropped", "verified_sched/ops/interchange.py",
           "for g in reversed(guards):", "for g in ():",
           "interchange: guards between the loops are dropped"),
    Mutant("interchange_bounds_kept", "verified_sched/ops/interchange.py",
           "new_outer = dataclasses.replace(inner, body=(new_inner,))",
           "new_outer = dataclasses.replace(inner, lo=outer.lo, hi=outer.hi, body=(new_inner,))",
           "interchange: the new outer loop keeps the old outer bounds"),
    Mutant("unroll_last_copy_lost", "verified_sched/ops/unroll.py",
           "enumerate(range(lo.value, hi.value))", "enumerate(range(lo.value, hi.value - 1))",
           "unroll materialize: the last iteration is not copied"),
    Mutant("unroll_index_shifted", "verified_sched/ops/unroll.py",
           "body = common.subst(loop.body, {loop.var: Int(v)})",
           "body = common.subst(loop.body, {loop.var: Int(k)})",
           "unroll materialize: copies indexed from 0 instead of the loop's lower bound"),
    Mutant("pad_guard_off_by_one", "verified_sched/ops/pad.py",
           "common.guard_leaves(loop.body, Cmp(\"<\", Var(loop.var), n))",
           "common.guard_leaves(loop.body, Cmp(\"<=\", Var(loop.var), n))",
           "pad: guard i <= N"),
    Mutant("pad_rounds_down", "verified_sched/ops/pad.py",
           "hi = BinOp(\"*\", Int(f), FloorDiv(BinOp(\"+\", n, Int(f - 1)), f))",
           "hi = BinOp(\"*\", Int(f), FloorDiv(n, f))", "pad: extent rounded down (lost iterations)"),
    Mutant("partition_segment_gap", PART,
           "segments.append(For(name, cuts[k], cuts[k + 1], loop.axis, body, loc=loop.loc))",
           "segments.append(For(name, cuts[k] if k == 0 else BinOp(\"+\", cuts[k], Int(1)), cuts[k + 1], "
           "loop.axis, body, loc=loop.loc))",
           "partition: each later segment skips its first iteration"),
    Mutant("partition_segments_reversed", PART,
           "return common.rewrite_at(program, kernel, site.path, tuple(segments))",
           "return common.rewrite_at(program, kernel, site.path, tuple(reversed(segments)))",
           "partition: segments emitted in reverse order"),
    Mutant("partition_last_segment_short", PART, "cuts.append(loop.hi)",
           "cuts.append(BinOp(\"-\", loop.hi, Int(1)))", "partition: the last segment stops one early"),
    Mutant("expand_zero_no_padding", "verified_sched/ops/expand_zero.py",
           "zip(op.names, tensor.storage_dims())", "zip(op.names, tensor.dims)",
           "expand_zero: padding cells are not cleared"),
    Mutant("expand_zero_first_row", "verified_sched/ops/expand_zero.py",
           "body = (For(name, Int(0), dim, \"serial\", body, loc=site.stmt.loc),)",
           "body = (For(name, Int(1), dim, \"serial\", body, loc=site.stmt.loc),)",
           "expand_zero: the first row/column is not cleared"),
    Mutant("expand_zero_one", "verified_sched/ops/expand_zero.py",
           "zero = Int(0) if tensor.prec == \"i32\" else Float(0.0)",
           "zero = Int(0) if tensor.prec == \"i32\" else Float(1.0)", "expand_zero: stores 1.0"),
    # ---- stage
    Mutant("stage_first_barrier_dropped", STAGE,
           "new_body = (nest, Barrier()) + body + (Barrier(),)",
           "new_body = (nest,) + body + (Barrier(),)",
           "stage shared: no barrier between the tile load and its use"),
    Mutant("stage_last_barrier_dropped", STAGE,
           "new_body = (nest, Barrier()) + body + (Barrier(),)",
           "new_body = (nest, Barrier()) + body",
           "stage shared: no barrier before the next load overwrites the tile"),
    Mutant("stage_swizzle_wrong_bit", STAGE_TILE,
           "flip = BinOp(\"-\", Mod(BinOp(\"+\", cb, rb), 2), Mod(cb, 2))",
           "flip = BinOp(\"-\", Mod(BinOp(\"+\", cb, rb), 2), Mod(rb, 2))",
           "stage swizzle: the XOR rendering subtracts the row bit"),
    Mutant("stage_swizzle_reads_plain", STAGE,
           "tidx = tile_index(op, plan, {v: Var(v) for v in plan.loops}, prec, minor_storage, buffer)",
           "tidx = tile_index(dataclasses.replace(op, swizzle=None), plan, {v: Var(v) for v in plan.loops}, "
           "prec, minor_storage, buffer)",
           "stage swizzle: the compute reads the tile unswizzled while the copy stores swizzled"),
    Mutant("stage_tile_too_small", STAGE, "dims.append(1 + sum(", "dims.append(sum(",
           "stage: the tile is one element short per axis"),
    Mutant("stage_copy_fill_swapped", STAGE, "return If(guard, (copy,), (fill,))",
           "return If(guard, (fill,), (copy,))",
           "stage: the edge guard's branches swapped (in-range cells zeroed)"),
    Mutant("stage_edge_guard_off_by_one", STAGE,
           "g = And(Cmp(\">=\", e, Int(0)), Cmp(\"<\", e, dim))",
           "g = And(Cmp(\">=\", e, Int(0)), Cmp(\"<=\", e, dim))",
           "stage: the edge guard admits one cell past the source"),
    Mutant("stage_all_threads_load", STAGE, "c = Cmp(\"==\", Var(lp.var), lp.lo)",
           "c = Cmp(\">=\", Var(lp.var), lp.lo)",
           "stage shared: every thread of a non-tile axis loads the tile (racing stores)"),
    # ---- privatize
    Mutant("privatize_no_store_back", PRIV,
           "kernel2 = common.replace_at(kernel, plan.site.path, init + (new_loop,) + store)",
           "kernel2 = common.replace_at(kernel, plan.site.path, init + (new_loop,))",
           "privatize: the accumulator is never stored back"),
    Mutant("privatize_no_init", PRIV,
           "kernel2 = common.replace_at(kernel, plan.site.path, init + (new_loop,) + store)",
           "kernel2 = common.replace_at(kernel, plan.site.path, (new_loop,) + store)",
           "privatize: the accumulator is not initialised from the tensor"),
    Mutant("privatize_store_inside", PRIV,
           "kernel2 = common.replace_at(kernel, plan.site.path, init + (new_loop,) + store)",
           "kernel2 = common.replace_at(kernel, plan.site.path, init + store + (new_loop,))",
           "privatize: the store-back runs before the loop"),
    Mutant("privatize_tile_short", PRIV,
           "stmt = For(ren[v], Int(0), plan.bounds[v], \"serial\", (stmt,), loc=op.loc)",
           "stmt = For(ren[v], Int(1), plan.bounds[v], \"serial\", (stmt,), loc=op.loc)",
           "privatize: the first cell of the tile is not transferred"),
    # ---- split_reduction
    Mutant("split_reduction_floor_count", SRED,
           "return n, pos, new_l, FloorDiv(BinOp(\"+\", n, Int(B - 1)), B)",
           "return n, pos, new_l, FloorDiv(n, B)",
           "split_reduction: inner count rounds down (lost iterations)"),
    Mutant("split_reduction_guard_off_by_one", SRED,
           "body = common.guard_leaves(body, Cmp(\"<\", pos, n))",
           "body = common.guard_leaves(body, Cmp(\"<=\", pos, n))",
           "split_reduction: guard pos <= N (one extra term)"),
    Mutant("split_reduction_partial_skipped", SRED,
           "leaves = [Load(op.partials, (Int(b),) + cidx) for b in range(B)]",
           "leaves = [Load(op.partials, (Int(b),) + cidx) for b in range(B - 1)]",
           "split_reduction: the combine skips the last partial"),
    Mutant("split_reduction_init_one", SRED, "return Int(0) if i32 else Float(0.0)",
           "return Int(0) if i32 else Float(1.0)", "split_reduction: partial sums start at 1.0"),
    Mutant("split_reduction_blocked_pos", SRED,
           "pos = BinOp(\"+\", BinOp(\"*\", Int(B), Var(op.inner)), Var(op.outer))",
           "pos = BinOp(\"+\", BinOp(\"*\", Int(B), Var(op.outer)), Var(op.inner))",
           "split_reduction: positions computed with the roles of the loops swapped"),
    # ---- tensorize
    Mutant("tensorize_fallback_short", TENS, "TensorCore(lane, t.shape, (site.stmt,), loc=op.loc)",
           "TensorCore(lane, t.shape, (For(site.stmt.var, site.stmt.lo, Int(t.shape[0] - 1), site.stmt.axis, "
           "site.stmt.body),), loc=op.loc)",
           "tensorize: the block's fallback nest loses its last row"),
    Mutant("tensorize_half_k", TENS, "TensorCore(lane, t.shape, (site.stmt,), loc=op.loc)",
           "TensorCore(lane, t.shape[:2] + (t.shape[2] // 2,), (site.stmt,), loc=op.loc)",
           "tensorize: the block is declared with half the K extent"),
    # ---- fuse_epilogue
    Mutant("fuse_epilogue_before_acc", FUSE,
           "kernel2 = common.replace_at(kernel, path, (_at(kernel, path), new_stmt))",
           "kernel2 = common.replace_at(kernel, path, (new_stmt, _at(kernel, path)))",
           "fuse_epilogue: the epilogue runs before the last accumulation"),
    Mutant("fuse_epilogue_guard_skips_first", FUSE,
           "c = And(Cmp(\">=\", e, ir.substitute(lp.lo, sub)), Cmp(\"<\", e, ir.substitute(lp.hi, sub)))",
           "c = And(Cmp(\">\", e, ir.substitute(lp.lo, sub)), Cmp(\"<\", e, ir.substitute(lp.hi, sub)))",
           "fuse_epilogue: the epilogue guard skips the first row"),
    # ---- winograd
    Mutant("winograd_sign_lost", WINO, "acc = ir.BinOp(\"+\" if c > 0 else \"-\", acc, t)",
           "acc = ir.BinOp(\"+\", acc, t)", "winograd: transform signs lost (all terms added)"),
    Mutant("winograd_tile_lost", WINO,
           "return ir.Int(e.value // 2) if isinstance(e, ir.Int) else ir.FloorDiv(e, 2)",
           "return ir.Int(e.value // 2) if isinstance(e, ir.Int) else ir.FloorDiv(ir.BinOp(\"-\", e, ir.Int(1)), 2)",
           "winograd: one 2x2 output tile too few for symbolic extents"),
    Mutant("winograd_output_swapped", WINO,
           "(\"out\", 1): _twice(env[(\"out\", 1)], q)})",
           "(\"out\", 1): _twice(env[(\"out\", 1)], p)})",
           "winograd: the inverse transform writes column p instead of q"),
    Mutant("winograd_input_swapped", WINO,
           "(\"win\", 1): _twice(env[(\"win\", 1)], j)}))",
           "(\"win\", 1): _twice(env[(\"win\", 1)], i)}))",
           "winograd: the input transform reads the window transposed"),
    Mutant("winograd_scale_lost", WINO,
           "return e if scale == 1 else ir.BinOp(\"*\", ir.Float(float(scale)), e)",
           "return e", "winograd: the filter transform's 1/2 and 1/4 scales are lost"),
)
