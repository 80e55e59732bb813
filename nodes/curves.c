/*
 * curves.c — remapping a value through control points: terrace (flat steps
 * with eased risers, libnoise's Terrace) and curve (a monotone cubic through
 * points, Fritsch-Carlson, so it never overshoots between them).
 */
#include "ng_node.h"
#include "types.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

#define ALL_DIMS 0x1Eu

static const ng_input_desc source_input[] = {
    {"source", 0, 1, NG_MAX_CHANNELS, 0, "the value remapped"},
};

/* Index of the segment [x[i], x[i+1]] holding v (points sorted, n >= 2). */
static int segment(const float *x, int n, float v)
{
    int lo = 0, hi = n - 2;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (v >= x[mid]) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* ---- terrace ----------------------------------------------------------- */

static const ng_param_desc terrace_params[] = {
    {"steps", NG_PARAM_INT, {0}, 0, 1000, NULL, "that many even terraces between lo and hi (or give points)"},
    {"points", NG_PARAM_LIST, {1, 2, 256}, -1e30, 1e30, NULL, "terrace levels, increasing (instead of steps)"},
    {"lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "lowest level, with steps"},
    {"hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "highest level, with steps"},
    {"invert", NG_PARAM_BOOL, {0}, 0, 1, NULL, "ease the risers the other way (sharp lips instead of sharp feet)"},
    {"sharpness", NG_PARAM_NUMBER, {2}, 1, 64, NULL,
     "riser easing exponent: 1 is no terracing, 2 libnoise's, higher makes flatter terraces and steeper risers"},
};

/* state: float levels[count] */
static int terrace_setup(ng_node *n, const int *ch, ng_error *err)
{
    const ng_value *pts = &n->param[1];
    int steps = ng_int(n, 0), count = steps ? steps + 1 : pts->count, i;
    float *lv;
    if (steps && pts->count)
        return ng_errorf(err, "%s: give steps or points, not both", n->label);
    if (count < 2) return ng_errorf(err, "%s: needs steps >= 1 or at least 2 points", n->label);
    if (!(lv = malloc((size_t)count * sizeof *lv))) return ng_errorf(err, "%s: out of memory", n->label);
    for (i = 0; i < count; i++) {
        lv[i] = steps ? (float)(ng_num(n, 2) + (ng_num(n, 3) - ng_num(n, 2)) * i / steps) : (float)pts->list[i];
        if (i && !(lv[i] > lv[i - 1])) {
            double cur = lv[i], prev = lv[i - 1];
            free(lv);
            return ng_errorf(err, "%s: terrace levels must increase (level %d is %g after %g)", n->label, i + 1,
                             cur, prev);
        }
    }
    n->state = lv;
    n->k[0] = count;
    n->channels = ch[0];
    return 0;
}

static int terrace_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const float *lv = n->state;
    const int count = (int)n->k[0], inv = ng_int(n, 4), len = b->n * n->channels;
    const float e = (float)ng_num(n, 5);
    int i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        float v = in[0][i], a, c, t;
        int s;
        if (!(v > lv[0])) { out[i] = lv[0]; continue; } /* also NaN */
        if (v >= lv[count - 1]) { out[i] = lv[count - 1]; continue; }
        s = segment(lv, count, v);
        a = lv[s], c = lv[s + 1];
        t = (v - a) / (c - a);
        if (inv) t = 1.0f - t, a = lv[s + 1], c = lv[s];
        out[i] = a + (c - a) * (e == 2.0f ? t * t : powf(t, e));
    }
    return 0;
}

const ng_node_type ng_type_terrace = {
    .name = "terrace", .family = "math",
    .doc = "flat terraces at the given levels joined by eased risers (libnoise's Terrace): stepped mesas and "
           "rice-field hills from any height",
    .params = terrace_params, .nparams = 6, .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS,
    .method = "terrace", .positional = "source,steps", .setup = terrace_setup, .eval = terrace_eval,
};

/* ---- curve -------------------------------------------------------------------- */

static const ng_param_desc curve_params[] = {
    {"points", NG_PARAM_LIST, {2, 2, 256}, -1e30, 1e30, NULL,
     "control points {{x, y}, ...} with increasing x; the curve passes through each"},
};

/* state: x[n], y[n], m[n] (tangents) */
static int curve_setup(ng_node *n, const int *ch, ng_error *err)
{
    const ng_value *pts = &n->param[0];
    const int np = pts->count / 2;
    float *x, *y, *m;
    double *delta;
    int i;
    if (np < 2) return ng_errorf(err, "%s: needs at least 2 points {{x, y}, {x, y}}", n->label);
    if (!(x = malloc((size_t)np * 3 * sizeof *x)) || !(delta = malloc((size_t)np * sizeof *delta))) {
        free(x);
        return ng_errorf(err, "%s: out of memory", n->label);
    }
    y = x + np;
    m = y + np;
    for (i = 0; i < np; i++) {
        x[i] = (float)pts->list[2 * i];
        y[i] = (float)pts->list[2 * i + 1];
        if (i && !(x[i] > x[i - 1])) {
            double cur = x[i], prev = x[i - 1];
            free(x);
            free(delta);
            return ng_errorf(err, "%s: point %d has x = %g, not above the previous %g", n->label, i + 1, cur, prev);
        }
    }
    /* Fritsch-Carlson: secant slopes, averaged at interior points, zero at
     * extrema, limited so each segment stays monotone */
    for (i = 0; i < np - 1; i++) delta[i] = ((double)y[i + 1] - y[i]) / ((double)x[i + 1] - x[i]);
    m[0] = (float)delta[0];
    m[np - 1] = (float)delta[np - 2];
    for (i = 1; i < np - 1; i++) m[i] = delta[i - 1] * delta[i] <= 0 ? 0.0f : (float)((delta[i - 1] + delta[i]) / 2);
    for (i = 0; i < np - 1; i++) {
        double a, b2, s;
        if (delta[i] == 0) {
            m[i] = m[i + 1] = 0;
            continue;
        }
        a = m[i] / delta[i];
        b2 = m[i + 1] / delta[i];
        s = a * a + b2 * b2;
        if (s > 9) {
            double tau = 3 / sqrt(s);
            m[i] = (float)(tau * a * delta[i]);
            m[i + 1] = (float)(tau * b2 * delta[i]);
        }
    }
    free(delta);
    n->state = x;
    n->k[0] = np;
    n->channels = ch[0];
    return 0;
}

static int curve_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int np = (int)n->k[0], len = b->n * n->channels;
    const float *x = n->state, *y = x + np, *m = y + np;
    int i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        float v = in[0][i], h, t, t2, t3;
        int s;
        if (!(v > x[0])) { out[i] = y[0]; continue; }
        if (v >= x[np - 1]) { out[i] = y[np - 1]; continue; }
        s = segment(x, np, v);
        h = x[s + 1] - x[s];
        t = (v - x[s]) / h;
        t2 = t * t, t3 = t2 * t;
        /* y0 + (y1 - y0) h01 + h (m0 h10 + m1 h11): exact on plateaus (y0 = y1, m = 0) */
        out[i] = y[s] + (y[s + 1] - y[s]) * (3 * t2 - 2 * t3) + h * (m[s] * (t3 - 2 * t2 + t) + m[s + 1] * (t3 - t2));
    }
    return 0;
}

const ng_node_type ng_type_curve = {
    .name = "curve", .family = "math",
    .doc = "remaps through a smooth monotone cubic (Fritsch-Carlson) that passes through every control point and "
           "never overshoots between them; flat beyond the first and last points",
    .params = curve_params, .nparams = 1, .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS,
    .method = "curve", .positional = "source,points", .setup = curve_setup, .eval = curve_eval,
};
