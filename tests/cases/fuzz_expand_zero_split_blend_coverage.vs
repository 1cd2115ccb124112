# Regression (found by `vsched fuzz`, fixed): the verifier used to refute this legal schedule
# with a counterexample that did not replay. The original finding:
# Found by `vsched fuzz --budget 300 --workers 2 --seed 7` (kind: counterexample): the verifier
# refutes coverage of `split z0_0 by 3 ... tail=shift_inward_and_blend` on an expanded zero
# nest, claiming Z_x(0, 0, 0) never runs after the op; but at N=1 the first tile (z0_0o0 = 0)
# writes rows 0..2 with the blend condition true, so x[0, 0, 0] is zeroed; the runs agree at
# N=1, M=1 and above (interpreter, C).
# verifier message: refuted coverage of op 3 (split z0_0 by 3 -> z0_0o0, z0_0i0 tail=shift_inward_and_blend) does not replay at {'N': 1, 'M': 1}: original instance Z_x(c0=0, c1=0, c2=0) is never executed after the op, at N=1, M=1
# fuzz-sizes: N=1,M=1
# was: vsched verify expand_zero_split_blend_coverage.vs   # illegal coverage
#            vsched run expand_zero_split_blend_coverage.vs --size N=1,M=1   # ok
# expect: legal
params N, M where N >= 1, M >= 1

tensor x[2 * N + 4, 4 * N + 3, 2 * N + M + 4] f32

kernel kern0 {
  zero x
  for i in 0 .. N + 2 {
    x[i + i, 0, 0] = x[0, 0, i + i]
    x[min(i, i), i % 3, 2 * i + 1] += M
  }
  for j in 0 .. 2 * N : unrolled {
    x[min(j, j), j + N, j % 2] = f32(x[min(j, j), j + j, floor(j / 3)])
    for k in 0 .. M + 3 {
      x[j % 4, 0, min(j, k)] = abs(-1.5)
      x[min(j, j), j + N, floor(k / 3)] += 1
    }
  }
  x[2, 2, 2] = 0.5
}

schedule kern0 {
  unroll i
  expand_zero x -> z0_0, z1_0, z2_0
  split z0_0 by 3 -> z0_0o0, z0_0i0 tail=shift_inward_and_blend
  unroll z0_0i0
}
