# shift: loop normalization. `for i in 1 .. N - 1` becomes `for i in 0 .. N - 2` with every use
# of i replaced by i + 1; the iterations run in the same order, so the generic obligations
# prove it for all sizes. Ops that need a loop from 0 (`pad`, a hardware `retype`) apply
# after it. `vsched show examples/shift.vs --after 1` prints the shifted nest;
# `vsched run examples/shift.vs --size N=7` runs equal.
# expect: legal
params N where N >= 3

tensor a[N] f32
tensor b[N] f32

kernel blur {
  for i in 1 .. N - 1 {
    b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
  }
}

schedule blur {
  shift i to 0
  pad i to 4
}
