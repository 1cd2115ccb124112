# expect: legal -- a barrier orders every write of t before every read: reversing the reading thread loop keeps it
params B where B >= 1
tensor x[B, 64] f32
tensor y[B, 64] f32
tensor t[64] f32 shared
kernel shift {
  for b in 0 .. B : block.x {
    for i in 0 .. 64 : thread.x {
      t[i] = x[b, i]
    }
    barrier
    for j in 0 .. 64 : thread.x {
      y[b, j] = 2.0 * t[j]
    }
  }
}
schedule shift {
  reverse j
}
