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
void vs_matmul(int64_t TN, int64_t TM, int64_t TK, float *restrict a, float *restrict b, float *restrict c) {
  float a_tile[256] __attribute__((aligned(64)));  /* shared */
  memset(a_tile, 0xff, sizeof a_tile);
  float b_tile[256] __attribute__((aligned(64)));  /* shared */
  memset(b_tile, 0xff, sizeof b_tile);
  memset(c, 0, sizeof(float) * (size_t)(16 * TN * 16 * TM));
  for (int64_t bi = 0; bi < TN; bi++) {  /* block.y */
    for (int64_t bj = 0; bj < TM; bj++) {  /* block.x */
      for (int64_t ti = 0; ti < 16; ti++) {  /* thread.y */
        for (int64_t tj = 0; tj < 16; tj++) {  /* thread.x */
          for (int64_t ko = 0; ko < TK; ko++) {
            if (tj == 0) {
              for (int64_t ki_a_tile = 0; ki_a_tile < 16; ki_a_tile++) {
                a_tile[ti * 16 + ki_a_tile] = a[(16 * bi + ti) * 16 * TK + 16 * ko + ki_a_tile];
              }
            }
            if (ti == 0) {
              for (int64_t ki_b_tile = 0; ki_b_tile < 16; ki_b_tile++) {
                b_tile[ki_b_tile * 16 + tj] = b[(16 * ko + ki_b_tile) * 16 * TM + 16 * bj + tj];
              }
            }
            /* barrier */
            for (int64_t ki = 0; ki < 16; ki++) {
              c[(16 * bi + ti) * 16 * TM + 16 * bj + tj] += a_tile[ti * 16 + ki] * b_tile[ki * 16 + tj];
            }
            /* barrier */
          }
        }
      }
    }
  }
}
