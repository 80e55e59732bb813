/*
 * test_cells.c — what users rely on from the Worley, sparse
 * convolution and alligator bases: the documented range, used and never
 * exceeded (with rare clamping where documented); F1 and F2 exact, checked
 * against a brute-force search; F1 = 0 at feature points and F2-F1 = 0 on
 * cell borders; CELL constant around each feature; continuity with a stated
 * gradient bound; seeding, batch-split invariance, full precision far from
 * the origin and exact periodicity. Points are built by hand.
 *
 * Under sanitizers the statistical tests draw 1/8 of the samples: that
 * build checks memory and UB, the optimised build the statistics.
 */
#include "harness.h"
#include "sample.h"
#include "cell_kernels.h"
#include "kernels.h"

#include <stdint.h>



/* The kernels of the path under test (t_path). */
#define PLAIN(ID, fn)                                                                                          \
    static void fn(const ng_noise_pts *p, float *out) { ng__kernel(t_path, NG_BASIS_##ID)(p, out); }
PLAIN(WORLEY, worley_noise)
PLAIN(SPARSE, sparse_noise)
PLAIN(ALLIGATOR, alligator_noise)

#define B 4096
static float fbuf[4][B], fbuf2[4][B], out1[B], out2[B], out3[B];

/* Random offsets in [lo, hi) for axes below dims (float arithmetic: the
 * range test draws 2^20 per case); on a grid of 2^-10 when sums must be
 * exact. */
static void fill_random(float (*f)[B], int dims, int n, double lo, double hi, int on_grid)
{
    const float flo = (float)lo, fscale = (float)(hi - lo) * (1.0f / 16777216.0f);
    int d, i;
    for (d = 0; d < dims; d++)
        for (i = 0; i < n; i++) {
            float v = flo + (float)(int32_t)(t_rng_next() >> 40) * fscale;
            f[d][i] = on_grid ? floorf(v * 1024.0f) / 1024.0f : v;
        }
}

/* ---- configurations ---------------------------------------------------- */

enum { WORLEY, SPARSE, ALLIGATOR };

typedef struct cfg {
    int kind, feature, metric;
    float jitter, exponent; /* exponent: minkowski's */
} cfg;

static const char *const feature_names[] = {"F1", "F2", "F2-F1", "CELL", "F3", "EDGE", "POSITION"};
static const char *const metric_names[] = {"euclidean", "manhattan", "chebyshev", "minkowski"};

static const char *cfg_name(const cfg *c)
{
    static char buf[96];
    if (c->kind == SPARSE) return "sparse";
    if (c->kind == ALLIGATOR) return "alligator";
    if (c->metric == NG_METRIC_MINKOWSKI)
        snprintf(buf, sizeof buf, "worley %s minkowski %g jitter %g", feature_names[c->feature],
                 (double)c->exponent, (double)c->jitter);
    else
        snprintf(buf, sizeof buf, "worley %s %s jitter %g", feature_names[c->feature], metric_names[c->metric],
                 (double)c->jitter);
    return buf;
}

static ng_noise_pts pts(int n, int dims, const double anchor[4], float (*f)[B], uint32_t seed)
{
    ng_noise_pts p;
    int d;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.dims = dims;
    p.seed = seed;
    for (d = 0; d < 4; d++) {
        p.anchor[d] = anchor ? anchor[d] : 0.0;
        p.f[d] = f[d];
    }
    return p;
}

static void eval(const cfg *c, ng_noise_pts *p, float *out)
{
    p->feature = c->feature;
    p->metric = c->metric;
    p->jitter = c->jitter;
    p->exponent = c->exponent;
    switch (c->kind) {
    case WORLEY: worley_noise(p, out); break;
    case SPARSE: sparse_noise(p, out); break;
    default: alligator_noise(p, out); break;
    }
}

/* Every configuration with a range or a gradient to check: Worley's
 * features and metrics at full jitter and at 0.45 (between two of the
 * normaliser's jitter table entries; minkowski with an exponent between
 * two of its table's, 3.3 and 1.3), EDGE with its one metric, and the two
 * kernel noises. POSITION, a vector, has tests of its own. */
#define LOW_JITTER 0.45f
static const int distance_features[] = {NG_WORLEY_F1, NG_WORLEY_F2, NG_WORLEY_F2_F1, NG_WORLEY_F3, NG_WORLEY_CELL};
static int all_cfgs(cfg *c, int with_cell)
{
    static const float jitters[2] = {1.0f, LOW_JITTER}, exps[2] = {3.3f, 1.3f};
    int n = 0, j, f, m;
    for (j = 0; j < 2; j++) {
        for (f = 0; f < (with_cell ? 5 : 4); f++)
            for (m = 0; m < NG_NMETRICS; m++) {
                cfg w = {WORLEY, distance_features[f], m, jitters[j], exps[j]};
                c[n++] = w;
            }
        c[n].kind = WORLEY;
        c[n].feature = NG_WORLEY_EDGE;
        c[n].metric = NG_METRIC_EUCLIDEAN;
        c[n].exponent = 2.0f;
        c[n++].jitter = jitters[j];
    }
    c[n].kind = SPARSE;
    c[n].feature = c[n].metric = 0;
    c[n].exponent = 2.0f;
    c[n++].jitter = 1.0f;
    c[n].kind = ALLIGATOR;
    c[n].feature = c[n].metric = 0;
    c[n].exponent = 2.0f;
    c[n++].jitter = 1.0f;
    return n;
}

/* ---- brute-force Worley ---------------------------------------------------
 * The documented construction, searched over (2R + 1)^d cells, R = 2, 3,
 * ... until no cell outside can hold a nearer feature. The per-cell arithmetic
 * is the kernel's (same grouping, same order), so results agree in bits.
 */
typedef struct ref_result {
    float f1, f2, f3; /* true distances, not normalised */
    float edge;       /* euclidean: distance to the nearest bisector */
    float rn[4];      /* the vector from the point to the nearest feature */
    uint32_t hnear;
} ref_result;

static float ref_unit(uint32_t h, int k)
{
    return (float)(int32_t)(ng_cell_word(h, k) >> 16) * (1.0f / 65536.0f);
}

/* Hash coordinate of the cell o away from c, wrapped by a period (0: mod 2^32). */
static uint32_t ref_wrap(uint32_t c, int o, uint32_t period)
{
    int64_t q;
    if (!period) return c + (uint32_t)o;
    q = ((int64_t)c + o) % (int64_t)period;
    return (uint32_t)(q < 0 ? q + (int64_t)period : q);
}

/* The vector from t to the feature of the cell o away from cell[]. */
static void ref_vec(int dims, float j, uint32_t seed, const uint32_t cell[4], const int o[4], const float t[4],
                    const uint32_t *period, float r[4], uint32_t *hash)
{
    const float c0 = 0.5f - 0.5f * j;
    uint32_t c[4], h;
    int k;
    for (k = 0; k < dims; k++) c[k] = ref_wrap(cell[k], o[k], period ? period[k] : 0u);
    h = ng_cell_hash(seed, dims, c);
    for (k = 0; k < 4; k++) r[k] = k < dims ? (((float)o[k] + c0) + j * ref_unit(h, k)) - t[k] : 0.0f;
    *hash = h;
}

/* Next offset of the (2 radius + 1)^dims cube, last axis fastest; 0 after the last. */
static int ref_next(int dims, int radius, int o[4])
{
    int k;
    for (k = dims - 1; k >= 0 && o[k] == radius; k--) o[k] = -radius;
    if (k < 0) return 0;
    o[k]++;
    return 1;
}

static float ref_sq(int dims, const float r[4])
{
    float s = r[0] * r[0];
    int k;
    for (k = 1; k < dims; k++) s += r[k] * r[k];
    return s;
}

/* radius_only > 0: search that radius only (1: the plain 3^d search).
 * period: NULL or per axis (0: none); cell[] is then already wrapped.
 * e: minkowski's exponent. */
static ref_result ref_search_e(int dims, int metric, float e, float j, uint32_t seed, const uint32_t cell[4],
                               const float t[4], int radius_only, const uint32_t *period)
{
    ref_result res;
    float face = 1.0f;
    int k, radius;
    e = ng_minkowski_exponent(e);
    for (k = 0; k < dims; k++) face = fminf(face, fminf(t[k], 1.0f - t[k]));
    for (radius = radius_only ? radius_only : 2;; radius++) {
        float d1 = INFINITY, d2 = INFINITY, d3 = INFINITY, rn[4] = {0, 0, 0, 0}, q = INFINITY, b, r[4];
        uint32_t hn = 0, h;
        int o[4] = {0, 0, 0, 0};
        for (k = 0; k < dims; k++) o[k] = -radius;
        do {
            float d = 0.0f;
            ref_vec(dims, j, seed, cell, o, t, period, r, &h);
            for (k = 0; k < dims; k++) {
                if (metric == NG_METRIC_EUCLIDEAN) d = k ? d + r[k] * r[k] : r[k] * r[k];
                else if (metric == NG_METRIC_MANHATTAN) d = k ? d + fabsf(r[k]) : fabsf(r[k]);
                else if (metric == NG_METRIC_MINKOWSKI) d = k ? d + ng_cell_pow(fabsf(r[k]), e) : ng_cell_pow(fabsf(r[k]), e);
                else d = fmaxf(d, fabsf(r[k]));
            }
            if (d < d1) {
                d3 = d2;
                d2 = d1;
                d1 = d;
                hn = h;
                memcpy(rn, r, sizeof rn);
            } else if (d < d2) {
                d3 = d2;
                d2 = d;
            } else if (d < d3) {
                d3 = d;
            }
        } while (ref_next(dims, radius, o));
        if (metric == NG_METRIC_EUCLIDEAN) { /* the edge, from the nearest */
            for (k = 0; k < dims; k++) o[k] = -radius;
            do {
                float dr[4], num, c;
                ref_vec(dims, j, seed, cell, o, t, period, r, &h);
                if (!memcmp(r, rn, sizeof r)) continue;
                for (k = 0; k < 4; k++) dr[k] = r[k] - rn[k];
                num = ref_sq(dims, r) - d1;
                c = num * num / ref_sq(dims, dr);
                q = fminf(q, c);
            } while (ref_next(dims, radius, o));
        }
        b = (float)radius + 0.5f - 0.5f * j - 1e-4f + face;
        if (metric == NG_METRIC_EUCLIDEAN) b *= b;
        if (metric == NG_METRIC_MINKOWSKI) b = ng_cell_pow(b, e);
        if (radius_only ||
            (d3 <= b && (metric != NG_METRIC_EUCLIDEAN || (sqrtf(d1) + sqrtf(q)) * (sqrtf(d1) + sqrtf(q)) <= b))) {
            const float inv_e = 1.0f / e;
            res.f1 = metric == NG_METRIC_EUCLIDEAN ? sqrtf(d1) : metric == NG_METRIC_MINKOWSKI ? ng_cell_pow(d1, inv_e) : d1;
            res.f2 = metric == NG_METRIC_EUCLIDEAN ? sqrtf(d2) : metric == NG_METRIC_MINKOWSKI ? ng_cell_pow(d2, inv_e) : d2;
            res.f3 = metric == NG_METRIC_EUCLIDEAN ? sqrtf(d3) : metric == NG_METRIC_MINKOWSKI ? ng_cell_pow(d3, inv_e) : d3;
            res.edge = 0.5f * sqrtf(q);
            memcpy(res.rn, rn, sizeof rn);
            res.hnear = hn;
            return res;
        }
    }
}

static ref_result ref_search(int dims, int metric, float j, uint32_t seed, const uint32_t cell[4],
                             const float t[4], int radius_only, const uint32_t *period)
{
    return ref_search_e(dims, metric, 2.0f, j, seed, cell, t, radius_only, period);
}

static ref_result ref_worley(int dims, int metric, float j, uint32_t seed, const uint32_t cell[4],
                             const float t[4])
{
    return ref_search(dims, metric, j, seed, cell, t, 0, NULL);
}

/* What the kernel outputs for a brute-force result (POSITION: its plane k). */
static float ref_output_e(const ref_result *r, int feature, int metric, int dims, float j, float e, int k)
{
    float inv = 1.0f / ng_worley_normaliser(feature, metric, dims, j, e), v;
    switch (feature) {
    case NG_WORLEY_F1: v = r->f1; break;
    case NG_WORLEY_F2: v = r->f2; break;
    case NG_WORLEY_F2_F1: v = r->f2 - r->f1; break;
    case NG_WORLEY_F3: v = r->f3; break;
    case NG_WORLEY_EDGE: v = r->edge; break;
    case NG_WORLEY_POSITION: return r->rn[k];
    default: return ng_hash_unit(ng_hash_step(r->hnear, 1u));
    }
    return fminf(v * inv, 1.0f);
}

/* Feature point of the cell with hash coordinates cell[], inside that cell. */
static void feature_point(int dims, float j, uint32_t seed, const uint32_t cell[4], float fp[4])
{
    uint32_t h = ng_cell_hash(seed, dims, cell);
    int k;
    for (k = 0; k < 4; k++) fp[k] = k < dims ? (0.5f - 0.5f * j) + j * ref_unit(h, k) : 0.0f;
}

/* ---- range ------------------------------------------------------------- */

/*
 * 2^20 samples per configuration and dims, at random anchors (0 or up to
 * +-1e9) and offsets, a new seed per batch. To keep the suite fast, 2^18
 * for Worley's lower jitter in 3D and 4D (the normalisers were validated
 * offline with 2^20 samples at every jitter step of 1/16: clamp rate at
 * most 2.6e-5, 1 always reached), 2^18 for minkowski (its normalisers
 * are measured with that many) and 2^17 for CELL, a hash unit per cell
 * by construction; 1/8 of all that sanitized.
 */
static int range_batches(const cfg *c, int dims)
{
    int batches = 256;
    if (c->kind == WORLEY && c->feature == NG_WORLEY_CELL) batches = 32;
    else if (c->kind == WORLEY && ((c->jitter != 1.0f && dims >= 3) || c->metric == NG_METRIC_MINKOWSKI))
        batches = 64;
    return batches;
}

static void test_range(void)
{
    cfg cs[64];
    int nc = all_cfgs(cs, 1), c, dims, k, i, d;
    for (c = 0; c < nc; c++)
        for (dims = 1; dims <= 4; dims++) {
            const int batches = range_batches(&cs[c], dims);
            double mn = 1e30, mx = -1e30;
            long clamped = 0, n = (long)batches * B;
            t_rng_seed(1 + (uint64_t)c);
            for (k = 0; k < batches; k++) {
                double anchor[4];
                ng_noise_pts p;
                for (d = 0; d < 4; d++) anchor[d] = (k & 1) ? t_rng_range(-1e9, 1e9) : 0.0;
                fill_random(fbuf, dims, B, -128, 128, 0);
                p = pts(B, dims, anchor, fbuf, (uint32_t)k * 2654435761u + (uint32_t)c);
                eval(&cs[c], &p, out1);
                for (i = 0; i < B; i++) {
                    mn = fmin(mn, out1[i]);
                    mx = fmax(mx, out1[i]);
                    clamped += fabsf(out1[i]) == 1.0f;
                }
            }
            if (cs[c].kind == SPARSE) {
                CHECKF(mn >= -1.0 && mx <= 1.0, "%s %dD: [%.9g, %.9g] exceeds [-1, 1]",
                       cfg_name(&cs[c]), dims, mn, mx);
                /* both sides used; the rare extremes (1e-5) need 2^20 */
                CHECKF(fmax(-mn, mx) >= 0.9 && fmin(-mn, mx) >= 0.75,
                       "%s %dD: [%.6f, %.6f] uses < 90%% of [-1, 1]", cfg_name(&cs[c]), dims, mn,
                       mx);
            } else {
                CHECKF(mn >= 0.0 && mx <= 1.0, "%s %dD: [%.9g, %.9g] exceeds [0, 1]",
                       cfg_name(&cs[c]), dims, mn, mx);
                CHECKF(mx >= 0.9, "%s %dD: max %.6f uses < 90%% of [0, 1]", cfg_name(&cs[c]),
                       dims, mx);
                /* F1 (0 at features), F2-F1 (0 on borders), CELL (uniform)
                 * and alligator come near their floor (4D F1 to ~0.02: the
                 * 4-ball around a feature is small); F2 does not, two
                 * features are rarely both near a point. */
                const double floor = 0.05;
                CHECKF(cs[c].feature == NG_WORLEY_F2 || cs[c].feature == NG_WORLEY_F3 || mn <= floor, "%s %dD: min %.6f far above 0",
                       cfg_name(&cs[c]), dims, mn);
            }
            CHECKF(clamped * 1e4 <= n, "%s %dD: %ld of %ld samples clamped (> 1e-4)",
                   cfg_name(&cs[c]), dims, clamped, n);
        }
}

/* ---- Worley exactness -------------------------------------------------- */

/* Every feature, metric and dims at three jitters matches the brute-force
 * search bit for bit, near the origin and far away: the vector 3^d search
 * plus its widening miss nothing (manhattan needs the widening for up to
 * 70% of 4D points, euclidean for ~0.5%). Minkowski at exponents over its
 * range, within and between the normaliser's table entries. POSITION's
 * planes are the vector to the nearest feature; EDGE is euclidean only. */
static void test_worley_exact(void)
{
    static const float jitters[] = {1.0f, 0.5f, 0.0f};
    static const float exps[] = {0.5f, 1.3f, 10.0f};
    static const double anchors[] = {0.0, 1e9, -123456789.0};
    int dims, m, ji, f, a, i, k, bad;
    t_rng_seed(2);
    for (dims = 1; dims <= 4; dims++)
        for (m = 0; m < NG_NMETRICS; m++)
            for (ji = 0; ji < 3; ji++)
                for (a = 0; a < 3; a++) {
                    /* the brute force is most of the time: a quarter under SAN, a 16th under qemu */
                    const int n = (dims == 4 ? 256 : 1024) / (SANITIZED ? 4 : EMULATED ? 16 : 1);
                    const float e = m == NG_METRIC_MINKOWSKI ? exps[a] : 2.0f;
                    double anchor[4];
                    ng_noise_pts p;
                    for (k = 0; k < 4; k++) anchor[k] = anchors[a];
                    fill_random(fbuf, 4, n, -8, 8, 0);
                    p = pts(n, dims, anchor, fbuf, 77u + (uint32_t)a);
                    p.metric = m;
                    p.jitter = jitters[ji];
                    p.exponent = e;
                    for (f = 0; f < NG_WORLEY_NFEATURES; f++) {
                        const int planes = f == NG_WORLEY_POSITION ? dims : 1;
                        if (f == NG_WORLEY_EDGE && m != NG_METRIC_EUCLIDEAN) continue;
                        p.feature = f;
                        worley_noise(&p, out1);
                        for (bad = 0, i = 0; i < n; i++) {
                            uint32_t cell[4];
                            float t[4] = {0, 0, 0, 0};
                            ref_result r;
                            for (k = 0; k < dims; k++) {
                                float x = 0.0f + fbuf[k][i], fl = floorf(x);
                                t[k] = x - fl;
                                cell[k] = (uint32_t)(int64_t)anchor[k] + (uint32_t)(int32_t)fl;
                            }
                            r = ref_search_e(dims, m, e, jitters[ji], p.seed, cell, t, 0, NULL);
                            for (k = 0; k < planes; k++)
                                bad += out1[k * n + i] != ref_output_e(&r, f, m, dims, jitters[ji], e, k);
                        }
                        CHECKF(bad == 0, "worley %s %s %dD jitter %g exponent %g anchor %g: %d of %d differ "
                               "from brute force", feature_names[f], metric_names[m], dims,
                               (double)jitters[ji], (double)e, anchors[a], bad, n);
                    }
                }
}

/* The points that decide exactness: those where a nearer feature lies
 * outside the 3^d block (the plain 3^d search gets F1 or F2 wrong). Random
 * points rarely are (2D euclidean F2: ~1e-4; manhattan up to 0.6% in 4D),
 * so they are found with the brute force first, then checked. */
static void test_worley_widening(void)
{
    static const struct {
        int dims, metric, points;
        float exponent;
    } cases[] = {
        {2, NG_METRIC_EUCLIDEAN, 1 << 16, 2}, {3, NG_METRIC_EUCLIDEAN, 1 << 14, 2},
        {2, NG_METRIC_MANHATTAN, 1 << 13, 2}, {3, NG_METRIC_MANHATTAN, 1 << 13, 2},
        {4, NG_METRIC_MANHATTAN, 1 << 12, 2}, {2, NG_METRIC_MINKOWSKI, 1 << 13, 0.5f},
        {3, NG_METRIC_MINKOWSKI, 1 << 12, 0.7f},
    };
    static const double anchor[4] = {1e9, -5.0, 77.0, 3e9};
    int c, f, i, k;
    t_rng_seed(10);
    for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        const int dims = cases[c].dims, m = cases[c].metric;
        const float e = cases[c].exponent;
        int found = 0, bad = 0, tried, checked = 0;
        for (tried = 0; tried < cases[c].points && found < B / 4; tried++) {
            uint32_t cell[4];
            float t[4] = {0, 0, 0, 0}, x[4];
            ref_result plain, exact;
            for (k = 0; k < dims; k++) {
                x[k] = (float)t_rng_range(-50, 50);
                t[k] = x[k] - floorf(x[k]);
                cell[k] = (uint32_t)(int64_t)anchor[k] + (uint32_t)(int32_t)floorf(x[k]);
            }
            plain = ref_search_e(dims, m, e, 1.0f, 31u, cell, t, 1, NULL);
            exact = ref_search_e(dims, m, e, 1.0f, 31u, cell, t, 0, NULL);
            if (plain.f1 == exact.f1 && plain.f2 == exact.f2 && plain.f3 == exact.f3 &&
                (m != NG_METRIC_EUCLIDEAN || plain.edge == exact.edge))
                continue;
            for (k = 0; k < 4; k++) fbuf[k][found] = k < dims ? x[k] : 0.0f;
            found++;
        }
        CHECKF(found >= 3, "%dD %s: only %d of %d points need more than 3^d cells", dims,
               metric_names[m], found, tried);
        for (f = 0; f < NG_WORLEY_NFEATURES; f++) {
            ng_noise_pts p = pts(found, dims, anchor, fbuf, 31u);
            if (f == NG_WORLEY_EDGE && m != NG_METRIC_EUCLIDEAN) continue;
            p.metric = m;
            p.jitter = 1.0f;
            p.exponent = e;
            p.feature = f;
            worley_noise(&p, out1);
            for (i = 0; i < found; i++) {
                uint32_t cell[4];
                float t[4] = {0, 0, 0, 0};
                ref_result r;
                for (k = 0; k < dims; k++) {
                    t[k] = fbuf[k][i] - floorf(fbuf[k][i]);
                    cell[k] = (uint32_t)(int64_t)anchor[k] + (uint32_t)(int32_t)floorf(fbuf[k][i]);
                }
                r = ref_search_e(dims, m, e, 1.0f, 31u, cell, t, 0, NULL);
                for (k = 0; k < (f == NG_WORLEY_POSITION ? dims : 1); k++, checked++)
                    bad += out1[k * found + i] != ref_output_e(&r, f, m, dims, 1.0f, e, k);
            }
        }
        CHECKF(bad == 0, "%dD %s %g: %d of %d hard points differ from brute force", dims,
               metric_names[m], (double)e, bad, checked);
    }
}

/* F1 is exactly 0 at a feature point, far from the origin as well: the
 * anchor holds the cell, the offset the feature's position inside it. */
static void test_worley_zero_at_features(void)
{
    static const float jitters[] = {1.0f, 0.37f, 0.0f};
    static const double bases[] = {0.0, 1e9, -4.2e9, 7e12};
    int dims, m, ji, b, i, k;
    for (dims = 1; dims <= 4; dims++)
        for (m = 0; m < 3; m++)
            for (ji = 0; ji < 3; ji++)
                for (b = 0; b < 4; b++) {
                    int bad = 0;
                    for (i = 0; i < 64; i++) {
                        double anchor[4];
                        uint32_t cell[4];
                        float fp[4];
                        ng_noise_pts p;
                        for (k = 0; k < 4; k++) {
                            anchor[k] = bases[b] + (double)((i * (k + 3)) % 17) - 8.0;
                            cell[k] = (uint32_t)(int64_t)fmod(anchor[k], 4294967296.0);
                        }
                        feature_point(dims, jitters[ji], 5u, cell, fp);
                        for (k = 0; k < 4; k++) fbuf[k][0] = fp[k];
                        p = pts(1, dims, anchor, fbuf, 5u);
                        p.metric = m;
                        p.jitter = jitters[ji];
                        p.feature = NG_WORLEY_F1;
                        worley_noise(&p, out1);
                        bad += out1[0] != 0.0f;
                    }
                    CHECKF(bad == 0, "worley F1 %s %dD jitter %g near %g: %d of 64 feature "
                           "points not 0", metric_names[m], dims, (double)jitters[ji], bases[b],
                           bad);
                }
}

/* With jitter 0 the features are the cell centres, so on the face x = 1
 * between cells (0, ...) and (1, ...) the two nearest are equally far in
 * every metric: F2 - F1 is exactly 0 there. */
static void test_worley_zero_on_borders(void)
{
    static const double bases[] = {0.0, 1e9, -3e9};
    int dims, m, b, i, k;
    t_rng_seed(3);
    for (dims = 1; dims <= 4; dims++)
        for (m = 0; m < 3; m++)
            for (b = 0; b < 3; b++) {
                double anchor[4];
                ng_noise_pts p;
                int bad = 0;
                for (k = 0; k < 4; k++) anchor[k] = bases[b] + 17.0 * k;
                for (i = 0; i < 512; i++) {
                    fbuf[0][i] = 1.0f;
                    for (k = 1; k < 4; k++) fbuf[k][i] = (float)t_rng_range(0.001, 0.999);
                }
                p = pts(512, dims, anchor, fbuf, 9u);
                p.metric = m;
                p.jitter = 0.0f;
                p.feature = NG_WORLEY_F2_F1;
                worley_noise(&p, out1);
                for (i = 0; i < 512; i++) bad += out1[i] != 0.0f;
                CHECKF(bad == 0, "worley F2-F1 %s %dD on x = %g + 1: %d of 512 not 0 (e.g. %g)",
                       metric_names[m], dims, anchor[0], bad, (double)out1[0]);
            }
}

/* CELL is the same for every point nearer to a feature than half its
 * distance to any other feature (so provably in its cell), and differs
 * between cells. */
static void test_worley_cell_constant(void)
{
    static const float jitters[] = {1.0f, 0.5f};
    int dims, m, ji, c, i, k;
    t_rng_seed(4);
    for (dims = 1; dims <= 4; dims++)
        for (m = 0; m < 3; m++)
            for (ji = 0; ji < 2; ji++) {
                int bad = 0, distinct = 0;
                float prev = -1.0f;
                for (c = 0; c < 32; c++) {
                    double anchor[4];
                    uint32_t cell[4];
                    float fp[4], radius;
                    ref_result r;
                    ng_noise_pts p;
                    for (k = 0; k < 4; k++) {
                        anchor[k] = (double)(c * 7 + k * 3) - 50.0 + (k == 0 ? 1e9 : 0.0);
                        cell[k] = (uint32_t)(int64_t)anchor[k];
                    }
                    feature_point(dims, jitters[ji], 21u, cell, fp);
                    r = ref_worley(dims, m, jitters[ji], 21u, cell, fp);
                    /* r.f1 = 0, r.f2 = distance to the nearest other feature;
                     * a per-axis step of 0.45 f2 / dims keeps every metric
                     * within 0.45 f2 */
                    radius = 0.45f * r.f2 / (float)dims;
                    for (i = 0; i < 64; i++)
                        for (k = 0; k < 4; k++)
                            fbuf[k][i] = fp[k] + (i ? (float)t_rng_range(-radius, radius) : 0.0f);
                    p = pts(64, dims, anchor, fbuf, 21u);
                    p.metric = m;
                    p.jitter = jitters[ji];
                    p.feature = NG_WORLEY_CELL;
                    worley_noise(&p, out1);
                    for (i = 1; i < 64; i++) bad += out1[i] != out1[0];
                    distinct += out1[0] != prev;
                    prev = out1[0];
                }
                CHECKF(bad == 0, "worley CELL %s %dD jitter %g: %d points around features "
                       "changed value", metric_names[m], dims, (double)jitters[ji], bad);
                CHECKF(distinct >= 30, "worley CELL %s %dD: only %d of 32 cells differ",
                       metric_names[m], dims, distinct);
            }
}

/* Alligator's bumps peak at their feature points with K(0) = 1: the value
 * there is at least that cell's height (the cell value,
 * ng_hash_unit(ng_hash_step(h, 1))), and equals it when that bump wins. */
static void test_alligator_peaks(void)
{
    int dims, c, k, below = 0, equal = 0, n = 0;
    for (dims = 1; dims <= 4; dims++)
        for (c = 0; c < 64; c++) {
            double anchor[4];
            uint32_t cell[4], h;
            float fp[4], height;
            ng_noise_pts p;
            for (k = 0; k < 4; k++) {
                anchor[k] = (double)(c * 5 - k * 11) + 1e9;
                cell[k] = (uint32_t)(int64_t)anchor[k];
            }
            h = ng_cell_hash(13u, dims, cell);
            height = ng_hash_unit(ng_hash_step(h, 1u));
            feature_point(dims, 1.0f, 13u, cell, fp);
            for (k = 0; k < 4; k++) fbuf[k][0] = fp[k];
            p = pts(1, dims, anchor, fbuf, 13u);
            alligator_noise(&p, out1);
            below += out1[0] < height;
            equal += out1[0] == height;
            n++;
        }
    CHECKF(below == 0, "alligator: %d of %d feature points below their bump's height", below, n);
    CHECKF(equal >= n / 2, "alligator: only %d of %d feature points at their own height", equal,
           n);
}

/* Alligator is exactly 0 where no feature is within one cell (its floor)
 * and positive where one is (heights are 0 with probability 2^-24). The
 * features of the 3^d cells are computed here; 0.1% of random points in
 * 2D and 3D are out of every bump's reach. */
static void test_alligator_floor(void)
{
    static const double anchor[4] = {1e9, -3.0, 12345.0, 0.0};
    int dims, i, k, reached, empty = 0, bad = 0;
    t_rng_seed(11);
    for (dims = 2; dims <= 3; dims++)
        for (i = 0; i < (1 << 15); i++) {
            uint32_t cell[4];
            float x[4] = {0, 0, 0, 0}, nearest = INFINITY;
            int o[4] = {-1, -1, -1, -1};
            ng_noise_pts p;
            for (k = 0; k < dims; k++) x[k] = (float)t_rng_range(-40, 40);
            for (;;) { /* the 3^d cells around x */
                float fp[4], d2 = 0.0f;
                for (k = 0; k < dims; k++)
                    cell[k] = (uint32_t)(int64_t)anchor[k] + (uint32_t)(int32_t)floorf(x[k]) +
                              (uint32_t)o[k];
                feature_point(dims, 1.0f, 17u, cell, fp);
                for (k = 0; k < dims; k++) {
                    float r = (floorf(x[k]) + (float)o[k] + fp[k]) - x[k];
                    d2 += r * r;
                }
                nearest = fminf(nearest, d2);
                for (k = dims - 1; k >= 0 && o[k] == 1; k--) o[k] = -1;
                if (k < 0) break;
                o[k]++;
            }
            /* skip the float-rounding band around the reach */
            if (fabsf(nearest - 1.0f) < 1e-4f) continue;
            reached = nearest < 1.0f;
            for (k = 0; k < 4; k++) fbuf[k][0] = x[k];
            p = pts(1, dims, anchor, fbuf, 17u);
            alligator_noise(&p, out1);
            empty += !reached;
            bad += reached ? !(out1[0] > 0.0f) : out1[0] != 0.0f;
        }
    CHECKF(bad == 0, "alligator: %d points with the wrong side of 0", bad);
    CHECKF(empty >= 10, "alligator: only %d of 65536 points out of reach", empty);
}

/* ---- continuity -----------------------------------------------------------
 * Gradient bounds, |d/dx| along any axis, after scaling:
 *   worley F1, F2   1 / N: distances to fixed points change by at most the
 *                   step in all three metrics, and min / second-min keep
 *                   that; F2-F1 2 / N (N = ng_worley_normaliser). Exact.
 *   alligator       max |K'| = 8 / (3 sqrt 3) = 1.5396. Exact.
 *   sparse          measured: 1.25 x the largest |dv|/h over 4.2e6 random
 *                   pairs per dims (2.21, 2.45, 2.50, 2.86 in 1D-4D). The
 *                   provable bound (every impulse in reach aligned at
 *                   full weight, 12 to 324 of them) is never approached;
 *                   the measured tail is long, so the not-vacuous check
 *                   asks for 40% of it rather than 60%.
 * Checked at h = 1e-3 and 1e-4 (a jump below L * 1e-3 shows only at the
 * finer step), with 2% and 4e-6 of slack for rounding as in test_kernels.
 * A discontinuity of size J shows as J / h = 1e4 J at the finer step.
 */
static const double sparse_lip[4] = {2.76, 3.06, 3.13, 3.58};

static double lip_of(const cfg *c, int dims)
{
    switch (c->kind) {
    case SPARSE: return sparse_lip[dims - 1];
    case ALLIGATOR: return 1.5396;
    default:
        return (c->feature == NG_WORLEY_F2_F1 ? 2.0 : 1.0) /
               ng_worley_normaliser(c->feature, c->metric, dims, c->jitter, c->exponent);
    }
}

static void continuity_case(const cfg *c, int dims, double h, const double *anchor, int batches,
                            const uint32_t *period)
{
    double lip = lip_of(c, dims), worst = 0.0;
    int axis, k, i, d, bad = 0;
    for (axis = 0; axis < dims; axis++)
        for (k = 0; k < batches; k++) {
            ng_noise_pts p1, p2;
            fill_random(fbuf, dims, B, -8, 8, 0);
            for (d = 0; d < 4; d++)
                for (i = 0; i < B; i++)
                    fbuf2[d][i] = d == axis ? (float)(fbuf[d][i] + h) : fbuf[d][i];
            p1 = pts(B, dims, anchor, fbuf, (uint32_t)k);
            p2 = pts(B, dims, anchor, fbuf2, (uint32_t)k);
            if (period) {
                memcpy(p1.period, period, sizeof p1.period);
                memcpy(p2.period, period, sizeof p2.period);
            }
            eval(c, &p1, out1);
            eval(c, &p2, out2);
            for (i = 0; i < B; i++) {
                double step = (double)fbuf2[axis][i] - (double)fbuf[axis][i];
                double dv = fabs((double)out2[i] - out1[i]);
                worst = fmax(worst, dv / step);
                bad += dv > lip * 1.02 * (step + 4e-6) + 2e-6;
            }
        }
    CHECKF(bad == 0, "%s %dD h=%g anchor %.17g: %d pairs exceed L=%g (worst |dv|/h %.4f)",
           cfg_name(c), dims, h, anchor[0], bad, lip, worst);
    /* Not vacuous: random pairs come near the bound. Not asked of a tiny
     * period, whose few cells' worth of impulses decide how steep it gets
     * (sparse 2D on 3x2 cells reached 0.36 to 0.40 L over 1 to 8 seeds). */
    CHECKF(period || worst >= (c->kind == SPARSE ? 0.4 : 0.6) * lip,
           "%s %dD h=%g: worst |dv|/h %.4f far below L=%g", cfg_name(c), dims, h, worst, lip);
}

/* The coarse step near the origin, the fine one far away. */
static void test_continuity(void)
{
    static const double near[4] = {0, 0, 0, 0};
    static const double far[4] = {1e9 + 0.37, -1e9 + 0.81, 1e9 + 0.05, 3e8};
    cfg cs[64];
    int nc = all_cfgs(cs, 0), c, dims;
    t_rng_seed(5);
    for (c = 0; c < nc; c++)
        for (dims = 1; dims <= 4; dims++) {
            /* sparse 1D is cheap and its steep spots rare */
            int batches = dims == 4 ? 1 : cs[c].kind == SPARSE && dims == 1 ? 16 : 2;
            continuity_case(&cs[c], dims, 1e-3, near, batches, NULL);
            continuity_case(&cs[c], dims, 1e-4, far, batches, NULL);
        }
}

/* ---- determinism, seeds, batches ----------------------------------------- */


/* Same input, same bits, however the points are split into batches (sizes
 * around the kernels' 256-point chunks too). Another seed, another field:
 * almost every sample differs and the two are uncorrelated. Not quite in
 * 1D: with one feature per cell every seed's field shares the lattice, so
 * F2 and F2-F1, which depend on the position inside the cell, correlate
 * by 0.05 to 0.09 across any two seeds, EDGE by 0.17 (measured over 65536
 * points). */
static void test_determinism_and_seed(void)
{
    static const uint32_t seeds[][2] = {
        {0, 1}, {1, 2}, {12345, 12346}, {7, 7u ^ 0x80000000u}, {0xffffffffu, 0},
    };
    static const int sizes[] = {1, 7, 23, 255, 256, 257, 300, 3};
    static const double anchor[4] = {1e6 + 0.3, -2e5 + 0.7, 42.0, -9.5};
    const int n = SCALED ? B / 4 : B; /* a quarter under qemu and the sanitizers */
    cfg cs[64];
    int nc = all_cfgs(cs, 1), c, dims, s, i, d;
    for (c = 0; c < nc; c++) {
        if (cs[c].kind == WORLEY && cs[c].jitter != 1.0f) continue;
        for (dims = 1; dims <= 4; dims++) {
            ng_noise_pts p = pts(n, dims, anchor, fbuf, 99), part;
            int k = 0;
            /* thousands of cells, so two unrelated fields decorrelate */
            t_rng_seed(6);
            fill_random(fbuf, 4, n, dims == 1 ? -2000 : -40, dims == 1 ? 2000 : 40, 0);
            eval(&cs[c], &p, out1);
            eval(&cs[c], &p, out2);
            CHECKF(memcmp(out1, out2, (size_t)n * sizeof *out1) == 0, "%s %dD: two runs differ",
                   cfg_name(&cs[c]), dims);
            for (i = 0; i < n; i += part.n) {
                part = p;
                part.n = sizes[k++ % (int)(sizeof sizes / sizeof sizes[0])];
                if (part.n > n - i) part.n = n - i;
                for (d = 0; d < 4; d++) part.f[d] = fbuf[d] + i;
                eval(&cs[c], &part, out2 + i);
            }
            CHECKF(memcmp(out1, out2, (size_t)n * sizeof *out1) == 0, "%s %dD: batch split changes bits",
                   cfg_name(&cs[c]), dims);
            for (s = 0; s < (int)(sizeof seeds / sizeof seeds[0]); s++) {
                int same = 0;
                double r;
                p.seed = seeds[s][0];
                eval(&cs[c], &p, out1);
                p.seed = seeds[s][1];
                eval(&cs[c], &p, out2);
                for (i = 0; i < n; i++) same += out1[i] == out2[i];
                r = t_correlation(out1, out2, n);
                CHECKF(same < n / 20, "%s %dD seeds %u/%u: %d of %d samples equal",
                       cfg_name(&cs[c]), dims, seeds[s][0], seeds[s][1], same, n);
                CHECKF(fabs(r) < (dims > 1 ? 0.1 : cs[c].feature == NG_WORLEY_EDGE ? 0.2 : 0.15),
                       "%s %dD seeds %u/%u: correlation %.3f",
                       cfg_name(&cs[c]), dims, seeds[s][0], seeds[s][1], r);
            }
        }
    }
}

/* ---- far from the origin ------------------------------------------------
 * As in test_kernels: rows in steps of 0.01 cells; a kernel that added the
 * anchor in float would give runs of identical neighbours and a changed
 * roughness. Each anchor is another realisation of the field, and fields
 * with flat stretches (CELL, alligator's empty areas; chebyshev, whose
 * share of identical neighbours varies by +-1.5% between realisations near
 * the origin, is left to the exact translate test below) are compared with
 * the envelope of three near anchors: the share may not exceed their
 * largest by more than 1%, the spread of neighbour differences must stay
 * within 1.5x of theirs.
 */
static void row_stats(const cfg *c, int dims, double a, double *same, double *sd)
{
    double anchor[4] = {a, a, a, a};
    t_steps st = {0, 0, 0, 0};
    int row, i;
    for (row = 0; row < (dims <= 2 ? 16 : 8); row++) {
        ng_noise_pts p;
        for (i = 0; i < B; i++) {
            fbuf[0][i] = (float)(row * 47.3 + i * 0.01);
            fbuf[1][i] = (float)(row * 1.37 + 0.29);
            fbuf[2][i] = (float)(row * 0.71 + 0.13);
            fbuf[3][i] = (float)(row * 0.53 + 0.41);
        }
        p = pts(B, dims, anchor, fbuf, 5);
        eval(c, &p, out1);
        t_steps_add(&st, out1, B);
    }
    *same = t_steps_same(&st);
    *sd = t_steps_sd(&st);
}

static void test_far_origin_not_blocky(void)
{
    static const double near[] = {0.0, 5000.5, -777.25};
    static const double far[] = {1e9, 1e9 + 0.5, -1e9 - 0.25};
    static const cfg cs[] = {
        {WORLEY, NG_WORLEY_F1, NG_METRIC_EUCLIDEAN, 1.0f, 2.0f},
        {WORLEY, NG_WORLEY_F2_F1, NG_METRIC_EUCLIDEAN, 0.8f, 2.0f},
        {WORLEY, NG_WORLEY_F2, NG_METRIC_MANHATTAN, 1.0f, 2.0f},
        {WORLEY, NG_WORLEY_CELL, NG_METRIC_EUCLIDEAN, 1.0f, 2.0f},
        {WORLEY, NG_WORLEY_F3, NG_METRIC_EUCLIDEAN, 1.0f, 2.0f},
        {WORLEY, NG_WORLEY_EDGE, NG_METRIC_EUCLIDEAN, 1.0f, 2.0f},
        {WORLEY, NG_WORLEY_F1, NG_METRIC_MINKOWSKI, 1.0f, 0.7f},
        {WORLEY, NG_WORLEY_F2, NG_METRIC_MINKOWSKI, 1.0f, 4.5f},
        {SPARSE, 0, 0, 1.0f, 2.0f},
        {ALLIGATOR, 0, 0, 1.0f, 2.0f},
    };
    int c, dims, a;
    for (c = 0; c < (int)(sizeof cs / sizeof cs[0]); c++)
        for (dims = 1; dims <= 4; dims++) {
            double same0 = 0, sd_lo = 1e30, sd_hi = 0;
            for (a = 0; a < 3; a++) {
                double same, sd;
                row_stats(&cs[c], dims, near[a], &same, &sd);
                same0 = fmax(same0, same);
                sd_lo = fmin(sd_lo, sd);
                sd_hi = fmax(sd_hi, sd);
            }
            for (a = 0; a < 3; a++) {
                double same, sd;
                row_stats(&cs[c], dims, far[a], &same, &sd);
                CHECKF(same <= same0 + 0.01,
                       "%s %dD anchor %.17g: %.4f of neighbours identical (near origin <= %.4f)",
                       cfg_name(&cs[c]), dims, far[a], same, same0);
                CHECKF(sd >= sd_lo / 1.5 && sd <= sd_hi * 1.5,
                       "%s %dD anchor %.17g: neighbour-difference sd %.3g vs %.3g-%.3g near origin",
                       cfg_name(&cs[c]), dims, far[a], sd, sd_lo, sd_hi);
            }
        }
}

/* Moving whole cells from the offsets into the anchor is the same world
 * point: with positions on a 2^-10 grid every sum is exact and the values
 * are the same bits, so tiles with different anchors stitch. */
static void test_far_field_is_translate(void)
{
    const int npts = EMULATED ? 128 : 512; /* a quarter under qemu */
    static const double anchors[] = {0.0, 1e9, 1e9 + 0.5, -3.7e8 + 0.25, 5e9 + 0.125, 1e12 + 0.75};
    static const double ks[][4] = {{3, -2, 5, 1}, {-7, 11, 1, -4}, {40, 0, -33, 9}};
    cfg cs[64];
    int nc = all_cfgs(cs, 1), c, dims, a, k, i, d;
    t_rng_seed(7);
    for (c = 0; c < nc; c++) {
        if (cs[c].kind == WORLEY && cs[c].jitter != 1.0f) continue;
        for (dims = 1; dims <= 4; dims++)
            for (a = 0; a < (int)(sizeof anchors / sizeof anchors[0]); a++) {
                int bad = 0;
                for (k = 0; k < 3; k++) {
                    double an1[4], an2[4];
                    ng_noise_pts p1, p2;
                    fill_random(fbuf, 4, npts, -20, 20, 1);
                    for (d = 0; d < 4; d++) {
                        an1[d] = anchors[a] + ks[k][d];
                        an2[d] = anchors[a];
                        for (i = 0; i < npts; i++) fbuf2[d][i] = fbuf[d][i] + (float)ks[k][d];
                    }
                    p1 = pts(npts, dims, an1, fbuf, 11);
                    p2 = pts(npts, dims, an2, fbuf2, 11);
                    eval(&cs[c], &p1, out1);
                    eval(&cs[c], &p2, out2);
                    for (i = 0; i < npts; i++) bad += out1[i] != out2[i];
                }
                CHECKF(bad == 0, "%s %dD anchor %.17g: %d of %d translated samples differ",
                       cfg_name(&cs[c]), dims, anchors[a], bad, 3 * npts);
            }
    }
}

/* ---- periodicity --------------------------------------------------------
 * With period P along an axis, f(x + P) == f(x) exactly: for shifts by
 * multiples of P moved into the anchor (any size), and for offsets shifted
 * by P (positions on a 2^-10 grid, so the shift is exact). Axes without a
 * period keep the plain lattice. Periods include 1 (every cell the same).
 */
static void periodic_case(const cfg *c, int dims, const uint32_t period[4], double base)
{
    const int npts = EMULATED ? 128 : 512; /* a quarter under qemu */
    static const double mults[] = {1, -1, 3, 1000003, -77777};
    double anchor[4];
    ng_noise_pts p;
    int bad = 0, varied = 0, m, d, i, axis;
    fill_random(fbuf, 4, npts, -16, 16, 1);
    for (d = 0; d < 4; d++) anchor[d] = base + 0.25 * d;
    p = pts(npts, dims, anchor, fbuf, 3);
    memcpy(p.period, period, sizeof p.period);
    eval(c, &p, out1);
    for (i = 1; i < npts; i++) varied += out1[i] != out1[0];
    for (m = 0; m < (int)(sizeof mults / sizeof mults[0]); m++) {
        ng_noise_pts q = p;
        for (d = 0; d < 4; d++) q.anchor[d] = anchor[d] + mults[m] * period[d];
        eval(c, &q, out2);
        for (i = 0; i < npts; i++) bad += out1[i] != out2[i];
    }
    for (axis = 0; axis <= dims; axis++) { /* each axis alone, then all at once */
        ng_noise_pts q = p;
        for (d = 0; d < 4; d++) {
            for (i = 0; i < npts; i++)
                fbuf2[d][i] = fbuf[d][i] + ((d == axis || axis == dims) ? (float)period[d] : 0.0f);
            q.f[d] = fbuf2[d];
        }
        eval(c, &q, out2);
        for (i = 0; i < npts; i++) bad += out1[i] != out2[i];
    }
    CHECKF(bad == 0, "%s %dD period %u %u %u %u at %g: %d shifted samples differ", cfg_name(c),
           dims, period[0], period[1], period[2], period[3], base, bad);
    CHECKF(varied > npts / 2, "%s %dD period %u %u %u %u: the field is flat", cfg_name(c), dims,
           period[0], period[1], period[2], period[3]);
}

static void test_periodic(void)
{
    static const uint32_t periods[][4] = {
        {3, 5, 7, 2}, {1, 4, 2, 6}, {16, 9, 1, 3}, {1000, 37, 11, 5},
    };
    static const double bases[] = {0.0, 1e9 + 0.5, -7.25, 6e12};
    cfg cs[64];
    int nc = all_cfgs(cs, 1), c, dims, pi, b;
    t_rng_seed(8);
    for (c = 0; c < nc; c++) {
        if (cs[c].kind == WORLEY && cs[c].jitter != 1.0f && cs[c].feature != NG_WORLEY_F1)
            continue;
        for (dims = 2; dims <= 3; dims++)
            for (pi = 0; pi < 4; pi++)
                for (b = 0; b < 4; b++) periodic_case(&cs[c], dims, periods[pi], bases[b]);
    }
}

/* Across the seams of a small period the field is as continuous as
 * anywhere (the wrapped neighbours are the cells the points inside them
 * see), and Worley matches a brute-force search over wrapped cells. */
static void test_periodic_seams(void)
{
    static const uint32_t period[4] = {3, 2, 5, 4};
    static const double anchor[4] = {1e9 + 0.5, -6.25, 0.0, 7.0};
    cfg cs[64];
    int nc = all_cfgs(cs, 0), c, dims, m, f, i, k;
    t_rng_seed(12);
    for (c = 0; c < nc; c++) {
        if (cs[c].kind == WORLEY && cs[c].jitter != 1.0f) continue;
        for (dims = 2; dims <= 3; dims++) continuity_case(&cs[c], dims, 1e-3, anchor, 1, period);
    }
    for (dims = 2; dims <= 3; dims++)
        for (m = 0; m < NG_NMETRICS; m++) {
            const float e = 0.8f; /* minkowski's */
            int bad = 0;
            fill_random(fbuf, 4, 512, -12, 12, 0);
            for (f = 0; f < NG_WORLEY_NFEATURES; f++) {
                ng_noise_pts p = pts(512, dims, anchor, fbuf, 8u);
                if (f == NG_WORLEY_EDGE && m != NG_METRIC_EUCLIDEAN) continue;
                memcpy(p.period, period, sizeof p.period);
                p.metric = m;
                p.jitter = 1.0f;
                p.exponent = e;
                p.feature = f;
                worley_noise(&p, out1);
                for (i = 0; i < 512; i++) {
                    uint32_t cell[4];
                    float t[4] = {0, 0, 0, 0};
                    ref_result r;
                    for (k = 0; k < dims; k++) {
                        /* the anchor's fraction joins the offset, as in the kernel */
                        double a = floor(anchor[k]);
                        float x = (float)(anchor[k] - a) + fbuf[k][i], fl = floorf(x);
                        t[k] = x - fl;
                        cell[k] = ref_wrap((uint32_t)fmod(fmod(a, period[k]) + period[k], period[k]),
                                           (int)fl, period[k]);
                    }
                    r = ref_search_e(dims, m, e, 1.0f, 8u, cell, t, 0, period);
                    for (k = 0; k < (f == NG_WORLEY_POSITION ? dims : 1); k++)
                        bad += out1[k * 512 + i] != ref_output_e(&r, f, m, dims, 1.0f, e, k);
                }
            }
            CHECKF(bad == 0, "worley %s %dD period 3 2 5: %d differ from the wrapped "
                   "brute force", metric_names[m], dims, bad);
        }
}

/* A period on one axis only: that axis repeats, the other does not. */
static void test_periodic_one_axis(void)
{
    static const uint32_t period[4] = {6, 0, 0, 0};
    cfg c = {WORLEY, NG_WORLEY_F1, NG_METRIC_EUCLIDEAN, 1.0f, 2.0f};
    ng_noise_pts p;
    int i, bad = 0, moved = 0;
    t_rng_seed(9);
    fill_random(fbuf, 4, 512, -16, 16, 1);
    p = pts(512, 2, NULL, fbuf, 4);
    memcpy(p.period, period, sizeof p.period);
    eval(&c, &p, out1);
    p.anchor[0] = 6.0;
    eval(&c, &p, out2);
    p.anchor[0] = 0.0;
    p.anchor[1] = 6.0;
    eval(&c, &p, out3);
    for (i = 0; i < 512; i++) {
        bad += out1[i] != out2[i];
        moved += out1[i] != out3[i];
    }
    CHECK_INT(bad, 0);
    CHECK(moved > 500);
}

/* ---- odd inputs ---------------------------------------------------------- */

/* NaN or infinite positions and anchors, NaN or out-of-range jitter give
 * defined, in-range output; unsupported dims and unknown features or
 * metrics write zeros. */
static void test_odd_inputs(void)
{
    static const float bad[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e10f};
    static const double anchors[][4] = {{0, 0, 0, 0}, {NAN, INFINITY, 1e300, -1e300}};
    static const float jitters[] = {NAN, -1.0f, 2.0f, 1.0f};
    cfg cs[64];
    int nc = all_cfgs(cs, 1), c, dims, a, ji, i, d, n = (int)(sizeof bad / sizeof bad[0]);
    for (d = 0; d < 4; d++)
        for (i = 0; i < n; i++) fbuf[d][i] = d == 0 ? bad[i] : 0.5f;
    for (c = 0; c < nc; c++)
        for (dims = 1; dims <= 4; dims++)
            for (a = 0; a < 2; a++)
                for (ji = 0; ji < 4; ji++) {
                    cfg cj = cs[c];
                    ng_noise_pts p = pts(n, dims, anchors[a], fbuf, 1);
                    cj.jitter = jitters[ji];
                    eval(&cj, &p, out1);
                    for (i = 0; i < n; i++)
                        CHECKF(out1[i] >= (cj.kind == SPARSE ? -1.0f : 0.0f) && out1[i] <= 1.0f,
                               "%s %dD input %g jitter %g: %g", cfg_name(&cj), dims,
                               (double)bad[i], (double)jitters[ji], (double)out1[i]);
                }
    for (c = 0; c < nc; c++) {
        static const int bad_dims[] = {0, 5};
        for (d = 0; d < 2; d++) {
            ng_noise_pts p = pts(n, bad_dims[d], NULL, fbuf, 1);
            for (i = 0; i < n; i++) out1[i] = 7.0f;
            eval(&cs[c], &p, out1);
            for (i = 0; i < n; i++) CHECK(out1[i] == 0.0f);
        }
    }
    {
        ng_noise_pts p = pts(n, 2, NULL, fbuf, 1);
        p.feature = NG_WORLEY_NFEATURES;
        for (i = 0; i < n; i++) out1[i] = 7.0f;
        worley_noise(&p, out1);
        for (i = 0; i < n; i++) CHECK(out1[i] == 0.0f);
        p.feature = NG_WORLEY_F1;
        p.metric = -1;
        for (i = 0; i < n; i++) out1[i] = 7.0f;
        worley_noise(&p, out1);
        for (i = 0; i < n; i++) CHECK(out1[i] == 0.0f);
        CHECK(ng_worley_normaliser(NG_WORLEY_CELL, 0, 2, 1.0f, 2.0f) == 0.0f);
        CHECK(ng_worley_normaliser(NG_WORLEY_POSITION, 0, 2, 1.0f, 2.0f) == 0.0f);
        CHECK(ng_worley_normaliser(NG_WORLEY_F1, 0, 5, 1.0f, 2.0f) == 0.0f);
        CHECK(ng_worley_normaliser(NG_WORLEY_EDGE, NG_METRIC_MANHATTAN, 2, 1.0f, 2.0f) == 0.0f);
        /* EDGE is euclidean only: other metrics write zeros */
        p.feature = NG_WORLEY_EDGE;
        p.metric = NG_METRIC_CHEBYSHEV;
        for (i = 0; i < n; i++) out1[i] = 7.0f;
        worley_noise(&p, out1);
        for (i = 0; i < n; i++) CHECK(out1[i] == 0.0f);
    }
}

/* The normaliser is continuous in jitter and minkowski's exponent: no
 * step between neighbouring jitters anywhere in [0, 1] larger than the
 * table's slope allows, nor between exponents 0.001 apart in [0.5, 10]. */
static void test_normaliser_continuous(void)
{
    static const int features[] = {NG_WORLEY_F1, NG_WORLEY_F2, NG_WORLEY_F2_F1, NG_WORLEY_F3, NG_WORLEY_EDGE};
    int f, m, dims, k, x, bad = 0;
    for (f = 0; f < 5; f++)
        for (m = 0; m < NG_NMETRICS; m++)
            for (dims = 1; dims <= 4; dims++)
                /* every 0.1 of the exponent; every 0.8 under qemu and the sanitizers */
                for (x = 0; x < (m == NG_METRIC_MINKOWSKI ? 96 : 1); x += SCALED ? 8 : 1) {
                    const float e = 0.5f + 0.1f * (float)x; /* 0.5 to 10 */
                    if (features[f] == NG_WORLEY_EDGE && m != NG_METRIC_EUCLIDEAN) continue;
                    for (k = 0; k < 4096; k++) {
                        float a = ng_worley_normaliser(features[f], m, dims, (float)k / 4096.0f, e);
                        float b = ng_worley_normaliser(features[f], m, dims, (float)(k + 1) / 4096.0f, e);
                        float c = ng_worley_normaliser(features[f], m, dims, (float)k / 4096.0f, e + 1e-3f);
                        /* minkowski's N is large and falls steeply below p = 1 (4D F1: 7.7
                         * at 0.5, 3.1 at 0.75): steps relative to N */
                        bad += !(a > 0.0f) || fabsf(b - a) > 1e-3f * fmaxf(a, 1.0f) || fabsf(c - a) > 0.01f * a;
                    }
                }
    CHECK_INT(bad, 0);
}

/* The families tested here (bases.h) hold exactly the bases this suite
 * knows (WORLEY, SPARSE, ALLIGATOR), so a basis added to them fails here
 * until it is tested. */
static void test_every_basis_known(void)
{
#define BASIS_ID(F, ID, ...) NG_BASIS_##ID,
    static const int listed[] = {NG_BASES_WORLEY(BASIS_ID, ~) NG_BASES_IMPULSE(BASIS_ID, ~)};
#undef BASIS_ID
    size_t k;
    CHECK_INT(sizeof listed / sizeof listed[0], 3);
    for (k = 0; k < sizeof listed / sizeof listed[0]; k++)
        CHECKF(listed[k] == NG_BASIS_WORLEY || listed[k] == NG_BASIS_SPARSE || listed[k] == NG_BASIS_ALLIGATOR,
               "basis %d has no tests in test_cells.c", listed[k]);
}

/* Every other path gives the widest path's bits, on the inputs of every
 * test above: every feature, metric (minkowski at three exponents) and
 * jitter (1, 0.45, 0), the two kernel noises, 1D to 4D, near and far
 * anchors, with and without a period, and batch sizes that leave each
 * path's tail (1021 and 7 points). So each test's conclusions, drawn on
 * the widest path, hold on every path (the suite once ran every test on
 * every path: four times the time, the scalar path's most of it). */
static void test_paths_agree(void)
{
    static const float jitters[] = {1.0f, LOW_JITTER, 0.0f}, exps[] = {0.7f, 2.0f, 4.5f};
    static const double anchors[] = {0.0, 1e9 + 0.5, -123456789.25};
    static const uint32_t periods[2][4] = {{0, 0, 0, 0}, {3, 5, 7, 2}};
    const int sizes[] = {SANITIZED ? 253 : EMULATED ? 131 : 1021, 7}; /* odd: every path has a tail */
    const ng_path *ref = t_widest_path(), *mine = t_path;
    cfg cs[3 * NG_WORLEY_NFEATURES * NG_NMETRICS * 3 + 2];
    int nc = 0, j, f, m, e, c, dims, a, per, z, i;
    for (j = 0; j < 3; j++)
        for (f = 0; f < NG_WORLEY_NFEATURES; f++)
            for (m = 0; m < NG_NMETRICS; m++)
                for (e = 0; e < (m == NG_METRIC_MINKOWSKI ? 3 : 1); e++) {
                    cfg w = {WORLEY, f, m, jitters[j], m == NG_METRIC_MINKOWSKI ? exps[e] : 2.0f};
                    if (f == NG_WORLEY_EDGE && m != NG_METRIC_EUCLIDEAN) continue;
                    cs[nc++] = w;
                }
    cs[nc++] = (cfg){SPARSE, 0, 0, 1.0f, 2.0f};
    cs[nc++] = (cfg){ALLIGATOR, 0, 0, 1.0f, 2.0f};
    t_rng_seed(13);
    for (c = 0; c < nc; c++)
        for (dims = 1; dims <= 4; dims++)
            for (a = 0; a < 3; a++)
                for (per = 0; per < 2; per++)
                    for (z = 0; z < 2; z++) {
                        const int n = sizes[z], planes = cs[c].feature == NG_WORLEY_POSITION && cs[c].kind == WORLEY ? dims : 1;
                        const double an[4] = {anchors[a], -anchors[a] + 0.75, anchors[a] * 0.5, 7.0};
                        ng_noise_pts p;
                        int differ = 0;
                        fill_random(fbuf, 4, n, -64, 64, 0);
                        p = pts(n, dims, an, fbuf, 31u * (uint32_t)c + (uint32_t)a);
                        memcpy(p.period, periods[per], sizeof p.period);
                        eval(&cs[c], &p, out1);
                        t_path = ref;
                        eval(&cs[c], &p, out2);
                        t_path = mine;
                        for (i = 0; i < planes * n; i++) differ += memcmp(&out1[i], &out2[i], sizeof out1[i]) != 0;
                        CHECKF(differ == 0, "%s %dD anchor %g period %d, %d points: %d values differ from the %s path's",
                               cfg_name(&cs[c]), dims, anchors[a], per, n, differ, ref->name);
                    }
}

/* ng_cell_pow (cell_kernels.h), minkowski's power, against libm's pow in
 * double, over x in [1e-4, 1e4] and |e| <= 10 where the result is a
 * normal float: within 2e-6 relative for |e| <= 2 (the 1/p root of the
 * distance), 8e-6 up to |e| = 10 (each axis's power, whose log2 carries
 * float's rounding times e). */
static void test_cell_pow_error(void)
{
    double worst = 0, worst_root = 0;
    int i, j;
    for (i = 0; i <= 4000; i++)
        for (j = 0; j <= 400; j++) {
            const float x = (float)pow(10.0, -4 + 8.0 * i / 4000), e = (float)(-10 + 20.0 * j / 400);
            const double want = pow(x, e), rel = fabs(ng_cell_pow(x, e) / want - 1);
            if (want < 0x1p-126 || want > 0x1p127) continue;
            worst = fmax(worst, rel);
            if (fabsf(e) <= 2) worst_root = fmax(worst_root, rel);
        }
    CHECKF(worst_root < 2e-6, "ng_cell_pow: relative error %g for |e| <= 2", worst_root);
    CHECKF(worst < 8e-6, "ng_cell_pow: relative error %g for |e| <= 10", worst);
}

static void cell_tests(void)
{
    if (t_path != t_widest_path()) {
        T_RUN(test_paths_agree);
        return;
    }
    T_RUN(test_every_basis_known);
    /* The three statistical sweeps (range, Lipschitz bound, far-origin
     * roughness: millions of samples, 4 min under the sanitizers) run in
     * the optimised build; under SAN, test_paths_agree walks every
     * configuration through the same kernel code instead; under qemu the
     * scalar path's test_paths_agree does (against this path). */
    if (SANITIZED) T_RUN(test_paths_agree);
    else if (!EMULATED) T_RUN(test_range);
    T_RUN(test_worley_exact);
    T_RUN(test_worley_widening);
    T_RUN(test_worley_zero_at_features);
    T_RUN(test_worley_zero_on_borders);
    T_RUN(test_worley_cell_constant);
    T_RUN(test_alligator_peaks);
    T_RUN(test_alligator_floor);
    if (!SCALED) T_RUN(test_continuity);
    T_RUN(test_determinism_and_seed);
    if (!SCALED) T_RUN(test_far_origin_not_blocky);
    T_RUN(test_far_field_is_translate);
    T_RUN(test_periodic);
    T_RUN(test_periodic_seams);
    T_RUN(test_periodic_one_axis);
    T_RUN(test_odd_inputs);
    T_RUN(test_normaliser_continuous);
    T_RUN(test_cell_pow_error);
}

NG_SUITE(cells, full) { t_on_every_path("cells", cell_tests); }
