/*
 * cloudshape.c — the nodes that turn a noise into a cloud density, the way
 * real-time cloud renderers shape theirs (Schneider's Nubis, Hillaire's
 * Frostbite clouds): a height profile of the cloud layer, coverage (how
 * much of the sky is cloud) and erosion of the edges by a detail noise.
 *
 * A typical cumulus field: coverage of a low-frequency fbm, times the
 * height profile, eroded by a high-frequency worley or perlin fbm.
 * Coverage goes on the noise before the profile: it measures a fraction of
 * the source's values, which for a stationary noise is a fraction of any
 * large volume, whereas a profile makes the fraction depend on the volume.
 */
#include "ng_node.h"
#include "types.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>


/* ---- height_profile ----------------------------------------------------------------------- */

/* The profile is a C1 piecewise cubic through control points (t, v) over
 * the layer's normalised height t in [0, 1]: Steffen's tangents (the
 * harmonic-mean limiter of his 1990 paper), which keep every segment
 * monotone so the curve never leaves [0, 1] nor overshoots a plateau, and
 * zero slope at t = 0 and t = 1 so it meets the 0 outside the layer
 * without a kink. The presets are point lists through the same code. */

#define MAX_PROFILE_POINTS 66 /* 64 given, plus the two ends added */

static const char *const shape_choices[] = {"cumulus", "stratus", "stratocumulus", "custom", NULL};
enum { S_CUMULUS, S_STRATUS, S_STRATOCUMULUS, S_CUSTOM };

/* (t, v) pairs, ending at t = 1. What the shape docs promise. */
static const double cumulus_pts[] = {0, 0, 0.1, 1, 1, 0};
static const double stratus_pts[] = {0, 0, 0.05, 1, 0.1, 1, 0.2, 0, 1, 0};
static const double stratocumulus_pts[] = {0, 0, 0.15, 1, 0.3, 1, 0.6, 0, 1, 0};
static const struct {
    const double *pts;
    int count;
} presets[] = {
    [S_CUMULUS] = {cumulus_pts, 3},
    [S_STRATUS] = {stratus_pts, 5},
    [S_STRATOCUMULUS] = {stratocumulus_pts, 5},
};

static const char *const axis_choices[] = {"x", "y", "z", NULL};
/* the render dimensions in which each axis exists (coords.c's x, y, z) */
static const unsigned axis_dims[] = {NG_DIMS_ALL, 0x1Cu, 0x18u};

enum { P_BOTTOM, P_TOP, P_SHAPE, P_CURVE, P_AXIS, PROFILE_NPARAMS };

static const ng_param_desc profile_params[PROFILE_NPARAMS] = {
    [P_BOTTOM] = {"bottom", NG_PARAM_NUMBER, {0}, -1e15, 1e15, NULL,
                  "world coordinate (along axis) of the layer's base; the profile is 0 at and below it"},
    [P_TOP] = {"top", NG_PARAM_NUMBER, {1000}, -1e15, 1e15, NULL,
               "world coordinate of the layer's top, above bottom; the profile is 0 at and above it"},
    [P_SHAPE] = {"shape", NG_PARAM_ENUM, {S_CUMULUS}, 0, 0, shape_choices,
                 "cumulus: rises fast to 1 at 10% of the layer, then tapers smoothly to 0 at the top; stratus: thin "
                 "and low, 1 from 5% to 10%, 0 above 20%; stratocumulus: 1 from 15% to 30%, 0 above 60%; custom: "
                 "the curve option"},
    [P_CURVE] = {"curve", NG_PARAM_LIST, {2, 1, 64}, 0, 1, NULL,
                 "shape = \"custom\": points {{t, v}, ...}, t the normalised height (0 bottom, 1 top) increasing, "
                 "v the profile there; a smooth curve passes through them, and through v = 0 at t = 0 and t = 1 "
                 "(points given there must have v = 0)"},
    [P_AXIS] = {"axis", NG_PARAM_ENUM, {2}, 0, 0, axis_choices,
                "the world axis height runs along: z (volumes; needs a 3D render), y or x"},
};

typedef struct profile_state {
    int axis;
    double bottom, inv_height; /* t = (p - bottom) * inv_height */
    int np;                    /* points, at least 2: t[0] = 0, t[np - 1] = 1 */
    double t[MAX_PROFILE_POINTS], v[MAX_PROFILE_POINTS], m[MAX_PROFILE_POINTS]; /* m: dv/dt */
} profile_state;

static double sign_of(double x) { return (x > 0) - (x < 0); }

/* Steffen's tangents: at each interior point the smallest of the two
 * secants and half the parabola's slope through the three points, 0 at a
 * local extremum; 0 at both ends. */
static void steffen_tangents(profile_state *s)
{
    int i;
    s->m[0] = s->m[s->np - 1] = 0;
    for (i = 1; i + 1 < s->np; i++) {
        const double h0 = s->t[i] - s->t[i - 1], h1 = s->t[i + 1] - s->t[i];
        const double d0 = (s->v[i] - s->v[i - 1]) / h0, d1 = (s->v[i + 1] - s->v[i]) / h1;
        const double p = (d0 * h1 + d1 * h0) / (h0 + h1);
        double lim = fabs(d0) < fabs(d1) ? fabs(d0) : fabs(d1);
        if (0.5 * fabs(p) < lim) lim = 0.5 * fabs(p);
        s->m[i] = (sign_of(d0) + sign_of(d1)) * lim;
    }
}

static int add_point(profile_state *s, double t, double v) /* caller keeps np < MAX */
{
    s->t[s->np] = t;
    s->v[s->np] = v;
    return s->np++;
}

/* The custom curve's points, with the ends at t = 0 and 1 added where
 * the user left them out. */
static int custom_points(ng_node *n, profile_state *s, ng_error *err)
{
    const ng_value *c = &n->param[P_CURVE];
    const int given = c->count / 2;
    int i;
    if (!given) return ng_errorf(err, "%s: shape = \"custom\" needs curve = {{t, v}, ...}", n->label);
    if (c->list[0] > 0) add_point(s, 0, 0);
    for (i = 0; i < given; i++) {
        const double t = c->list[2 * i], v = c->list[2 * i + 1];
        if (i && !(t > c->list[2 * i - 2]))
            return ng_errorf(err, "%s: curve point %d has t = %g, not above the previous %g (t must increase)",
                             n->label, i + 1, t, c->list[2 * i - 2]);
        if ((t == 0 || t == 1) && v != 0)
            return ng_errorf(err, "%s: curve point %d {%g, %g}: the profile is 0 at the layer's %s (v must be 0 "
                                  "there; move %s instead)",
                             n->label, i + 1, t, v, t == 0 ? "bottom" : "top", t == 0 ? "bottom" : "top");
        add_point(s, t, v);
    }
    if (c->list[2 * given - 2] < 1) add_point(s, 1, 0);
    return 0;
}

static int profile_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double bottom = ng_num(n, P_BOTTOM), top = ng_num(n, P_TOP);
    const int shape = ng_int(n, P_SHAPE);
    profile_state *s;
    int i;
    (void)ch;
    if (!(bottom < top))
        return ng_errorf(err, "%s: bottom (%g) must be below top (%g)", n->label, bottom, top);
    if (shape != S_CUSTOM && ng_node_param_set(n, P_CURVE))
        return ng_errorf(err, "%s: curve is for shape = \"custom\" (shape is \"%s\")", n->label, shape_choices[shape]);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    s->axis = ng_int(n, P_AXIS);
    s->bottom = bottom;
    s->inv_height = 1.0 / (top - bottom);
    if (shape == S_CUSTOM) {
        if (custom_points(n, s, err)) return -1;
    } else {
        for (i = 0; i < presets[shape].count; i++) add_point(s, presets[shape].pts[2 * i], presets[shape].pts[2 * i + 1]);
    }
    steffen_tangents(s);
    n->dims &= axis_dims[s->axis];
    return 0;
}

/* The profile at normalised height t: 0 outside (0, 1) and for NaN. */
static double profile_at(const profile_state *s, double t)
{
    int lo = 0, hi = s->np - 2;
    double h, u, u2, u3, v;
    if (!(t > 0) || t >= 1) return 0;
    while (lo < hi) { /* the segment [t[lo], t[lo + 1]] holding t */
        int mid = (lo + hi + 1) / 2;
        if (t >= s->t[mid]) lo = mid;
        else hi = mid - 1;
    }
    h = s->t[lo + 1] - s->t[lo];
    u = (t - s->t[lo]) / h;
    u2 = u * u, u3 = u2 * u;
    /* cubic Hermite, written so a plateau (equal values, zero slopes) is exact */
    v = s->v[lo] + (s->v[lo + 1] - s->v[lo]) * (3 * u2 - 2 * u3) +
        h * (s->m[lo] * (u3 - 2 * u2 + u) + s->m[lo + 1] * (u3 - u2));
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

static int profile_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const profile_state *s = n->state;
    const float *p = b->p[s->axis];
    const double base = b->anchor[s->axis] - s->bottom;
    int i;
    (void)ctx;
    (void)in;
    for (i = 0; i < b->n; i++) out[i] = (float)profile_at(s, (base + p[i]) * s->inv_height);
    return 0;
}

const ng_node_type ng_type_height_profile = {
    .name = "height_profile", .family = "cloud",
    .doc = "a cloud layer's density by height, in [0, 1]: 0 at and outside bottom..top, a smooth classic shape "
           "inside (multiply a noise by it). Axis z needs a 3D render (or 4D); in 2D use axis = \"y\" for a side "
           "view",
    .params = profile_params, .nparams = PROFILE_NPARAMS, .dims = NG_DIMS_ALL,
    .setup = profile_setup, .eval = profile_eval,
};

/* ---- coverage ----------------------------------------------------------------------------- */

/* The source's quantile is estimated from NSAMPLES values at fixed points
 * of a BOX-wide cube (square in 2D, hypercube in 4D: time too), an
 * additive recurrence with generalised golden ratios (Roberts' R_d
 * sequence) so the points are spread evenly at every count. The estimate
 * is a pure function of what the source sees besides position (the
 * render's dimensions, seed offset, pixel footprint and tiling period):
 * whichever thread computes it first, every thread gets the same float,
 * so renders are bit-identical for any threads, tiles and regions. */
#define NSAMPLES 4096
#define BOX 65536.0
#define NCACHED 16

/* phi_d: the positive root of x^(d+1) = x + 1 */
static const double golden[5] = {0, 1.6180339887498949, 1.3247179572447460, 1.2207440846057596, 1.1673039782614187};

enum { I_SOURCE, COVERAGE_NINPUTS };

static const ng_input_desc coverage_inputs[COVERAGE_NINPUTS] = {
    /* pulled: the node evaluates the source at its sample points too, and
     * a pull edge bounds how deeply coverages nest */
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the density remapped (a noise, before the height profile)"},
};

enum { P_COVERAGE, P_SOFTNESS, COVERAGE_NPARAMS };

static const ng_param_desc coverage_params[COVERAGE_NPARAMS] = {
    [P_COVERAGE] = {"coverage", NG_PARAM_NUMBER, {0.5}, 0, 1, NULL,
                    "the fraction of the source's values (of a large volume of a stationary noise) that stays cloud "
                    "(> 0); the rest becomes exactly 0"},
    [P_SOFTNESS] = {"softness", NG_PARAM_NUMBER, {0.1}, 0, 1, NULL,
                    "how gently density rises at cloud edges: 0 a linear rise from the edge (a crease there), "
                    "higher a quadratic ease over that share of the range"},
};

typedef struct coverage_key {
    int dims;
    uint32_t seed;
    float footprint;
    double period[4];
} coverage_key;

typedef struct coverage_entry {
    coverage_key key;
    int used;
    float q, hi; /* what the node's reduce() measured of the sorted samples */
} coverage_entry;

typedef struct coverage_state {
    pthread_mutex_t lock; /* guards everything below */
    ng_fork_guard guard;  /* held across fork (core/fork.c) */
    int lock_ready;
    int next;             /* the entry replaced next when all are used */
    coverage_entry cache[NCACHED];
    float sample[NSAMPLES];
} coverage_state;

static int coverage_setup(ng_node *n, const int *ch, ng_error *err)
{
    coverage_state *s;
    (void)ch;
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    if (pthread_mutex_init(&s->lock, NULL)) return ng_errorf(err, "%s: cannot create a lock", n->label);
    ng_fork_guard_add(&s->guard, &s->lock, NULL, NG_FORK_NODE);
    s->lock_ready = 1;
    return 0;
}

static void coverage_free(void *state)
{
    coverage_state *s = state;
    if (!s->lock_ready) return;
    ng_fork_guard_remove(&s->guard);
    pthread_mutex_destroy(&s->lock);
}

static coverage_key key_of(const ng_block *b)
{
    coverage_key k;
    memset(&k, 0, sizeof k);
    k.dims = b->dims;
    k.seed = b->seed;
    k.footprint = b->footprint;
    memcpy(k.period, b->period, sizeof k.period);
    return k;
}

static int same_key(const coverage_key *a, const coverage_key *b)
{
    int d;
    for (d = 0; d < 4; d++)
        if (a->period[d] != b->period[d]) return 0;
    return a->dims == b->dims && a->seed == b->seed && a->footprint == b->footprint;
}

static int by_value(const void *a, const void *b) /* NaN first: never cloud */
{
    const float x = *(const float *)a, y = *(const float *)b;
    if (isnan(x) || isnan(y)) return isnan(y) - isnan(x);
    return (x > y) - (x < y);
}

/* Fills s->sample with the source at the sample points, in chunks of
 * b->n points (what the context's buffers hold), as block b would see it.
 * The points are spread over a BOX-wide cube, each coordinate an additive
 * recurrence of the plastic number's powers; where the source holds a
 * neighbourhood node, whose every place costs a patch or a tile of its
 * own (4096 scattered places: hydraulic erosion ran for minutes), they
 * are a GRID_SIDE^2 grid GRID_STEP pixels apart around the world's
 * origin instead (other axes 0), a few patches. */
#define GRID_SIDE 64
#define GRID_STEP 4
static int sample_source(ng_ctx *ctx, const ng_node *n, const ng_block *b, coverage_state *s)
{
    const int dims = b->dims, chunk = b->n, grid = ng_input_reads_neighbourhood(ctx, n, I_SOURCE);
    const double pitch = GRID_STEP * (b->footprint > 0 ? b->footprint : 1.0f); /* points alone: no pixel */
    float *pos = ng_scratch(ctx, dims), *val = ng_scratch(ctx, 1);
    double alpha;
    int first, i, d, rc = -1;
    if (!pos || !val || grid < 0) goto done;
    for (first = 0; first < NSAMPLES; first += chunk) {
        const int m = NSAMPLES - first < chunk ? NSAMPLES - first : chunk;
        ng_block sb;
        memset(&sb, 0, sizeof sb);
        sb.n = m;
        sb.dims = dims;
        sb.footprint = b->footprint;
        sb.seed = b->seed;
        sb.channels = 1;
        memcpy(sb.period, b->period, sizeof sb.period);
        for (d = 0; d < 4; d++) sb.p[d] = b->p[d]; /* the unused axes: zeros */
        for (d = 0, alpha = 1; d < dims; d++) {
            float *pd = pos + (size_t)d * (size_t)m;
            alpha /= golden[dims]; /* 1 / phi^(d + 1), by IEEE division alone: the same bits everywhere */
            for (i = 0; i < m; i++) {
                const int at = first + i, cell = d == 0 ? at % GRID_SIDE : d == 1 ? at / GRID_SIDE : -1;
                const double x = 0.5 + (double)(at + 1) * alpha;
                pd[i] = !grid ? (float)((x - floor(x)) * BOX)
                        : cell < 0 ? 0.0f : (float)(((double)cell - GRID_SIDE / 2 + 0.5) * pitch);
            }
            sb.p[d] = pd;
        }
        sb.pos_id = ng_new_pos_id(ctx);
        if (ng_pull(ctx, n, I_SOURCE, &sb, val)) goto done;
        memcpy(s->sample + first, val, (size_t)m * sizeof(float));
    }
    rc = 0;
done:
    ng_scratch_free(ctx, pos, dims);
    ng_scratch_free(ctx, val, 1);
    return rc;
}

/* The value at fraction at (0 to 1) of the sorted samples, between two
 * samples linearly (an infinite one stays as it is). */
static float quantile(const float *sorted, double at)
{
    const double x = at * (NSAMPLES - 1);
    const int k = (int)x;
    const double frac = x - k;
    if (frac > 0 && k + 1 < NSAMPLES) {
        const double between = sorted[k] + (sorted[k + 1] - (double)sorted[k]) * frac;
        if (isfinite(between)) return (float)between;
    }
    return sorted[k];
}

/* coverage: the (1 - coverage) quantile and the largest sample. */
static void coverage_reduce(const ng_node *n, const float *sorted, float *q, float *hi)
{
    *q = quantile(sorted, 1 - ng_num(n, P_COVERAGE));
    *hi = sorted[NSAMPLES - 1];
}

/* What reduce() measures of the sorted samples for block b's key,
 * computed by the first caller that needs it, under the lock (the other
 * threads wait). Shared by coverage and normalize. */
static int measure(ng_ctx *ctx, const ng_node *n, const ng_block *b,
                   void (*reduce)(const ng_node *, const float *, float *, float *), float *q, float *hi)
{
    coverage_state *s = n->state;
    const coverage_key key = key_of(b);
    coverage_entry *e;
    int k, rc = 0;
    pthread_mutex_lock(&s->lock);
    for (k = 0; k < NCACHED; k++)
        if (s->cache[k].used && same_key(&s->cache[k].key, &key)) break;
    if (k < NCACHED) {
        e = &s->cache[k];
    } else if (sample_source(ctx, n, b, s)) {
        rc = -1;
        goto done;
    } else {
        qsort(s->sample, NSAMPLES, sizeof s->sample[0], by_value);
        e = &s->cache[s->next];
        s->next = (s->next + 1) % NCACHED;
        reduce(n, s->sample, &e->q, &e->hi);
        e->key = key;
        e->used = 1;
    }
    *q = e->q;
    *hi = e->hi;
done:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int coverage_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const double soft = ng_num(n, P_SOFTNESS), top = 1 - soft / 2; /* the ease at t = 1 */
    float q, hi;
    double range;
    int i;
    (void)in;
    if (ng_num(n, P_COVERAGE) <= 0) {
        memset(out, 0, (size_t)b->n * sizeof *out);
        return 0;
    }
    if (measure(ctx, n, b, coverage_reduce, &q, &hi) || ng_pull(ctx, n, I_SOURCE, b, out)) return -1;
    range = (double)hi - q;
    for (i = 0; i < b->n; i++) {
        const double v = out[i];
        double t;
        if (!(v > q)) { /* also NaN */
            out[i] = 0;
            continue;
        }
        t = range > 0 ? (v - q) / range : 1;
        if (t >= 1) {
            out[i] = 1;
            continue;
        }
        out[i] = (float)((t < soft ? t * t / (2 * soft) : t - soft / 2) / top);
    }
    return 0;
}

const ng_node_type ng_type_coverage = {
    .name = "coverage", .family = "cloud",
    .doc = "remaps a density so that the fraction `coverage` of it is cloud (> 0) and the rest exactly 0 (Nubis' "
           "coverage, with the threshold measured): q is the source's 1 - coverage quantile, estimated from 4096 "
           "fixed points spread over a 65536-unit cube, hi the largest of them; with t = (v - q) / (hi - q), out "
           "is 0 for v <= q, 1 for t >= 1, and between them t - s/2, eased to t^2 / (2 s) below t = s (s = "
           "softness), divided by 1 - s/2. Measures the source as the render sees it: the same for every "
           "thread, tile and region",
    .params = coverage_params, .nparams = COVERAGE_NPARAMS, .inputs = coverage_inputs,
    .ninputs = COVERAGE_NINPUTS, .dims = NG_DIMS_ALL, .method = "coverage", .positional = "source,coverage,softness",
    .setup = coverage_setup, .eval = coverage_eval, .free_state = coverage_free,
};

/* ---- normalize: deterministic auto-levels ---------------------------------------------------- */

/* The source's range measured as coverage measures it (the same fixed
 * points, so every tile, region, thread and farm machine gets the same
 * two floats) and mapped onto [0, 1]: what artists measured with NumPy on
 * a finished render, which differs from tile to tile. */
enum { P_LOW, P_HIGH, NORMALIZE_NPARAMS };

static const ng_param_desc normalize_params[NORMALIZE_NPARAMS] = {
    [P_LOW] = {"low", NG_PARAM_NUMBER, {0}, 0, 1, NULL,
               "the fraction of the source's measured values mapped to 0 and below (0: its smallest sample)"},
    [P_HIGH] = {"high", NG_PARAM_NUMBER, {1}, 0, 1, NULL,
                "the fraction mapped to 1 and below (1: its largest sample); above low"},
};

static int normalize_check(ng_node *n, const int *ch, ng_error *err)
{
    if (!(ng_num(n, P_HIGH) > ng_num(n, P_LOW)))
        return ng_errorf(err, "%s: high (%g) must be above low (%g)", n->label, ng_num(n, P_HIGH), ng_num(n, P_LOW));
    return coverage_setup(n, ch, err);
}

static void normalize_reduce(const ng_node *n, const float *sorted, float *lo, float *hi)
{
    *lo = quantile(sorted, ng_num(n, P_LOW));
    *hi = quantile(sorted, ng_num(n, P_HIGH));
}

static int normalize_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    float lo, hi;
    double range;
    int i;
    (void)in;
    if (measure(ctx, n, b, normalize_reduce, &lo, &hi) || ng_pull(ctx, n, I_SOURCE, b, out)) return -1;
    range = (double)hi - lo;
    for (i = 0; i < b->n; i++) {
        const double t = range > 0 ? (out[i] - (double)lo) / range : 0;
        out[i] = !(t > 0) ? 0.0f : t >= 1 ? 1.0f : (float)t; /* NaN: 0 */
    }
    return 0;
}

static const ng_input_desc normalize_inputs[COVERAGE_NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the value to bring into [0, 1]"},
};

const ng_node_type ng_type_normalize = {
    .name = "normalize", .family = "math",
    .doc = "deterministic auto-levels: maps the source's measured range onto [0, 1], clamped: lo and hi are its "
           "`low` and `high` quantiles, estimated from the 4096 fixed points coverage samples; out = (v - lo) / "
           "(hi - lo) in [0, 1] (NaN: 0). The same two numbers for every thread, tile, region and machine, so "
           "tiles and regions agree (render --normalize applies it to every output)",
    .params = normalize_params, .nparams = NORMALIZE_NPARAMS, .inputs = normalize_inputs,
    .ninputs = COVERAGE_NINPUTS, .dims = NG_DIMS_ALL, .method = "normalize", .positional = "source,low,high",
    .setup = normalize_check, .eval = normalize_eval, .free_state = coverage_free,
};

/* ---- erode -------------------------------------------------------------------------------- */

enum { I_BASE, I_DETAIL, I_AMOUNT, ERODE_NINPUTS };

static const ng_input_desc erode_inputs[ERODE_NINPUTS] = {
    [I_BASE] = {"source", 0, 1, 1, 0, "the density eroded (after coverage and the height profile)"},
    [I_DETAIL] = {"detail", 0, 1, 1, 0,
                  "the eroding noise in [0, 1] (clamped), typically a fine worley or perlin fbm with range \"unit\""},
    [I_AMOUNT] = {"amount", NG_INPUT_HYBRID, 1, 1, 0.5,
                  "erosion strength: a number or a node (say, more toward the layer's base); amount * detail is "
                  "clamped to [0, 1]"},
};

static int erode_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const float *base = in[I_BASE], *detail = in[I_DETAIL], *amount = in[I_AMOUNT];
    int i;
    (void)ctx;
    (void)n;
    for (i = 0; i < b->n; i++) {
        const float v = base[i], dv = detail[i] < 0 ? 0 : detail[i] > 1 ? 1 : detail[i];
        float a = amount[i] * dv;
        a = a < 0 ? 0 : a > 1 ? 1 : a;
        if (v >= 1) out[i] = v;
        else if (!(v > a)) out[i] = 0; /* eroded away; also NaN */
        else out[i] = (v - a) / (1 - a);
    }
    return 0;
}

const ng_node_type ng_type_erode = {
    .name = "erode", .family = "cloud",
    .doc = "Nubis' detail erosion: with a = amount * detail, out = (source - a) / (1 - a) where source > a, else 0: "
           "thin edges (low density) are eaten away in the detail noise's pattern while the dense core (near 1) "
           "stays; out <= source for sources in [0, 1], values at or above 1 pass unchanged, and where detail "
           "is 0 the source is unchanged (negative values become 0)",
    .inputs = erode_inputs, .ninputs = ERODE_NINPUTS, .dims = NG_DIMS_ALL, .method = "erode",
    .positional = "source,detail,amount", .eval = erode_eval,
};
