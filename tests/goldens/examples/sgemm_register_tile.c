#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static inline int64_t vs_floordiv(int64_t a, int64_t c) { int64_t q = a / c; return q - (a % c < 0); }
static inline int64_t vs_mod(int64_t a, int64_t c) { int64_t r = a % c; return r < 0 ? r + c : r; }
static inline int64_t vs_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t vs_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t vs_abs_i64(int64_t a) { return a < 0 ? -a : a; }
static inline int32_t vs_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t vs_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
static inline int32_t vs_abs_i32(int32_t a) { return a < 0 ? -a : a; }
static inline int32_t vs_div_i32(int32_t a, int32_t b) { return b == 0 ? 0 : (b == -1 ? -a : a / b); }
/* float min/max: IEEE 754-2019 minimum/maximum (the interpreter implements the same rule):
   a NaN operand gives the canonical quiet NaN, -0 < +0, so a min/max reduction gives the same
   bits in every order. Not `a > b ? a : b` (drops a NaN first operand) nor fmax (drops NaN). */
static inline float vs_nan_f32(void) { uint32_t u = 0x7fc00000u; float f; memcpy(&f, &u, 4); return f; }
static inline double vs_nan_f64(void) { uint64_t u = 0x7ff8000000000000ull; double f; memcpy(&f, &u, 8); return f; }
static inline int vs_neg_f32(float a) { uint32_t u; memcpy(&u, &a, 4); return (int)(u >> 31); }
static inline int vs_neg_f64(double a) { uint64_t u; memcpy(&u, &a, 8); return (int)(u >> 63); }
static inline float vs_min_f32(float a, float b) {
  if (a != a || b != b) return vs_nan_f32();
  if (a == b) return vs_neg_f32(a) ? a : b;
  return a < b ? a : b;
}
static inline float vs_max_f32(float a, float b) {
  if (a != a || b != b) return vs_nan_f32();
  if (a == b) return vs_neg_f32(a) ? b : a;
  return a > b ? a : b;
}
static inline float vs_abs_f32(float a) { return a < 0.0f ? -a : a; }
static inline double vs_min_f64(double a, double b) {
  if (a != a || b != b) return vs_nan_f64();
  if (a == b) return vs_neg_f64(a) ? a : b;
  return a < b ? a : b;
}
static inline double vs_max_f64(double a, double b) {
  if (a != a || b != b) return vs_nan_f64();
  if (a == b) return vs_neg_f64(a) ? b : a;
  return a > b ? a : b;
}
static inline double vs_abs_f64(double a) { return a < 0.0 ? -a : a; }
static inline float vs_bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static inline uint16_t vs_f2bf(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* kernel matmul */
void vs_matmul(int64_t N, int64_t M, int64_t K, float *restrict a, float *restrict b, float *restrict c) {
  float c_acc[384] __attribute__((aligned(64)));  /* local */
  memset(c_acc, 0xff, sizeof c_acc);
  memset(c, 0, sizeof(float) * (size_t)(N * M));
  const int64_t vs_b1 = vs_floordiv(M, 64);
  for (int64_t jo = 0; jo < vs_b1; jo++) {
    const int64_t vs_b2 = vs_floordiv(K, 256);
    for (int64_t ko = 0; ko < vs_b2; ko++) {
      const int64_t vs_b3 = vs_floordiv(N, 6);
      for (int64_t io = 0; io < vs_b3; io++) {
        for (int64_t ii_ld = 0; ii_ld < 6; ii_ld++) {
          for (int64_t ji_ld = 0; ji_ld < 64; ji_ld++) {
            c_acc[ii_ld * 64 + ji_ld] = c[(6 * io + ii_ld) * M + 64 * jo + ji_ld];
          }
        }
#if defined(__AVX512F__)
        {  /* register tile: c_acc 6x64 from column 0 in 24 vectors of 16 */
          typedef float vs_floatx16 __attribute__((vector_size(64)));
          vs_floatx16 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 0], 64);
          vs_floatx16 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 16], 64);
          vs_floatx16 vs_r0_2;
          memcpy(&vs_r0_2, &c_acc[0 * 64 + 32], 64);
          vs_floatx16 vs_r0_3;
          memcpy(&vs_r0_3, &c_acc[0 * 64 + 48], 64);
          vs_floatx16 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 0], 64);
          vs_floatx16 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 16], 64);
          vs_floatx16 vs_r1_2;
          memcpy(&vs_r1_2, &c_acc[1 * 64 + 32], 64);
          vs_floatx16 vs_r1_3;
          memcpy(&vs_r1_3, &c_acc[1 * 64 + 48], 64);
          vs_floatx16 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 0], 64);
          vs_floatx16 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 16], 64);
          vs_floatx16 vs_r2_2;
          memcpy(&vs_r2_2, &c_acc[2 * 64 + 32], 64);
          vs_floatx16 vs_r2_3;
          memcpy(&vs_r2_3, &c_acc[2 * 64 + 48], 64);
          vs_floatx16 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 0], 64);
          vs_floatx16 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 16], 64);
          vs_floatx16 vs_r3_2;
          memcpy(&vs_r3_2, &c_acc[3 * 64 + 32], 64);
          vs_floatx16 vs_r3_3;
          memcpy(&vs_r3_3, &c_acc[3 * 64 + 48], 64);
          vs_floatx16 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 0], 64);
          vs_floatx16 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 16], 64);
          vs_floatx16 vs_r4_2;
          memcpy(&vs_r4_2, &c_acc[4 * 64 + 32], 64);
          vs_floatx16 vs_r4_3;
          memcpy(&vs_r4_3, &c_acc[4 * 64 + 48], 64);
          vs_floatx16 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 0], 64);
          vs_floatx16 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 16], 64);
          vs_floatx16 vs_r5_2;
          memcpy(&vs_r5_2, &c_acc[5 * 64 + 32], 64);
          vs_floatx16 vs_r5_3;
          memcpy(&vs_r5_3, &c_acc[5 * 64 + 48], 64);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r0_2 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r0_3 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r1_2 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r1_3 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r2_2 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r2_3 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r3_2 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r3_3 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r4_2 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r4_3 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r5_2 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r5_3 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 0], &vs_r0_0, 64);
          memcpy(&c_acc[0 * 64 + 16], &vs_r0_1, 64);
          memcpy(&c_acc[0 * 64 + 32], &vs_r0_2, 64);
          memcpy(&c_acc[0 * 64 + 48], &vs_r0_3, 64);
          memcpy(&c_acc[1 * 64 + 0], &vs_r1_0, 64);
          memcpy(&c_acc[1 * 64 + 16], &vs_r1_1, 64);
          memcpy(&c_acc[1 * 64 + 32], &vs_r1_2, 64);
          memcpy(&c_acc[1 * 64 + 48], &vs_r1_3, 64);
          memcpy(&c_acc[2 * 64 + 0], &vs_r2_0, 64);
          memcpy(&c_acc[2 * 64 + 16], &vs_r2_1, 64);
          memcpy(&c_acc[2 * 64 + 32], &vs_r2_2, 64);
          memcpy(&c_acc[2 * 64 + 48], &vs_r2_3, 64);
          memcpy(&c_acc[3 * 64 + 0], &vs_r3_0, 64);
          memcpy(&c_acc[3 * 64 + 16], &vs_r3_1, 64);
          memcpy(&c_acc[3 * 64 + 32], &vs_r3_2, 64);
          memcpy(&c_acc[3 * 64 + 48], &vs_r3_3, 64);
          memcpy(&c_acc[4 * 64 + 0], &vs_r4_0, 64);
          memcpy(&c_acc[4 * 64 + 16], &vs_r4_1, 64);
          memcpy(&c_acc[4 * 64 + 32], &vs_r4_2, 64);
          memcpy(&c_acc[4 * 64 + 48], &vs_r4_3, 64);
          memcpy(&c_acc[5 * 64 + 0], &vs_r5_0, 64);
          memcpy(&c_acc[5 * 64 + 16], &vs_r5_1, 64);
          memcpy(&c_acc[5 * 64 + 32], &vs_r5_2, 64);
          memcpy(&c_acc[5 * 64 + 48], &vs_r5_3, 64);
        }
#elif defined(__AVX__)
        {  /* register tile: c_acc 6x16 from column 0 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 0], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 8], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 0], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 8], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 0], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 8], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 0], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 8], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 0], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 8], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 0], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 8], 32);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 0], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 8], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 0], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 8], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 0], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 8], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 0], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 8], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 0], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 8], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 0], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 8], &vs_r5_1, 32);
        }
        {  /* register tile: c_acc 6x16 from column 16 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 16], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 24], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 16], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 24], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 16], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 24], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 16], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 24], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 16], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 24], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 16], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 24], 32);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 16], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 24], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 16], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 24], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 16], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 24], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 16], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 24], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 16], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 24], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 16], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 24], &vs_r5_1, 32);
        }
        {  /* register tile: c_acc 6x16 from column 32 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 32], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 40], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 32], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 40], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 32], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 40], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 32], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 40], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 32], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 40], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 32], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 40], 32);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 32], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 40], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 32], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 40], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 32], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 40], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 32], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 40], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 32], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 40], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 32], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 40], &vs_r5_1, 32);
        }
        {  /* register tile: c_acc 6x16 from column 48 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 48], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 56], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 48], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 56], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 48], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 56], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 48], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 56], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 48], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 56], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 48], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 56], 32);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 48], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 56], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 48], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 56], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 48], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 56], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 48], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 56], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 48], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 56], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 48], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 56], &vs_r5_1, 32);
        }
#elif 1
        {  /* register tile: c_acc 6x8 from column 0 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 0], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 4], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 0], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 4], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 0], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 4], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 0], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 4], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 0], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 4], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 0], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 4], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 0], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 4], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 0], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 4], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 0], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 4], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 0], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 4], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 0], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 4], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 0], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 4], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 8 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 8], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 12], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 8], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 12], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 8], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 12], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 8], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 12], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 8], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 12], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 8], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 12], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 8], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 12], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 8], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 12], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 8], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 12], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 8], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 12], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 8], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 12], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 8], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 12], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 16 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 16], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 20], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 16], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 20], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 16], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 20], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 16], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 20], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 16], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 20], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 16], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 20], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 16], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 20], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 16], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 20], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 16], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 20], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 16], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 20], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 16], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 20], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 16], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 20], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 24 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 24], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 28], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 24], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 28], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 24], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 28], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 24], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 28], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 24], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 28], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 24], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 28], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 24], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 28], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 24], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 28], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 24], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 28], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 24], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 28], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 24], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 28], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 24], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 28], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 32 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 32], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 36], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 32], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 36], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 32], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 36], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 32], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 36], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 32], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 36], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 32], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 36], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 32], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 36], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 32], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 36], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 32], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 36], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 32], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 36], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 32], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 36], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 32], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 36], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 40 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 40], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 44], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 40], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 44], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 40], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 44], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 40], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 44], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 40], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 44], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 40], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 44], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 40], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 44], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 40], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 44], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 40], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 44], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 40], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 44], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 40], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 44], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 40], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 44], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 48 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 48], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 52], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 48], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 52], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 48], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 52], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 48], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 52], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 48], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 52], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 48], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 52], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 48], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 52], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 48], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 52], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 48], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 52], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 48], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 52], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 48], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 52], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 48], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 52], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 56 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 56], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 60], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 56], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 60], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 56], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 60], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 56], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 60], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 56], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 60], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 56], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 60], 16);
          for (int64_t ki = 0; ki < 256; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 56], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 60], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 56], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 60], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 56], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 60], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 56], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 60], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 56], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 60], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 56], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 60], &vs_r5_1, 16);
        }
#endif
        for (int64_t ii_st = 0; ii_st < 6; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
          }
        }
      }
      const int64_t vs_b4 = vs_floordiv(N, 6);
      const int64_t vs_b5 = vs_floordiv(N + 5, 6);
      for (int64_t io = vs_b4; io < vs_b5; io++) {
        const int64_t vs_b6 = N - 6 * io;
        for (int64_t ii_ld = 0; ii_ld < vs_b6; ii_ld++) {
          for (int64_t ji_ld = 0; ji_ld < 64; ji_ld++) {
            c_acc[ii_ld * 64 + ji_ld] = c[(6 * io + ii_ld) * M + 64 * jo + ji_ld];
          }
        }
        for (int64_t ki = 0; ki < 256; ki++) {
          const int64_t vs_b7 = N - 6 * io;
          for (int64_t ii = 0; ii < vs_b7; ii++) {
            #pragma omp simd
            for (int64_t ji = 0; ji < 64; ji++) {
              c_acc[ii * 64 + ji] += a[(6 * io + ii) * K + 256 * ko + ki] * b[(256 * ko + ki) * M + 64 * jo + ji];
            }
          }
        }
        const int64_t vs_b8 = N - 6 * io;
        for (int64_t ii_st = 0; ii_st < vs_b8; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
          }
        }
      }
    }
    const int64_t vs_b9 = vs_floordiv(K, 256);
    const int64_t vs_b10 = vs_floordiv(K + 255, 256);
    for (int64_t ko = vs_b9; ko < vs_b10; ko++) {
      const int64_t vs_b11 = vs_floordiv(N, 6);
      for (int64_t io = 0; io < vs_b11; io++) {
        for (int64_t ii_ld = 0; ii_ld < 6; ii_ld++) {
          for (int64_t ji_ld = 0; ji_ld < 64; ji_ld++) {
            c_acc[ii_ld * 64 + ji_ld] = c[(6 * io + ii_ld) * M + 64 * jo + ji_ld];
          }
        }
#if defined(__AVX512F__)
        {  /* register tile: c_acc 6x64 from column 0 in 24 vectors of 16 */
          typedef float vs_floatx16 __attribute__((vector_size(64)));
          vs_floatx16 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 0], 64);
          vs_floatx16 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 16], 64);
          vs_floatx16 vs_r0_2;
          memcpy(&vs_r0_2, &c_acc[0 * 64 + 32], 64);
          vs_floatx16 vs_r0_3;
          memcpy(&vs_r0_3, &c_acc[0 * 64 + 48], 64);
          vs_floatx16 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 0], 64);
          vs_floatx16 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 16], 64);
          vs_floatx16 vs_r1_2;
          memcpy(&vs_r1_2, &c_acc[1 * 64 + 32], 64);
          vs_floatx16 vs_r1_3;
          memcpy(&vs_r1_3, &c_acc[1 * 64 + 48], 64);
          vs_floatx16 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 0], 64);
          vs_floatx16 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 16], 64);
          vs_floatx16 vs_r2_2;
          memcpy(&vs_r2_2, &c_acc[2 * 64 + 32], 64);
          vs_floatx16 vs_r2_3;
          memcpy(&vs_r2_3, &c_acc[2 * 64 + 48], 64);
          vs_floatx16 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 0], 64);
          vs_floatx16 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 16], 64);
          vs_floatx16 vs_r3_2;
          memcpy(&vs_r3_2, &c_acc[3 * 64 + 32], 64);
          vs_floatx16 vs_r3_3;
          memcpy(&vs_r3_3, &c_acc[3 * 64 + 48], 64);
          vs_floatx16 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 0], 64);
          vs_floatx16 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 16], 64);
          vs_floatx16 vs_r4_2;
          memcpy(&vs_r4_2, &c_acc[4 * 64 + 32], 64);
          vs_floatx16 vs_r4_3;
          memcpy(&vs_r4_3, &c_acc[4 * 64 + 48], 64);
          vs_floatx16 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 0], 64);
          vs_floatx16 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 16], 64);
          vs_floatx16 vs_r5_2;
          memcpy(&vs_r5_2, &c_acc[5 * 64 + 32], 64);
          vs_floatx16 vs_r5_3;
          memcpy(&vs_r5_3, &c_acc[5 * 64 + 48], 64);
          const int64_t vs_b12 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b12; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r0_2 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r0_3 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r1_2 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r1_3 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r2_2 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r2_3 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r3_2 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r3_3 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r4_2 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r4_3 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 64); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 64); vs_v; }));
            vs_r5_2 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 64); vs_v; }));
            vs_r5_3 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx16 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 64); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 0], &vs_r0_0, 64);
          memcpy(&c_acc[0 * 64 + 16], &vs_r0_1, 64);
          memcpy(&c_acc[0 * 64 + 32], &vs_r0_2, 64);
          memcpy(&c_acc[0 * 64 + 48], &vs_r0_3, 64);
          memcpy(&c_acc[1 * 64 + 0], &vs_r1_0, 64);
          memcpy(&c_acc[1 * 64 + 16], &vs_r1_1, 64);
          memcpy(&c_acc[1 * 64 + 32], &vs_r1_2, 64);
          memcpy(&c_acc[1 * 64 + 48], &vs_r1_3, 64);
          memcpy(&c_acc[2 * 64 + 0], &vs_r2_0, 64);
          memcpy(&c_acc[2 * 64 + 16], &vs_r2_1, 64);
          memcpy(&c_acc[2 * 64 + 32], &vs_r2_2, 64);
          memcpy(&c_acc[2 * 64 + 48], &vs_r2_3, 64);
          memcpy(&c_acc[3 * 64 + 0], &vs_r3_0, 64);
          memcpy(&c_acc[3 * 64 + 16], &vs_r3_1, 64);
          memcpy(&c_acc[3 * 64 + 32], &vs_r3_2, 64);
          memcpy(&c_acc[3 * 64 + 48], &vs_r3_3, 64);
          memcpy(&c_acc[4 * 64 + 0], &vs_r4_0, 64);
          memcpy(&c_acc[4 * 64 + 16], &vs_r4_1, 64);
          memcpy(&c_acc[4 * 64 + 32], &vs_r4_2, 64);
          memcpy(&c_acc[4 * 64 + 48], &vs_r4_3, 64);
          memcpy(&c_acc[5 * 64 + 0], &vs_r5_0, 64);
          memcpy(&c_acc[5 * 64 + 16], &vs_r5_1, 64);
          memcpy(&c_acc[5 * 64 + 32], &vs_r5_2, 64);
          memcpy(&c_acc[5 * 64 + 48], &vs_r5_3, 64);
        }
#elif defined(__AVX__)
        {  /* register tile: c_acc 6x16 from column 0 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 0], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 8], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 0], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 8], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 0], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 8], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 0], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 8], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 0], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 8], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 0], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 8], 32);
          const int64_t vs_b13 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b13; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 0], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 8], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 0], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 8], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 0], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 8], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 0], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 8], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 0], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 8], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 0], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 8], &vs_r5_1, 32);
        }
        {  /* register tile: c_acc 6x16 from column 16 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 16], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 24], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 16], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 24], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 16], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 24], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 16], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 24], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 16], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 24], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 16], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 24], 32);
          const int64_t vs_b14 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b14; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 16], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 24], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 16], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 24], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 16], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 24], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 16], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 24], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 16], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 24], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 16], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 24], &vs_r5_1, 32);
        }
        {  /* register tile: c_acc 6x16 from column 32 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 32], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 40], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 32], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 40], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 32], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 40], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 32], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 40], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 32], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 40], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 32], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 40], 32);
          const int64_t vs_b15 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b15; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 32], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 40], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 32], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 40], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 32], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 40], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 32], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 40], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 32], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 40], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 32], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 40], &vs_r5_1, 32);
        }
        {  /* register tile: c_acc 6x16 from column 48 in 12 vectors of 8 */
          typedef float vs_floatx8 __attribute__((vector_size(32)));
          vs_floatx8 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 48], 32);
          vs_floatx8 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 56], 32);
          vs_floatx8 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 48], 32);
          vs_floatx8 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 56], 32);
          vs_floatx8 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 48], 32);
          vs_floatx8 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 56], 32);
          vs_floatx8 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 48], 32);
          vs_floatx8 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 56], 32);
          vs_floatx8 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 48], 32);
          vs_floatx8 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 56], 32);
          vs_floatx8 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 48], 32);
          vs_floatx8 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 56], 32);
          const int64_t vs_b16 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b16; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 32); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx8 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 32); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 48], &vs_r0_0, 32);
          memcpy(&c_acc[0 * 64 + 56], &vs_r0_1, 32);
          memcpy(&c_acc[1 * 64 + 48], &vs_r1_0, 32);
          memcpy(&c_acc[1 * 64 + 56], &vs_r1_1, 32);
          memcpy(&c_acc[2 * 64 + 48], &vs_r2_0, 32);
          memcpy(&c_acc[2 * 64 + 56], &vs_r2_1, 32);
          memcpy(&c_acc[3 * 64 + 48], &vs_r3_0, 32);
          memcpy(&c_acc[3 * 64 + 56], &vs_r3_1, 32);
          memcpy(&c_acc[4 * 64 + 48], &vs_r4_0, 32);
          memcpy(&c_acc[4 * 64 + 56], &vs_r4_1, 32);
          memcpy(&c_acc[5 * 64 + 48], &vs_r5_0, 32);
          memcpy(&c_acc[5 * 64 + 56], &vs_r5_1, 32);
        }
#elif 1
        {  /* register tile: c_acc 6x8 from column 0 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 0], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 4], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 0], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 4], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 0], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 4], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 0], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 4], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 0], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 4], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 0], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 4], 16);
          const int64_t vs_b17 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b17; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 0], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 4], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 0], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 4], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 0], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 4], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 0], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 4], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 0], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 4], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 0], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 4], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 0], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 4], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 8 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 8], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 12], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 8], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 12], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 8], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 12], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 8], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 12], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 8], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 12], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 8], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 12], 16);
          const int64_t vs_b18 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b18; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 8], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 12], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 8], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 12], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 8], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 12], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 8], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 12], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 8], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 12], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 8], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 12], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 8], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 12], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 16 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 16], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 20], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 16], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 20], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 16], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 20], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 16], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 20], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 16], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 20], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 16], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 20], 16);
          const int64_t vs_b19 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b19; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 16], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 20], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 16], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 20], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 16], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 20], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 16], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 20], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 16], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 20], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 16], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 20], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 16], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 20], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 24 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 24], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 28], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 24], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 28], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 24], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 28], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 24], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 28], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 24], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 28], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 24], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 28], 16);
          const int64_t vs_b20 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b20; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 24], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 28], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 24], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 28], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 24], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 28], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 24], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 28], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 24], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 28], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 24], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 28], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 24], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 28], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 32 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 32], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 36], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 32], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 36], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 32], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 36], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 32], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 36], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 32], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 36], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 32], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 36], 16);
          const int64_t vs_b21 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b21; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 32], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 36], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 32], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 36], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 32], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 36], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 32], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 36], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 32], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 36], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 32], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 36], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 32], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 36], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 40 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 40], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 44], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 40], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 44], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 40], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 44], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 40], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 44], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 40], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 44], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 40], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 44], 16);
          const int64_t vs_b22 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b22; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 40], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 44], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 40], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 44], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 40], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 44], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 40], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 44], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 40], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 44], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 40], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 44], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 40], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 44], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 48 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 48], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 52], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 48], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 52], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 48], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 52], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 48], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 52], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 48], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 52], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 48], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 52], 16);
          const int64_t vs_b23 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b23; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 48], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 52], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 48], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 52], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 48], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 52], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 48], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 52], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 48], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 52], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 48], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 52], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 48], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 52], &vs_r5_1, 16);
        }
        {  /* register tile: c_acc 6x8 from column 56 in 12 vectors of 4 */
          typedef float vs_floatx4 __attribute__((vector_size(16)));
          vs_floatx4 vs_r0_0;
          memcpy(&vs_r0_0, &c_acc[0 * 64 + 56], 16);
          vs_floatx4 vs_r0_1;
          memcpy(&vs_r0_1, &c_acc[0 * 64 + 60], 16);
          vs_floatx4 vs_r1_0;
          memcpy(&vs_r1_0, &c_acc[1 * 64 + 56], 16);
          vs_floatx4 vs_r1_1;
          memcpy(&vs_r1_1, &c_acc[1 * 64 + 60], 16);
          vs_floatx4 vs_r2_0;
          memcpy(&vs_r2_0, &c_acc[2 * 64 + 56], 16);
          vs_floatx4 vs_r2_1;
          memcpy(&vs_r2_1, &c_acc[2 * 64 + 60], 16);
          vs_floatx4 vs_r3_0;
          memcpy(&vs_r3_0, &c_acc[3 * 64 + 56], 16);
          vs_floatx4 vs_r3_1;
          memcpy(&vs_r3_1, &c_acc[3 * 64 + 60], 16);
          vs_floatx4 vs_r4_0;
          memcpy(&vs_r4_0, &c_acc[4 * 64 + 56], 16);
          vs_floatx4 vs_r4_1;
          memcpy(&vs_r4_1, &c_acc[4 * 64 + 60], 16);
          vs_floatx4 vs_r5_0;
          memcpy(&vs_r5_0, &c_acc[5 * 64 + 56], 16);
          vs_floatx4 vs_r5_1;
          memcpy(&vs_r5_1, &c_acc[5 * 64 + 60], 16);
          const int64_t vs_b24 = K - 256 * ko;
          for (int64_t ki = 0; ki < vs_b24; ki++) {
            vs_r0_0 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r0_1 += ((a[(6 * io + 0) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r1_0 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r1_1 += ((a[(6 * io + 1) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r2_0 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r2_1 += ((a[(6 * io + 2) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r3_0 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r3_1 += ((a[(6 * io + 3) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r4_0 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r4_1 += ((a[(6 * io + 4) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
            vs_r5_0 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 56], 16); vs_v; }));
            vs_r5_1 += ((a[(6 * io + 5) * K + 256 * ko + ki]) * ({ vs_floatx4 vs_v; memcpy(&vs_v, &b[(256 * ko + ki) * M + 64 * jo + 60], 16); vs_v; }));
          }
          memcpy(&c_acc[0 * 64 + 56], &vs_r0_0, 16);
          memcpy(&c_acc[0 * 64 + 60], &vs_r0_1, 16);
          memcpy(&c_acc[1 * 64 + 56], &vs_r1_0, 16);
          memcpy(&c_acc[1 * 64 + 60], &vs_r1_1, 16);
          memcpy(&c_acc[2 * 64 + 56], &vs_r2_0, 16);
          memcpy(&c_acc[2 * 64 + 60], &vs_r2_1, 16);
          memcpy(&c_acc[3 * 64 + 56], &vs_r3_0, 16);
          memcpy(&c_acc[3 * 64 + 60], &vs_r3_1, 16);
          memcpy(&c_acc[4 * 64 + 56], &vs_r4_0, 16);
          memcpy(&c_acc[4 * 64 + 60], &vs_r4_1, 16);
          memcpy(&c_acc[5 * 64 + 56], &vs_r5_0, 16);
          memcpy(&c_acc[5 * 64 + 60], &vs_r5_1, 16);
        }
#endif
        for (int64_t ii_st = 0; ii_st < 6; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
          }
        }
      }
      const int64_t vs_b25 = vs_floordiv(N, 6);
      const int64_t vs_b26 = vs_floordiv(N + 5, 6);
      for (int64_t io = vs_b25; io < vs_b26; io++) {
        const int64_t vs_b27 = N - 6 * io;
        for (int64_t ii_ld = 0; ii_ld < vs_b27; ii_ld++) {
          for (int64_t ji_ld = 0; ji_ld < 64; ji_ld++) {
            c_acc[ii_ld * 64 + ji_ld] = c[(6 * io + ii_ld) * M + 64 * jo + ji_ld];
          }
        }
        const int64_t vs_b28 = K - 256 * ko;
        for (int64_t ki = 0; ki < vs_b28; ki++) {
          const int64_t vs_b29 = N - 6 * io;
          for (int64_t ii = 0; ii < vs_b29; ii++) {
            #pragma omp simd
            for (int64_t ji = 0; ji < 64; ji++) {
              c_acc[ii * 64 + ji] += a[(6 * io + ii) * K + 256 * ko + ki] * b[(256 * ko + ki) * M + 64 * jo + ji];
            }
          }
        }
        const int64_t vs_b30 = N - 6 * io;
        for (int64_t ii_st = 0; ii_st < vs_b30; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
          }
        }
      }
    }
  }
  const int64_t vs_b31 = vs_floordiv(M, 64);
  const int64_t vs_b32 = vs_floordiv(M + 63, 64);
  for (int64_t jo = vs_b31; jo < vs_b32; jo++) {
    const int64_t vs_b33 = vs_floordiv(K + 255, 256);
    for (int64_t ko = 0; ko < vs_b33; ko++) {
      const int64_t vs_b34 = vs_floordiv(N + 5, 6);
      for (int64_t io = 0; io < vs_b34; io++) {
        for (int64_t ii_ld = 0; ii_ld < 6; ii_ld++) {
          for (int64_t ji_ld = 0; ji_ld < 64; ji_ld++) {
            if (6 * io + ii_ld < N) {
              if (64 * jo + ji_ld < M) {
                c_acc[ii_ld * 64 + ji_ld] = c[(6 * io + ii_ld) * M + 64 * jo + ji_ld];
              }
            }
          }
        }
        for (int64_t ki = 0; ki < 256; ki++) {
          for (int64_t ii = 0; ii < 6; ii++) {
            #pragma omp simd
            for (int64_t ji = 0; ji < 64; ji++) {
              if (6 * io + ii < N) {
                if (64 * jo + ji < M) {
                  if (256 * ko + ki < K) {
                    c_acc[ii * 64 + ji] += a[(6 * io + ii) * K + 256 * ko + ki] * b[(256 * ko + ki) * M + 64 * jo + ji];
                  }
                }
              }
            }
          }
        }
        for (int64_t ii_st = 0; ii_st < 6; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            if (6 * io + ii_st < N) {
              if (64 * jo + ji_st < M) {
                c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
              }
            }
          }
        }
      }
    }
  }
}
