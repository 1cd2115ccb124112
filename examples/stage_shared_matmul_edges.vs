# The staged 16x16 GPU matmul of stage_shared_matmul.vs for any N, M, K (not only multiples
# of 16): the split guards stay, and each tile load copies only the cells inside the source
# (`if` the index is in storage, else a 0 fill), so no thread reads outside a or b.
# expect: legal
params N, M, K where N >= 1, M >= 1, K >= 1

tensor a[N, K] f32
tensor b[K, M] f32
tensor c[N, M] f32

kernel matmul {
  zero c
  for i in 0 .. N {
    for j in 0 .. M {
      for k in 0 .. K {
        c[i, j] += a[i, k] * b[k, j]
      }
    }
  }
}

schedule matmul {
  split i by 16 -> bi, ti
  split j by 16 -> bj, tj
  split k by 16 -> ko, ki
  interchange ti, bj
  retype bi as block.y
  retype bj as block.x
  retype ti as thread.y
  retype tj as thread.x
  stage a over ti, ki -> a_tile shared
  stage b over ki, tj -> b_tile shared
}
