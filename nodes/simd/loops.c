/* loops.c — the element-wise loops of loops.h, static, and the table of
 * them; included by every SIMD path's unit (nodes/simd/<path>.c), never
 * compiled alone. */
#include "loops.h"
#include "bits.h"

#include <math.h>

#define LOOP2(name, expr)                                                                                     \
    static void name(float *restrict out, const float *restrict x, const float *restrict y, int n)           \
    {                                                                                                         \
        int i;                                                                                                \
        for (i = 0; i < n; i++) out[i] = (expr);                                                              \
    }

LOOP2(loop_add, x[i] + y[i])
LOOP2(loop_sub, x[i] - y[i])
LOOP2(loop_mul, x[i] * y[i])
LOOP2(loop_div, x[i] / y[i])
LOOP2(loop_min, x[i] < y[i] ? x[i] : y[i])
LOOP2(loop_max, x[i] > y[i] ? x[i] : y[i])

#define LOOP1(name, expr)                                                                                     \
    static void name(float *restrict out, const float *restrict x, int n)                                     \
    {                                                                                                         \
        int i;                                                                                                \
        for (i = 0; i < n; i++) out[i] = (expr);                                                              \
    }

LOOP1(loop_neg, -x[i])
LOOP1(loop_abs, fabsf(x[i]))
LOOP1(loop_invert, 1.0f - x[i])
/* sqrt, negative (and NaN) to 0: a bit-pattern select, then the exact sqrt */
LOOP1(loop_sqrt0, sqrtf(select_f(x[i] > 0.0f, x[i], 0.0f)))

static void loop_fill(float *out, float v, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = v;
}

/* NaN fails both compares and stays NaN */
static void loop_clamp(float *out, const float *x, float lo, float hi, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
}

static void loop_step(float *restrict out, const float *restrict x, float edge, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] < edge ? 0.0f : 1.0f;
}

/* t = (x - lo) * inv clamped to [0, 1] (NaN stays NaN), then t^2 (3 - 2t) */
static void loop_smoothstep(float *restrict out, const float *restrict x, float lo, float inv, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        float t = (x[i] - lo) * inv;
        t = select_f(t < 0.0f, 0.0f, select_f(t > 1.0f, 1.0f, t));
        out[i] = t * t * (3.0f - 2.0f * t);
    }
}

static void loop_mix(float *restrict out, const float *restrict x, const float *restrict y, const float *restrict t, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] + (y[i] - x[i]) * t[i];
}

static void loop_select(float *restrict out, const float *restrict x, const float *restrict y, const float *restrict t,
                     float edge, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = select_f(t[i] < edge, x[i], y[i]);
}

static void loop_sub_scale(float *restrict out, const float *restrict x, const float *restrict y, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = (x[i] - y[i]) * s;
}

/* the sum in double, so a far anchor costs no precision before the rounding */
static void loop_offset(float *restrict out, const float *restrict x, double a, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = (float)(a + (double)x[i]);
}

static void loop_axpy(float *restrict out, const float *restrict x, float w, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += x[i] * w;
}

/* the two roundings of axpy then scale, in one pass over out */
static void loop_axpy_scale(float *restrict out, const float *restrict x, float w, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = (out[i] + x[i] * w) * s;
}

static void loop_axpy_masked(float *restrict out, const float *restrict a, float w, const float *restrict x, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += a[i] * w * x[i];
}

static void loop_axpy_masked_to(float *out, const float *p, const float *restrict a, float w, const float *x, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = p[i] + a[i] * w * x[i];
}

/* The axes of a warp's move together: one loop reads the field once
 * per point for every plane it moves. Each point reads its inputs before
 * its stores, so out in place of p or x is safe: said to the compiler,
 * which otherwise runs the in-place case (the common one) unvectorised
 * behind its overlap check. */
#if defined(__clang__)
#define MOVE_NO_ALIAS _Pragma("clang loop vectorize(assume_safety)")
#else
#define MOVE_NO_ALIAS _Pragma("GCC ivdep")
#endif
static void loop_axpy_const_to(float *out, const float *const *p, float s, const float *x, int axes, int n)
{
    const size_t N = (size_t)n;
    const float *p0 = p[0], *p1 = axes > 1 ? p[1] : NULL;
    int i, d;
    if (axes == 2) {
        MOVE_NO_ALIAS
        for (i = 0; i < n; i++) {
            float a = p0[i] + s * x[i], b = p1[i] + s * x[N + i];
            out[i] = a;
            out[N + i] = b;
        }
        return;
    }
    for (d = 0; d < axes; d++) {
        const float *pd = p[d], *xd = x + d * N;
        float *od = out + d * N;
        MOVE_NO_ALIAS
        for (i = 0; i < n; i++) od[i] = pd[i] + s * xd[i];
    }
}

/* A non-negative float's order is its bits' order as an integer, so the
 * largest |x| is an integer maximum, which vectorises (a float compare
 * that skips NaN does not); NaN's bits, above infinity's, are dropped. */
static void loop_max_abs_bits(unsigned *restrict m, const float *restrict x, int n)
{
    unsigned best = *m;
    int i;
    for (i = 0; i < n; i++) {
        unsigned u;
        memcpy(&u, &x[i], sizeof u);
        u &= 0x7fffffffu;
        u &= 0u - (unsigned)(u <= 0x7f800000u); /* a mask, not a select: GCC vectorises it */
        best = best > u ? best : u;
    }
    *m = best;
}

/* Each turned plane in its own loop: one multiply and one or two fused
 * multiply-adds per point (turned_off), as the kernels read a turn. */
static void loop_turn(float *restrict q, const float *const *p, const float m[3][3], int axes, int n)
{
    const float *f[3] = {p[0], p[1], axes == 3 ? p[2] : p[1]};
    int d, i;
    for (d = 0; d < axes; d++) {
        const float t[3] = {m[d][0], m[d][1], m[d][2]};
        float *restrict qd = q + (size_t)d * (size_t)n;
        if (axes == 3)
            for (i = 0; i < n; i++) qd[i] = turned_off(t, f, 3, i);
        else
            for (i = 0; i < n; i++) qd[i] = turned_off(t, f, 2, i);
    }
}

static void loop_scale(float *out, const float *x, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] * s;
}

static void loop_scale_bias(float *out, const float *x, float s, float b, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] * s + b;
}

/* ---- fractal octave accumulation (see fractal.c for the bounds) ----------
 * One pass per octave: the first starts the sum (0 + v, the bits of adding
 * to a zeroed sum, -0 included), the last multiplies by the normaliser in
 * the same pass. Each body is inlined with constant flags, so every
 * variant is its own vectorised loop. */

/* the sum so far (0 before the first octave) plus v; that times s on the last octave */
#define ACC_ADD(o, v, first) ((first) ? 0.0f + (v) : (o) + (v))
#define ACC_END(v, s) ((s) != 0.0f ? (v) * (s) : (v))
/* body(args..., first, s, n) called with first and s as constants, so each
 * of the four variants is its own loop with no per-sample test */
#define ACC_VARIANTS(body, ...)                                                                                \
    do {                                                                                                       \
        if (first && s != 0.0f) body(__VA_ARGS__, 1, s, n);                                                    \
        else if (first) body(__VA_ARGS__, 1, 0.0f, n);                                                         \
        else if (s != 0.0f) body(__VA_ARGS__, 0, s, n);                                                        \
        else body(__VA_ARGS__, 0, 0.0f, n);                                                                    \
    } while (0)

static inline void acc_billow_body(float *restrict out, const float *restrict x, float w, int first, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float v = ACC_ADD(out[i], (2.0f * fabsf(x[i]) - 1.0f) * w, first);
        out[i] = ACC_END(v, s);
    }
}

static void loop_acc_billow(float *restrict out, const float *restrict x, float w, int first, float s, int n)
{
    ACC_VARIANTS(acc_billow_body, out, x, w);
}

/* |sum| <= partial weight, so (sum * inv + 0.5), inv = 0.5 / partial, is in
 * [0, 1]; the first octave is x w (no partial sum to scale it by) */
static inline void acc_terrain_body(float *restrict out, const float *restrict x, float w, float inv, int first,
                                    float s, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float v = first ? x[i] * w : out[i] + x[i] * w * (out[i] * inv + 0.5f);
        out[i] = ACC_END(v, s);
    }
}

static void loop_acc_terrain(float *restrict out, const float *restrict x, float w, float inv, int first, float s,
                             int n)
{
    ACC_VARIANTS(acc_terrain_body, out, x, w, inv);
}

/* state: the running weight, in [0, 1] (1 before the first octave),
 * times (x + offset) gain after each octave (Musgrave's offset; gain 1 and
 * offset 1 are the weights before 0.2.0, bit for bit) */
static inline void acc_hybrid_body(float *restrict out, float *restrict state, const float *restrict x, float w,
                                   float offset, float gain, int first, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float st = first ? 1.0f : state[i], v = first ? x[i] * w : out[i] + x[i] * w * st;
        const float next = st * (x[i] + offset) * gain;
        out[i] = ACC_END(v, s);
        state[i] = next < 0.0f ? 0.0f : next > 1.0f ? 1.0f : next;
    }
}

static void loop_acc_hybrid(float *restrict out, float *restrict state, const float *restrict x, float w,
                            float offset, float gain, int first, float s, int n)
{
    ACC_VARIANTS(acc_hybrid_body, out, state, x, w, offset, gain);
}

/* Musgrave's ridged multifractal: signal (offset - |n|)^2, weighted by the
 * previous signal times gain, clamped to [0, 1] (offset 1 and gain 2, the
 * defaults, are the sum before 0.2.0 bit for bit) */
static inline void acc_ridged_body(float *restrict out, float *restrict state, const float *restrict x, float w,
                                   float offset, float gain, int first, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float r = offset - fabsf(x[i]), sig = r * r, wt = first ? 1.0f : state[i];
        const float v = ACC_ADD(out[i], sig * wt * w, first), g = sig * gain;
        out[i] = ACC_END(v, s);
        state[i] = g < 0.0f ? 0.0f : g > 1.0f ? 1.0f : g;
    }
}

static void loop_acc_ridged(float *restrict out, float *restrict state, const float *restrict x, float w,
                            float offset, float gain, int first, float s, int n)
{
    ACC_VARIANTS(acc_ridged_body, out, state, x, w, offset, gain);
}

#undef ACC_ADD
#undef ACC_END
#undef ACC_VARIANTS

/* ---- cloud (see cloud.c) ------------------------------------------------- */

/* the next octave's position: p + gradient so far * dg + value so far * dv */
static void loop_displace(float *restrict out, const float *restrict p, const float *restrict g, float dg,
                       const float *restrict v, float dv, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = p[i] + g[i] * dg + v[i] * dv;
}

/* Worley puffs 1 - 2 F1 blended in with weight w, renormalised by s */
static void loop_puff(float *restrict out, const float *restrict x, float w, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = (out[i] + w * (1.0f - 2.0f * x[i])) * s;
}

/* ---- distance (see coords.c) ---------------------------------------------- */

/* one axis of a distance: v = |a + p| (the sum in double), then out + v v
 * (euclidean, 0), out + v (manhattan, 1) or the larger of v and out (chebyshev) */
static void loop_acc_distance(float *restrict out, const float *restrict p, double a, int metric, int n)
{
    int i;
    if (metric == 0)
        for (i = 0; i < n; i++) {
            const float v = fabsf((float)(a + (double)p[i]));
            out[i] = out[i] + v * v;
        }
    else if (metric == 1)
        for (i = 0; i < n; i++) out[i] = out[i] + fabsf((float)(a + (double)p[i]));
    else
        for (i = 0; i < n; i++) {
            const float v = fabsf((float)(a + (double)p[i]));
            out[i] = v > out[i] ? v : out[i];
        }
}

/* ---- warp (see warp.c) ------------------------------------------------------------- */

/* J += w (a dF + f ga), dF = scale fg (J if through_J), and pos += a w f: the
 * rounding order of the generic 3D/4D steps in warp.c, in one pass (a 0.0f
 * start where they sum from zero; a flat amount leaves out f ga, +-0 that
 * cannot change J, which is never -0). */
static inline void warp_step2(float *restrict J, float *restrict pos, const float *restrict a,
                              const float *restrict f, const float *restrict fg, const float *restrict ga, float w,
                              float s, int through_J, int first, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float j00 = first ? 1.0f : J[i], j01 = first ? 0.0f : J[n + i];
        const float j10 = first ? 0.0f : J[2 * n + i], j11 = first ? 1.0f : J[3 * n + i];
        const float g00 = fg[i] * s, g01 = fg[n + i] * s, g10 = fg[2 * n + i] * s, g11 = fg[3 * n + i] * s;
        const float ai = a[i], f0 = f[i], f1 = f[n + i];
        float d00 = g00, d01 = g01, d10 = g10, d11 = g11, t00, t01, t10, t11;
        if (through_J) {
            d00 = (0.0f + g00 * j00) + g01 * j10, d01 = (0.0f + g00 * j01) + g01 * j11;
            d10 = (0.0f + g10 * j00) + g11 * j10, d11 = (0.0f + g10 * j01) + g11 * j11;
        }
        t00 = ai * d00, t01 = ai * d01, t10 = ai * d10, t11 = ai * d11;
        if (ga) {
            t00 = t00 + f0 * ga[i], t01 = t01 + f0 * ga[n + i];
            t10 = t10 + f1 * ga[i], t11 = t11 + f1 * ga[n + i];
        }
        J[i] = j00 + w * t00, J[n + i] = j01 + w * t01;
        J[2 * n + i] = j10 + w * t10, J[3 * n + i] = j11 + w * t11;
        pos[i] += ai * w * f0;
        pos[n + i] += ai * w * f1;
    }
}

/* one loop per case, each vectorised (the first octave starts from the identity) */
static void loop_warp_step2(float *restrict J, float *restrict pos, const ng_warp_octave2 *o, int n)
{
    if (o->first && o->ga)
        warp_step2(J, pos, o->a, o->f, o->fg, o->ga, o->w, o->scale, 0, 1, n);
    else if (o->first)
        warp_step2(J, pos, o->a, o->f, o->fg, NULL, o->w, o->scale, 0, 1, n);
    else if (o->ga)
        warp_step2(J, pos, o->a, o->f, o->fg, o->ga, o->w, o->scale, o->through_J, 0, n);
    else
        warp_step2(J, pos, o->a, o->f, o->fg, NULL, o->w, o->scale, o->through_J, 0, n);
}

/* J of a warp's only octave, from the identity (warp_step2's first octave,
 * the same bits), without storing it */
static inline void warp_apply2_one(float *restrict g, const float *restrict sg, const float *restrict a,
                                   const float *restrict f, const float *restrict fg, const float *restrict ga,
                                   float w, int channels, int n)
{
    int c, i;
    for (c = 0; c < channels; c++, g += 2 * n, sg += 2 * n)
        for (i = 0; i < n; i++) {
            const float ai = a[i], s0 = sg[i], s1 = sg[n + i];
            float t00 = ai * fg[i], t01 = ai * fg[n + i], t10 = ai * fg[2 * n + i], t11 = ai * fg[3 * n + i];
            float j00, j01, j10, j11;
            if (ga) {
                t00 = t00 + f[i] * ga[i], t01 = t01 + f[i] * ga[n + i];
                t10 = t10 + f[n + i] * ga[i], t11 = t11 + f[n + i] * ga[n + i];
            }
            j00 = 1.0f + w * t00, j01 = 0.0f + w * t01, j10 = 0.0f + w * t10, j11 = 1.0f + w * t11;
            g[i] = (0.0f + s0 * j00) + s1 * j10;
            g[n + i] = (0.0f + s0 * j01) + s1 * j11;
        }
}

static void loop_warp_apply2(float *restrict g, const float *restrict sg, const float *restrict J,
                             const ng_warp_octave2 *o, int channels, int n)
{
    int c, i;
    if (!J && o->ga) {
        warp_apply2_one(g, sg, o->a, o->f, o->fg, o->ga, o->w, channels, n);
        return;
    }
    if (!J) {
        warp_apply2_one(g, sg, o->a, o->f, o->fg, NULL, o->w, channels, n);
        return;
    }
    for (c = 0; c < channels; c++, g += 2 * n, sg += 2 * n)
        for (i = 0; i < n; i++) {
            const float s0 = sg[i], s1 = sg[n + i];
            g[i] = (0.0f + s0 * J[i]) + s1 * J[2 * n + i];
            g[n + i] = (0.0f + s0 * J[n + i]) + s1 * J[3 * n + i];
        }
}

/* ---- surface (see surface.c) ------------------------------------------------------- */

/* the normal (-gx, -gy, 1) / length of z = hs h, dotted with the light */
static void loop_light(float *restrict out, const float *restrict gx, const float *restrict gy, float hs, float lx,
                       float ly, float lz, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float x = hs * gx[i], y = hs * gy[i], slope2 = x * x + y * y;
        const float inv = 1.0f / sqrtf(1.0f + slope2), d = -x * inv * lx + -y * inv * ly + inv * lz;
        out[i] = d > 0.0f ? d : 0.0f;
    }
}

/* The grid shading's own arithmetic (new in 0.2.0, so free to differ from
 * loop_light's): the dot product of the light with the normal (-x, -y,
 * 1) times its reciprocal length 1 / sqrt(s), s = 1 + x^2 + y^2, by
 * multiplies and fused multiply-adds alone: no square root, no division,
 * the same bits on every path (fma_f is fused everywhere). The estimate
 * y0 from the float's bits (rsqrt_estimate, bits.h) is within 3.5%, and
 * the light is num y0 (1 - e)^(-1/2), e = 1 - s y0^2, by rsqrt_series
 * (within 4.7e-8, below the float rounding), clamped to [0, 1] by
 * integer maxima and minima on the bits
 * (a non-negative float orders as its bits; a NaN height gives 0 or 1,
 * the same on every path, and so does a slope whose square overflows a
 * float, heights 1e19 spacings apart, where the division gave 0). tests/test_gradients.c checks it against the
 * exact light. The square root and division it replaces are the slowest
 * instructions of the loop: on an Intel Xeon (AVX-512) they made it 9 %
 * of a shaded alligator render (perf); this is 8 multiplies and fused
 * multiply-adds for the length (scaled ahead: x lx = a (kh lx) with a the
 * difference), where the hardware pair took a Zen 4 core about as long
 * as 12 such operations. */
static void loop_light_grid(float *restrict out, const float *restrict c, ptrdiff_t w, float k, float hs,
                            float lx, float ly, float lz, int n)
{
    const float kh = k * hs, ax = kh * lx, ay = kh * ly, k2 = kh * kh;
    int i;
    for (i = 0; i < n; i++) {
        const float a = c[i + 1] - c[i - 1], b = c[i + w] - c[i - w];
        const float num = fma_f(-b, ay, fma_f(-a, ax, lz)), s = fma_f(k2, fma_f(a, a, b * b), 1.0f);
        const float y = rsqrt_estimate(s), e = rsqrt_residue(s, y), r0 = num * y;
        const int32_t r = (int32_t)f2u(fma_f(r0 * e, rsqrt_series(e), r0));
        const uint32_t lo = (uint32_t)(r > 0 ? r : 0); /* then unsigned: a minimum, not a compare and a blend */
        out[i] = u2f(lo < 0x3f800000u ? lo : 0x3f800000u);
    }
}

/* ---- smooth min and max, fit (see math.c) ------------------------------------------ */

/* Bit-pattern selects instead of branches, so every path vectorises them;
 * the same bits as math.c's former scalar ternaries (NaN compares false). */
static void loop_smooth_min(float *restrict out, const float *restrict x, const float *restrict y, float k,
                            float sign, int n)
{
    const float q = k > 0.0f ? 0.25f / k : 0.0f;
    int i;
    for (i = 0; i < n; i++) {
        const float a = sign * x[i], c = sign * y[i], m = select_f(a < c, a, c);
        float e = k - fabsf(a - c);
        e = select_f(e > 0.0f, e, 0.0f);
        out[i] = sign * (m - e * e * q);
    }
}

/* dm the side min takes, de = -sign(a - c) (da - dc) where e > 0 */
static void loop_smooth_slope(float *restrict out, const float *restrict x, const float *restrict y,
                              const float *restrict gx, const float *restrict gy, float k, float sign, int n)
{
    const float q = k > 0.0f ? 0.25f / k : 0.0f;
    int i;
    for (i = 0; i < n; i++) {
        const float a = sign * x[i], c = sign * y[i], da = sign * gx[i], dc = sign * gy[i];
        const float dm = select_f(a < c, da, dc), diff = a - c;
        const float s1 = select_f(diff > 0.0f, 1.0f, select_f(diff < 0.0f, -1.0f, 0.0f));
        float e = k - fabsf(diff), de;
        e = select_f(e > 0.0f, e, 0.0f);
        de = select_f(e > 0.0f, -s1 * (da - dc), 0.0f);
        out[i] = sign * (dm - 2.0f * e * q * de);
    }
}

static void loop_fit_slope(float *restrict out, const float *restrict x, const float *restrict g, float s, float b,
                           float lo, float hi, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float v = x[i] * s + b;
        out[i] = select_f((v < lo) | (v > hi), 0.0f, g[i] * s);
    }
}

static void loop_acc_grad(float *restrict G, const float *restrict g, float gs, float fw, int first, int n)
{
    int i;
    if (first)
        for (i = 0; i < n; i++) G[i] = 0.0f + g[i] * gs * fw;
    else
        for (i = 0; i < n; i++) G[i] += g[i] * gs * fw;
}

/* ---- the erosion filter (see nodes/erosion.c) ------------------------------------------ */

/* The arithmetic is multiplies and fused multiply-adds (fma_f: the same
 * bits on every path), with no division or square root: on an Intel Xeon
 * (AVX-512) the separate multiplies and adds, the division and the square
 * root made 4 octaves of the filter cost 0.91 to 0.98 times the terrain
 * they filter (make bench, paired; perf: the loop 36 % of the eroded
 * render, the terrain's kernels 41 %), 0.74 to 0.83 since; see
 * CHANGELOG.md (0.2.0) for the bits. */

/* sin and cos of 2 pi z for z in [-0.5, 0.5]: Taylor series of the half
 * angle a (|a| <= pi / 2; errors below 5e-3 and 2e-2, smooth, which only
 * bends a stripe imperceptibly), then the double angle; *s gets half the
 * sine (sin a cos a: the caller doubles its sum once). */
static inline __attribute__((always_inline)) void sincos_turn(float z, float *s, float *c)
{
    const float a = z * 3.14159265f, a2 = a * a;
    const float sh = fma_f(a * a2, fma_f(a2, 1.0f / 120.0f, -1.0f / 6.0f), a);
    const float ch = fma_f(a2, fma_f(a2, 1.0f / 24.0f, -0.5f), 1.0f);
    *s = sh * ch;
    *c = fma_f(ch, ch, -(sh * sh));
}

/* |atan2(y, x)| / pi in [0, 1] (0 along +x), 0 at the origin: an odd
 * minimax polynomial of atan on [0, 1] (error below 1e-5 of a half turn),
 * its coefficients divided by pi, of the octant's tangent (recip_f's
 * quotient, within 6.6e-6), then the octant folded back with selects. */
static inline __attribute__((always_inline)) float half_turns(float y, float x)
{
    const float ax = fabsf(x), ay = fabsf(y), hi = select_f(ax > ay, ax, ay), lo = select_f(ax > ay, ay, ax);
    /* recip_f wants a normal float: below 1e-30 the blend's squared
     * length (r, below) is 0 and the angle counts for nothing */
    const int some = hi > 1e-30f;
    const float t = select_f(some, lo * recip_f(select_f(some, hi, 1.0f)), 0.0f), t2 = t * t;
    float p = fma_f(t2, -0.01172120f * 0.31830989f, 0.05265332f * 0.31830989f);
    p = fma_f(p, t2, -0.11643287f * 0.31830989f);
    p = fma_f(p, t2, 0.19354346f * 0.31830989f);
    p = fma_f(p, t2, -0.33262347f * 0.31830989f);
    p = t * fma_f(p, t2, 0.99997726f * 0.31830989f);
    p = select_f(ay > ax, 0.5f - p, p);
    return select_f(x < 0.0f, 1.0f - p, p);
}

/* x with its magnitude at most 2^30 (NaN and infinities too), so floor_f
 * and the integer conversions after it are defined: a bit-pattern clamp,
 * the same on every path */
static inline __attribute__((always_inline)) float erosion_bounded(float x)
{
    const uint32_t u = f2u(x), mag = u & 0x7fffffffu;
    return u2f((u & 0x80000000u) | (mag < 0x4e800000u ? mag : 0x4e800000u));
}

/* One cell's stripe, added to the sums with weight q: a wave of one
 * cell's wavelength across the slope direction (its crests run downhill)
 * with a crest through the cell's pivot, a point of the cell chosen by
 * its hash (hx ^ hy: the cell's coordinates times odd constants, the seed
 * in hx); (fx, fy) is the point from the cell's corner, in cells, |fx|,
 * |fy| <= 1.5, and |tx|, |ty| <= 2 (erosion_points), so |z| < 6 and
 * floor_f is defined. *s gets half the sine (sincos_turn). */
static inline __attribute__((always_inline)) void erosion_cell(uint32_t hx, uint32_t hy, float fx, float fy,
                                                              float tx, float ty, float q, float *c, float *s)
{
    uint32_t h = hx ^ hy;
    float z, sn, cs;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    z = fma_f(fma_f((float)(int32_t)(h & 0xffffu), -1.0f / 65536.0f, fx), tx,
              fma_f((float)(int32_t)(h >> 16), -1.0f / 65536.0f, fy) * ty); /* the phase in turns */
    z = z - floor_f(z + 0.5f);
    sincos_turn(z, &sn, &cs);
    *c = fma_f(q, cs, *c);
    *s = fma_f(q, sn, *s);
}

/* The rounded triangle profile of u in [0, 1] (0: the ridge, 1: the
 * gully): 1 - 2u, its ends replaced by parabolas of width kw / 2 (k = 0.5
 * / width, 0 for none) meeting the line with the same slope. *slope gets
 * -dy / du / 2. */
static inline __attribute__((always_inline)) float erosion_profile(float u, float rk, float rw, float gk, float gw,
                                                                  float *slope)
{
    const int ridge = u < 0.5f;
    const float v = select_f(ridge, u, 1.0f - u), k = select_f(ridge, rk, gk), wd = select_f(ridge, rw, gw);
    const int in = v < wd;
    const float vk = v * k, d = select_f(in, fma_f(v, vk, wd * 0.5f), v);
    *slope = select_f(in, vk + vk, 1.0f);
    return fma_f(d, select_f(ridge, -2.0f, 2.0f), select_f(ridge, 1.0f, -1.0f));
}

/* restrict parameters, not locals: GCC's vectoriser sees through these
 * alone (else it gives up on the run-time alias checks of 10 arrays).
 * masks 0 (a constant where it is inlined): ridge and crease are not
 * read or written, and h, gx, gy get the same bits. */
static inline __attribute__((always_inline)) void erosion_points(
    const float *restrict px, const float *restrict py, const float *restrict amp, const float *restrict off,
    const float *restrict mask, float *restrict gx, float *restrict gy, float *restrict h, float *restrict ridge,
    float *restrict crease, const ng_erosion_octave *o, int n, const int masks)
{
    const float inv = o->inv, fx0 = o->frac[0] - 0.5f, fy0 = o->frac[1] - 0.5f, depth = o->depth, share = o->share;
    const float rk = o->ridge_k, rw = o->ridge_w, gk = o->gully_k, gw = o->gully_w, inv4 = 4.0f * inv;
    const uint32_t c0 = o->cell[0], c1 = o->cell[1], seed = o->seed;
    int i;
    for (i = 0; i < n; i++) {
        /* the 2 x 2 cells whose centres surround the point, weighted by
         * smoothstep fades of its place between the centres: the weights
         * sum to 1 and a cell's reaches 0 before it leaves the four */
        const float x = erosion_bounded(fma_f(px[i], inv, fx0)), y = erosion_bounded(fma_f(py[i], inv, fy0));
        const float flx = floor_f(x), fly = floor_f(y);
        const uint32_t mx = (c0 + (uint32_t)(int32_t)flx) * 0x8da6b343u, my = (c1 + (uint32_t)(int32_t)fly) * 0xd8163841u;
        const float ux = x - flx, uy = y - fly, sx = ux * ux * fma_f(-2.0f, ux, 3.0f),
                    sy = uy * uy * fma_f(-2.0f, uy, 3.0f), nx = 1.0f - sx, ny = 1.0f - sy;
        /* across the slope, unit (rsqrt_f; a flat point's is 0): a
         * NaN or infinite gradient gives none */
        const float g2 = fma_f(gx[i], gx[i], gy[i] * gy[i]), il = rsqrt_f(g2);
        const float tx0 = -gy[i] * il, ty0 = gx[i] * il;
        const float tx = select_f(fabsf(tx0) <= 2.0f, tx0, 0.0f), ty = select_f(fabsf(ty0) <= 2.0f, ty0, 0.0f);
        float c = 0.0f, s = 0.0f, r, u, yv, slope, e, er, de;
        /* the next cells' products are these plus the constants */
        const uint32_t hx = mx ^ seed, hxn = (mx + 0x8da6b343u) ^ seed, hy = my, hyn = my + 0xd8163841u;
        erosion_cell(hx, hy, ux + 0.5f, uy + 0.5f, tx, ty, nx * ny, &c, &s);
        erosion_cell(hxn, hy, ux - 0.5f, uy + 0.5f, tx, ty, sx * ny, &c, &s);
        erosion_cell(hx, hyn, ux + 0.5f, uy - 0.5f, tx, ty, nx * sy, &c, &s);
        erosion_cell(hxn, hyn, ux - 0.5f, uy - 0.5f, tx, ty, sx * sy, &c, &s);
        s = s + s; /* the cells' half sines (sincos_turn) */
        /* r: how well the cells' stripes agree, 1 where they are in phase
         * (the squared length of their blend: no square root, and a
         * sharper fade where they cancel) */
        r = fma_f(c, c, s * s);
        r = select_f(r < 1.0f, r, 1.0f);
        u = half_turns(s, c);
        yv = erosion_profile(u, rk, rw, gk, gw, &slope);
        e = amp[i] * depth;
        er = e * r;
        h[i] = fma_f(e, fma_f(r, yv, -off[i]), h[i]);
        /* d/dx of r y(u) along t, r held: y'(u) du/dphase (sign of the
         * phase over pi) dphase/dx (2 pi inv) */
        de = er * slope * select_f(s < 0.0f, inv4, -inv4);
        gx[i] = fma_f(de, tx, gx[i]);
        gy[i] = fma_f(de, ty, gy[i]);
        if (masks) {
            ridge[i] = fma_f(share * mask[i] * r, select_f(yv > 0.0f, yv * yv, 0.0f), ridge[i]);
            crease[i] = fma_f(share * mask[i] * r, select_f(yv < 0.0f, yv * yv, 0.0f), crease[i]);
        }
    }
}

/* The clamps are selects, which vectorise (fminf and fmaxf are calls):
 * the values of the ternaries they replace (a NaN clamps to 0, and a NaN
 * or infinite slope to 1). */
static void loop_erosion_prepare(const ng_erosion_prep *q, const float *restrict v, const float *restrict gx,
                                 const float *restrict gy, float *restrict amp, float *restrict off,
                                 float *restrict mask, int n)
{
    const float lo = q->lo, inv = q->inv, keep = q->keep, strength = q->strength, mk = q->mk;
    int i;
    for (i = 0; i < n; i++) {
        const float x = (v[i] - lo) * inv, c = select_f(x > 0.0f, x, 0.0f), t = select_f(c < 1.0f, c, 1.0f);
        const float sg = 2.0f * t - 1.0f, fade = 1.0f - keep * sg * sg, m = sqrtf(gx[i] * gx[i] + gy[i] * gy[i]);
        off[i] = sg;
        amp[i] = strength * m * fade;
    }
    for (i = 0; mask && i < n; i++) {
        const float x = (v[i] - lo) * inv, c = select_f(x > 0.0f, x, 0.0f), t = select_f(c < 1.0f, c, 1.0f);
        const float sg = 2.0f * t - 1.0f, fade = 1.0f - keep * sg * sg;
        const float r = sqrtf(gx[i] * gx[i] + gy[i] * gy[i]) * mk;
        mask[i] = fade * select_f(r < 1.0f, r, 1.0f);
    }
}

static __attribute__((noinline)) void erosion_height(const ng_erosion_pts *p, const ng_erosion_octave *o, int n)
{
    erosion_points(p->x, p->y, p->amp, p->off, p->mask, p->gx, p->gy, p->h, NULL, NULL, o, n, 0);
}

static __attribute__((noinline)) void erosion_masks(const ng_erosion_pts *p, const ng_erosion_octave *o, int n)
{
    erosion_points(p->x, p->y, p->amp, p->off, p->mask, p->gx, p->gy, p->h, p->ridge, p->crease, o, n, 1);
}

static void loop_erosion_octave(const ng_erosion_pts *p, const ng_erosion_octave *o, int n)
{
    if (p->ridge) erosion_masks(p, o, n);
    else erosion_height(p, o, n);
}

/* nodes/simd/<path>.c puts it in the path's table. */
#define NG__LOOP_REF(name, params) .name = loop_##name,
#define NG_LOOP_TABLE {NG_LOOPS(NG__LOOP_REF)}
