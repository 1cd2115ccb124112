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
void vs_conv(int64_t N, int64_t OH, int64_t OW, int64_t C, int64_t F, float *restrict a, float *restrict b, float *restrict d) {
  static __thread unsigned char *vs_ws = 0;  /* workspace of the local tensors */
  static __thread size_t vs_ws_size = 0;
  const size_t vs_o_d_wU = 0;  /* local d_wU */
  const size_t vs_o_a_wV = vs_o_d_wU + ((sizeof(float) * (size_t)(4 * 4 * C * F) + 64) & ~(size_t)63);  /* local a_wV */
  const size_t vs_o_d_wM = vs_o_a_wV + ((sizeof(float) * (size_t)(4 * 4 * N * vs_floordiv(OW, 2) * C) + 64) & ~(size_t)63);  /* local d_wM */
  const size_t vs_o_b_wT = vs_o_d_wM + ((sizeof(float) * (size_t)(4 * 4 * N * vs_floordiv(OW, 2) * F) + 64) & ~(size_t)63);  /* local b_wT */
  const size_t vs_ws_need = vs_o_b_wT + ((sizeof(float) * (size_t)(3 * 3 * C * F) + 64) & ~(size_t)63);
  if (vs_ws_need > vs_ws_size) {
    void *vs_p = 0;
    free(vs_ws);
    if (posix_memalign(&vs_p, 64, vs_ws_need)) abort();
    vs_ws = (unsigned char *)vs_p;
    vs_ws_size = vs_ws_need;
  }
  float *restrict d_wU = (float *)(vs_ws + vs_o_d_wU);
  memset(d_wU, 0xff, sizeof(float) * (size_t)(4 * 4 * C * F));
  float *restrict a_wV = (float *)(vs_ws + vs_o_a_wV);
  memset(a_wV, 0xff, sizeof(float) * (size_t)(4 * 4 * N * vs_floordiv(OW, 2) * C));
  float *restrict d_wM = (float *)(vs_ws + vs_o_d_wM);
  memset(d_wM, 0xff, sizeof(float) * (size_t)(4 * 4 * N * vs_floordiv(OW, 2) * F));
  float *restrict b_wT = (float *)(vs_ws + vs_o_b_wT);
  memset(b_wT, 0xff, sizeof(float) * (size_t)(3 * 3 * C * F));
  memset(d, 0, sizeof(float) * (size_t)(N * OH * OW * F));
  for (int64_t b_t1 = 0; b_t1 < 3; b_t1++) {
    for (int64_t b_t2 = 0; b_t2 < 3; b_t2++) {
      for (int64_t b_t3 = 0; b_t3 < C; b_t3++) {
        #pragma omp simd
        for (int64_t b_t0 = 0; b_t0 < F; b_t0++) {
          b_wT[((b_t1 * 3 + b_t2) * C + b_t3) * F + b_t0] = b[((b_t0 * 3 + b_t1) * 3 + b_t2) * C + b_t3];
        }
      }
    }
  }
  for (int64_t c_u = 0; c_u < C; c_u++) {
    #pragma omp simd
    for (int64_t f_u = 0; f_u < F; f_u++) {
      d_wU[((0 * 4 + 0) * C + c_u) * F + f_u] = b_wT[((0 * 3 + 0) * C + c_u) * F + f_u];
      d_wU[((0 * 4 + 1) * C + c_u) * F + f_u] = 0.5f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((0 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((0 * 3 + 2) * C + c_u) * F + f_u]);
      d_wU[((0 * 4 + 2) * C + c_u) * F + f_u] = 0.5f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] - b_wT[((0 * 3 + 1) * C + c_u) * F + f_u]);
      d_wU[((0 * 4 + 3) * C + c_u) * F + f_u] = b_wT[((0 * 3 + 2) * C + c_u) * F + f_u];
      d_wU[((1 * 4 + 0) * C + c_u) * F + f_u] = 0.5f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 0) * C + c_u) * F + f_u]);
      d_wU[((1 * 4 + 1) * C + c_u) * F + f_u] = 0.25f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] + (b_wT[((0 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 1) * C + c_u) * F + f_u]) + (b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u]));
      d_wU[((1 * 4 + 2) * C + c_u) * F + f_u] = 0.25f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] + (b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u]) - (b_wT[((0 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 1) * C + c_u) * F + f_u]));
      d_wU[((1 * 4 + 3) * C + c_u) * F + f_u] = 0.5f * (b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((1 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u]);
      d_wU[((2 * 4 + 0) * C + c_u) * F + f_u] = 0.5f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 0) * C + c_u) * F + f_u]);
      d_wU[((2 * 4 + 1) * C + c_u) * F + f_u] = 0.25f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 0) * C + c_u) * F + f_u] + (b_wT[((0 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 1) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 1) * C + c_u) * F + f_u]) + (b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 2) * C + c_u) * F + f_u]));
      d_wU[((2 * 4 + 2) * C + c_u) * F + f_u] = 0.25f * (b_wT[((0 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 0) * C + c_u) * F + f_u] + (b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 2) * C + c_u) * F + f_u]) - (b_wT[((0 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 1) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 1) * C + c_u) * F + f_u]));
      d_wU[((2 * 4 + 3) * C + c_u) * F + f_u] = 0.5f * (b_wT[((0 * 3 + 2) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u] - b_wT[((1 * 3 + 2) * C + c_u) * F + f_u]);
      d_wU[((3 * 4 + 0) * C + c_u) * F + f_u] = b_wT[((2 * 3 + 0) * C + c_u) * F + f_u];
      d_wU[((3 * 4 + 1) * C + c_u) * F + f_u] = 0.5f * (b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 1) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u]);
      d_wU[((3 * 4 + 2) * C + c_u) * F + f_u] = 0.5f * (b_wT[((2 * 3 + 0) * C + c_u) * F + f_u] + b_wT[((2 * 3 + 2) * C + c_u) * F + f_u] - b_wT[((2 * 3 + 1) * C + c_u) * F + f_u]);
      d_wU[((3 * 4 + 3) * C + c_u) * F + f_u] = b_wT[((2 * 3 + 2) * C + c_u) * F + f_u];
    }
  }
  const int64_t vs_b1 = vs_floordiv(OH, 2);
  for (int64_t th_b = 0; th_b < vs_b1; th_b++) {
    for (int64_t n_v = 0; n_v < N; n_v++) {
      const int64_t vs_b2 = vs_floordiv(OW, 2);
      for (int64_t tw_v = 0; tw_v < vs_b2; tw_v++) {
        #pragma omp simd
        for (int64_t c_v = 0; c_v < C; c_v++) {
          a_wV[(((0 * 4 + 0) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((0 * 4 + 1) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + (a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((0 * 4 + 2) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v]);
          a_wV[(((0 * 4 + 3) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b) * (OW + 2) + 2 * tw_v + 3) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 3) * C + c_v]);
          a_wV[(((1 * 4 + 0) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((1 * 4 + 1) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((1 * 4 + 2) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v]);
          a_wV[(((1 * 4 + 3) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 3) * C + c_v] + a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 3) * C + c_v]);
          a_wV[(((2 * 4 + 0) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((2 * 4 + 1) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + (a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((2 * 4 + 2) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v]);
          a_wV[(((2 * 4 + 3) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 2) * (OW + 2) + 2 * tw_v + 3) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 3) * C + c_v]);
          a_wV[(((3 * 4 + 0) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((3 * 4 + 1) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 1) * C + c_v] + (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 2) * C + c_v]);
          a_wV[(((3 * 4 + 2) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 2) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 1) * C + c_v]);
          a_wV[(((3 * 4 + 3) * N + n_v) * vs_floordiv(OW, 2) + tw_v) * C + c_v] = a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 1) * C + c_v] - (a[((n_v * (OH + 2) + 2 * th_b + 1) * (OW + 2) + 2 * tw_v + 3) * C + c_v] - a[((n_v * (OH + 2) + 2 * th_b + 3) * (OW + 2) + 2 * tw_v + 3) * C + c_v]);
        }
      }
    }
    memset(d_wM, 0, sizeof(float) * (size_t)(4 * 4 * N * vs_floordiv(OW, 2) * F));
    for (int64_t xi = 0; xi < 4; xi++) {
      for (int64_t nu = 0; nu < 4; nu++) {
        for (int64_t n_m = 0; n_m < N; n_m++) {
          const int64_t vs_b3 = vs_floordiv(OW, 2);
          for (int64_t tw = 0; tw < vs_b3; tw++) {
            for (int64_t c_m = 0; c_m < C; c_m++) {
              #pragma omp simd
              for (int64_t f_m = 0; f_m < F; f_m++) {
                d_wM[(((xi * 4 + nu) * N + n_m) * vs_floordiv(OW, 2) + tw) * F + f_m] += a_wV[(((xi * 4 + nu) * N + n_m) * vs_floordiv(OW, 2) + tw) * C + c_m] * d_wU[((xi * 4 + nu) * C + c_m) * F + f_m];
              }
            }
          }
        }
      }
    }
    for (int64_t n_y = 0; n_y < N; n_y++) {
      const int64_t vs_b4 = vs_floordiv(OW, 2);
      for (int64_t tw_y = 0; tw_y < vs_b4; tw_y++) {
        #pragma omp simd
        for (int64_t f_y = 0; f_y < F; f_y++) {
          d[((n_y * OH + 2 * th_b) * OW + 2 * tw_y) * F + f_y] += d_wM[(((0 * 4 + 0) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((1 * 4 + 0) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((2 * 4 + 0) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + (d_wM[(((0 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((1 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((2 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]) + (d_wM[(((0 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((1 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((2 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]);
          d[((n_y * OH + 2 * th_b) * OW + 2 * tw_y + 1) * F + f_y] += d_wM[(((0 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((1 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((2 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - (d_wM[(((0 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((1 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((2 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]) - (d_wM[(((0 * 4 + 3) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((1 * 4 + 3) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + d_wM[(((2 * 4 + 3) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]);
          d[((n_y * OH + 2 * th_b + 1) * OW + 2 * tw_y) * F + f_y] += d_wM[(((1 * 4 + 0) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((2 * 4 + 0) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((3 * 4 + 0) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] + (d_wM[(((1 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((2 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((3 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]) + (d_wM[(((1 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((2 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((3 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]);
          d[((n_y * OH + 2 * th_b + 1) * OW + 2 * tw_y + 1) * F + f_y] += d_wM[(((1 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((2 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((3 * 4 + 1) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - (d_wM[(((1 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((2 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((3 * 4 + 2) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]) - (d_wM[(((1 * 4 + 3) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((2 * 4 + 3) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y] - d_wM[(((3 * 4 + 3) * N + n_y) * vs_floordiv(OW, 2) + tw_y) * F + f_y]);
        }
      }
    }
  }
  for (int64_t n_r = 0; n_r < N; n_r++) {
    const int64_t vs_b5 = 2 * vs_floordiv(OH, 2);
    for (int64_t oh_r = vs_b5; oh_r < OH; oh_r++) {
      for (int64_t ow_r = 0; ow_r < OW; ow_r++) {
        for (int64_t kh_r = 0; kh_r < 3; kh_r++) {
          for (int64_t kw_r = 0; kw_r < 3; kw_r++) {
            for (int64_t c_r = 0; c_r < C; c_r++) {
              #pragma omp simd
              for (int64_t f_r = 0; f_r < F; f_r++) {
                d[((n_r * OH + oh_r) * OW + ow_r) * F + f_r] += a[((n_r * (OH + 2) + oh_r + kh_r) * (OW + 2) + ow_r + kw_r) * C + c_r] * b_wT[((kh_r * 3 + kw_r) * C + c_r) * F + f_r];
              }
            }
          }
        }
      }
    }
  }
  for (int64_t n_c = 0; n_c < N; n_c++) {
    const int64_t vs_b6 = 2 * vs_floordiv(OH, 2);
    for (int64_t oh_c = 0; oh_c < vs_b6; oh_c++) {
      const int64_t vs_b7 = 2 * vs_floordiv(OW, 2);
      for (int64_t ow_c = vs_b7; ow_c < OW; ow_c++) {
        for (int64_t kh_c = 0; kh_c < 3; kh_c++) {
          for (int64_t kw_c = 0; kw_c < 3; kw_c++) {
            for (int64_t c_c = 0; c_c < C; c_c++) {
              #pragma omp simd
              for (int64_t f_c = 0; f_c < F; f_c++) {
                d[((n_c * OH + oh_c) * OW + ow_c) * F + f_c] += a[((n_c * (OH + 2) + oh_c + kh_c) * (OW + 2) + ow_c + kw_c) * C + c_c] * b_wT[((kh_c * 3 + kw_c) * C + c_c) * F + f_c];
              }
            }
          }
        }
      }
    }
  }
  if (vs_ws_size > ((size_t)256 << 20)) { free(vs_ws); vs_ws = 0; vs_ws_size = 0; }
}
