/* loops.c — element-wise loops, one source for every SIMD path (loops.h). */
#include "loops.h"

#include <math.h>

NG_LOOP_DECLS()

#define LOOP2(name, expr)                                                                                     \
    void name(float *restrict out, const float *restrict x, const float *restrict y, int n)                  \
    {                                                                                                         \
        int i;                                                                                                \
        for (i = 0; i < n; i++) out[i] = (expr);                                                              \
    }

LOOP2(ng__loop_add, x[i] + y[i])
LOOP2(ng__loop_sub, x[i] - y[i])
LOOP2(ng__loop_mul, x[i] * y[i])
LOOP2(ng__loop_div, x[i] / y[i])
LOOP2(ng__loop_min, x[i] < y[i] ? x[i] : y[i])
LOOP2(ng__loop_max, x[i] > y[i] ? x[i] : y[i])

void ng__loop_axpy(float *restrict out, const float *restrict x, float w, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += x[i] * w;
}

void ng__loop_axpy_masked(float *restrict out, const float *restrict a, float w, const float *restrict x, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += a[i] * w * x[i];
}

void ng__loop_scale(float *out, const float *x, float s, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] * s;
}

void ng__loop_scale_bias(float *out, const float *x, float s, float b, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] * s + b;
}

/* ---- fractal octave accumulation (see fractal.c for the bounds) ---------- */

void ng__loop_acc_billow(float *restrict out, const float *restrict x, float w, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += (2.0f * fabsf(x[i]) - 1.0f) * w;
}

/* |sum| <= partial weight, so (sum * inv + 0.5), inv = 0.5 / partial, is in [0, 1] */
void ng__loop_acc_terrain(float *restrict out, const float *restrict x, float w, float inv, int first, int n)
{
    int i;
    if (first)
        for (i = 0; i < n; i++) out[i] = x[i] * w;
    else
        for (i = 0; i < n; i++) out[i] += x[i] * w * (out[i] * inv + 0.5f);
}

/* state: the running weight, in [0, 1] */
void ng__loop_acc_hybrid(float *restrict out, float *restrict state, const float *restrict x, float w, int first, int n)
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
void ng__loop_acc_ridged(float *restrict out, float *restrict state, const float *restrict x, float w, int first, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        float r = 1.0f - fabsf(x[i]), sig = r * r, wt = first ? 1.0f : state[i];
        out[i] += sig * wt * w;
        wt = sig * 2.0f;
        state[i] = wt < 0.0f ? 0.0f : wt > 1.0f ? 1.0f : wt;
    }
}
