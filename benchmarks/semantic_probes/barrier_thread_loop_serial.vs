# expect: illegal -- a thread loop holding a barrier retyped to serial: iteration 0 reads t[3] before iteration 3 writes it
params B where B >= 1
tensor x[B, 4] f32
tensor y[B, 4] f32
tensor t[4] f32 shared
kernel rot {
  for b in 0 .. B : block.x {
    for i in 0 .. 4 : thread.x {
      t[i] = x[b, i]
      barrier
      y[b, i] = t[3 - i]
    }
  }
}
schedule rot {
  retype i as serial
}
