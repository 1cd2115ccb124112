# The oracle probe of benchmarks/mutation_score.py --semantic: every exactly defined operation of the
# semantics table in every precision, one output tensor per expression (no libm function but sqrt,
# whose results are correctly rounded on every machine). benchmarks/semantic_check.py fills a, b, c
# with every pair of special values, runs the kernel in the interpreter and in C, and compares the
# bits with each other and with oracle_expected.json (the table's meaning, recorded).
params N where N >= 4
tensor a_f32[N] f32
tensor b_f32[N] f32
tensor c_f32[N] f32
tensor s_f32[N] f32
tensor y0_f32[N] f32
tensor y1_f32[N] f32
tensor y2_f32[N] f32
tensor y3_f32[N] f32
tensor y4_f32[N] f32
tensor y5_f32[N] f32
tensor y6_f32[N] f32
tensor y7_f32[N] f32
tensor y8_f32[N] f32
tensor y9_f32[N] f32
tensor y10_f32[N] f32
tensor y11_f32[N] f32
tensor y12_f32[N] f32
tensor y13_f32[N] f32
tensor y14_f32[N] f32
tensor y15_f32[N] f32
tensor y16_f32[N] f32
tensor y17_f32[N] f32
tensor y18_f32[N] f32
tensor y19_f32[N] f32
tensor y20_f32[N] f32
tensor y21_f32[N] f32
tensor y22_f32[N] f32
tensor y23_f32[N] f32
tensor y24_f32[N] f32
tensor y25_f32[N] f32
tensor y26_f32[N] f32
tensor y27_f32[N] f32
tensor y28_f32[N] f32
tensor y29_f32[N] f32
tensor y30_f32[N] f32
tensor y31_f32[N] f32
tensor a_f64[N] f64
tensor b_f64[N] f64
tensor c_f64[N] f64
tensor s_f64[N] f64
tensor y0_f64[N] f64
tensor y1_f64[N] f64
tensor y2_f64[N] f64
tensor y3_f64[N] f64
tensor y4_f64[N] f64
tensor y5_f64[N] f64
tensor y6_f64[N] f64
tensor y7_f64[N] f64
tensor y8_f64[N] f64
tensor y9_f64[N] f64
tensor y10_f64[N] f64
tensor y11_f64[N] f64
tensor y12_f64[N] f64
tensor y13_f64[N] f64
tensor y14_f64[N] f64
tensor y15_f64[N] f64
tensor y16_f64[N] f64
tensor y17_f64[N] f64
tensor y18_f64[N] f64
tensor y19_f64[N] f64
tensor y20_f64[N] f64
tensor y21_f64[N] f64
tensor y22_f64[N] f64
tensor y23_f64[N] f64
tensor y24_f64[N] f64
tensor y25_f64[N] f64
tensor y26_f64[N] f64
tensor y27_f64[N] f64
tensor y28_f64[N] f64
tensor y29_f64[N] f64
tensor y30_f64[N] f64
tensor y31_f64[N] f64
tensor a_f16[N] f16
tensor b_f16[N] f16
tensor c_f16[N] f16
tensor s_f16[N] f16
tensor y0_f16[N] f16
tensor y1_f16[N] f16
tensor y2_f16[N] f16
tensor y3_f16[N] f16
tensor y4_f16[N] f16
tensor y5_f16[N] f16
tensor y6_f16[N] f16
tensor y7_f16[N] f16
tensor y8_f16[N] f16
tensor y9_f16[N] f16
tensor y10_f16[N] f16
tensor y11_f16[N] f16
tensor y12_f16[N] f16
tensor y13_f16[N] f16
tensor y14_f16[N] f16
tensor y15_f16[N] f16
tensor y16_f16[N] f16
tensor y17_f16[N] f16
tensor y18_f16[N] f16
tensor y19_f16[N] f16
tensor y20_f16[N] f16
tensor y21_f16[N] f16
tensor y22_f16[N] f16
tensor y23_f16[N] f16
tensor y24_f16[N] f16
tensor y25_f16[N] f16
tensor y26_f16[N] f16
tensor y27_f16[N] f16
tensor y28_f16[N] f16
tensor y29_f16[N] f16
tensor y30_f16[N] f16
tensor y31_f16[N] f16
tensor a_bf16[N] bf16
tensor b_bf16[N] bf16
tensor c_bf16[N] bf16
tensor s_bf16[N] bf16
tensor y0_bf16[N] bf16
tensor y1_bf16[N] bf16
tensor y2_bf16[N] bf16
tensor y3_bf16[N] bf16
tensor y4_bf16[N] bf16
tensor y5_bf16[N] bf16
tensor y6_bf16[N] bf16
tensor y7_bf16[N] bf16
tensor y8_bf16[N] bf16
tensor y9_bf16[N] bf16
tensor y10_bf16[N] bf16
tensor y11_bf16[N] bf16
tensor y12_bf16[N] bf16
tensor y13_bf16[N] bf16
tensor y14_bf16[N] bf16
tensor y15_bf16[N] bf16
tensor y16_bf16[N] bf16
tensor y17_bf16[N] bf16
tensor y18_bf16[N] bf16
tensor y19_bf16[N] bf16
tensor y20_bf16[N] bf16
tensor y21_bf16[N] bf16
tensor y22_bf16[N] bf16
tensor y23_bf16[N] bf16
tensor y24_bf16[N] bf16
tensor y25_bf16[N] bf16
tensor y26_bf16[N] bf16
tensor y27_bf16[N] bf16
tensor y28_bf16[N] bf16
tensor y29_bf16[N] bf16
tensor y30_bf16[N] bf16
tensor y31_bf16[N] bf16
tensor a_i32[N] i32
tensor b_i32[N] i32
tensor c_i32[N] i32
tensor s_i32[N] i32
tensor y0_i32[N] i32
tensor y1_i32[N] i32
tensor y2_i32[N] i32
tensor y3_i32[N] i32
tensor y4_i32[N] i32
tensor y5_i32[N] i32
tensor y6_i32[N] i32
tensor y7_i32[N] i32
tensor y8_i32[N] i32
tensor y9_i32[N] i32
tensor y10_i32[N] i32
tensor y11_i32[N] i32
tensor y12_i32[N] i32
tensor y13_i32[N] i32
tensor y14_i32[N] i32
tensor y15_i32[N] i32
tensor y16_i32[N] i32
tensor y17_i32[N] i32
tensor y18_i32[N] i32
tensor y19_i32[N] i32
tensor y20_i32[N] i32
tensor y21_i32[N] i32
tensor y22_i32[N] i32
tensor y23_i32[N] i32
tensor y24_i32[N] i32
tensor y25_i32[N] i32
tensor y26_i32[N] i32
tensor y27_i32[N] i32
kernel k {
  for i in 0 .. N { y0_f32[i] = a_f32[i] + b_f32[i] }
  for i in 0 .. N { y1_f32[i] = a_f32[i] - b_f32[i] }
  for i in 0 .. N { y2_f32[i] = a_f32[i] * b_f32[i] }
  for i in 0 .. N { y3_f32[i] = a_f32[i] / b_f32[i] }
  for i in 0 .. N { y4_f32[i] = min(a_f32[i], b_f32[i]) }
  for i in 0 .. N { y5_f32[i] = max(b_f32[i], a_f32[i]) }
  for i in 0 .. N { y6_f32[i] = fma(a_f32[i], b_f32[i], c_f32[i]) }
  for i in 0 .. N { y7_f32[i] = -a_f32[i] }
  for i in 0 .. N { y8_f32[i] = sqrt(a_f32[i]) }
  for i in 0 .. N { y9_f32[i] = rsqrt(a_f32[i]) }
  for i in 0 .. N { y10_f32[i] = relu(a_f32[i]) }
  for i in 0 .. N { y11_f32[i] = abs(a_f32[i]) }
  for i in 0 .. N { y12_f32[i] = floor(a_f32[i] / 3) }
  for i in 0 .. N { y13_f32[i] = a_f32[i] % 3 }
  for i in 0 .. N { y14_f32[i] = where(a_f32[i] < b_f32[i], a_f32[i], c_f32[i]) }
  for i in 0 .. N { y15_f32[i] = where(a_f32[i] <= b_f32[i], a_f32[i], c_f32[i]) }
  for i in 0 .. N { y16_f32[i] = where(a_f32[i] > b_f32[i], a_f32[i], c_f32[i]) }
  for i in 0 .. N { y17_f32[i] = where(a_f32[i] >= b_f32[i], a_f32[i], c_f32[i]) }
  for i in 0 .. N { y18_f32[i] = where(a_f32[i] == b_f32[i], a_f32[i], c_f32[i]) }
  for i in 0 .. N { y19_f32[i] = where(a_f32[i] != b_f32[i], a_f32[i], c_f32[i]) }
  for i in 0 .. N { y20_f32[i] = f16(a_f32[i]) }
  for i in 0 .. N { y21_f32[i] = bf16(a_f32[i]) }
  for i in 0 .. N { y22_f32[i] = f32(a_f32[i]) }
  for i in 0 .. N { y23_f32[i] = f64(a_f32[i]) }
  for i in 0 .. N { y24_f32[i] = i32(s_f32[i]) }
  for i in 0 .. N { y25_f32[i] = a_f32[i] + 1.5 }
  for i in 0 .. N { y26_f32[i] = a_f32[i] + 0.0 }
  for i in 0 .. N { y27_f32[i] = a_f32[i] * N + i }
  for i in 0 .. N { y28_f32[i] = where(-N < 0, a_f32[i], b_f32[i]) }
  for i in 0 .. N { y29_f32[i] = -(a_f32[i] * b_f32[i]) }
  for i in 0 .. N { y30_f32[i] = f16(a_f32[i] * b_f32[i]) * 2.0 }
  for i in 0 .. N { y31_f32[i] = bf16(a_f32[i] + b_f32[i]) - c_f32[i] }
  for i in 0 .. N { y0_f64[i] = a_f64[i] + b_f64[i] }
  for i in 0 .. N { y1_f64[i] = a_f64[i] - b_f64[i] }
  for i in 0 .. N { y2_f64[i] = a_f64[i] * b_f64[i] }
  for i in 0 .. N { y3_f64[i] = a_f64[i] / b_f64[i] }
  for i in 0 .. N { y4_f64[i] = min(a_f64[i], b_f64[i]) }
  for i in 0 .. N { y5_f64[i] = max(b_f64[i], a_f64[i]) }
  for i in 0 .. N { y6_f64[i] = fma(a_f64[i], b_f64[i], c_f64[i]) }
  for i in 0 .. N { y7_f64[i] = -a_f64[i] }
  for i in 0 .. N { y8_f64[i] = sqrt(a_f64[i]) }
  for i in 0 .. N { y9_f64[i] = rsqrt(a_f64[i]) }
  for i in 0 .. N { y10_f64[i] = relu(a_f64[i]) }
  for i in 0 .. N { y11_f64[i] = abs(a_f64[i]) }
  for i in 0 .. N { y12_f64[i] = floor(a_f64[i] / 3) }
  for i in 0 .. N { y13_f64[i] = a_f64[i] % 3 }
  for i in 0 .. N { y14_f64[i] = where(a_f64[i] < b_f64[i], a_f64[i], c_f64[i]) }
  for i in 0 .. N { y15_f64[i] = where(a_f64[i] <= b_f64[i], a_f64[i], c_f64[i]) }
  for i in 0 .. N { y16_f64[i] = where(a_f64[i] > b_f64[i], a_f64[i], c_f64[i]) }
  for i in 0 .. N { y17_f64[i] = where(a_f64[i] >= b_f64[i], a_f64[i], c_f64[i]) }
  for i in 0 .. N { y18_f64[i] = where(a_f64[i] == b_f64[i], a_f64[i], c_f64[i]) }
  for i in 0 .. N { y19_f64[i] = where(a_f64[i] != b_f64[i], a_f64[i], c_f64[i]) }
  for i in 0 .. N { y20_f64[i] = f16(a_f64[i]) }
  for i in 0 .. N { y21_f64[i] = bf16(a_f64[i]) }
  for i in 0 .. N { y22_f64[i] = f32(a_f64[i]) }
  for i in 0 .. N { y23_f64[i] = f64(a_f64[i]) }
  for i in 0 .. N { y24_f64[i] = i32(s_f64[i]) }
  for i in 0 .. N { y25_f64[i] = a_f64[i] + 1.5 }
  for i in 0 .. N { y26_f64[i] = a_f64[i] + 0.0 }
  for i in 0 .. N { y27_f64[i] = a_f64[i] * N + i }
  for i in 0 .. N { y28_f64[i] = where(-N < 0, a_f64[i], b_f64[i]) }
  for i in 0 .. N { y29_f64[i] = -(a_f64[i] * b_f64[i]) }
  for i in 0 .. N { y30_f64[i] = f16(a_f64[i] * b_f64[i]) * 2.0 }
  for i in 0 .. N { y31_f64[i] = bf16(a_f64[i] + b_f64[i]) - c_f64[i] }
  for i in 0 .. N { y0_f16[i] = a_f16[i] + b_f16[i] }
  for i in 0 .. N { y1_f16[i] = a_f16[i] - b_f16[i] }
  for i in 0 .. N { y2_f16[i] = a_f16[i] * b_f16[i] }
  for i in 0 .. N { y3_f16[i] = a_f16[i] / b_f16[i] }
  for i in 0 .. N { y4_f16[i] = min(a_f16[i], b_f16[i]) }
  for i in 0 .. N { y5_f16[i] = max(b_f16[i], a_f16[i]) }
  for i in 0 .. N { y6_f16[i] = fma(a_f16[i], b_f16[i], c_f16[i]) }
  for i in 0 .. N { y7_f16[i] = -a_f16[i] }
  for i in 0 .. N { y8_f16[i] = sqrt(a_f16[i]) }
  for i in 0 .. N { y9_f16[i] = rsqrt(a_f16[i]) }
  for i in 0 .. N { y10_f16[i] = relu(a_f16[i]) }
  for i in 0 .. N { y11_f16[i] = abs(a_f16[i]) }
  for i in 0 .. N { y12_f16[i] = floor(a_f16[i] / 3) }
  for i in 0 .. N { y13_f16[i] = a_f16[i] % 3 }
  for i in 0 .. N { y14_f16[i] = where(a_f16[i] < b_f16[i], a_f16[i], c_f16[i]) }
  for i in 0 .. N { y15_f16[i] = where(a_f16[i] <= b_f16[i], a_f16[i], c_f16[i]) }
  for i in 0 .. N { y16_f16[i] = where(a_f16[i] > b_f16[i], a_f16[i], c_f16[i]) }
  for i in 0 .. N { y17_f16[i] = where(a_f16[i] >= b_f16[i], a_f16[i], c_f16[i]) }
  for i in 0 .. N { y18_f16[i] = where(a_f16[i] == b_f16[i], a_f16[i], c_f16[i]) }
  for i in 0 .. N { y19_f16[i] = where(a_f16[i] != b_f16[i], a_f16[i], c_f16[i]) }
  for i in 0 .. N { y20_f16[i] = f16(a_f16[i]) }
  for i in 0 .. N { y21_f16[i] = bf16(a_f16[i]) }
  for i in 0 .. N { y22_f16[i] = f32(a_f16[i]) }
  for i in 0 .. N { y23_f16[i] = f64(a_f16[i]) }
  for i in 0 .. N { y24_f16[i] = i32(s_f16[i]) }
  for i in 0 .. N { y25_f16[i] = a_f16[i] + 1.5 }
  for i in 0 .. N { y26_f16[i] = a_f16[i] + 0.0 }
  for i in 0 .. N { y27_f16[i] = a_f16[i] * N + i }
  for i in 0 .. N { y28_f16[i] = where(-N < 0, a_f16[i], b_f16[i]) }
  for i in 0 .. N { y29_f16[i] = -(a_f16[i] * b_f16[i]) }
  for i in 0 .. N { y30_f16[i] = f16(a_f16[i] * b_f16[i]) * 2.0 }
  for i in 0 .. N { y31_f16[i] = bf16(a_f16[i] + b_f16[i]) - c_f16[i] }
  for i in 0 .. N { y0_bf16[i] = a_bf16[i] + b_bf16[i] }
  for i in 0 .. N { y1_bf16[i] = a_bf16[i] - b_bf16[i] }
  for i in 0 .. N { y2_bf16[i] = a_bf16[i] * b_bf16[i] }
  for i in 0 .. N { y3_bf16[i] = a_bf16[i] / b_bf16[i] }
  for i in 0 .. N { y4_bf16[i] = min(a_bf16[i], b_bf16[i]) }
  for i in 0 .. N { y5_bf16[i] = max(b_bf16[i], a_bf16[i]) }
  for i in 0 .. N { y6_bf16[i] = fma(a_bf16[i], b_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y7_bf16[i] = -a_bf16[i] }
  for i in 0 .. N { y8_bf16[i] = sqrt(a_bf16[i]) }
  for i in 0 .. N { y9_bf16[i] = rsqrt(a_bf16[i]) }
  for i in 0 .. N { y10_bf16[i] = relu(a_bf16[i]) }
  for i in 0 .. N { y11_bf16[i] = abs(a_bf16[i]) }
  for i in 0 .. N { y12_bf16[i] = floor(a_bf16[i] / 3) }
  for i in 0 .. N { y13_bf16[i] = a_bf16[i] % 3 }
  for i in 0 .. N { y14_bf16[i] = where(a_bf16[i] < b_bf16[i], a_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y15_bf16[i] = where(a_bf16[i] <= b_bf16[i], a_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y16_bf16[i] = where(a_bf16[i] > b_bf16[i], a_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y17_bf16[i] = where(a_bf16[i] >= b_bf16[i], a_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y18_bf16[i] = where(a_bf16[i] == b_bf16[i], a_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y19_bf16[i] = where(a_bf16[i] != b_bf16[i], a_bf16[i], c_bf16[i]) }
  for i in 0 .. N { y20_bf16[i] = f16(a_bf16[i]) }
  for i in 0 .. N { y21_bf16[i] = bf16(a_bf16[i]) }
  for i in 0 .. N { y22_bf16[i] = f32(a_bf16[i]) }
  for i in 0 .. N { y23_bf16[i] = f64(a_bf16[i]) }
  for i in 0 .. N { y24_bf16[i] = i32(s_bf16[i]) }
  for i in 0 .. N { y25_bf16[i] = a_bf16[i] + 1.5 }
  for i in 0 .. N { y26_bf16[i] = a_bf16[i] + 0.0 }
  for i in 0 .. N { y27_bf16[i] = a_bf16[i] * N + i }
  for i in 0 .. N { y28_bf16[i] = where(-N < 0, a_bf16[i], b_bf16[i]) }
  for i in 0 .. N { y29_bf16[i] = -(a_bf16[i] * b_bf16[i]) }
  for i in 0 .. N { y30_bf16[i] = f16(a_bf16[i] * b_bf16[i]) * 2.0 }
  for i in 0 .. N { y31_bf16[i] = bf16(a_bf16[i] + b_bf16[i]) - c_bf16[i] }
  for i in 0 .. N { y0_i32[i] = a_i32[i] + b_i32[i] }
  for i in 0 .. N { y1_i32[i] = a_i32[i] - b_i32[i] }
  for i in 0 .. N { y2_i32[i] = a_i32[i] * b_i32[i] }
  for i in 0 .. N { y3_i32[i] = a_i32[i] / b_i32[i] }
  for i in 0 .. N { y4_i32[i] = min(a_i32[i], b_i32[i]) }
  for i in 0 .. N { y5_i32[i] = max(b_i32[i], a_i32[i]) }
  for i in 0 .. N { y6_i32[i] = fma(a_i32[i], b_i32[i], c_i32[i]) }
  for i in 0 .. N { y7_i32[i] = -a_i32[i] }
  for i in 0 .. N { y8_i32[i] = sqrt(s_i32[i]) }
  for i in 0 .. N { y9_i32[i] = relu(a_i32[i]) }
  for i in 0 .. N { y10_i32[i] = abs(a_i32[i]) }
  for i in 0 .. N { y11_i32[i] = floor(a_i32[i] / 3) }
  for i in 0 .. N { y12_i32[i] = a_i32[i] % 3 }
  for i in 0 .. N { y13_i32[i] = where(a_i32[i] < b_i32[i], a_i32[i], c_i32[i]) }
  for i in 0 .. N { y14_i32[i] = where(a_i32[i] == b_i32[i], a_i32[i], c_i32[i]) }
  for i in 0 .. N { y15_i32[i] = where(a_i32[i] != b_i32[i], a_i32[i], c_i32[i]) }
  for i in 0 .. N { y16_i32[i] = f16(s_i32[i]) }
  for i in 0 .. N { y17_i32[i] = bf16(s_i32[i]) }
  for i in 0 .. N { y18_i32[i] = f32(s_i32[i] * 99991) }
  for i in 0 .. N { y19_i32[i] = f64(a_i32[i]) }
  for i in 0 .. N { y20_i32[i] = i32(a_i32[i]) }
  for i in 0 .. N { y21_i32[i] = a_i32[i] + 7 }
  for i in 0 .. N { y22_i32[i] = a_i32[i] * N + i }
  for i in 0 .. N { y23_i32[i] = where(-a_i32[i] < b_i32[i], 1, 0) }
  for i in 0 .. N { y24_i32[i] = where(a_i32[i] * 65536 < 0, 1, 0) }
  for i in 0 .. N { y25_i32[i] = where(abs(a_i32[i]) < 0, 1, 0) }
  for i in 0 .. N { y26_i32[i] = floor((a_i32[i] + b_i32[i]) / 4) }
  for i in 0 .. N { y27_i32[i] = (a_i32[i] * 65536) * 65536 }
}
