/*
 * lattice_kernels.c — the lattice family (bases.h) over a batch of points:
 * value, improved Perlin (Perlin 2002, quintic fade), fast (our cheaper
 * gradient noise) and Perlin flow noise (Perlin & Neyret 2001), 1D to 4D
 * where the basis allows, tileable, with their analytic gradients (the _d
 * forms: one body per basis computes both, the value the same bits either
 * way). Written from the published algorithms. Compiled once per SIMD path
 * (Makefile); its kernels are static, its one export the family table.
 *
 * Ranges: each basis's true maximum over all gradient configurations was
 * found numerically (dense grid over one cell, then pattern-search ascent
 * from the best 200 grid points and 200 random starts; for flow noise also
 * over the rotation angle). For a fixed point every corner's term depends
 * only on that corner's gradient and is weighted by a non-negative falloff,
 * so the maximum over all configurations is the sum of per-corner maxima;
 * the search runs over position only. The same holds for d/dx, which gives
 * the gradient bounds quoted per basis (after scaling; the gradient sets
 * are symmetric under axis swaps, so every axis has the same bound). Scales
 * are 1 / (max * 1.0001): the 1e-4 margin absorbs float rounding, far above
 * its size (~1e-6), and keeps coverage. Where the true maximum needs a
 * gradient configuration too rare to be met (see SOFT LIMIT below) the
 * scale is statistical and a limiter keeps the bound (soft_limit,
 * plateau_limit).
 */
#include "lattice_parts.h"
#include "ngmath.h"

/* ---- the lattice bases ------------------------------------------------------
 * Value, Perlin, fast and flow share one body per dims: hash the corners,
 * take each corner's value or gradient term, blend with the faded fraction.
 * kind and tiled are constants in every instantiation.
 */
enum { K_VALUE, K_PERLIN, K_FAST, K_FLOW };

/* Flow rotation, shared by every gradient of a call: cos and sin of
 * 2 pi frac(flow), computed once in double so flow and flow + 1 are the
 * same bits. s3 and c3 fold Rodrigues' constants for the 3D axes. */
typedef struct rotation {
    float c, s, s3, c3;
} rotation;

static rotation flow_rotation(float flow)
{
    rotation r;
    double t = (double)flow, a;
    if (!isfinite(t)) t = 0.0;
    t -= floor(t);
    a = 6.283185307179586 * t;
    r.c = (float)ng_cos(a);
    r.s = (float)ng_sin(a);
    r.s3 = (float)(ng_sin(a) / sqrt(3.0));
    r.c3 = (float)((1.0 - ng_cos(a)) / 3.0);
    return r;
}

/*
 * 3D flow gradient: edge gradient g rotated about axis a = sigma / sqrt(3),
 * sigma one of the 8 cube diagonals (+-1, +-1, +-1) picked by three hash
 * bits, by Rodrigues' formula
 *   R g . d = cos (g . d) + sin (a . (g x d)) + (1 - cos) (a . g) (a . d).
 * Opposite axes turn the gradient opposite ways, so neighbouring gradients
 * swirl in different directions as flow advances.
 */
LOOP_INLINE float flow_grad3(int iso, uint32_t h, float x, float y, float z, const rotation *r)
{
    /* g = grad12's edge: u picks x unless yz, v picks y if xy else z */
    uint32_t xy = h < EDGE_XY, notyz = h < EDGE_XZ;
    float one0 = flip_bit(1.0f, h, 20), one1 = flip_bit(1.0f, h, 21);
    float gx = select_f(notyz, one0, 0.0f);
    float gy = select_f(notyz, select_f(xy, one1, 0.0f), one0);
    float gz = select_f(xy, 0.0f, one1);
    /* the rotation axis's signs: bits 17 to 19 (isotropic: 26, 27 and
     * 29, which grad_ind3 leaves) */
    const int a0 = iso ? 26 : 17, a1 = iso ? 27 : 18, a2 = iso ? 29 : 19;
    if (iso) { /* perlin's vector (grad_ind3: bits 16 to 25, 28 and 31) */
        float g[3];
        grad_ind3_vec(h, g);
        gx = g[0], gy = g[1], gz = g[2];
    }
    float gd = gx * x + gy * y + gz * z;
    float ag = flip_bit(gx, h, a0) + flip_bit(gy, h, a1) + flip_bit(gz, h, a2);
    float ad = flip_bit(x, h, a0) + flip_bit(y, h, a1) + flip_bit(z, h, a2);
    float cx = gy * z - gz * y, cy = gz * x - gx * z, cz = gx * y - gy * x;
    float acx = flip_bit(cx, h, a0) + flip_bit(cy, h, a1) + flip_bit(cz, h, a2);
    return fma_f(r->c, gd, fma_f(r->s3, acx, r->c3 * ag * ad));
}

/* Lattice values uniform in [-(1 - 2^-20), 1 - 2^-20]: the shrink covers the
 * few ulps of rounding in the nested lerps. */
#define VALUE_SHRINK 0.99999904632568359375f /* 1 - 2^-20 */

/* ng_hash_signed(h) * VALUE_SHRINK in one multiply: its scale is a power
 * of two, so folding it into the shrink rounds the same exact product
 * once, as before: the same bits. */
static inline float lattice_value(uint32_t h)
{
    return ((float)(h >> 8) - 8388607.5f) * (VALUE_SHRINK / 8388608.0f);
}

/* One corner's term: d[] is the point minus the corner. */
LOOP_INLINE float corner_term(int dims, int kind, int iso, uint32_t h, const float *d, const rotation *r)
{
    if (kind == K_VALUE) return lattice_value(h);
    if (dims == 1) return ng_hash_signed(h) * d[0];
    if (kind == K_FLOW && dims == 2) {
        const float q[2] = {fma_f(r->c, d[0], r->s * d[1]), fma_f(r->c, d[1], -(r->s * d[0]))};
        return grad_set(2, iso, h, q);
    }
    if (kind == K_FLOW) return flow_grad3(iso, h, d[0], d[1], d[2], r);
    return grad_set(dims, iso, h, d);
}

/* d(corner term)/d(d[e]) for a gradient kind: the term is linear in d, so
 * this is the term at the unit vector along e (the float expressions give
 * the components exactly: +-1, 0, +-0.70710678f or the rotated ones). The
 * unrotated sets' vectors come from selects (grad8_vec and co., the same
 * components up to a zero's sign; calls for every e share them). */
LOOP_INLINE float corner_slope(int dims, int kind, int iso, uint32_t h, int e, const rotation *r)
{
    float u[4];
    int d;
    if (kind != K_FLOW && dims >= 2) {
        grad_set_vec(dims, iso, h, u);
        return u[e];
    }
    UNROLL
    for (d = 0; d < 4; d++) u[d] = d == e ? 1.0f : 0.0f;
    return corner_term(dims, kind, iso, h, u, r);
}

/*
 * SOFT LIMIT. In 4D (16 corners) and for 3D flow (96 rotated gradients per
 * corner) the true maximum needs nearly every corner's gradient to point at
 * the sample, which random samples never see: over 2^25 of them the largest
 * values reached 0.80 (perlin 4D), 0.77 (fast 4D) and 0.90 (flow 3D) of the
 * true maximum, so scaled by it these fields would use about 75% of
 * [-1, 1]. They are instead scaled by the value that 1 sample in 10^6
 * exceeds (1.10, 1.08, 0.965 unscaled) and pass through
 *   y = x                               for |x| <= 0.9,
 *   y = sign(x) (0.9 + 0.1 s / (1 + s)) for s = (|x| - 0.9) / 0.1 > 0,
 * which is odd, monotone, C1 with slope <= 1 (gradient bounds carry over)
 * and below 1 for every input, so the range holds for any configuration:
 * the true maxima land at 0.983, 0.984 and 0.975. 2e-5 to 4e-5 of
 * samples are above the knee (SOFT_KNEE; the isotropic sets' limiter,
 * plateau_limit, is lattice_parts.h's: vector channels take it too).
 */
/* The limiter and its slope dy/dx = 1 / (1 + s)^2: the cut 0.1 s^2 / (1 + s)
 * has d/d|x| = 10 * 0.1 (2 s + s^2) / (1 + s)^2 = 1 - 1 / (1 + s)^2. */
static inline float soft_limit(float x, float *slope)
{
    float ax = u2f(f2u(x) & 0x7fffffffu);
    uint32_t e = f2u(ax - SOFT_KNEE);
    float s = u2f(e & ((e >> 31) - 1u)) * 10.0f; /* max(|x| - knee, 0) / (1 - knee) */
    float cut = (1.0f - SOFT_KNEE) * s * s / (1.0f + s);
    float s1 = 1.0f + s;
    *slope = 1.0f / (s1 * s1);
    return x - u2f(f2u(cut) | (f2u(x) & 0x80000000u));
}

/*
 * Scales per dims (index dims - 1); 0 = no such kernel. Maxima unscaled,
 * gradient bounds |d/dx| after scaling (tabled in noise_kernels.h):
 * perlin 1D: gradients uniform in [-1, 1]: max 0.5 at t = 0.5 (g = 1, -1),
 *            d/dx 1.3471506 unscaled at t = 0.7887.
 * perlin 2D, 8 unit gradients: max 0.70710678 = sqrt(2)/2 at the cell
 *            centre (exact); d/dx 2.0027450 unscaled.
 * perlin 3D, 12 edge gradients: max 1.0363538 at (0.5, 0.6447, 0.4815) and
 *            its mirror images; d/dx 3.75 unscaled (at the centre).
 * perlin 4D, 32 edge gradients: max 1.5365823 near (0.48, 0.49, 0.5,
 *            0.36); d/dx 5.625 unscaled (centre). Soft-limited.
 * fast (smoothstep fade, same gradient sets):
 *   1D max 0.5, d/dx sqrt(2) unscaled; 2D max 0.70710678, d/dx 1.6793786;
 *   3D max 1.0449052, d/dx 3.0; 4D max 1.5451999, d/dx 4.5. 4D soft-limited.
 * flow 2D: max over all angles 0.70710678, at multiples of 45 degrees
 *            where the gradient set is Perlin's (0.6608 at 22.5 degrees);
 *            d/dx 2.0671221 unscaled at 22.5 degrees.
 * flow 3D: max over angles 1.1641266 near 2.6455 rad; d/dx 3.8898485 near
 *            1.3225 rad. Soft-limited.
 */
static const float perlin_scale[4] = {
    1.99980002f, /* 1 / (0.5 * 1.0001) */
    1.4140722f,  /* 1 / (0.70710678 * 1.0001) */
    0.96482495f, /* 1 / (1.0363538 * 1.0001) */
    0.90909091f, /* soft-limited: 1 / 1.10 */
};
static const float fast_scale[4] = {
    1.99980002f, /* 1 / (0.5 * 1.0001) */
    1.4140722f,  /* 1 / (0.70710678 * 1.0001) */
    0.95692893f, /* 1 / (1.0449052 * 1.0001) */
    0.92592593f, /* soft-limited: 1 / 1.08 */
};
static const float flow_scale[4] = {
    0.0f,
    1.4140722f, /* 1 / (0.70710678 * 1.0001) */
    1.0362694f, /* soft-limited: 1 / 0.965 */
    0.0f,
};

/* The isotropic sets' scales (lattice_parts.h), found the same way (1D
 * has no set: as perlin). Maxima unscaled, gradient bounds after scaling:
 * perlin 2D, grad_pair (128 vectors, lengths 0.332 to 1.82, rms 1.143):
 *            max 1.1485059 near (0.5, 0.4236), each corner's vector the
 *            one of the 128 pointing at the sample (1 in 2^28 of
 *            configurations); 1 sample in 10^6 exceeds 1.030 (3 x 2^25
 *            samples over random cells and vectors: 1.025 to 1.035);
 *            d/dx 3.71875 unscaled (the centre). Plateau-limited: scaled
 *            by the maximum, its rms would be 0.70 of the classic set's.
 * perlin 3D, grad_ind3 (components up to 1.5, lengths up to
 *            2.5980762 = 1.5 sqrt 3): max <= 0.8660254 x 2.5980762 (the
 *            bound for any unit gradients, at the centre, times the
 *            longest); 1 sample in 10^6 exceeds 1.135 (2^25 samples over
 *            random seeds and cells); d/dx <= 2.7922885 x 2.5980762 =
 *            7.2545783 unscaled (any unit gradients' bound, a search over
 *            the cell). Plateau-limited.
 * perlin 4D, grad_ind4 (lengths up to 3): 1e-6 quantile 1.155; d/dx
 *            <= 3.3634061 x 3 = 10.090218 unscaled. Plateau-limited.
 * fast 2D (grad_pair with PAIR_K_SMOOTH: 64 vectors, lengths 0.295 to
 *            1.346) max 0.88848655 near (0.5, 0.4276), 1e-6 quantile
 *            0.827 (0.824 to 0.830), d/dx 2.1910642 unscaled near
 *            (0.193, 0.5); 3D (grad_ind3) 1e-6
 *            quantile 1.104, d/dx <= 2.1794495 x 2.5980762 = 5.6623759;
 *            4D (grad_ind4) 1e-6 quantile 1.089, d/dx <= 2.6457513 x 3
 *            = 7.9372539. 2D to 4D plateau-limited.
 * flow 2D: grad_pair turned by every angle (0.25 degree steps; its
 *            symmetries make 0 to 45 degrees all of them): max 1.2869532
 *            at 29 degrees; d/dx 3.7565048 unscaled at 45 degrees; 1
 *            sample in 10^6 exceeds 1.096 over random angles (1.093 to
 *            1.098). Plateau-limited.
 * flow 3D: grad_ind3, turned: d/dx <= 7.2545783 (as perlin 3D: turns
 *            keep lengths); 1 sample in 10^6 exceeds 1.136 over random
 *            angles. Plateau-limited.
 */
static const float perlin_iso_scale[4] = {
    1.99980002f,
    0.97087379f, /* plateau-limited: 1 / 1.030 */
    0.88105727f, /* plateau-limited: 1 / 1.135 */
    0.86580087f, /* plateau-limited: 1 / 1.155 */
};
static const float fast_iso_scale[4] = {
    1.99980002f,
    1.2091898f, /* plateau-limited: 1 / 0.827 */
    0.90579710f, /* plateau-limited: 1 / 1.104 */
    0.91827365f, /* plateau-limited: 1 / 1.089 */
};
static const float flow_iso_scale[4] = {
    0.0f,
    0.91240876f, /* plateau-limited: 1 / 1.096 */
    0.88028169f, /* plateau-limited: 1 / 1.136 */
    0.0f,
};

/* The range scale of (kind, gradients, dims). Each table indexed on its
 * own: UBSan's object-size check refused an index into a conditional
 * choice of two tables (a false positive, but a failing SAN run). */
static inline float lattice_scale(int kind, int iso, int dims)
{
    if (kind == K_PERLIN) return iso ? perlin_iso_scale[dims - 1] : perlin_scale[dims - 1];
    if (kind == K_FAST) return iso ? fast_iso_scale[dims - 1] : fast_scale[dims - 1];
    if (kind == K_FLOW) return iso ? flow_iso_scale[dims - 1] : flow_scale[dims - 1];
    return 1.0f;
}

/* Which (kind, dims, gradients) pass through a limiter: soft_limit for
 * the classic sets, plateau_limit for every isotropic one (only gradient
 * kinds have them), in 2D and 3D too (the true maximum needs every corner's
 * vector among the longest, pointing at the sample: in 3D 8 of them, each
 * 1 in 2^9; in 2D 4 of grad_pair's, each the one of its 64 or 128
 * pointing at the sample). */
static inline int soft_limited(int kind, int dims, int iso)
{
    return (dims == 4 && kind != K_VALUE) || (dims == 3 && kind == K_FLOW) || iso;
}

/* The multilinear blend of corner terms c[] (axis 0 first) and, with
 * deriv, of their partials g[e][]: the same steps as `lattice`. */
LOOP_INLINE float lattice_blend(int dims, int kind, int deriv, float *c, float g[4][16], const float *w,
                                const float *dw)
{
    const int nc = 1 << dims;
    int d, k, e;
    UNROLL
    for (d = 0; d < dims; d++)
        UNROLL
        for (k = 0; k < 8; k++)
            if (k < nc >> (d + 1)) {
                if (deriv) {
                    float jump = dw[d] * (c[2 * k + 1] - c[2 * k]);
                    UNROLL
                    for (e = 0; e < dims; e++)
                        if (kind == K_VALUE && e == d)
                            g[e][k] = jump;
                        else if (e == d)
                            g[e][k] = lerp(g[e][2 * k], g[e][2 * k + 1], w[d]) + jump;
                        else if (kind != K_VALUE || e < d)
                            g[e][k] = lerp(g[e][2 * k], g[e][2 * k + 1], w[d]);
                }
                c[k] = lerp(c[2 * k], c[2 * k + 1], w[d]);
            }
    return c[0];
}

/*
 * One body for the plain kernels and their _d forms: deriv is a constant in
 * every instantiation, so the plain ones compile to the value path alone.
 * The value expressions are the same in both, hence the same bits.
 *
 * Derivatives: the blend along axis d is lerp(a, b, w(t_d)), a and b the
 * blends of the two faces, so its partial along e is lerp(a_e, b_e, w) plus,
 * for e = d, w'(t_d) (b - a); the corners' partials (a_e at the start) are
 * the gradient components, zero for value noise (there a partial along e
 * only appears at blend level e). The point's fraction moves with the
 * noise-space position (dt/dx = 1); the range scale and the limiter's slope
 * multiply at the end.
 */
enum { TURNED = 2 }; /* lattice's `tiled` for an untiled call with turned offsets */

/*
 * 3D ORIENTATION. The isotropic sets' 3D kernels (perlin, fast, flow;
 * untiled) read their lattice turned against the world's axes: lattice
 * coordinates are q = O x of the noise-space position x (after the
 * frequency, so element_scale still stretches along world axes), with
 * world z along the lattice's main diagonal (1, 1, 1) / sqrt(3) and world
 * x along the lattice x axis's projection on the plane normal to it (the
 * idea of OpenSimplex2's orientation for XY planes). A lattice plane's
 * neighbourhood shows the lattice: half way between two planes each
 * corner's gradient adds +-g_z / 2 to its term, a random value per corner
 * blended like value noise (orientation histogram 1.21 plain over seeds
 * 1 to 3, tests/test_isotropy.c's mid-cell slice), and on a plane the
 * tensor blend's pull to the diagonals shows (ridged 1.15). Turned, every
 * world plane cuts the lattice obliquely, through all depths at once:
 * over seeds 1 to 6, z slices at any depth, x, y and diagonal slices
 * measure 1.05 to 1.10 plain and 1.10 to 1.14 ridged (perlin; fast 1.05
 * to 1.07, 1.10 to 1.13), where unturned z slices measured up to 1.21 and
 * 1.19 (the sweep is in the isotropy suite's notes). A point's value is
 * the same function of its lattice position, so ranges, gradient bounds
 * and statistics carry over. A tiled call keeps the axes (a period runs
 * along them), as fractals keep tiled octaves unturned. The rows of
 * O are orthonormal: (2, 0, sqrt 2) / sqrt 6, (-1, sqrt 3, sqrt 2) /
 * sqrt 6, (-1, -sqrt 3, sqrt 2) / sqrt 6 (orient_pos, below).
 */
#define ORIENT_AD 0.81649658092772603 /* 2 / sqrt 6, in double (the anchor, turn_fold) */
#define ORIENT_BD 0.40824829046386302 /* 1 / sqrt 6 */
#define ORIENT_CD 0.70710678118654752 /* 1 / sqrt 2 */
#define ORIENT_RD 0.57735026918962576 /* 1 / sqrt 3 */
#define ORIENT_A ((float)ORIENT_AD)
#define ORIENT_B ((float)ORIENT_BD)
#define ORIENT_C ((float)ORIENT_CD)
#define ORIENT_R ((float)ORIENT_RD)

/* Whether (dims, gradients, tiled) reads the lattice turned by O. */
static inline int oriented(int dims, int iso, int tiled)
{
    return dims >= 3 && (iso == ISO_TENSOR || iso == ISO_SMOOTH) && tiled != 1; /* perlin and flow; fast */
}

/* O x in seven operations, its zeros and repeated entries shared
 * (the same float operations in every kernel and on every path): q0 =
 * A x0 + R x2, q1 = (R x2 - B x0) + C x1, q2 = (R x2 - B x0) - C x1. */
static inline void orient_pos(const float *x, float *q)
{
    const float rz = ORIENT_R * x[2], u = rz - ORIENT_B * x[0], cy = ORIENT_C * x[1];
    q[0] = fma_f(ORIENT_A, x[0], rz);
    q[1] = u + cy;
    q[2] = u - cy;
}

/* The partials along the lattice's axes, g, back to the world's (in place): the
 * transpose, G0 = A g0 - B (g1 + g2), G1 = C (g1 - g2), G2 = R (g0 + g1 +
 * g2). */
static inline void orient_grad(float *g)
{
    const float g0 = g[0], s12 = g[1] + g[2], d12 = g[1] - g[2];
    g[0] = fma_f(ORIENT_A, g0, -ORIENT_B * s12);
    g[1] = ORIENT_C * d12;
    g[2] = ORIENT_R * (g0 + s12);
}

/* A turned call's one matrix, M = O diag(fsc) T (T the octave's turn,
 * fsc the frequency), in double, rounded once to float: applied as
 * turned_off applies a turn, its 9 operations take a point's offset
 * straight to lattice coordinates, where turn, frequency and orient_pos
 * took 19. The anchor is turned by O in double as for any oriented
 * call, so far from the origin only the small offsets see M's rounding. */
static void turn_fold(const float T[3][3], const float *fsc, float M[3][3])
{
    const double A = ORIENT_AD, B = ORIENT_BD, C = ORIENT_CD, R = ORIENT_RD;
    const double O[3][3] = {{A, 0.0, R}, {-B, C, R}, {-B, -C, R}};
    int d, e, k;
    for (d = 0; d < 3; d++)
        for (e = 0; e < 3; e++) {
            double m = 0.0;
            for (k = 0; k < 3; k++) m += O[d][k] * (double)fsc[k] * (double)T[k][e];
            M[d][e] = (float)m;
        }
}

/* The anchor split per axis (tiled: on the periods), turned by O in
 * double when oriented: exact enough far from the origin. */
static void lattice_axes(const ng_noise_pts *p, int dims, int orient, int tiled, axis *a)
{
    int d;
    for (d = 0; d < dims; d++) {
        double an = p->anchor[d];
        if (orient && d < 3) {
            const double A = ORIENT_AD, B = ORIENT_BD, C = ORIENT_CD, R = ORIENT_RD, *x = p->anchor;
            an = d == 0 ? A * x[0] + R * x[2] : (R * x[2] - B * x[0]) + (d == 1 ? C : -C) * x[1];
        }
        a[d] = split_axis(an, tiled ? p->period[d] : 0u);
    }
}

LOOP_INLINE void lattice(const ng_noise_pts *p, float *out, float *gx, float *gy, float *gz,
                         float *gw, int dims, int kind, int iso, int tiled, int deriv)
{
    const int nc = 1 << dims, n = p->n;
    const uint32_t s = ng_hash_seed(p->seed);
    const rotation rot =
        kind == K_FLOW ? flow_rotation(p->flow) : (rotation){1.0f, 0.0f, 0.0f, 0.0f};
    const float scale = lattice_scale(kind, iso, dims);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    const float gm[4] = {ng_pts_gmul(p, 0), ng_pts_gmul(p, 1), ng_pts_gmul(p, 2), ng_pts_gmul(p, 3)};
    const float gma = ng_pts_gmul_all(p);
    const int turned = tiled == TURNED, nt = turned ? (dims < 3 ? dims : 3) : 0;
    const int orient = oriented(dims, iso, tiled), fold = turned && orient && nt == 3;
    float tm[3][3];
    axis a[4];
    int i, d, k, e;
    tiled = tiled == 1;
    for (d = 0; d < 3; d++)
        for (e = 0; e < 3; e++) tm[d][e] = p->turn[d][e];
    if (fold) turn_fold((const float(*)[3])p->turn, fsc, tm); /* tm: M, the whole way to lattice coordinates */
    lattice_axes(p, dims, orient, tiled, a);
    NO_ALIAS_LOOP
    for (i = 0; i < n; i++) {
        uint32_t lo[4], hi[4], h[16];
        float t[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0}, w[4], dw[4], c[16], g[4][16], x[4], q[3];
        float gscale = scale;
        UNROLL
        for (d = 0; d < dims; d++) /* turned: the pass's offset (bits.h) times the frequency, or folded: M's */
            x[d] = fold && d < 3 ? turned_off(tm[d], f, 3, i) : (d < nt ? turned_off(tm[d], f, nt, i) : f[d][i]) * fsc[d];
        if (orient && !fold) {
            orient_pos(x, q);
            x[0] = q[0], x[1] = q[1], x[2] = q[2];
        }
        UNROLL
        for (d = 0; d < dims; d++) {
            t[d] = lattice_cell(&a[d], x[d], tiled, &lo[d], &hi[d]);
            lo[d] *= lattice_prime[d];
            /* untiled, hi = lo + 1; tiled it may have wrapped to 0 */
            hi[d] = tiled ? hi[d] * lattice_prime[d] : lo[d] + lattice_prime[d];
            t1[d] = t[d] - 1.0f;
            w[d] = kind == K_FAST ? smooth(t[d]) : fade(t[d]);
            if (deriv) dw[d] = kind == K_FAST ? smooth_slope(t[d], t1[d]) : fade_slope(t[d], t1[d]);
        }
        lattice_corners(dims, s, lo, hi, h);
        UNROLL
        for (k = 0; k < 16; k++)
            if (k < nc) {
                float dk[4];
                UNROLL
                for (d = 0; d < 4; d++) dk[d] = (k >> d) & 1 ? t1[d] : t[d];
                c[k] = corner_term(dims, kind, iso, h[k], dk, &rot);
                if (deriv && kind != K_VALUE)
                    UNROLL
                    for (e = 0; e < dims; e++) g[e][k] = corner_slope(dims, kind, iso, h[k], e, &rot);
            }
        lattice_blend(dims, kind, deriv, c, g, w, dw); /* c[0], g[e][0]: the point's value and partials */
        if (kind == K_VALUE) {
            out[i] = c[0];
        } else if (soft_limited(kind, dims, iso)) {
            float slope;
            out[i] = iso ? plateau_limit(c[0] * scale, &slope) : soft_limit(c[0] * scale, &slope);
            gscale = scale * slope;
        } else {
            out[i] = c[0] * scale;
        }
        if (deriv) {
            float gl[4];
            UNROLL
            for (e = 0; e < dims; e++) gl[e] = g[e][0];
            if (orient) orient_grad(gl); /* the lattice's partials back to the world's axes */
            UNROLL
            for (e = 0; e < dims; e++) {
                float *ge = e == 0 ? gx : e == 1 ? gy : e == 2 ? gz : gw;
                ge[i] = ng_gscaled(gl[e] * gscale, gm[e], gma);
            }
        }
    }
}

#define LATTICE_SET(name, dims, kind, iso)                                                   \
    static void name(const ng_noise_pts *p, float *out)                                 \
    {                                                                                   \
        if (dims > 1 && p->turn_axes) lattice(p, out, NULL, NULL, NULL, NULL, dims, kind, iso, TURNED, 0); \
        else lattice(p, out, NULL, NULL, NULL, NULL, dims, kind, iso, 0, 0);                      \
    }                                                                                   \
    static void name##_tiled(const ng_noise_pts *p, float *out)                          \
    {                                                                                   \
        lattice(p, out, NULL, NULL, NULL, NULL, dims, kind, iso, 1, 0);                      \
    }                                                                                   \
    static void name##_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,  \
                         float *restrict gy, float *restrict gz, float *restrict gw)    \
    {                                                                                   \
        if (dims > 1 && p->turn_axes) lattice(p, out, gx, gy, gz, gw, dims, kind, iso, TURNED, 1); \
        else lattice(p, out, gx, gy, gz, gw, dims, kind, iso, 0, 1);                              \
    }                                                                                   \
    static void name##_d_tiled(const ng_noise_pts *p, float *restrict out,              \
                               float *restrict gx, float *restrict gy, float *restrict gz, \
                               float *restrict gw)                                      \
    {                                                                                   \
        lattice(p, out, gx, gy, gz, gw, dims, kind, iso, 1, 1);                              \
    }

LATTICE_SET(value1, 1, K_VALUE, 0)
LATTICE_SET(value2, 2, K_VALUE, 0)
LATTICE_SET(value3, 3, K_VALUE, 0)
LATTICE_SET(value4, 4, K_VALUE, 0)
LATTICE_SET(perlin1, 1, K_PERLIN, 0)
LATTICE_SET(perlin2, 2, K_PERLIN, 0)
LATTICE_SET(perlin2i, 2, K_PERLIN, ISO_TENSOR)
LATTICE_SET(perlin3, 3, K_PERLIN, 0)
LATTICE_SET(perlin3i, 3, K_PERLIN, ISO_TENSOR)
LATTICE_SET(perlin4, 4, K_PERLIN, 0)
LATTICE_SET(perlin4i, 4, K_PERLIN, ISO_TENSOR)
LATTICE_SET(fast1, 1, K_FAST, 0)
LATTICE_SET(fast2, 2, K_FAST, 0)
LATTICE_SET(fast2i, 2, K_FAST, ISO_SMOOTH)
LATTICE_SET(fast3, 3, K_FAST, 0)
LATTICE_SET(fast3i, 3, K_FAST, ISO_SMOOTH)
LATTICE_SET(fast4, 4, K_FAST, 0)
LATTICE_SET(fast4i, 4, K_FAST, ISO_SMOOTH)
LATTICE_SET(flow2, 2, K_FLOW, 0)
LATTICE_SET(flow2i, 2, K_FLOW, ISO_TENSOR)
LATTICE_SET(flow3, 3, K_FLOW, 0)
LATTICE_SET(flow3i, 3, K_FLOW, ISO_TENSOR)

static void value_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4][2] = {{value1, value1_tiled}, {value2, value2_tiled},
                                    {value3, value3_tiled}, {value4, value4_tiled}};
    dispatch(p, out, fn);
}

static void perlin_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[2][4][2] = {
        {{perlin1, perlin1_tiled}, {perlin2, perlin2_tiled}, {perlin3, perlin3_tiled}, {perlin4, perlin4_tiled}},
        {{perlin1, perlin1_tiled}, {perlin2i, perlin2i_tiled}, {perlin3i, perlin3i_tiled}, {perlin4i, perlin4i_tiled}}};
    dispatch(p, out, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

static void fast_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[2][4][2] = {
        {{fast1, fast1_tiled}, {fast2, fast2_tiled}, {fast3, fast3_tiled}, {fast4, fast4_tiled}},
        {{fast1, fast1_tiled}, {fast2i, fast2i_tiled}, {fast3i, fast3i_tiled}, {fast4i, fast4i_tiled}}};
    dispatch(p, out, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

static void flow_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[2][4][2] = {
        {{NULL, NULL}, {flow2, flow2_tiled}, {flow3, flow3_tiled}, {NULL, NULL}},
        {{NULL, NULL}, {flow2i, flow2i_tiled}, {flow3i, flow3i_tiled}, {NULL, NULL}}};
    dispatch(p, out, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

static void value_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[4][2] = {{value1_d, value1_d_tiled}, {value2_d, value2_d_tiled},
                                      {value3_d, value3_d_tiled}, {value4_d, value4_d_tiled}};
    dispatch_d(p, out, grad, fn);
}

static void perlin_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[2][4][2] = {{{perlin1_d, perlin1_d_tiled}, {perlin2_d, perlin2_d_tiled},
                                          {perlin3_d, perlin3_d_tiled}, {perlin4_d, perlin4_d_tiled}},
                                         {{perlin1_d, perlin1_d_tiled}, {perlin2i_d, perlin2i_d_tiled},
                                          {perlin3i_d, perlin3i_d_tiled}, {perlin4i_d, perlin4i_d_tiled}}};
    dispatch_d(p, out, grad, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

static void fast_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[2][4][2] = {{{fast1_d, fast1_d_tiled}, {fast2_d, fast2_d_tiled},
                                          {fast3_d, fast3_d_tiled}, {fast4_d, fast4_d_tiled}},
                                         {{fast1_d, fast1_d_tiled}, {fast2i_d, fast2i_d_tiled},
                                          {fast3i_d, fast3i_d_tiled}, {fast4i_d, fast4i_d_tiled}}};
    dispatch_d(p, out, grad, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

static void flow_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[2][4][2] = {
        {{NULL, NULL}, {flow2_d, flow2_d_tiled}, {flow3_d, flow3_d_tiled}, {NULL, NULL}},
        {{NULL, NULL}, {flow2i_d, flow2i_d_tiled}, {flow3i_d, flow3i_d_tiled}, {NULL, NULL}}};
    dispatch_d(p, out, grad, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

/* ---- vector channels (see lattice_parts.h) --------------------------------------
 * value, perlin and fast in 2D and 3D: one walk for every channel (cells,
 * fades and corner hashes shared), the per-channel corner terms blended as
 * in `lattice`, plus (gradient kinds) the nearest corner's bump, radius 0.3
 * and height 0.7 of the basis's maximum: within 0.3 of a corner the
 * largest |value| for any classic gradients and values is 0.5106 (perlin
 * 2D), 0.7465 (perlin 3D), 0.5135 (fast 2D) and 0.7549 (fast 3D), below
 * the maxima, so the scales are the scalar kernels'. The isotropic sets
 * as `lattice` reads them: turned in 3D (untiled), scaled, plateau-limited.
 * Value channels need no bump.
 */
#define LATTICE_BUMP_INV 11.111111f /* 1 / 0.3^2 */

/* A gradient kind's range scale per unit of channel_grad's terms. */
static inline float lattice_vec_scale(int kind, int iso, int dims)
{
    return iso ? lattice_scale(kind, iso, dims) : lattice_scale(kind, 0, dims) * CHANNEL_GRAD_NORM(dims);
}

/* The bump's height per unit of bump_value (whose |v| < 1/2), in
 * channel_grad's units: classic 2 x 0.7 x the maximum / CHANNEL_GRAD_NORM;
 * isotropic the classic height times scale, in output units, over its own
 * scale. */
static inline float lattice_bump_height(int kind, int iso, int dims)
{
    const float height = dims == 2 ? 1.4f : kind == K_PERLIN ? 1.4f * 1.0363538f : 1.4f * 1.0449052f;
    return iso ? height * lattice_vec_scale(kind, 0, dims) / lattice_vec_scale(kind, iso, dims) : height;
}

/* The bump at the cell's nearest corner for every channel: bsum[c] and,
 * with deriv, its partials bg[c][e]. The nearest corner is the +1 one on
 * the axes where t >= 1/2; its hash is picked from h[] axis by axis. */
LOOP_INLINE void lattice_vec_bump(int dims, float height, int nch, int deriv, const float *t, const float *t1,
                                  const uint32_t *h, float *bsum, float bg[VEC_CHANNELS][4])
{
    uint32_t near[4], hn[8];
    float dn[4], r2, t2, bump, slope;
    int d, k, c, e;
    UNROLL
    for (d = 0; d < dims; d++) {
        near[d] = 0u - (uint32_t)(t[d] >= 0.5f);
        dn[d] = select_f(t[d] >= 0.5f, t1[d], t[d]);
    }
    r2 = dn[0] * dn[0];
    UNROLL
    for (d = 1; d < dims; d++) r2 = fma_f(dn[d], dn[d], r2);
    UNROLL
    for (k = 0; k < 8; k++)
        if (k < 1 << (dims - 1)) hn[k] = select_u(near[0], h[2 * k + 1], h[2 * k]);
    UNROLL
    for (d = 1; d < dims; d++)
        UNROLL
        for (k = 0; k < 4; k++)
            if (k < 1 << (dims - 1 - d)) hn[k] = select_u(near[d], hn[2 * k + 1], hn[2 * k]);
    bump = vec_bump(r2, LATTICE_BUMP_INV, &t2) * height;
    slope = -6.0f * LATTICE_BUMP_INV * height * t2;
    hn[0] = bump_hash(hn[0]);
    UNROLL
    for (c = 0; c < VEC_CHANNELS; c++)
        if (c < nch) {
            float v = bump_value(hn[0], c);
            bsum[c] = v * bump;
            if (deriv)
                UNROLL
                for (e = 0; e < dims; e++) bg[c][e] = slope * v * dn[e];
        }
}

LOOP_INLINE void lattice_vec(const ng_noise_pts *p, float *restrict out, float *restrict grad, int dims,
                             int kind, int iso, int tiled, int nch, int deriv)
{
    const int nc = 1 << dims, orient = oriented(dims, iso, tiled);
    const size_t n = (size_t)p->n;
    const uint32_t s = kind == K_VALUE ? ng_hash_seed(p->seed) : vec_seed(p->seed);
    const float scale = kind == K_VALUE ? 1.0f : lattice_vec_scale(kind, iso, dims);
    const float height = kind == K_VALUE ? 0.0f : lattice_bump_height(kind, iso, dims);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    const float gm[4] = {ng_pts_gmul(p, 0), ng_pts_gmul(p, 1), ng_pts_gmul(p, 2), ng_pts_gmul(p, 3)};
    const float gma = ng_pts_gmul_all(p);
    axis a[4];
    size_t i;
    int d, k, e, c;
    lattice_axes(p, dims, orient, tiled, a);
    NO_ALIAS_LOOP
    for (i = 0; i < n; i++) {
        uint32_t lo[4], hi[4], h[16];
        float t[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0}, w[4], dw[4], x[4], ct[VEC_CHANNELS][16],
              g[VEC_CHANNELS][4][16], bsum[VEC_CHANNELS], bg[VEC_CHANNELS][4];
        UNROLL
        for (d = 0; d < dims; d++) x[d] = f[d][i] * fsc[d];
        if (orient) {
            float q[3];
            orient_pos(x, q);
            x[0] = q[0], x[1] = q[1], x[2] = q[2];
        }
        UNROLL
        for (d = 0; d < dims; d++) {
            t[d] = lattice_cell(&a[d], x[d], tiled, &lo[d], &hi[d]);
            lo[d] *= lattice_prime[d];
            hi[d] = tiled ? hi[d] * lattice_prime[d] : lo[d] + lattice_prime[d];
            t1[d] = t[d] - 1.0f;
            w[d] = kind == K_FAST ? smooth(t[d]) : fade(t[d]);
            if (deriv) dw[d] = kind == K_FAST ? smooth_slope(t[d], t1[d]) : fade_slope(t[d], t1[d]);
        }
        lattice_corners(dims, s, lo, hi, h);
        UNROLL
        for (k = 0; k < 16; k++)
            if (k < nc) {
                float dk[4];
                uint32_t folded = channel_fold(h[k]);
                UNROLL
                for (d = 0; d < 4; d++) dk[d] = (k >> d) & 1 ? t1[d] : t[d];
                UNROLL
                for (c = 0; c < VEC_CHANNELS; c++)
                    if (c < nch && kind == K_VALUE) {
                        ct[c][k] = lattice_value(channel_hash(folded, c));
                    } else if (c < nch) {
                        uint32_t wc = channel_word(dims, iso, h[k], c);
                        ct[c][k] = channel_grad(dims, iso, wc, dk);
                        if (deriv) {
                            float gv[4];
                            channel_grad_vec(dims, iso, wc, gv);
                            UNROLL
                            for (e = 0; e < dims; e++) g[c][e][k] = gv[e];
                        }
                    }
            }
        if (kind != K_VALUE) lattice_vec_bump(dims, height, nch, deriv, t, t1, h, bsum, bg);
        UNROLL
        for (c = 0; c < VEC_CHANNELS; c++)
            if (c < nch) {
                float v = lattice_blend(dims, kind, deriv, ct[c], g[c], w, dw), gscale = scale, gl[4];
                if (kind == K_VALUE) {
                    out[(size_t)c * n + i] = v;
                } else if (iso) {
                    float slope;
                    out[(size_t)c * n + i] = plateau_limit((v + bsum[c]) * scale, &slope);
                    gscale = scale * slope;
                } else {
                    out[(size_t)c * n + i] = (v + bsum[c]) * scale;
                }
                if (deriv) {
                    UNROLL
                    for (e = 0; e < dims; e++) gl[e] = kind == K_VALUE ? g[c][e][0] : g[c][e][0] + bg[c][e];
                    if (orient) orient_grad(gl); /* the lattice's partials back to the world's axes */
                    UNROLL
                    for (e = 0; e < dims; e++)
                        grad[((size_t)c * (size_t)dims + (size_t)e) * n + i] =
                            ng_gscaled(kind == K_VALUE ? gl[e] : gl[e] * gscale, gm[e], gma);
                }
            }
    }
}

#define LATTICE_VEC_NCH(name, dims, kind, iso, nch)                                                            \
    static void name##_vec##nch(const ng_noise_pts *p, float *out)                                             \
    {                                                                                                          \
        lattice_vec(p, out, NULL, dims, kind, iso, 0, nch, 0);                                                 \
    }                                                                                                          \
    static void name##_vec##nch##_tiled(const ng_noise_pts *p, float *out)                                     \
    {                                                                                                          \
        lattice_vec(p, out, NULL, dims, kind, iso, 1, nch, 0);                                                 \
    }                                                                                                          \
    static void name##_vec##nch##_d(const ng_noise_pts *p, float *out, float *grad)                            \
    {                                                                                                          \
        lattice_vec(p, out, grad, dims, kind, iso, 0, nch, 1);                                                 \
    }                                                                                                          \
    static void name##_vec##nch##_d_tiled(const ng_noise_pts *p, float *out, float *grad)                      \
    {                                                                                                          \
        lattice_vec(p, out, grad, dims, kind, iso, 1, nch, 1);                                                 \
    }
#define LATTICE_VEC_SET(name, dims, kind, iso)                                                                 \
    LATTICE_VEC_NCH(name, dims, kind, iso, 2) LATTICE_VEC_NCH(name, dims, kind, iso, 3)

LATTICE_VEC_SET(value2, 2, K_VALUE, 0)
LATTICE_VEC_SET(value3, 3, K_VALUE, 0)
LATTICE_VEC_SET(perlin2, 2, K_PERLIN, 0)
LATTICE_VEC_SET(perlin2i, 2, K_PERLIN, ISO_TENSOR)
LATTICE_VEC_SET(perlin3, 3, K_PERLIN, 0)
LATTICE_VEC_SET(perlin3i, 3, K_PERLIN, ISO_TENSOR)
LATTICE_VEC_SET(fast2, 2, K_FAST, 0)
LATTICE_VEC_SET(fast2i, 2, K_FAST, ISO_SMOOTH)
LATTICE_VEC_SET(fast3, 3, K_FAST, 0)
LATTICE_VEC_SET(fast3i, 3, K_FAST, ISO_SMOOTH)

/* By dims and tiling, as `dispatch` does. */
#define LATTICE_VEC_DISPATCH(p, channels, out, grad, name2, name3)                                             \
    do {                                                                                                       \
        if ((p)->dims == 2 && tiled_call(p))                                                                   \
            vec_dispatch(p, channels, out, grad, name2##_vec2_tiled, name2##_vec3_tiled, name2##_vec2_d_tiled,  \
                         name2##_vec3_d_tiled);                                                                \
        else if ((p)->dims == 2)                                                                               \
            vec_dispatch(p, channels, out, grad, name2##_vec2, name2##_vec3, name2##_vec2_d, name2##_vec3_d);   \
        else if ((p)->dims == 3 && tiled_call(p))                                                              \
            vec_dispatch(p, channels, out, grad, name3##_vec2_tiled, name3##_vec3_tiled, name3##_vec2_d_tiled,  \
                         name3##_vec3_d_tiled);                                                                \
        else if ((p)->dims == 3)                                                                               \
            vec_dispatch(p, channels, out, grad, name3##_vec2, name3##_vec3, name3##_vec2_d, name3##_vec3_d);   \
    } while (0)

static void value_vector_d(const ng_noise_pts *p, int channels, float *out, float *grad)
{
    LATTICE_VEC_DISPATCH(p, channels, out, grad, value2, value3);
}

static void perlin_vector_d(const ng_noise_pts *p, int channels, float *out, float *grad)
{
    if (p->gradients == NG_GRADIENTS_ISOTROPIC) LATTICE_VEC_DISPATCH(p, channels, out, grad, perlin2i, perlin3i);
    else LATTICE_VEC_DISPATCH(p, channels, out, grad, perlin2, perlin3);
}

static void fast_vector_d(const ng_noise_pts *p, int channels, float *out, float *grad)
{
    if (p->gradients == NG_GRADIENTS_ISOTROPIC) LATTICE_VEC_DISPATCH(p, channels, out, grad, fast2i, fast3i);
    else LATTICE_VEC_DISPATCH(p, channels, out, grad, fast2, fast3);
}

static void value_vector(const ng_noise_pts *p, int channels, float *out) { value_vector_d(p, channels, out, NULL); }
static void perlin_vector(const ng_noise_pts *p, int channels, float *out) { perlin_vector_d(p, channels, out, NULL); }
static void fast_vector(const ng_noise_pts *p, int channels, float *out) { fast_vector_d(p, channels, out, NULL); }

NG_FAMILY_TABLE_VECTOR(lattice, NG_BASES_LATTICE,
                       NG_VECTOR_ROW(VALUE, value_vector, value_vector_d, NG_DIMS_23)
                       NG_VECTOR_ROW(PERLIN, perlin_vector, perlin_vector_d, NG_DIMS_23)
                       NG_VECTOR_ROW(FAST, fast_vector, fast_vector_d, NG_DIMS_23));
