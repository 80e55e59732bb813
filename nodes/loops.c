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

/* ---- fractal octave accumulation (see fractal.c for the bounds) ---------- */

static void loop_acc_billow(float *restrict out, const float *restrict x, float w, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += (2.0f * fabsf(x[i]) - 1.0f) * w;
}

/* |sum| <= partial weight, so (sum * inv + 0.5), inv = 0.5 / partial, is in [0, 1] */
static void loop_acc_terrain(float *restrict out, const float *restrict x, float w, float inv, int first, int n)
{
    int i;
    if (first)
        for (i = 0; i < n; i++) out[i] = x[i] * w;
    else
        for (i = 0; i < n; i++) out[i] += x[i] * w * (out[i] * inv + 0.5f);
}

/* state: the running weight, in [0, 1] */
static void loop_acc_hybrid(float *restrict out, float *restrict state, const float *restrict x, float w, int first, int n)
{
    int i;
    if (first)
        for (i = 0; i < n; i++) out[i] = x[i] * w, state[i] = 1.0f;
    else
        for (i = 0; i < n; i++) out[i] += x[i] * w * state[i];
    for (i = 0; i < n; i++) {
        float s = state[i] * (x[i] + 1.0f);
        state[i] = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
    }
}

/* signal (1 - |n|)^2 in [0, 1], weighted by the previous signal times 2,
 * clamped to [0, 1] (Musgrave's gain) */
static void loop_acc_ridged(float *restrict out, float *restrict state, const float *restrict x, float w, int first, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        float r = 1.0f - fabsf(x[i]), sig = r * r, wt = first ? 1.0f : state[i];
        out[i] += sig * wt * w;
        wt = sig * 2.0f;
        state[i] = wt < 0.0f ? 0.0f : wt > 1.0f ? 1.0f : wt;
    }
}

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

/* nodes/simd/<path>.c puts it in the path's table. */
#define NG__LOOP_REF(name, params) .name = loop_##name,
#define NG_LOOP_TABLE {NG_LOOPS(NG__LOOP_REF)}
