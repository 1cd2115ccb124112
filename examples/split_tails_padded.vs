# The eight tail strategies of `split` again, with 3 trailing padding cells on x and y and
# N >= 4: the extra lanes of the last tile now stay inside storage (round_up,
# predicate_loads, predicate_stores, round_up_and_blend) and the shifted tile never starts
# before 0 (shift_inward, shift_inward_and_blend), so `vsched verify` proves all eight.
params N where N >= 4

tensor x[N] f32 pad(3)
tensor y[N] f32 pad(3)

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
