# Regression (found by the hypothesis soundness properties under the explore profile, fixed by
# value-based dependences): after `split ... tail=shift_inward` the last tile recomputes lanes
# of the previous one, storing the same values again. The memory-based dependence check saw a
# reversed WAW pair (S1(i=3) recomputed at io=1 after S0(i=4) at io=0, both writing y[4]) and
# refuted it, with a counterexample no run could show (every run agrees: the recomputed store
# is overwritten by the recomputed S0(i=4) right after it, or writes the value already there).
# Dependences are now decided on values: every observable cell keeps a copy of its final
# writer as its last store, so the schedule is legal.
# was: vsched verify fuzz_shift_inward_recompute_waw.vs   # unknown (refuted, did not replay)
# expect: legal
params N where N >= 8
tensor x[N] f32
tensor y[N + 1] f32
kernel k {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
    y[i + 1] = 3.0 * x[i]
  }
}
schedule k {
  split i by 8 -> io, ii tail=shift_inward
  pad io to 2
}
