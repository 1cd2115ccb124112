# The eight tail strategies of `split`, one kernel each (the same loop, y[i] = 2 x[i], split by
# 4, N not necessarily a multiple of 4). Print one with
#   vsched show examples/split_tails.vs --after 1 --kernel scale_round_up
# `vsched verify examples/split_tails.vs` proves guard, predicate and predicate_stores (whose
# guarded store evaluates its loads only on lanes it stores), and refutes the others
# here: without padding the extra lanes of the last tile index past the end of x and y
# (in_bounds; the shifted tiles of shift_inward start before 0 when N < 4).
params N where N >= 1

tensor x[N] f32
tensor y[N] f32

kernel scale_guard {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_guard {
  split i by 4 -> io, ii tail=guard
}

kernel scale_round_up {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_round_up {
  split i by 4 -> io, ii tail=round_up
}

kernel scale_shift_inward {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_shift_inward {
  split i by 4 -> io, ii tail=shift_inward
}

kernel scale_predicate {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_predicate {
  split i by 4 -> io, ii tail=predicate
}

kernel scale_predicate_loads {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_predicate_loads {
  split i by 4 -> io, ii tail=predicate_loads
}

kernel scale_predicate_stores {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_predicate_stores {
  split i by 4 -> io, ii tail=predicate_stores
}

kernel scale_shift_inward_and_blend {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_shift_inward_and_blend {
  split i by 4 -> io, ii tail=shift_inward_and_blend
}

kernel scale_round_up_and_blend {
  for i in 0 .. N {
    y[i] = 2.0 * x[i]
  }
}
schedule scale_round_up_and_blend {
  split i by 4 -> io, ii tail=round_up_and_blend
}
