# A transpose copied only when the threshold P does not exceed the column count: the guard
# between the two loops mentions neither iterator, so `interchange` moves it inward with the
# body (dropping it would copy for P > M too: `coverage` refutes that). b starts at -1.
# expect: legal
params N, M, P where N >= 1, M >= 1, P >= 0

tensor a[N, M] f32
tensor b[M, N] f32

kernel transpose_if {
  for u in 0 .. M {
    for v in 0 .. N {
      b[u, v] = -1.0
    }
  }
  for i in 0 .. N {
    if P <= M {
      for j in 0 .. M {
        b[j, i] = a[i, j]
      }
    }
  }
}

schedule transpose_if {
  interchange i, j
}
