/*
 * curves.c — remapping a value through control points: terrace (flat steps
 * with eased risers, libnoise's Terrace) and curve (a monotone cubic through
 * points, Fritsch-Carlson, so it never overshoots between them).
 */
#include "ng_node.h"
#include "segment.h"
#include "types.h"
#include "ngmath.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>


enum { I_SOURCE, NINPUTS };

static const ng_input_desc source_input[NINPUTS] = {
    [I_SOURCE] = {"source", 0, 1, NG_MAX_CHANNELS, 0, "the value remapped"},
};

/* ---- terrace ----------------------------------------------------------- */

enum { P_STEPS, P_POINTS, P_LO, P_HI, P_INVERT, P_SHARPNESS, TERRACE_NPARAMS };

static const ng_param_desc terrace_params[TERRACE_NPARAMS] = {
    [P_STEPS] = {"steps", NG_PARAM_INT, {0}, 0, 1000, NULL, "that many even terraces between lo and hi (or give points)"},
    [P_POINTS] = {"points", NG_PARAM_LIST, {1, 2, 256}, -1e30, 1e30, NULL,
                  "terrace levels, increasing (instead of steps)"},
    [P_LO] = {"lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "lowest level, with steps"},
    [P_HI] = {"hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "highest level, with steps"},
    [P_INVERT] = {"invert", NG_PARAM_BOOL, {0}, 0, 1, NULL,
                  "ease the risers the other way (sharp lips instead of sharp feet)"},
    [P_SHARPNESS] = {"sharpness", NG_PARAM_NUMBER, {2}, 1, 64, NULL,
                     "riser easing exponent: 1 is no terracing, 2 libnoise's, higher makes flatter terraces and "
                     "steeper risers"},
};

typedef struct terrace_state {
    int count;      /* levels, at least 2 */
    float level[];  /* increasing */
} terrace_state;

static int terrace_setup(ng_node *n, const int *ch, ng_error *err)
{
    const ng_value *pts = &n->param[P_POINTS];
    const int steps = ng_int(n, P_STEPS), count = steps ? steps + 1 : pts->count;
    const double lo = ng_num(n, P_LO), hi = ng_num(n, P_HI);
    terrace_state *s;
    float *lv;
    int i;
    if (steps && pts->count)
        return ng_errorf(err, "%s: give steps or points, not both", n->label);
    if (count < 2) return ng_errorf(err, "%s: needs steps >= 1 or at least 2 points", n->label);
    if (!(s = ng_node_state_alloc(n, sizeof *s + (size_t)count * sizeof s->level[0], err))) return -1;
    s->count = count;
    lv = s->level;
    for (i = 0; i < count; i++) {
        lv[i] = steps ? (float)(lo + (hi - lo) * i / steps) : (float)pts->list[i];
        if (i && !(lv[i] > lv[i - 1]))
            return ng_errorf(err, "%s: terrace levels must increase (level %d is %g after %g)", n->label, i + 1,
                             (double)lv[i], (double)lv[i - 1]);
    }
    n->channels = ch[I_SOURCE];
    return 0;
}

static int terrace_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const terrace_state *st = n->state;
    const float *lv = st->level;
    const int count = st->count, inv = ng_int(n, P_INVERT), len = b->n * n->channels;
    const float e = (float)ng_num(n, P_SHARPNESS);
    int i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        float v = in[I_SOURCE][i], a, c, t;
        int s;
        if (!(v > lv[0])) { out[i] = lv[0]; continue; } /* also NaN */
        if (v >= lv[count - 1]) { out[i] = lv[count - 1]; continue; }
        s = ng__segment(lv, count, v);
        a = lv[s], c = lv[s + 1];
        t = (v - a) / (c - a);
        if (inv) t = 1.0f - t, a = lv[s + 1], c = lv[s];
        out[i] = a + (c - a) * (e == 2.0f ? t * t : ng_powf(t, e));
    }
    return 0;
}

/* The gradient of a remap f(source): f'(v) times the source's gradient,
 * per channel and axis. slope(n, v) is f' at v. */
static void remap_chain(const ng_node *n, const ng_block *b, const float *x, const float *din, float *grad,
                        float (*slope)(const ng_node *n, float v))
{
    const int len = b->n;
    int c, d, i;
    for (c = 0; c < n->channels; c++)
        for (d = 0; d < b->dims; d++) {
            const size_t g = ((size_t)c * (size_t)b->dims + (size_t)d) * (size_t)len;
            for (i = 0; i < len; i++) grad[g + i] = slope(n, x[(size_t)c * (size_t)len + i]) * din[g + i];
        }
}

/* d/dv of a + (c - a) t^e with t = (v - lo) / (hi - lo) (1 - that when
 * inverted): flat on the terraces beyond the levels */
static float terrace_slope(const ng_node *n, float v)
{
    const terrace_state *st = n->state;
    const float *lv = st->level, e = (float)ng_num(n, P_SHARPNESS);
    const int count = st->count;
    float a, c, t, dt;
    int s;
    if (!(v > lv[0]) || v >= lv[count - 1]) return 0.0f;
    s = ng__segment(lv, count, v);
    a = lv[s], c = lv[s + 1];
    t = (v - a) / (c - a);
    dt = 1.0f / (c - a);
    if (ng_int(n, P_INVERT)) t = 1.0f - t, dt = -dt, a = lv[s + 1], c = lv[s];
    return (c - a) * (e == 2.0f ? 2.0f * t : e * ng_powf(t, e - 1.0f)) * dt;
}

static int terrace_chain(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,
                         const float *const *din, const float *out, float *grad)
{
    (void)ctx, (void)out;
    remap_chain(n, b, in[I_SOURCE], din[I_SOURCE], grad, terrace_slope);
    return 0;
}

const ng_node_type ng_type_terrace = {
    .name = "terrace", .family = "math",
    .doc = "flat terraces at the given levels joined by eased risers (libnoise's Terrace): stepped mesas and "
           "rice-field hills from any height",
    .params = terrace_params, .nparams = TERRACE_NPARAMS, .inputs = source_input, .ninputs = NINPUTS, .dims = NG_DIMS_ALL,
    .method = "terrace", .positional = "source,steps", .setup = terrace_setup, .eval = terrace_eval,
    .chain = terrace_chain,
};

/* ---- curve -------------------------------------------------------------------- */

enum { P_CURVE_POINTS, CURVE_NPARAMS };

static const ng_param_desc curve_params[CURVE_NPARAMS] = {
    [P_CURVE_POINTS] = {"points", NG_PARAM_LIST, {2, 2, 256}, -1e30, 1e30, NULL,
                        "control points {{x, y}, ...} with increasing x; the curve passes through each"},
};

typedef struct curve_state {
    int np;       /* control points, at least 2 */
    float xym[];  /* x[np] (increasing), y[np], m[np]: the tangents */
} curve_state;

static int curve_setup(ng_node *n, const int *ch, ng_error *err)
{
    const ng_value *pts = &n->param[P_CURVE_POINTS];
    const int np = pts->count / 2;
    curve_state *st;
    float *x, *y, *m;
    double *delta;
    int i;
    if (np < 2) return ng_errorf(err, "%s: needs at least 2 points {{x, y}, {x, y}}", n->label);
    if (!(st = ng_node_state_alloc(n, sizeof *st + (size_t)np * 3 * sizeof st->xym[0], err))) return -1;
    st->np = np;
    x = st->xym;
    y = x + np;
    m = y + np;
    for (i = 0; i < np; i++) {
        x[i] = (float)pts->list[2 * i];
        y[i] = (float)pts->list[2 * i + 1];
        if (i && !(x[i] > x[i - 1]))
            return ng_errorf(err, "%s: point %d has x = %g, not above the previous %g", n->label, i + 1,
                             (double)x[i], (double)x[i - 1]);
    }
    if (!(delta = malloc((size_t)np * sizeof *delta))) return ng_errorf(err, "%s: out of memory", n->label);
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
    n->channels = ch[I_SOURCE];
    return 0;
}

static int curve_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const curve_state *st = n->state;
    const int np = st->np, len = b->n * n->channels;
    const float *x = st->xym, *y = x + np, *m = y + np;
    int i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        float v = in[I_SOURCE][i], h, t, t2, t3;
        int s;
        if (!(v > x[0])) { out[i] = y[0]; continue; }
        if (v >= x[np - 1]) { out[i] = y[np - 1]; continue; }
        s = ng__segment(x, np, v);
        h = x[s + 1] - x[s];
        t = (v - x[s]) / h;
        t2 = t * t, t3 = t2 * t;
        /* y0 + (y1 - y0) h01 + h (m0 h10 + m1 h11): exact on plateaus (y0 = y1, m = 0) */
        out[i] = y[s] + (y[s + 1] - y[s]) * (3 * t2 - 2 * t3) + h * (m[s] * (t3 - 2 * t2 + t) + m[s + 1] * (t3 - t2));
    }
    return 0;
}

/* d/dv of the Hermite segment: ((y1 - y0) h01' + h (m0 h10' + m1 h11')) / h;
 * flat beyond the first and last points */
static float curve_slope(const ng_node *n, float v)
{
    const curve_state *st = n->state;
    const int np = st->np;
    const float *x = st->xym, *y = x + np, *m = y + np;
    float h, t, t2;
    int s;
    if (!(v > x[0]) || v >= x[np - 1]) return 0.0f;
    s = ng__segment(x, np, v);
    h = x[s + 1] - x[s];
    t = (v - x[s]) / h;
    t2 = t * t;
    return ((y[s + 1] - y[s]) * (6 * t - 6 * t2) + h * (m[s] * (3 * t2 - 4 * t + 1) + m[s + 1] * (3 * t2 - 2 * t))) / h;
}

static int curve_chain(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,
                       const float *const *din, const float *out, float *grad)
{
    (void)ctx, (void)out;
    remap_chain(n, b, in[I_SOURCE], din[I_SOURCE], grad, curve_slope);
    return 0;
}

const ng_node_type ng_type_curve = {
    .name = "curve", .family = "math",
    .doc = "remaps through a smooth monotone cubic (Fritsch-Carlson) that passes through every control point and "
           "never overshoots between them; flat beyond the first and last points",
    .params = curve_params, .nparams = CURVE_NPARAMS, .inputs = source_input, .ninputs = NINPUTS, .dims = NG_DIMS_ALL,
    .method = "curve", .positional = "source,points", .setup = curve_setup, .eval = curve_eval,
    .chain = curve_chain,
};
