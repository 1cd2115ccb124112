# reverse: a loop's iterations in the opposite order. Legal when no dependence is carried by
# the loop: the map over j and i has none; reversing the row sum's k loop reorders a
# reduction, which the default profile allows (reported as reassociating).
params N, M where N >= 1, M >= 1

tensor x[N, M] f32
tensor y[N, M] f32
tensor s[N] f32

kernel scale {
  for i in 0 .. N {
    for j in 0 .. M {
      y[i, j] = 2.0 * x[i, j]
    }
  }
}

kernel rowsum {
  for i in 0 .. N {
    s[i] = 0.0
    for k in 0 .. M {
      s[i] += x[i, k]
    }
  }
}

schedule scale {
  reverse j
  reverse i
}

schedule rowsum {
  reverse k
}
