# Regression (found by `vsched fuzz`, fixed by value-based dependences): the verifier used to
# refute this legal schedule with a memory-only dependence on the privatized accumulator (and,
# once refutations of serial kernels had to replay, left it `unknown`); it is now proved: every
# read of the accumulator keeps its last writer. The original finding:
# Found by `vsched fuzz --budget 240 --workers 2` (kind: counterexample): the verifier refutes
# dependence, but the refutation does not replay (the kernels agree at its sizes and above).
# dependence refuted on the privatized accumulator d_acc0 after an interchange: the RAW pair
# it names is memory-based only (each (oh, ow) iteration loads d_acc0 before using it), so no
# value flows between the two instances; the interpreter agrees at the sizes given and above.
# verifier message: refuted dependence of op 3 (interchange oh, ow) does not replay at {'OH': 2, 'OW': 2}: RAW dependence on d_acc0[0] at OH=2, OW=2: S0(n=0, oh=0, ow=1, f=0, kh=0, kw=0, c=0) at (n=0, ow=1, oh=0, f=0, kh=0, kw=0, c=0) writes it and d_acc0.store(n=0, oh=1, ow=0, f=0) at (n=0, ow=0, oh=1, f=0) reads it; before the op the first runs before the second, after the op the second runs before the first
# fuzz-sizes: OH=2,OW=2
# was: vsched verify privatize_then_interchange_false_dependence.vs   # illegal dependence
#            vsched run privatize_then_interchange_false_dependence.vs --size OH=2,OW=2   # ok
# expect: legal
profile approximate
params OH, OW where OH >= 2, OW >= 2

tensor a[1, OH + 2, OW + 2, 1] f32
tensor b[1, 3, 3, 1] f32
tensor d[1, OH, OW, 1] f32

kernel conv {
  zero d
  for n in 0 .. 1 {
    for oh in 0 .. OH {
      for ow in 0 .. OW {
        for f in 0 .. 1 {
          for kh in 0 .. 3 {
            for kw in 0 .. 3 {
              for c in 0 .. 1 {
                d[n, oh, ow, f] += a[n, oh + kh, ow + kw, c] * b[f, kh, kw, c]
              }
            }
          }
        }
      }
    }
  }
}

schedule conv {
  privatize d over kh -> d_acc0
  unroll n
  interchange oh, ow
  split n by 2 -> no0, ni0
}
