# A hand-written GPU matmul: blocks over 16x16 output tiles, threads over a tile, both
# operands staged through shared tiles, one barrier after the loads and one after the
# compute of each k tile (benchmarks/emulate_matmul.py and tests/test_gpu_kernels.py use it).
# expect: legal
params TN, TM, TK where TN >= 1, TM >= 1, TK >= 1

tensor a[16 * TN, 16 * TK] f32
tensor b[16 * TK, 16 * TM] f32
tensor c[16 * TN, 16 * TM] f32
tensor a_tile[16, 16] f32 shared
tensor b_tile[16, 16] f32 shared

kernel matmul {
  zero c
  for i in 0 .. 16 * TN {
    for j in 0 .. 16 * TM {
      for k in 0 .. 16 * TK {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}

# blocks over output tiles, threads over a tile, both operands staged through shared tiles
kernel tiled {
  zero c
  for bi in 0 .. TN : block.y {
    for bj in 0 .. TM : block.x {
      for ti in 0 .. 16 : thread.y {
        for tj in 0 .. 16 : thread.x {
          for ko in 0 .. TK {
            a_tile[ti, tj] = a[16 * bi + ti, 16 * ko + tj]
            b_tile[ti, tj] = b[16 * ko + ti, 16 * bj + tj]
            barrier
            for ki in 0 .. 16 {
              c[16 * bi + ti, 16 * bj + tj] += a_tile[ti, ki] * b_tile[ki, tj]
            }
            barrier
          }
        }
      }
    }
  }
}
