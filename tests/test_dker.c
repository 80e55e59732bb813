/*
 * test_dker.c — the hillshade's gradient loops (issue 14, item 3): the
 * smooth min/max, fit and fBm gradient steps moved from scalar code in
 * math.c and octaves.c into the SIMD paths' loops (loops.c) must give, on
 * every path this CPU runs, the bits of the scalar formulas they replace
 * (kept here as the reference), NaN, infinities and both zeros included;
 * and the gradient kernels' own multiply by frequency and output scale
 * (ng_noise_pts.gmul) gives the bits of the passes it replaces.
 */
#include "build.h"
#include "harness.h"
#include "kernels.h"
#include "ng_internal.h"
#include "suites.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1003 };

static float ref_sign1(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

/* math.c's smooth_min before the loops */
static float ref_smooth_min(float x, float y, float k, float sign)
{
    const float q = k > 0.0f ? 0.25f / k : 0.0f, a = sign * x, c = sign * y, m = a < c ? a : c;
    float e = k - fabsf(a - c);
    e = e > 0.0f ? e : 0.0f;
    return sign * (m - e * e * q);
}

/* math.c's smooth_slope before the loops */
static float ref_smooth_slope(float x, float y, float gx, float gy, float k, float sign)
{
    const float q = k > 0.0f ? 0.25f / k : 0.0f, a = sign * x, c = sign * y, da = sign * gx, dc = sign * gy;
    const float dm = a < c ? da : dc;
    float e = k - fabsf(a - c), de;
    e = e > 0.0f ? e : 0.0f;
    de = e > 0.0f ? -ref_sign1(a - c) * (da - dc) : 0.0f;
    return sign * (dm - 2.0f * e * q * de);
}

/* math.c's fit_chain with clamp before the loops */
static float ref_fit_slope(float x, float g, float s, float b, float lo, float hi)
{
    return x * s + b < lo || x * s + b > hi ? 0.0f : g * s;
}

typedef struct data {
    float x[N], y[N], gx[N], gy[N], o[N], r[N];
} data;

static unsigned rng = 2024u;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

/* Operands mostly within k of each other (the rounded corner), some
 * equal, some far apart, and the special values. */
static void fill(data *D)
{
    int i;
    for (i = 0; i < N; i++) {
        D->x[i] = uniform(-1, 1);
        D->y[i] = i % 7 == 0 ? D->x[i] : D->x[i] + uniform(-0.05f, 0.05f);
        D->gx[i] = uniform(-3, 3);
        D->gy[i] = i % 5 == 0 ? D->gx[i] : uniform(-3, 3);
    }
    D->x[0] = NAN, D->y[1] = NAN, D->x[2] = INFINITY, D->y[3] = -INFINITY, D->x[4] = -0.0f, D->y[4] = 0.0f;
    D->x[5] = 0.0f, D->y[5] = -0.0f, D->gx[6] = -0.0f, D->gy[6] = -0.0f, D->x[6] = D->y[6] = 0.25f;
    D->gx[7] = NAN, D->gy[8] = INFINITY, D->x[9] = 0.3f, D->y[9] = 0.3f + 0.02f; /* |a - b| == k */
}

static int same_bits(const float *a, const float *b, int n) { return !memcmp(a, b, (size_t)n * sizeof *a); }

/* smin and smax, value and slope, for several smoothnesses (0: plain) */
static void test_smooth_loops_keep_the_scalar_bits(void)
{
    static data D;
    static const float ks[] = {0.0f, 0.02f, 0.1f, 1e-30f};
    int p, runs, s, j, i;
    fill(&D);
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        for (s = 0; s < 2; s++)
            for (j = 0; j < 4; j++) {
                const float sign = s ? -1.0f : 1.0f, k = ks[j];
                P->loops.smooth_min(D.o, D.x, D.y, k, sign, N);
                for (i = 0; i < N; i++) D.r[i] = ref_smooth_min(D.x[i], D.y[i], k, sign);
                CHECKF(same_bits(D.o, D.r, N), "%s: smooth_min sign %g k %g", P->name, sign, k);
                P->loops.smooth_slope(D.o, D.x, D.y, D.gx, D.gy, k, sign, N);
                for (i = 0; i < N; i++) D.r[i] = ref_smooth_slope(D.x[i], D.y[i], D.gx[i], D.gy[i], k, sign);
                CHECKF(same_bits(D.o, D.r, N), "%s: smooth_slope sign %g k %g", P->name, sign, k);
            }
    }
}

static void test_fit_slope_keeps_the_scalar_bits(void)
{
    static data D;
    int p, runs, i;
    fill(&D);
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        P->loops.fit_slope(D.o, D.x, D.gx, 1.1111112f, 0.5f, 0.0f, 1.0f, N);
        for (i = 0; i < N; i++) D.r[i] = ref_fit_slope(D.x[i], D.gx[i], 1.1111112f, 0.5f, 0.0f, 1.0f);
        CHECKF(same_bits(D.o, D.r, N), "%s: fit_slope", P->name);
    }
}

/* fBm's gradient: a zeroed sum plus each octave, as octaves.c summed it */
static void test_acc_grad_keeps_the_scalar_bits(void)
{
    static data D;
    int p, runs, i, k;
    fill(&D);
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        for (i = 0; i < N; i++) D.r[i] = 0.0f;
        for (k = 0; k < 3; k++) {
            const float gs = (float)(1 << k), fw = 0.5f / (float)(1 << k);
            const float *g = k == 1 ? D.gy : D.gx;
            P->loops.acc_grad(D.o, g, gs, fw, k == 0, N);
            for (i = 0; i < N; i++) D.r[i] += g[i] * gs * fw;
            CHECKF(same_bits(D.o, D.r, N), "%s: acc_grad octave %d", P->name, k);
        }
    }
}

enum { KN = 203 };

/* Kernel batch of KN points at offsets spread over a few cells (f holds
 * 4 planes), scaled offsets like a fractal octave's. */
static ng_noise_pts batch(int dims, float f[4][KN])
{
    ng_noise_pts p;
    int d, i;
    memset(&p, 0, sizeof p);
    p.n = KN;
    p.dims = dims;
    p.seed = 1234u;
    for (d = 0; d < dims; d++) {
        p.anchor[d] = 17.25 + 3.0 * d;
        p.scale[d] = 0.5f;
        for (i = 0; i < KN; i++) f[d][i] = uniform(-9, 9);
        p.f[d] = f[d];
    }
    return p;
}

/* gmul[d] then gmul_all in the kernel: the bits of plane passes g * fr[d],
 * then g * all, on every basis's gradient and vector gradient kernels */
static void test_gradient_kernels_scale_as_passes(void)
{
    static float f[4][KN], out1[3 * KN], out2[3 * KN], g1[3 * 4 * KN], g2[3 * 4 * KN];
    static const float fr[4] = {0.0123f, 0.0077f, 3.0f, 0.37f}, all = -1.75f;
    int p, runs, basis, dims, c, d, i, ch;
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        for (basis = 0; basis < NG_NBASES; basis++)
            for (dims = 1; dims <= 4; dims++)
                for (ch = 1; ch <= 3; ch++) {
                    const ng_basis_d_fn fd = ch == 1 ? ng__kernel_grad(P, basis) : NULL;
                    const ng_vector_d_fn vd = ch > 1 ? ng__kernel_vector_d(P, basis, dims) : NULL;
                    ng_noise_pts a = batch(dims, f), b = a;
                    if (!fd && !vd) continue;
                    for (d = 0; d < dims; d++) b.gmul[d] = fr[d];
                    b.gmul_all = all;
                    if (fd) fd(&a, out1, g1), fd(&b, out2, g2);
                    else vd(&a, ch, out1, g1), vd(&b, ch, out2, g2);
                    for (c = 0; c < ch; c++)
                        for (d = 0; d < dims; d++)
                            for (i = 0; i < KN; i++) {
                                float *g = &g1[((size_t)c * (size_t)dims + (size_t)d) * KN + (size_t)i];
                                *g = *g * fr[d];
                                *g = *g * all;
                            }
                    CHECKF(same_bits(out1, out2, ch * KN) && same_bits(g1, g2, ch * dims * KN),
                           "%s: basis %d %dD %d channel(s): gmul differs from passes", P->name, basis, dims, ch);
                }
    }
}

/* ---- the warp's gradient with a number amount ---------------------------------- */

enum { WN = 200 };

/* value and gradient of root at WN points of dims axes near anchor a;
 * 0 on success */
static int pull_grad_at(const ng_graph *g, int root, int dims, double a, float *out, float *grad)
{
    static float pos[3][WN];
    ng_error err;
    ng_node consumer;
    ng_block b;
    ng_ctx *c;
    int *uses = ng__uses(g, &root, 1), d, i, rc = -1;
    unsigned seed = 777u;
    c = uses ? ng__ctx_new(g, uses, WN, &err) : NULL;
    if (c) {
        memset(&consumer, 0, sizeof consumer);
        memset(&b, 0, sizeof b);
        consumer.input[0] = root;
        b.n = WN, b.dims = dims, b.channels = 1;
        for (d = 0; d < 4; d++) b.p[d] = ng__ctx_zeros(c);
        for (d = 0; d < dims; d++) {
            b.anchor[d] = a * (d + 1);
            for (i = 0; i < WN; i++) {
                seed = seed * 1664525u + 1013904223u;
                pos[d][i] = (float)((seed >> 8) * (500.0 / 16777216.0));
            }
            b.p[d] = pos[d];
        }
        b.pos_id = ng__ctx_tile(c);
        rc = ng_pull_grad(c, &consumer, 0, &b, out, grad, 0);
    }
    ng__ctx_free(c);
    free(uses);
    return rc;
}

static int warp_by(ng_graph *g, int amount, double octaves)
{
    ng_node *n = t_begin(g, "warp");
    t_in(g, n, "source", t_noise(g, "perlin", 256, 7));
    t_in(g, n, "by", t_vnoise(g, "simplex", 384, 8));
    t_in(g, n, "amount", amount);
    t_set(n, "octaves", octaves);
    return t_finish(g, n);
}

/* warp_eval_grad fills a number amount itself (no pull of its constant)
 * and moves a single-octave 2D warp's positions straight from the block:
 * the bits of the same warp whose amount is a node of that value (60 +
 * 0 * noise: pulled, with a gradient of zeros), 2D and 3D, 1 and 2
 * octaves, near 0 and far out */
static void test_warp_number_amount_keeps_the_node_bits(void)
{
    static float v1[WN], v2[WN], g1[3 * WN], g2[3 * WN];
    static const double anchors[2] = {0, 98765.25};
    int dims, a;
    double octaves;
    for (dims = 2; dims <= 3; dims++)
        for (octaves = 1; octaves <= 2; octaves++)
            for (a = 0; a < 2; a++) {
                ng_graph *g = ng_graph_new();
                const int zero = t_bin(g, "mul", t_noise(g, "value", 100, 3), t_const(g, 0));
                const int number = warp_by(g, t_const(g, 60), octaves);
                const int node = warp_by(g, t_bin(g, "add", t_const(g, 60), zero), octaves);
                CHECK(pull_grad_at(g, number, dims, anchors[a], v1, g1) == 0);
                CHECK(pull_grad_at(g, node, dims, anchors[a], v2, g2) == 0);
                CHECKF(same_bits(v1, v2, WN) && same_bits(g1, g2, dims * WN),
                       "%dD warp of %g octave(s) at %g: a number amount differs from the node of its value", dims,
                       octaves, anchors[a]);
                ng_graph_free(g);
            }
}

void suite_dker(void)
{
    RUN(test_warp_number_amount_keeps_the_node_bits);
    RUN(test_gradient_kernels_scale_as_passes);
    RUN(test_smooth_loops_keep_the_scalar_bits);
    RUN(test_fit_slope_keeps_the_scalar_bits);
    RUN(test_acc_grad_keeps_the_scalar_bits);
}
