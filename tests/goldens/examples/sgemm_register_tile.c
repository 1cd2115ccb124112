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
  float c_acc[384];  /* local */
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
        for (int64_t ki = 0; ki < 256; ki++) {
          for (int64_t ii = 0; ii < 6; ii++) {
            #pragma omp simd
            for (int64_t ji = 0; ji < 64; ji++) {
              c_acc[ii * 64 + ji] += a[(6 * io + ii) * K + 256 * ko + ki] * b[(256 * ko + ki) * M + 64 * jo + ji];
            }
          }
        }
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
        const int64_t vs_b12 = K - 256 * ko;
        for (int64_t ki = 0; ki < vs_b12; ki++) {
          for (int64_t ii = 0; ii < 6; ii++) {
            #pragma omp simd
            for (int64_t ji = 0; ji < 64; ji++) {
              c_acc[ii * 64 + ji] += a[(6 * io + ii) * K + 256 * ko + ki] * b[(256 * ko + ki) * M + 64 * jo + ji];
            }
          }
        }
        for (int64_t ii_st = 0; ii_st < 6; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
          }
        }
      }
      const int64_t vs_b13 = vs_floordiv(N, 6);
      const int64_t vs_b14 = vs_floordiv(N + 5, 6);
      for (int64_t io = vs_b13; io < vs_b14; io++) {
        const int64_t vs_b15 = N - 6 * io;
        for (int64_t ii_ld = 0; ii_ld < vs_b15; ii_ld++) {
          for (int64_t ji_ld = 0; ji_ld < 64; ji_ld++) {
            c_acc[ii_ld * 64 + ji_ld] = c[(6 * io + ii_ld) * M + 64 * jo + ji_ld];
          }
        }
        const int64_t vs_b16 = K - 256 * ko;
        for (int64_t ki = 0; ki < vs_b16; ki++) {
          const int64_t vs_b17 = N - 6 * io;
          for (int64_t ii = 0; ii < vs_b17; ii++) {
            #pragma omp simd
            for (int64_t ji = 0; ji < 64; ji++) {
              c_acc[ii * 64 + ji] += a[(6 * io + ii) * K + 256 * ko + ki] * b[(256 * ko + ki) * M + 64 * jo + ji];
            }
          }
        }
        const int64_t vs_b18 = N - 6 * io;
        for (int64_t ii_st = 0; ii_st < vs_b18; ii_st++) {
          for (int64_t ji_st = 0; ji_st < 64; ji_st++) {
            c[(6 * io + ii_st) * M + 64 * jo + ji_st] = c_acc[ii_st * 64 + ji_st];
          }
        }
      }
    }
  }
  const int64_t vs_b19 = vs_floordiv(M, 64);
  const int64_t vs_b20 = vs_floordiv(M + 63, 64);
  for (int64_t jo = vs_b19; jo < vs_b20; jo++) {
    const int64_t vs_b21 = vs_floordiv(K + 255, 256);
    for (int64_t ko = 0; ko < vs_b21; ko++) {
      const int64_t vs_b22 = vs_floordiv(N + 5, 6);
      for (int64_t io = 0; io < vs_b22; io++) {
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
