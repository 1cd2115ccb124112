# An embedding backward: a scatter-add into data-dependent rows, split into a deterministic
# two-pass reduction whose block loop runs in parallel. The guard bounds the dynamic row.
# expect: legal
params N, V, D where N >= 1, V >= 1, D >= 1
tensor ids[N] i32
tensor g[N, D] f32
tensor emb[V, D] f32
kernel embedding_backward {
  zero emb
  for n in 0 .. N {
    for d in 0 .. D {
      if ids[n] >= 0 and ids[n] < V {
        emb[ids[n], d] += g[n, d]
      }
    }
  }
}
schedule embedding_backward {
  split_reduction n of emb blocks=4 -> nb, ni, emb_partials
  retype nb as block.x
}
