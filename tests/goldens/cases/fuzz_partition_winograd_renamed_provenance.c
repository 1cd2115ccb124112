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
  float d_wU[16] __attribute__((aligned(64)));  /* local */
  memset(d_wU, 0xff, sizeof d_wU);
  static __thread unsigned char *vs_ws = 0;  /* workspace of the local tensors */
  static __thread size_t vs_ws_size = 0;
  const size_t vs_o_a_wV = 0;  /* local a_wV */
  const size_t vs_o_d_wM = vs_o_a_wV + ((sizeof(float) * (size_t)(4 * 4 * 1 * vs_floordiv(OH, 2) * vs_floordiv(OW, 2) * 1) + 64) & ~(size_t)63);  /* local d_wM */
  const size_t vs_ws_need = vs_o_d_wM + ((sizeof(float) * (size_t)(4 * 4 * 1 * vs_floordiv(OH, 2) * vs_floordiv(OW, 2) * 1) + 64) & ~(size_t)63);
  if (vs_ws_need > vs_ws_size) {
    void *vs_p = 0;
    free(vs_ws);
    if (posix_memalign(&vs_p, 64, vs_ws_need)) abort();
    vs_ws = (unsigned char *)vs_p;
    vs_ws_size = vs_ws_need;
  }
  float *restrict a_wV = (float *)(vs_ws + vs_o_a_wV);
  memset(a_wV, 0xff, sizeof(float) * (size_t)(4 * 4 * 1 * vs_floordiv(OH, 2) * vs_floordiv(OW, 2) * 1));
  float *restrict d_wM = (float *)(vs_ws + vs_o_d_wM);
  memset(d, 0, sizeof(float) * (size_t)(1 * OH * OW * 1));
  for (int64_t f_u = 0; f_u < 1; f_u++) {
    for (int64_t c_u = 0; c_u < 1; c_u++) {
      d_wU[((0 * 4 + 0) * 1 + f_u) * 1 + c_u] = b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u];
      d_wU[((0 * 4 + 1) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 0) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u]);
      d_wU[((0 * 4 + 2) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] - b[((f_u * 3 + 0) * 3 + 1) * 1 + c_u]);
      d_wU[((0 * 4 + 3) * 1 + f_u) * 1 + c_u] = b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u];
      d_wU[((1 * 4 + 0) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u]);
      d_wU[((1 * 4 + 1) * 1 + f_u) * 1 + c_u] = 0.25f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] + (b[((f_u * 3 + 0) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 1) * 1 + c_u]) + (b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u]));
      d_wU[((1 * 4 + 2) * 1 + f_u) * 1 + c_u] = 0.25f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] + (b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u]) - (b[((f_u * 3 + 0) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 1) * 1 + c_u]));
      d_wU[((1 * 4 + 3) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 1) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u]);
      d_wU[((2 * 4 + 0) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 0) * 1 + c_u]);
      d_wU[((2 * 4 + 1) * 1 + f_u) * 1 + c_u] = 0.25f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 0) * 1 + c_u] + (b[((f_u * 3 + 0) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 1) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 1) * 1 + c_u]) + (b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 2) * 1 + c_u]));
      d_wU[((2 * 4 + 2) * 1 + f_u) * 1 + c_u] = 0.25f * (b[((f_u * 3 + 0) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 0) * 1 + c_u] + (b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 2) * 1 + c_u]) - (b[((f_u * 3 + 0) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 1) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 1) * 1 + c_u]));
      d_wU[((2 * 4 + 3) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 0) * 3 + 2) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u] - b[((f_u * 3 + 1) * 3 + 2) * 1 + c_u]);
      d_wU[((3 * 4 + 0) * 1 + f_u) * 1 + c_u] = b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u];
      d_wU[((3 * 4 + 1) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 1) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u]);
      d_wU[((3 * 4 + 2) * 1 + f_u) * 1 + c_u] = 0.5f * (b[((f_u * 3 + 2) * 3 + 0) * 1 + c_u] + b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u] - b[((f_u * 3 + 2) * 3 + 1) * 1 + c_u]);
      d_wU[((3 * 4 + 3) * 1 + f_u) * 1 + c_u] = b[((f_u * 3 + 2) * 3 + 2) * 1 + c_u];
    }
  }
  for (int64_t np0_0_v = 0; np0_0_v < 1; np0_0_v++) {
    const int64_t vs_b1 = vs_floordiv(OH, 2);
    for (int64_t th_v = 0; th_v < vs_b1; th_v++) {
      const int64_t vs_b2 = vs_floordiv(OW, 2);
      for (int64_t tw_v = 0; tw_v < vs_b2; tw_v++) {
        for (int64_t c_v = 0; c_v < 1; c_v++) {
          a_wV[((((0 * 4 + 0) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((0 * 4 + 1) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + (a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((0 * 4 + 2) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v]);
          a_wV[((((0 * 4 + 3) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v]);
          a_wV[((((1 * 4 + 0) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((1 * 4 + 1) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((1 * 4 + 2) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v]);
          a_wV[((((1 * 4 + 3) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v] + a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v]);
          a_wV[((((2 * 4 + 0) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((2 * 4 + 1) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + (a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((2 * 4 + 2) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v]);
          a_wV[((((2 * 4 + 3) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 2) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v]);
          a_wV[((((3 * 4 + 0) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((3 * 4 + 1) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] + (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v]);
          a_wV[((((3 * 4 + 2) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 2) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v]);
          a_wV[((((3 * 4 + 3) * 1 + np0_0_v) * vs_floordiv(OH, 2) + th_v) * vs_floordiv(OW, 2) + tw_v) * 1 + c_v] = a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 1) * 1 + c_v] - (a[((np0_0_v * (OH + 2) + 2 * th_v + 1) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v] - a[((np0_0_v * (OH + 2) + 2 * th_v + 3) * (OW + 2) + 2 * tw_v + 3) * 1 + c_v]);
        }
      }
    }
  }
  memset(d_wM, 0, sizeof(float) * (size_t)(4 * 4 * 1 * vs_floordiv(OH, 2) * vs_floordiv(OW, 2) * 1));
  for (int64_t xi = 0; xi < 4; xi++) {
    for (int64_t nu = 0; nu < 4; nu++) {
      for (int64_t np0_0_m = 0; np0_0_m < 1; np0_0_m++) {
        const int64_t vs_b3 = vs_floordiv(OH, 2);
        for (int64_t th = 0; th < vs_b3; th++) {
          const int64_t vs_b4 = vs_floordiv(OW, 2);
          for (int64_t tw = 0; tw < vs_b4; tw++) {
            for (int64_t f_m = 0; f_m < 1; f_m++) {
              for (int64_t c_m = 0; c_m < 1; c_m++) {
                d_wM[((((xi * 4 + nu) * 1 + np0_0_m) * vs_floordiv(OH, 2) + th) * vs_floordiv(OW, 2) + tw) * 1 + f_m] += a_wV[((((xi * 4 + nu) * 1 + np0_0_m) * vs_floordiv(OH, 2) + th) * vs_floordiv(OW, 2) + tw) * 1 + c_m] * d_wU[((xi * 4 + nu) * 1 + f_m) * 1 + c_m];
              }
            }
          }
        }
      }
    }
  }
  for (int64_t np0_0_y = 0; np0_0_y < 1; np0_0_y++) {
    const int64_t vs_b5 = vs_floordiv(OH, 2);
    for (int64_t th_y = 0; th_y < vs_b5; th_y++) {
      const int64_t vs_b6 = vs_floordiv(OW, 2);
      for (int64_t tw_y = 0; tw_y < vs_b6; tw_y++) {
        for (int64_t f_y = 0; f_y < 1; f_y++) {
          d[((np0_0_y * OH + 2 * th_y) * OW + 2 * tw_y) * 1 + f_y] += d_wM[((((0 * 4 + 0) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((1 * 4 + 0) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((2 * 4 + 0) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + (d_wM[((((0 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((1 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((2 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]) + (d_wM[((((0 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((1 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((2 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]);
          d[((np0_0_y * OH + 2 * th_y) * OW + 2 * tw_y + 1) * 1 + f_y] += d_wM[((((0 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((1 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((2 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - (d_wM[((((0 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((1 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((2 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]) - (d_wM[((((0 * 4 + 3) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((1 * 4 + 3) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + d_wM[((((2 * 4 + 3) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]);
          d[((np0_0_y * OH + 2 * th_y + 1) * OW + 2 * tw_y) * 1 + f_y] += d_wM[((((1 * 4 + 0) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((2 * 4 + 0) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((3 * 4 + 0) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] + (d_wM[((((1 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((2 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((3 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]) + (d_wM[((((1 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((2 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((3 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]);
          d[((np0_0_y * OH + 2 * th_y + 1) * OW + 2 * tw_y + 1) * 1 + f_y] += d_wM[((((1 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((2 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((3 * 4 + 1) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - (d_wM[((((1 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((2 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((3 * 4 + 2) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]) - (d_wM[((((1 * 4 + 3) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((2 * 4 + 3) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y] - d_wM[((((3 * 4 + 3) * 1 + np0_0_y) * vs_floordiv(OH, 2) + th_y) * vs_floordiv(OW, 2) + tw_y) * 1 + f_y]);
        }
      }
    }
  }
  for (int64_t np0_0_r = 0; np0_0_r < 1; np0_0_r++) {
    const int64_t vs_b7 = 2 * vs_floordiv(OH, 2);
    for (int64_t oh_r = vs_b7; oh_r < OH; oh_r++) {
      for (int64_t ow_r = 0; ow_r < OW; ow_r++) {
        for (int64_t f_r = 0; f_r < 1; f_r++) {
          for (int64_t kh_r = 0; kh_r < 3; kh_r++) {
            for (int64_t kw_r = 0; kw_r < 3; kw_r++) {
              for (int64_t c_r = 0; c_r < 1; c_r++) {
                d[((np0_0_r * OH + oh_r) * OW + ow_r) * 1 + f_r] += a[((np0_0_r * (OH + 2) + oh_r + kh_r) * (OW + 2) + ow_r + kw_r) * 1 + c_r] * b[((f_r * 3 + kh_r) * 3 + kw_r) * 1 + c_r];
              }
            }
          }
        }
      }
    }
  }
  for (int64_t np0_0_c = 0; np0_0_c < 1; np0_0_c++) {
    const int64_t vs_b8 = 2 * vs_floordiv(OH, 2);
    for (int64_t oh_c = 0; oh_c < vs_b8; oh_c++) {
      const int64_t vs_b9 = 2 * vs_floordiv(OW, 2);
      for (int64_t ow_c = vs_b9; ow_c < OW; ow_c++) {
        for (int64_t f_c = 0; f_c < 1; f_c++) {
          for (int64_t kh_c = 0; kh_c < 3; kh_c++) {
            for (int64_t kw_c = 0; kw_c < 3; kw_c++) {
              for (int64_t c_c = 0; c_c < 1; c_c++) {
                d[((np0_0_c * OH + oh_c) * OW + ow_c) * 1 + f_c] += a[((np0_0_c * (OH + 2) + oh_c + kh_c) * (OW + 2) + ow_c + kw_c) * 1 + c_c] * b[((f_c * 3 + kh_c) * 3 + kw_c) * 1 + c_c];
              }
            }
          }
        }
      }
    }
  }
  if (vs_ws_size > ((size_t)256 << 20)) { free(vs_ws); vs_ws = 0; vs_ws_size = 0; }
}
