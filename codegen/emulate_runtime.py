"""The C runtime every emulated kernel uses (codegen/emulate.py): the seeded thread shuffle
(splitmix64), error reporting and scratch allocation, bounds checks, barrier divergence and,
with VS_RACE, the shadow-memory race detector.

Two ways to use it, the same definitions either way:

- `RUNTIME` (after the C preludes): the definitions in the kernel's own translation unit, all
  `static`: an optimized build may inline them into the kernel's loops;
- `RUNTIME_DECLARED` in the kernel's unit, plus the object built once from `RUNTIME_OBJECT`
  linked into the library (`build.compile_shared(objects=...)`): for the fuzzer's quick -O0
  builds, where compiling the runtime again for every kernel was about a third of the
  compile. Its functions and state are hidden (`visibility("hidden")`): each library still
  has its own copy, so libraries never share runtime state, exactly as with `RUNTIME`.
"""

_HEAD = """#include <setjmp.h>
/* ---- GPU-on-CPU emulation runtime ---- */
"""

# typedefs and access macros: the kernel's code uses them whichever way the runtime comes
_TYPES = r"""#ifdef VS_RACE
typedef struct { int32_t wb, wt, wp, rb1, rt1, rb2, rt2, rcb, rt, rp, rtt; } vs_cell;
typedef struct { int64_t id; vs_cell *cells; int64_t n; } vs_shadow;
#define VS_RD(sh, off) vs_rd(&(sh), (off))
#define VS_WR(sh, off) vs_wr(&(sh), (off))
#define VS_WR_ALL(sh) vs_wr_all(&(sh))
#define VS_THREAD(t) (vs_cur_thread = (t))
#else
#define VS_RD(sh, off) (off)
#define VS_WR(sh, off) (off)
#define VS_WR_ALL(sh) ((void)0)
#define VS_THREAD(t) (vs_cur_thread = (t))
#endif
"""

# the declarations of everything `_DEFS` defines (VS_RT: static, or hidden in a linked object)
_DECLS = r"""extern VS_RT uint64_t vs_rng;
extern VS_RT int vs_status;
extern VS_RT int64_t vs_info[24];
extern VS_RT jmp_buf vs_jmp;
extern VS_RT void *vs_allocs[256];
extern VS_RT int vs_nallocs;
extern VS_RT int64_t vs_phase, vs_cur_block, vs_cur_thread, vs_dims[6], vs_launch;
void vs_emu_seed(uint64_t seed);
int vs_emu_status(void);
void vs_emu_info(int64_t *out);
VS_RT uint64_t vs_next(void);
VS_RT void vs_shuffle(int64_t *p, int64_t n);
VS_RT void vs_iota(int64_t *p, int64_t n);
VS_RT void vs_fail(int code);
VS_RT void *vs_alloc(size_t n);
VS_RT void vs_free_to(int mark);
VS_RT void vs_free_all(void);
VS_RT int64_t vs_inb(int64_t i, int64_t n, int64_t code);
VS_RT void vs_diverge(int64_t bid, int64_t in, int64_t out, int64_t n_in, int64_t nt);
#ifdef VS_RACE
VS_RT void vs_race(const vs_shadow *s, int64_t off, int64_t b, int64_t t, int64_t p, int64_t w, int64_t w2);
VS_RT void vs_oob(const vs_shadow *s, int64_t off);
VS_RT void vs_shadow_init(vs_shadow *s, int64_t id, int64_t n);
VS_RT void vs_shadow_reset(vs_shadow *s);
VS_RT int64_t vs_rd(vs_shadow *s, int64_t off);
VS_RT int64_t vs_wr(vs_shadow *s, int64_t off);
VS_RT void vs_wr_all(vs_shadow *s);
#endif
"""

_DEFS = r"""VS_RT uint64_t vs_rng;
VS_RT int vs_status;
VS_RT int64_t vs_info[24];
VS_RT jmp_buf vs_jmp;
VS_RT void *vs_allocs[256];
VS_RT int vs_nallocs;
VS_RT int64_t vs_phase, vs_cur_block, vs_cur_thread, vs_dims[6], vs_launch;
void vs_emu_seed(uint64_t seed) { vs_rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull; }
int vs_emu_status(void) { return vs_status; }
void vs_emu_info(int64_t *out) { memcpy(out, vs_info, sizeof vs_info); }
VS_RT uint64_t vs_next(void) {  /* splitmix64 */
  uint64_t z = (vs_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
VS_RT void vs_shuffle(int64_t *p, int64_t n) {
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(vs_next() % (uint64_t)(i + 1)), x = p[i]; p[i] = p[j]; p[j] = x;
  }
}
VS_RT void vs_iota(int64_t *p, int64_t n) { for (int64_t i = 0; i < n; i++) p[i] = i; }
VS_RT void vs_fail(int code) {
  vs_status = code; vs_info[0] = code;
  for (int i = 0; i < 6; i++) vs_info[12 + i] = vs_dims[i];
  vs_info[18] = vs_launch;
  longjmp(vs_jmp, 1);
}
VS_RT void *vs_alloc(size_t n) {
  if (vs_nallocs == 256) vs_fail(4);
  void *p = malloc(n ? n : 1);
  if (!p) vs_fail(4);
  vs_allocs[vs_nallocs++] = p;
  return p;
}
VS_RT void vs_free_to(int mark) { while (vs_nallocs > mark) free(vs_allocs[--vs_nallocs]); }
VS_RT void vs_free_all(void) { vs_free_to(0); }
/* every index component of every access is bounds-checked (shared and local tensors have no
   guard zones, and an out-of-bounds read of a global one is invisible otherwise): an index
   outside its dimension is reported as a finding (status 5), never a heap overflow */
VS_RT int64_t vs_inb(int64_t i, int64_t n, int64_t code) {
  if (i < 0 || i >= n) {
    vs_info[1] = code; vs_info[2] = i; vs_info[3] = n; vs_info[4] = vs_cur_block; vs_info[5] = vs_cur_thread;
    vs_fail(5);
  }
  return i;
}
VS_RT void vs_diverge(int64_t bid, int64_t in, int64_t out, int64_t n_in, int64_t nt) {
  vs_info[1] = bid; vs_info[2] = vs_cur_block; vs_info[3] = vs_phase; vs_info[4] = in;
  vs_info[5] = out; vs_info[6] = n_in; vs_info[7] = nt;
  vs_fail(2);
}
#ifdef VS_RACE
VS_RT void vs_race(const vs_shadow *s, int64_t off, int64_t b, int64_t t, int64_t p, int64_t w, int64_t w2) {
  int64_t v[10] = {s->id, off, b, t, p, w, vs_cur_block, vs_cur_thread, vs_phase, w2};
  for (int i = 0; i < 10; i++) vs_info[1 + i] = v[i];
  vs_fail(1);
}
VS_RT void vs_oob(const vs_shadow *s, int64_t off) {
  vs_info[1] = s->id; vs_info[2] = off; vs_info[3] = s->n; vs_info[4] = vs_cur_block; vs_info[5] = vs_cur_thread;
  vs_fail(3);
}
VS_RT void vs_shadow_init(vs_shadow *s, int64_t id, int64_t n) {
  s->id = id; s->n = n; s->cells = (vs_cell *)vs_alloc(sizeof(vs_cell) * (size_t)(n > 0 ? n : 1));
  memset(s->cells, 0xff, sizeof(vs_cell) * (size_t)(n > 0 ? n : 1));
}
VS_RT void vs_shadow_reset(vs_shadow *s) { memset(s->cells, 0xff, sizeof(vs_cell) * (size_t)(s->n > 0 ? s->n : 1)); }
VS_RT int64_t vs_rd(vs_shadow *s, int64_t off) {
  if (off < 0 || off >= s->n) vs_oob(s, off);
  vs_cell *c = &s->cells[off];
  const int32_t b = (int32_t)vs_cur_block, t = (int32_t)vs_cur_thread, p = (int32_t)vs_phase;
  if (c->wb >= 0 && (c->wb != b || (c->wp == p && c->wt != t))) vs_race(s, off, c->wb, c->wt, c->wp, 1, 0);
  if (c->rb1 < 0) { c->rb1 = b; c->rt1 = t; } else if (c->rb1 != b && c->rb2 < 0) { c->rb2 = b; c->rt2 = t; }
  if (c->rcb == b && c->rp == p) { if (c->rt != t && c->rtt < 0) c->rtt = t; }
  else { c->rcb = b; c->rt = t; c->rp = p; c->rtt = -1; }
  return off;
}
VS_RT int64_t vs_wr(vs_shadow *s, int64_t off) {
  if (off < 0 || off >= s->n) vs_oob(s, off);
  vs_cell *c = &s->cells[off];
  const int32_t b = (int32_t)vs_cur_block, t = (int32_t)vs_cur_thread, p = (int32_t)vs_phase;
  if (c->wb >= 0 && (c->wb != b || (c->wp == p && c->wt != t))) vs_race(s, off, c->wb, c->wt, c->wp, 1, 1);
  if (c->rb1 >= 0 && c->rb1 != b) vs_race(s, off, c->rb1, c->rt1, -1, 0, 1);
  if (c->rb2 >= 0 && c->rb2 != b) vs_race(s, off, c->rb2, c->rt2, -1, 0, 1);
  if (c->rcb == b && c->rp == p) {
    if (c->rt != t) vs_race(s, off, b, c->rt, p, 0, 1);
    if (c->rtt >= 0 && c->rtt != t) vs_race(s, off, b, c->rtt, p, 0, 1);
  }
  c->wb = b; c->wt = t; c->wp = p;
  return off;
}
VS_RT void vs_wr_all(vs_shadow *s) { for (int64_t i = 0; i < s->n; i++) vs_wr(s, i); }
#endif
"""

_STATIC = "#define VS_RT static\n"
_HIDDEN = '#define VS_RT __attribute__((visibility("hidden")))\n'

# in the kernel's unit, after the C preludes
RUNTIME = _HEAD + _STATIC + _TYPES + _DEFS
RUNTIME_DECLARED = _HEAD + _HIDDEN + _TYPES + _DECLS
# a unit of its own (declarations first: the compiler checks the definitions against them)
RUNTIME_OBJECT = "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n" + _HEAD + _HIDDEN + _TYPES + _DECLS + _DEFS
