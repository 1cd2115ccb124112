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

/* kernel conv */
void vs_conv(int64_t OH, int64_t OW, float *restrict a, float *restrict b, float *restrict d) {
  float d_acc0[1] __attribute__((aligned(64)));  /* local */
  memset(d_acc0, 0xff, sizeof d_acc0);
  memset(d, 0, sizeof(float) * (size_t)(1 * OH * OW * 1));
  #pragma GCC unroll 1
  for (int64_t no0 = 0; no0 < 1; no0++) {
    const int64_t vs_b1 = 1 - 2 * no0;
    for (int64_t ni0 = 0; ni0 < vs_b1; ni0++) {
      for (int64_t ow = 0; ow < OW; ow++) {
        for (int64_t oh = 0; oh < OH; oh++) {
          for (int64_t f = 0; f < 1; f++) {
            d_acc0[0] = d[(((2 * no0 + ni0) * OH + oh) * OW + ow) * 1 + f];
            for (int64_t kh = 0; kh < 3; kh++) {
              for (int64_t kw = 0; kw < 3; kw++) {
                for (int64_t c = 0; c < 1; c++) {
                  d_acc0[0] += a[(((2 * no0 + ni0) * (OH + 2) + oh + kh) * (OW + 2) + ow + kw) * 1 + c] * b[((f * 3 + kh) * 3 + kw) * 1 + c];
                }
              }
            }
            d[(((2 * no0 + ni0) * OH + oh) * OW + ow) * 1 + f] = d_acc0[0];
          }
        }
      }
    }
  }
}
