/*
 * simplex_kernels.c — the simplex family (bases.h) over a batch of points:
 * Perlin's simplex noise (Perlin 2001, as explained by Gustavson) 1D to
 * 4D with its analytic gradient, and tileable 2D simplex on a 4D torus.
 * Written from the published algorithms. Compiled once per SIMD path
 * (Makefile); its kernels are static, its one export the family table.
 * Ranges were found as for the lattice family (see lattice_kernels.c).
 */
#include "lattice_parts.h"
#include "ngmath.h"

/* ---- simplex --------------------------------------------------------------
 * Corner falloff (0.5 - r^2)^4 in 2D to 4D (the isotropic sets': 2D the
 * cubic, 3D the quartic with a negative ring, FALLOFF below; all reach
 * zero at r^2 = 0.5 with their first two derivatives at least): every lattice vertex outside
 * the simplex holding a point is at least sqrt(0.5) away from it (checked
 * numerically: min r^2 0.500005 in 2D, 0.50011 in 3D, 0.50039 in 4D over
 * 2e6 points each), so contributions reach zero before their vertex drops
 * out and the field is continuous. The classic 0.6 in 3D and 4D is not.
 * 1D has no skew: a segment's two ends with falloff (1 - x^2)^4, which
 * reaches zero exactly at the other end.
 *
 * Precision: the anchor is skewed in double and split in skewed space; the
 * float offsets are skewed separately, and corner distance vectors come from
 * unskewing the small skewed fraction (X' - I') only.
 *
 * Maxima unscaled, gradient bounds |d/dx| unscaled and scaled:
 * 1D, gradients in [-1, 1]: max 0.31640625 = (3/4)^4 at t = 0.5 (exact);
 *     d/dx 1.0546875 (t = 0.5), 3.3330 scaled.
 * 2D, 8 unit gradients: max 0.0100802047 at the midpoint of the cell
 *     diagonal; d/dx 0.070996000, 7.0424 scaled.
 * 3D, 12 edge gradients: max 0.0130071572 near skewed fraction (0, 0.1669,
 *     0.8331) and its images; d/dx 0.088866778, 6.8315 scaled.
 * 4D, 32 edge gradients: max 0.0159292215 near skewed fraction (0.7378,
 *     0.7378, 0.8738, 0.7378); d/dx 0.094434205, 5.9278 scaled.
 */
#define SIMPLEX1_SCALE 3.1601778f /* 1 / (0.31640625 * 1.0001) */
#define SIMPLEX2_SCALE 99.194415f /* 1 / (0.0100802047 * 1.0001) */
#define SIMPLEX3_SCALE 76.873063f /* 1 / (0.0130071572 * 1.0001) */
#define SIMPLEX4_SCALE 62.77143f /* 1 / (0.0159292215 * 1.0001) */
/* The isotropic sets (lattice_parts.h): 2D, grad_arc's 2^15 directions
 * (lengths 0.879 to 1.121, 1 - 0.1 cos 4 theta, sparser near the
 * lattice's axes) with the cubic falloff (FALLOFF, below): the supremum
 * over the set, by a search over the cell with each corner's best vector
 * (the set's support function, over all 2^15), 0.0338954753 at the middle of the
 * cell's diagonal (exact: every direction of the set is there, no
 * limiter; the same search gave the set before 0.0340282, 6e-5 above
 * the 0.0340260756 found then). The gradient read along the world's axes
 * (the lattice is turned by 45 degrees, 2D ORIENTATION below): world x,
 * the lattice's (1, 1) / sqrt 2, 0.1660536301, world y 0.1921294000
 * (near skewed fraction (0.323, 0.677)): 5.6677 scaled. 3D and 4D: the independent components of grad_ind3
 * and grad_ind4, each corner's vector normalised (ind_unit: lengths 0.966
 * to 1.0339486 in 3D, 0.966 to 1.0339601 in 4D, over all 2^12 and 2^16
 * vectors). The bounds for any unit gradients, each corner's pointing at
 * the sample or away from it, sum_k |falloff(r_k^2)| r_k (a search over
 * the simplex): 3D, with its falloff t^4 (t - 1/4) (FALLOFF, below),
 * 0.0018836074, d/dx along the world's axes (the lattice turned, 3D
 * ORIENTATION below: the same search along each axis's direction in the
 * lattice frame) 0.015625 = 1/64, a vertex's own term (with t^3 (t -
 * 1/4) before 0.0041458805 and 1/32); 4D, with its falloff t^5 (FALLOFF,
 * below), 0.0041369022, one corner's term alone at r^2 = 1/22, d/dx
 * 0.03125 = 1/32, a vertex's own term (with the quartic before 0.0092108319
 * and 0.067778287). Times the longest: d/dx 8.2945 (3D) and 7.5532 (4D)
 * scaled. Exact bounds, no
 * limiter: one corner's term alone reaches 0.9996 of the unit bound in 3D
 * (0.0018829 at r^2 = 0.0374; 4D all of it); rms 0.287 and 0.210
 * (classic 0.392, 0.253; 3D's was 0.382 with the quartic, 0.311 with t^3
 * (t - 1/4), 4D's 0.248; test_kernels.c). Unnormalised, the longest
 * vector (1.5 in every component, 1 in 2^9 or 2^12) set the scale and the
 * rms was 0.19 and 0.12 (quartic); a scale at the 1e-6 quantile would not
 * have helped: over 2^22 samples it is 0.977 (3D) and 0.874 (4D) of that
 * bound, as one corner's long vector reaches it. */
#define SIMPLEX2_ISO_SCALE 29.499513f /* 1 / (0.0338954753 * 1.0001) */
#define SIMPLEX3_ISO_SCALE 513.41344f /* 1 / (0.0018836074 * 1.0339486 * 1.0001) */
#define SIMPLEX4_ISO_SCALE 233.76395f /* 1 / (0.0041369022 * 1.0339601 * 1.0001) */

#define F2 0.36602540378443865 /* (sqrt(3) - 1) / 2: skew */
#define G2 0.21132486540518712 /* (3 - sqrt(3)) / 6: unskew */
#define F3 (1.0 / 3.0)
#define G3 (1.0 / 6.0)
#define F4 0.30901699437494742 /* (sqrt(5) - 1) / 4 */
#define G4 0.13819660112501051 /* (5 - sqrt(5)) / 20 */

/* The corner falloffs of t = (0.5 - d2)_+ (FALLOFF, below), and t3 for
 * the derivative along the corner offset d, d/dd_e falloff = -8 d_e t3
 * (-6 d_e t3 for the cubic):
 *   FALL_QUARTIC t^4, t3 = t^3 (C3 where it reaches 0);
 *   FALL_CUBIC   t^3, t3 = t^2 (C2), 2D's isotropic set;
 *   FALL_RING    t^4 (t - 1/4), t3 = t^3 (t - 1/5) (C3), 3D's: its
 *                d/dd2 = -(5 t^4 - t^3), -10 d_e t3 (FALL_SLOPE);
 *   FALL_QUINTIC t^5, t3 = t^4 (C4), 4D's isotropic set: -10 d_e t3. */
enum { FALL_QUARTIC, FALL_CUBIC, FALL_RING, FALL_QUINTIC };
static inline float falloff(float d2, int shape, float *t3)
{
    /* max(t, 0) on the bits (negative -> +0): one integer max, where a
     * mask from the sign took two operations */
    int32_t u = (int32_t)f2u(0.5f - d2);
    float t = u2f((uint32_t)(u > 0 ? u : 0));
    float tt = t * t;
    if (shape == FALL_CUBIC) {
        *t3 = tt;
        return tt * t;
    }
    if (shape == FALL_RING) { /* t^3 (t^2 - t / 4): a multiply and a fused multiply-add more than the quartic */
        const float tc = tt * t;
        *t3 = tc * (t - 0.2f);
        return tc * fma_f(-0.25f, t, tt);
    }
    if (shape == FALL_QUINTIC) { /* one multiply more than the quartic */
        *t3 = tt * tt;
        return *t3 * t;
    }
    *t3 = tt * t;
    return tt * tt;
}

/*
 * Derivatives: corner offsets are unskewed (the skew's inverse), so each
 * moves one for one with the noise-space position and a corner's term
 * falloff(|d|^2) (g . d) has partials falloff g_e - 8 t3 (g . d) d_e. The
 * walk (which corners) is piecewise constant and the field continuous
 * across its switches, so it adds nothing. Sums and scales as the value,
 * each corner's partials added by two fused multiply-adds.
 */
LOOP_INLINE void simplex1(const ng_noise_pts *p, float *out, float *gx, int deriv)
{
    const axis ax = split_axis(p->anchor[0], 0u);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], sx = ng_pts_scale(p, 0), gm = ng_pts_gmul(p, 0), gma = ng_pts_gmul_all(p);
    int i;
    NO_ALIAS_LOOP
    for (i = 0; i < p->n; i++) {
        uint32_t X;
        float t = cell_of(&ax, fx[i] * sx, &X), t1 = t - 1.0f;
        float a = 1.0f - t * t, b = 1.0f - t1 * t1; /* both in [0, 1] */
        float a2 = a * a, b2 = b * b;
        uint32_t xp = X * NG_LATTICE_PRIME_X;
        float g0 = ng_hash_signed(ng_lattice_hash(s ^ xp));
        float g1 = ng_hash_signed(ng_lattice_hash(s ^ (xp + NG_LATTICE_PRIME_X)));
        float n0 = a2 * a2 * g0 * t, n1 = b2 * b2 * g1 * t1;
        out[i] = (n0 + n1) * SIMPLEX1_SCALE;
        /* d/dt (1 - t^2)^4 g t = g (1 - t^2)^3 (1 - t^2 - 8 t^2) */
        if (deriv)
            gx[i] = ng_gscaled((g0 * (a2 * a) * (a - 8.0f * t * t) + g1 * (b2 * b) * (b - 8.0f * t1 * t1)) *
                                   SIMPLEX1_SCALE,
                               gm, gma);
    }
}


/* FALLOFF. 2D's isotropic set takes the cubic (0.5 - r^2)^3: the
 * orientation histogram's three peaks at the triangles' edges (where a
 * point's gradient is the two corners' of an edge) are the quartic's
 * narrow bumps showing; the cubic's wider ones overlap more (a model over
 * seeds 1 to 6: plain 1.14 -> 1.07, tests/test_isotropy.c), and cost a
 * multiply less. C2 where it reaches 0 (the quartic C3). In 3D the cubic
 * moved the plain histograms less (axis 1.158 -> 1.144 in a model) and
 * the ridged ones up (1.18 -> 1.20); 3D's isotropic set takes the quartic
 * with a negative ring, t^3 (t - 1/4), t = (0.5 - r^2)_+ (FALL_RING): a
 * corner's bump turns negative for r^2 > 1/4, which takes the long
 * wavelengths out, where the lattice's tetrahedra (their edges' projected
 * directions, 60 degrees apart on an axis slice) show most. Over seeds 1
 * to 6 (tests/test_isotropy.c) ridged axis 1.152 -> 1.120, diagonal 1.129
 * -> 1.108, mid-cell 1.165 -> 1.128; plain 1.160 -> 1.144, 1.141 ->
 * 1.115, 1.174 -> 1.151. The ring's depth is the best of a scan (1/5 and
 * 0.27 did worse on one slice or another, 0.3 worse on all, 0.4 far worse:
 * the ring's own wavelength shows). Since, a power more, t^4 (t - 1/4):
 * the narrower bump shows the lattice less, most on the xz and yz planes,
 * which the turn (3D ORIENTATION) left over issue 24's bounds (a model of
 * this kernel in double, which matches tests/test_isotropy.c at seed 7;
 * means over seeds 1 to 6, plain / ridged, axis, diagonal, mid-cell, xz,
 * yz): 1.099 / 1.113, 1.110 / 1.116, 1.104 / 1.110, 1.137 / 1.151, 1.118
 * / 1.170 -> 1.063 / 1.100, 1.071 / 1.092, 1.070 / 1.096, 1.083 / 1.102,
 * 1.076 / 1.109, the worst seed of 1 to 7 1.097 / 1.136. Its depth from
 * a scan: 0.18 and 0.2 measured xz and yz higher (means up to 1.100 /
 * 1.126 and 1.094 / 1.121) with rms 0.79 and about 0.77 of the classic
 * set's, where 1/4 leaves 0.73 (test_kernels.c's floor 0.72); 0.15 went
 * over on yz with seed 7 (1.122 plain); t^5 without a ring, xz ridged
 * 1.176. Two operations a corner more than the quartic (a multiply and
 * a fused multiply-add). C3. 4D's isotropic set takes the quintic t^5: the
 * narrower bump shows its lattice less on every slice (a model of this
 * kernel in double, which matches tests/test_isotropy.c at seed 7; means
 * over seeds 1 to 6, plain / ridged): axis 1.121 / 1.167 -> 1.074 /
 * 1.094, diagonal 1.132 / 1.113 -> 1.112 / 1.109, zw 1.121 / 1.167 ->
 * 1.072 / 1.092 (seed 7's zw ridged 1.162 -> 1.090); t^6 went lower
 * (1.046 / 1.052 on zw) at a lower contrast, the cubic and 3D's ring
 * higher (zw ridged 1.275, 1.235). One multiply a corner more than the
 * quartic; its rms 0.83 of the classic set's (the quartic's 0.98). */
#define CUBIC(dims, iso) ((dims) == 2 && (iso))
#define FALLOFF(dims, iso)                                                                                     \
    (CUBIC(dims, iso) ? FALL_CUBIC : (dims) == 3 && (iso) ? FALL_RING : (dims) == 4 && (iso) ? FALL_QUINTIC : FALL_QUARTIC)
/* d/dd2 of the falloff per t3: -3, -4 or -5 times the 2 of d/dd_e */
#define FALL_SLOPE(dims, iso) (CUBIC(dims, iso) ? -6.0f : (dims) > 2 && (iso) ? -10.0f : -8.0f)

/* One corner of 2D to 4D simplex, d the point minus the corner: the term,
 * and with deriv its partials added to acc[]. */
LOOP_INLINE float simplex_corner(int dims, int iso, int deriv, uint32_t h, const float *d, float *acc)
{
    float r2 = d[0] * d[0], t3, fo, gd, c = 1.0f; /* the same bits as a fusion with +0 */
    int e;
    UNROLL
    for (e = 1; e < dims; e++) r2 = fma_f(d[e], d[e], r2);
    fo = falloff(r2, FALLOFF(dims, iso), &t3);
    gd = grad_set(dims, iso, h, d);
    if (iso && dims > 2) gd *= ind_unit(dims, h, &c);
    if (deriv) {
        float m = FALL_SLOPE(dims, iso) * t3 * gd, g[4];
        grad_set_vec(dims, iso, h, g);
        UNROLL
        for (e = 0; e < dims; e++) acc[e] = fma_f(fo, iso && dims > 2 ? g[e] * c : g[e], fma_f(m, d[e], acc[e]));
    }
    return fo * gd;
}

/* 2D ORIENTATION. The isotropic set reads its lattice turned by 45
 * degrees: lattice coordinates q = ((x - y), (x + y)) / sqrt 2, then
 * skewed, q + (q0 + q1) F2 = (K x - H y, K x + H y) with K = 1 / sqrt 2 +
 * sqrt 2 F2 = sqrt 1.5 and H = 1 / sqrt 2: one multiply and two fused
 * multiply-adds, where the skew alone took four operations. The
 * triangles' edges (lattice frame -15, 45 and 105 degrees) then lie 15
 * degrees from both world diagonals, where a ridged octave's creases add
 * to the orientation histogram (tests/test_isotropy.c; unturned, one
 * edge's peak sat on them: ridged 1.29 against 1.19 turned, over seeds 1
 * to 6 in a numpy model; gradient directions are isotropic, so the turn
 * of any angle is the same noise but for the measure's axes; 15 degrees
 * from both diagonals is as far as the three edges can get). A point's
 * value is the same function of its lattice position, so ranges carry
 * over (the gradient bound read along the world's axes: above). The
 * anchor is turned and skewed in double: exact enough far from the
 * origin.
 *
 * 3D ORIENTATION. The isotropic set reads its lattice turned by a
 * rotation M (NG_SIMPLEX3_TURN, noise_kernels.h; zyz Euler angles 24, 96
 * and -86 degrees): q = M x, then skewed, S M x with S = I + F3 1 1^T,
 * one matrix rounded once to float, nine operations a point (the
 * corners' offsets take a select and one add where they took three
 * operations, which pays for the three more; the classic set keeps its
 * operations and bits). Every slice of the isotropy suite (z planes at
 * two depths, the plane normal to (1, 1, 1)) cuts the lattice obliquely.
 * Turned 45 degrees about z (the 2D turn, before), z planes are normal to
 * the lattice direction (-1, 2, 2) of its cube (the simplices are the
 * body-centred cubic lattice's tetrahedra) and their plain histograms
 * stayed at 1.14 to 1.15 over seeds 1 to 6; OpenSimplex2's orientation
 * for XY planes (z along the cube's 3-fold axis (1, 1, 1), perlin's O,
 * lattice_kernels.c) did worse, 1.17 on every slice, with any turn about
 * z on top. The gradient set is not cube-symmetric, so the plane's
 * normal in the lattice frame matters beyond the lattice's symmetry: a
 * search over normals (the histograms of 2e6 random points' analytic
 * gradients projected on the plane, the render's chance left out) found
 * 1.08 where the best lie, and M puts both the z planes' and the diagonal
 * plane's normals there, with the in-plane turn that keeps the peaks off
 * the world's diagonals (where a ridged octave's creases add). The
 * isotropy suite's renders, means over seeds 1 to 24 (a model of this
 * kernel in double, which matches the suite at seed 7): plain axis,
 * diagonal and mid-cell 1.147, 1.120, 1.152 -> 1.101, 1.099, 1.097,
 * ridged 1.123, 1.108, 1.129 -> 1.105, 1.117, 1.108 (the diagonal's
 * ridged the one no lower). Rotations whose S M has three zeros (six
 * operations) reached 1.16 at best in the search, two zeros (seven)
 * 1.13. Those figures are with the falloff t^3 (t - 1/4), with which the
 * xz and yz planes stayed over issue 24's bounds (means over seeds 1 to
 * 6 plain 1.137 and 1.118, ridged 1.151 and 1.170) under M and under
 * every rotation searched (2e6 in a model; uniformly random unit
 * gradients in place of the set measured the same, so it was the
 * lattice's and the falloff's, not the set's); t^4 (t - 1/4) (FALLOFF,
 * above) brought every plane within them under the same M. */
#define TURN_K 1.2247448713915890 /* sqrt 1.5 */
#define TURN_H 0.70710678118654752 /* 1 / sqrt 2 */

static const double simplex_skew[5] = {0.0, 0.0, F2, F3, F4};
static const double simplex_unskew[5] = {0.0, 0.0, G2, G3, G4};

/* The anchor in the skewed lattice, split per axis; the isotropic sets'
 * turned first (2D and 3D ORIENTATION), all in double: exact enough far
 * from the origin. */
static void simplex_axes(const ng_noise_pts *p, int dims, int iso, axis *ax)
{
    static const double turn[3][3] = NG_SIMPLEX3_TURN;
    const double *an = p->anchor;
    double q[4], sk;
    int d;
    if (iso && dims == 2) { /* turned and skewed: (K x - H y, K x + H y) */
        const double ka = TURN_K * an[0], ha = TURN_H * an[1];
        ax[0] = split_axis(ka - ha, 0u);
        ax[1] = split_axis(ka + ha, 0u);
        return;
    }
    for (d = 0; d < dims; d++)
        q[d] = iso && dims == 3 ? turn[d][0] * an[0] + turn[d][1] * an[1] + turn[d][2] * an[2] : an[d];
    sk = q[0];
    for (d = 1; d < dims; d++) sk += q[d];
    sk *= simplex_skew[dims];
    for (d = 0; d < dims; d++) ax[d] = split_axis(q[d] + sk, 0u);
}

/* The isotropic set's 3D turn M rounded once to float: with the skew,
 * S M (sm, for the positions), and M's transpose (mt, the partials back). */
static void simplex3_turn(float sm[3][3], float mt[3][3])
{
    static const double turn[3][3] = NG_SIMPLEX3_TURN;
    int d, e;
    for (d = 0; d < 3; d++)
        for (e = 0; e < 3; e++) {
            sm[d][e] = (float)(turn[d][e] + (turn[0][e] + turn[1][e] + turn[2][e]) * F3);
            mt[e][d] = (float)turn[d][e];
        }
}

/* r . (a, b, c) as fma(r0, a, fma(r1, b, r2 c)): a row of the 3D turn
 * (S M, or a column of M for the partials back) */
static inline float turn_row(const float *r, float a, float b, float c)
{
    return fma_f(r[0], a, fma_f(r[1], b, r[2] * c));
}

/* A point's skewed lattice position q from its noise-space offset x, as
 * simplex_axes takes the anchor: isotropic 2D turned and skewed in one
 * multiply and two fused multiply-adds, 3D by S M (three operations a
 * row), else skewed. */
LOOP_INLINE void simplex_skewed(int dims, int iso, const float sm[3][3], const float *x, float *q)
{
    int d;
    if (iso && dims == 2) {
        const float kx = (float)TURN_K * x[0];
        q[0] = fma_f(-(float)TURN_H, x[1], kx);
        q[1] = fma_f((float)TURN_H, x[1], kx);
    } else if (iso && dims == 3) {
        UNROLL
        for (d = 0; d < 3; d++) q[d] = turn_row(sm[d], x[0], x[1], x[2]);
    } else {
        float fs = x[0];
        UNROLL
        for (d = 1; d < dims; d++) fs += x[d];
        fs *= (float)simplex_skew[dims];
        UNROLL
        for (d = 0; d < dims; d++) q[d] = x[d] + fs;
    }
}

/* The partials along the lattice's axes, acc, back to the world's (in
 * place): the transpose of the isotropic sets' turn. */
LOOP_INLINE void simplex_world(int dims, int iso, const float mt[3][3], float *acc)
{
    const float a0 = acc[0], a1 = acc[1], a2 = dims > 2 ? acc[2] : 0.0f;
    if (iso && dims == 2) {
        acc[0] = (a0 + a1) * (float)TURN_H;
        acc[1] = (a1 - a0) * (float)TURN_H;
    } else if (iso && dims == 3) {
        acc[0] = turn_row(mt[0], a0, a1, a2);
        acc[1] = turn_row(mt[1], a0, a1, a2);
        acc[2] = turn_row(mt[2], a0, a1, a2);
    }
}

LOOP_INLINE void simplex2(const ng_noise_pts *p, float *out, float *gx, float *gy, int iso, int deriv)
{
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], sx = ng_pts_scale(p, 0), sy = ng_pts_scale(p, 1);
    const float gm[4] = {ng_pts_gmul(p, 0), ng_pts_gmul(p, 1), ng_pts_gmul(p, 2), ng_pts_gmul(p, 3)};
    const float gma = ng_pts_gmul_all(p);
    const float g2 = (float)G2, g2x2m1 = (float)(2.0 * G2 - 1.0);
    const float scale = iso ? SIMPLEX2_ISO_SCALE : SIMPLEX2_SCALE;
    const int n = p->n;
    axis a[2];
    int i;
    simplex_axes(p, 2, iso, a);
    NO_ALIAS_LOOP
    for (i = 0; i < n; i++) {
        uint32_t X, Y;
        const float x[2] = {fx[i] * sx, fy[i] * sy};
        float q[2], rx, ry;
        simplex_skewed(2, iso, NULL, x, q);
        rx = cell_of(&a[0], q[0], &X), ry = cell_of(&a[1], q[1], &Y); /* skewed */
        float t = (rx + ry) * g2;
        float x0 = rx - t, y0 = ry - t; /* unskewed, from corner 0 */
        /* lower triangle (rx >= ry) steps along x first */
        uint32_t lower = rx >= ry ? 1u : 0u;
        /* corner 1's step (1, 0) or (0, 1) as masked bits of 1.0f: no
         * conversion, no subtraction */
        float ox = u2f(0x3f800000u & (0u - lower)), oy = u2f(0x3f800000u & (lower - 1u));
        float d0[2] = {x0, y0}, d1[2] = {x0 - ox + g2, y0 - oy + g2},
              d2[2] = {x0 + g2x2m1, y0 + g2x2m1}, acc[2] = {0.0f, 0.0f};
        uint32_t xm = X * NG_LATTICE_PRIME_X, yp = Y * NG_LATTICE_PRIME_Y;
        uint32_t xp = s ^ xm, xp1 = s ^ (xm + NG_LATTICE_PRIME_X), yp1 = yp + NG_LATTICE_PRIME_Y;
        uint32_t h0 = ng_lattice_hash(xp ^ yp);
        uint32_t h1 = ng_lattice_hash(lower ? xp1 ^ yp : xp ^ yp1);
        uint32_t h2 = ng_lattice_hash(xp1 ^ yp1);
        float n0 = simplex_corner(2, iso, deriv, h0, d0, acc);
        float n1 = simplex_corner(2, iso, deriv, h1, d1, acc);
        float n2 = simplex_corner(2, iso, deriv, h2, d2, acc);
        out[i] = (n0 + n1 + n2) * scale;
        if (deriv) {
            simplex_world(2, iso, NULL, acc);
            gx[i] = ng_gscaled(acc[0] * scale, gm[0], gma);
            gy[i] = ng_gscaled(acc[1] * scale, gm[1], gma);
        }
    }
}

LOOP_INLINE void simplex3(const ng_noise_pts *p, float *out, float *gx, float *gy, float *gz,
                          int iso, int deriv)
{
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    const float sx = ng_pts_scale(p, 0), sy = ng_pts_scale(p, 1), sz = ng_pts_scale(p, 2);
    const float gm[4] = {ng_pts_gmul(p, 0), ng_pts_gmul(p, 1), ng_pts_gmul(p, 2), ng_pts_gmul(p, 3)};
    const float gma = ng_pts_gmul_all(p);
    const float g3 = (float)G3, g3x2 = (float)(2.0 * G3),
                g3x3m1 = (float)(3.0 * G3 - 1.0), g3m1 = (float)(G3 - 1.0), g3x2m1 = (float)(2.0 * G3 - 1.0);
    const float scale = iso ? SIMPLEX3_ISO_SCALE : SIMPLEX3_SCALE;
    const int n = p->n;
    float sm[3][3], mt[3][3];
    axis a[3];
    int i;
    simplex3_turn(sm, mt);
    simplex_axes(p, 3, iso, a);
    NO_ALIAS_LOOP
    for (i = 0; i < n; i++) {
        uint32_t X, Y, Z;
        const float x[3] = {fx[i] * sx, fy[i] * sy, fz[i] * sz};
        float q[3], rx, ry, rz;
        simplex_skewed(3, iso, (const float(*)[3])sm, x, q);
        /* the skewed fraction */
        rx = cell_of(&a[0], q[0], &X), ry = cell_of(&a[1], q[1], &Y), rz = cell_of(&a[2], q[2], &Z);
        float t = (rx + ry + rz) * g3;
        float x0 = rx - t, y0 = ry - t, z0 = rz - t;
        /* The simplex walks the axes in decreasing order of the fraction:
         * corner 1 adds the largest axis, corner 2 the two largest. Ties
         * pick consistently, and either choice is continuous there. */
        uint32_t xy = rx >= ry ? 1u : 0u, yz = ry >= rz ? 1u : 0u, xz = rx >= rz ? 1u : 0u;
        uint32_t o1x = xy & xz, o1y = (xy ^ 1u) & yz, o1z = (xz | yz) ^ 1u;
        uint32_t o2x = xy | xz, o2y = (xy ^ 1u) | yz, o2z = (xz & yz) ^ 1u;
        float d0[3] = {x0, y0, z0};
        /* classic: the steps as masked bits of 1.0f (as simplex2), no
         * conversions; isotropic: a select of the two offsets, then one
         * add (other bits) */
        float d1[3] = {iso ? x0 + select_f(o1x, g3m1, g3) : x0 - u2f(0x3f800000u & (0u - o1x)) + g3,
                       iso ? y0 + select_f(o1y, g3m1, g3) : y0 - u2f(0x3f800000u & (0u - o1y)) + g3,
                       iso ? z0 + select_f(o1z, g3m1, g3) : z0 - u2f(0x3f800000u & (0u - o1z)) + g3};
        float d2[3] = {iso ? x0 + select_f(o2x, g3x2m1, g3x2) : x0 - u2f(0x3f800000u & (0u - o2x)) + g3x2,
                       iso ? y0 + select_f(o2y, g3x2m1, g3x2) : y0 - u2f(0x3f800000u & (0u - o2y)) + g3x2,
                       iso ? z0 + select_f(o2z, g3x2m1, g3x2) : z0 - u2f(0x3f800000u & (0u - o2z)) + g3x2};
        float d3[3] = {x0 + g3x3m1, y0 + g3x3m1, z0 + g3x3m1}, acc[3] = {0.0f, 0.0f, 0.0f};
        const uint32_t px = NG_LATTICE_PRIME_X, py = NG_LATTICE_PRIME_Y, pz = NG_LATTICE_PRIME_Z;
        uint32_t xp = X * px, yp = Y * py, zp = Z * pz;
        uint32_t h0 = ng_lattice_hash(s ^ xp ^ yp ^ zp);
        uint32_t h1 = ng_lattice_hash(s ^ (xp + (px & (0u - o1x))) ^ (yp + (py & (0u - o1y))) ^
                                      (zp + (pz & (0u - o1z))));
        uint32_t h2 = ng_lattice_hash(s ^ (xp + (px & (0u - o2x))) ^ (yp + (py & (0u - o2y))) ^
                                      (zp + (pz & (0u - o2z))));
        uint32_t h3 = ng_lattice_hash(s ^ (xp + px) ^ (yp + py) ^ (zp + pz));
        float n0 = simplex_corner(3, iso, deriv, h0, d0, acc);
        float n1 = simplex_corner(3, iso, deriv, h1, d1, acc);
        float n2 = simplex_corner(3, iso, deriv, h2, d2, acc);
        float n3 = simplex_corner(3, iso, deriv, h3, d3, acc);
        out[i] = (n0 + n1 + n2 + n3) * scale;
        if (deriv) {
            simplex_world(3, iso, (const float(*)[3])mt, acc);
            gx[i] = ng_gscaled(acc[0] * scale, gm[0], gma);
            gy[i] = ng_gscaled(acc[1] * scale, gm[1], gma);
            gz[i] = ng_gscaled(acc[2] * scale, gm[2], gma);
        }
    }
}

/* One 4D simplex corner: offset o (0 or 1 per axis) from the cell, k
 * corners along the walk (distance correction k * G4). */
LOOP_INLINE float simplex4_corner(uint32_t s, const uint32_t *cp, const uint32_t *o,
                                  const float *x0, float kg4, int iso, int deriv, float *acc)
{
    float d[4];
    uint32_t v = s;
    int a;
    UNROLL
    for (a = 0; a < 4; a++) {
        d[a] = x0[a] - (float)(int32_t)o[a] + kg4;
        v ^= cp[a] + (lattice_prime[a] & (0u - o[a]));
    }
    return simplex_corner(4, iso, deriv, ng_lattice_hash(v), d, acc);
}

/* 4D simplex from the skewed cell and the skewed fraction r, unscaled (and
 * with deriv its unscaled gradient in acc[4]). The walk adds axes in
 * decreasing order of r: an axis's rank (how many others it beats, ties to
 * the lower axis) says after which corner it is set. */
LOOP_INLINE float simplex4_at(uint32_t s, const uint32_t *cell, const float *r, int iso, int deriv,
                              float *acc)
{
    const float g4 = (float)G4;
    float t = (r[0] + r[1] + r[2] + r[3]) * g4, x0[4], sum;
    uint32_t rank[4] = {0, 0, 0, 0}, o[4], cp[4];
    int a, b, k;
    UNROLL
    for (a = 0; a < 4; a++) cp[a] = cell[a] * lattice_prime[a];
    UNROLL
    for (a = 0; a < 4; a++) {
        x0[a] = r[a] - t;
        UNROLL
        for (b = 0; b < 4; b++) {
            if (b <= a) continue;
            uint32_t ge = r[a] >= r[b] ? 1u : 0u;
            rank[a] += ge;
            rank[b] += ge ^ 1u;
        }
    }
    UNROLL
    for (a = 0; a < 4; a++) o[a] = 0u;
    sum = simplex4_corner(s, cp, o, x0, 0.0f, iso, deriv, acc);
    UNROLL
    for (k = 1; k <= 4; k++) {
        UNROLL
        for (a = 0; a < 4; a++) o[a] = rank[a] >= (uint32_t)(4 - k) ? 1u : 0u;
        sum += simplex4_corner(s, cp, o, x0, (float)(k * G4), iso, deriv, acc);
    }
    return sum;
}

LOOP_INLINE void simplex4(const ng_noise_pts *p, float *out, float *gx, float *gy,
                          float *gz, float *gw, int iso, int deriv)
{
    const uint32_t s = ng_hash_seed(p->seed);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    const float gm[4] = {ng_pts_gmul(p, 0), ng_pts_gmul(p, 1), ng_pts_gmul(p, 2), ng_pts_gmul(p, 3)};
    const float gma = ng_pts_gmul_all(p);
    const float scale = iso ? SIMPLEX4_ISO_SCALE : SIMPLEX4_SCALE;
    const int n = p->n;
    axis a[4];
    int i, d;
    simplex_axes(p, 4, iso, a);
    NO_ALIAS_LOOP
    for (i = 0; i < n; i++) {
        uint32_t cell[4];
        float r[4], x[4], q[4], acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        UNROLL
        for (d = 0; d < 4; d++) x[d] = f[d][i] * fsc[d];
        simplex_skewed(4, iso, NULL, x, q);
        UNROLL
        for (d = 0; d < 4; d++) r[d] = cell_of(&a[d], q[d], &cell[d]);
        out[i] = simplex4_at(s, cell, r, iso, deriv, acc) * scale;
        if (deriv) {
            gx[i] = ng_gscaled(acc[0] * scale, gm[0], gma);
            gy[i] = ng_gscaled(acc[1] * scale, gm[1], gma);
            gz[i] = ng_gscaled(acc[2] * scale, gm[2], gma);
            gw[i] = ng_gscaled(acc[3] * scale, gm[3], gma);
        }
    }
}

static void simplex1_v(const ng_noise_pts *p, float *out) { simplex1(p, out, NULL, 0); }

#define SIMPLEX_SET(iso, sfx)                                                                                  \
    static void simplex2##sfx##_v(const ng_noise_pts *p, float *out) { simplex2(p, out, NULL, NULL, iso, 0); }   \
    static void simplex3##sfx##_v(const ng_noise_pts *p, float *out)                                           \
    {                                                                                                          \
        simplex3(p, out, NULL, NULL, NULL, iso, 0);                                                            \
    }                                                                                                          \
    static void simplex4##sfx##_v(const ng_noise_pts *p, float *out)                                           \
    {                                                                                                          \
        simplex4(p, out, NULL, NULL, NULL, NULL, iso, 0);                                                      \
    }                                                                                                          \
    static void simplex2##sfx##_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,               \
                                  float *restrict gy, float *restrict gz, float *restrict gw)                  \
    {                                                                                                          \
        (void)gz, (void)gw;                                                                                    \
        simplex2(p, out, gx, gy, iso, 1);                                                                      \
    }                                                                                                          \
    static void simplex3##sfx##_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,               \
                                  float *restrict gy, float *restrict gz, float *restrict gw)                  \
    {                                                                                                          \
        (void)gw;                                                                                              \
        simplex3(p, out, gx, gy, gz, iso, 1);                                                                  \
    }                                                                                                          \
    static void simplex4##sfx##_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,               \
                                  float *restrict gy, float *restrict gz, float *restrict gw)                  \
    {                                                                                                          \
        simplex4(p, out, gx, gy, gz, gw, iso, 1);                                                              \
    }

SIMPLEX_SET(0, )
SIMPLEX_SET(1, i)

static void simplex1_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                       float *restrict gy, float *restrict gz, float *restrict gw)
{
    (void)gy, (void)gz, (void)gw;
    simplex1(p, out, gx, 1);
}

static void simplex_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[2][4] = {{simplex1_v, simplex2_v, simplex3_v, simplex4_v},
                                    {simplex1_v, simplex2i_v, simplex3i_v, simplex4i_v}};
    by_dims(p, out, fn[p->gradients == NG_GRADIENTS_ISOTROPIC]);
}

static void simplex_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[2][4] = {{simplex1_d, simplex2_d, simplex3_d, simplex4_d},
                                      {simplex1_d, simplex2i_d, simplex3i_d, simplex4i_d}};
    if (p->n <= 0) return;
    if (p->dims < 1 || p->dims > 4)
        unsupported_d(p, out, grad);
    else
        call_d(fn[p->gradients == NG_GRADIENTS_ISOTROPIC][p->dims - 1], p, out, grad);
}

/*
 * Tileable 2D simplex: (x, y) goes onto the flat torus in 4D,
 *   (Rx cos(2 pi x / Px), Rx sin(2 pi x / Px), Ry cos(2 pi y / Py), Ry sin(...)),
 * R = P / (2 pi), so a period is one turn and local distances are kept
 * (the torus is flat; chords match arcs to second order). The angle comes
 * from the wrapped cell plus the float fraction, in double, so x and x + P
 * give the same bits. Scalar: libm per point, tileable renders only.
 */
static void simplex_tiled2(const ng_noise_pts *p, float *out)
{
    const double two_pi = 6.283185307179586;
    const uint32_t s = ng_hash_seed(p->seed);
    const int iso = p->gradients == NG_GRADIENTS_ISOTROPIC;
    axis a[2];
    double radius[2];
    int i, d;
    if (p->dims != 2 || p->period[0] == 0 || p->period[1] == 0) {
        simplex_noise(p, out);
        return;
    }
    for (d = 0; d < 2; d++) {
        a[d] = split_axis(p->anchor[d], p->period[d]);
        radius[d] = (double)p->period[d] / two_pi;
    }
    for (i = 0; i < p->n; i++) {
        double q[4], sk;
        uint32_t cell[4];
        float r[4];
        for (d = 0; d < 2; d++) {
            uint32_t c0, c1;
            float t = lattice_cell(&a[d], p->f[d][i] * ng_pts_scale(p, d), 1, &c0, &c1);
            double ang = two_pi * (((double)c0 + t) / (double)p->period[d]);
            q[2 * d] = radius[d] * ng_cos(ang);
            q[2 * d + 1] = radius[d] * ng_sin(ang);
        }
        sk = (q[0] + q[1] + q[2] + q[3]) * F4;
        for (d = 0; d < 4; d++) {
            double v = q[d] + sk, c = floor(v);
            cell[d] = (uint32_t)(int64_t)c;
            r[d] = (float)(v - c);
        }
        out[i] = iso ? simplex4_at(s, cell, r, 1, 0, NULL) * SIMPLEX4_ISO_SCALE
                     : simplex4_at(s, cell, r, 0, 0, NULL) * SIMPLEX4_SCALE;
    }
}

/* ---- vector channels (see lattice_parts.h) --------------------------------------
 * One walk of the skewed lattice for every channel, 2D to 4D: the walk of
 * simplex4_at in any dims (axes added in decreasing order of the skewed
 * fraction; in 2D and 3D the same simplices as simplex2 and simplex3), a
 * falloff per corner shared, a gradient per corner and channel, and the
 * nearest corner's bump. Bump radius and height (unscaled) per dims: the
 * largest |value| within the radius of a corner, for any classic
 * gradients and values, stays below the basis's maximum (2D 0.0099473 <
 * 0.0100802; 3D and 4D: the maximum's point is 0.236 and more from every
 * corner), so the scales are simplex's. A point within a bump's radius of
 * a vertex lies in a simplex of that vertex (the radius is below every
 * simplex's height), so the nearest of the walk's corners is the one. The
 * isotropic sets as simplex2 to simplex4 read them (turned lattice,
 * falloff, normalised 3D and 4D vectors, scale), plateau-limited.
 */
static const float simplex_vec_scale[5] = {0.0f, 0.0f, SIMPLEX2_SCALE * 0.70710678f, SIMPLEX3_SCALE,
                                           SIMPLEX4_SCALE};
static const float simplex_iso_scale[5] = {0.0f, 0.0f, SIMPLEX2_ISO_SCALE, SIMPLEX3_ISO_SCALE, SIMPLEX4_ISO_SCALE};
/* per unit of bump_value (|v| < 1/2), in channel_grad's units: 2 x 0.7
 * (4D 0.6) x the maximum / CHANNEL_GRAD_NORM; isotropic, the same height
 * in output units (simplex_bump_at) */
static const float simplex_bump_height[5] = {0.0f, 0.0f, 1.4f * 0.0100802047f / 0.70710678f, 1.4f * 0.0130071572f,
                                              1.2f * 0.0159292215f};
static const float simplex_bump_inv[5] = {0.0f, 0.0f, 16.0f, 25.0f, 25.0f}; /* 1 / rho^2: 0.25, 0.2, 0.2 */

/* The bump's height of dims and gradients. */
static inline float simplex_bump_at(int dims, int iso)
{
    return iso ? simplex_bump_height[dims] * simplex_vec_scale[dims] / simplex_iso_scale[dims]
               : simplex_bump_height[dims];
}

/* The corner nearest the point so far: its r^2, hash and offset. */
typedef struct nearest {
    float r2, d[4];
    uint32_t h;
} nearest;

/* One corner for every channel: d the point minus the corner, h its hash;
 * sums and, with deriv, partials (acc[c][e]) added; near updated (first:
 * the walk's first corner). The gradient term and partials as
 * simplex_corner's. */
LOOP_INLINE void simplex_vec_corner(int dims, int iso, int nch, int deriv, int first, uint32_t h, const float *d,
                                    float *sum, float acc[VEC_CHANNELS][4], nearest *near)
{
    float r2 = d[0] * d[0], t3, fo, fslope;
    uint32_t closer;
    int c, e;
    UNROLL
    for (e = 1; e < dims; e++) r2 = fma_f(d[e], d[e], r2);
    fo = falloff(r2, FALLOFF(dims, iso), &t3);
    fslope = FALL_SLOPE(dims, iso) * t3; /* the radial slope per unit of gradient term */
    UNROLL
    for (c = 0; c < VEC_CHANNELS; c++)
        if (c < nch) {
            uint32_t w = channel_word(dims, iso, h, c);
            float gd = channel_grad(dims, iso, w, d), unit = 1.0f;
            if (iso && dims > 2) gd *= ind_unit(dims, w, &unit);
            /* the first corner starts the sums: no additions of zero */
            sum[c] = first ? fo * gd : fma_f(fo, gd, sum[c]);
            if (deriv) {
                float m = fslope * gd, g[4];
                channel_grad_vec(dims, iso, w, g);
                UNROLL
                for (e = 0; e < dims; e++) {
                    const float ge = iso && dims > 2 ? g[e] * unit : g[e];
                    acc[c][e] = first ? fma_f(fo, ge, m * d[e]) : fma_f(fo, ge, fma_f(m, d[e], acc[c][e]));
                }
            }
        }
    if (first) {
        near->r2 = r2;
        near->h = h;
        UNROLL
        for (e = 0; e < dims; e++) near->d[e] = d[e];
        return;
    }
    closer = 0u - (uint32_t)(r2 < near->r2);
    /* integer selects on the compare: one blend each on AVX-512, where
     * select_u's masks took two operations */
    near->r2 = u2f(closer ? f2u(r2) : f2u(near->r2));
    near->h = closer ? h : near->h;
    if (deriv)
        UNROLL
        for (e = 0; e < dims; e++) near->d[e] = u2f(closer ? f2u(d[e]) : f2u(near->d[e]));
}

/* The nearest corner's bump added to every channel's sum (and partials). */
LOOP_INLINE void simplex_vec_bump(int dims, int iso, int nch, int deriv, const nearest *near, float *sum,
                                  float acc[VEC_CHANNELS][4])
{
    const float height = simplex_bump_at(dims, iso), inv = simplex_bump_inv[dims];
    float t2, bump = vec_bump(near->r2, inv, &t2) * height, slope = -6.0f * inv * height * t2;
    uint32_t hb = bump_hash(near->h);
    int c, e;
    UNROLL
    for (c = 0; c < VEC_CHANNELS; c++)
        if (c < nch) {
            float v = bump_value(hb, c);
            sum[c] = fma_f(v, bump, sum[c]);
            if (deriv)
                UNROLL
                for (e = 0; e < dims; e++) acc[c][e] = fma_f(slope * v, near->d[e], acc[c][e]);
        }
}

/* nch channels of dims-D simplex: out planes of n; grad (deriv) planes
 * (c * dims + e) * n. */
LOOP_INLINE void simplex_vec(const ng_noise_pts *p, float *restrict out, float *restrict grad, int dims, int iso,
                             int nch, int deriv)
{
    const uint32_t s = vec_seed(p->seed);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    const float gm[4] = {ng_pts_gmul(p, 0), ng_pts_gmul(p, 1), ng_pts_gmul(p, 2), ng_pts_gmul(p, 3)};
    const float gma = ng_pts_gmul_all(p);
    const float g = (float)simplex_unskew[dims], scale = iso ? simplex_iso_scale[dims] : simplex_vec_scale[dims];
    const size_t n = (size_t)p->n;
    float sm[3][3], mt[3][3];
    axis ax[4];
    size_t i;
    int d, c, k, a, b;
    simplex3_turn(sm, mt);
    simplex_axes(p, dims, iso, ax);
    NO_ALIAS_LOOP
    for (i = 0; i < n; i++) {
        uint32_t cell[4], rank[4] = {0, 0, 0, 0}, cp[4], cp1[4];
        float x[4], q[4], r[4], x0[4], sum[VEC_CHANNELS], acc[VEC_CHANNELS][4], t;
        nearest near;
        UNROLL
        for (d = 0; d < dims; d++) x[d] = f[d][i] * fsc[d];
        simplex_skewed(dims, iso, (const float(*)[3])sm, x, q);
        UNROLL
        for (d = 0; d < dims; d++) {
            r[d] = cell_of(&ax[d], q[d], &cell[d]);
            cp[d] = cell[d] * lattice_prime[d];
            cp1[d] = cp[d] + lattice_prime[d];
        }
        t = r[0];
        UNROLL
        for (d = 1; d < dims; d++) t += r[d];
        t *= g;
        UNROLL
        for (a = 0; a < dims; a++) {
            x0[a] = r[a] - t;
            UNROLL
            for (b = 0; b < 4; b++) /* constant trip counts unroll in every compiler */
                if (b > a && b < dims) {
                    uint32_t ge = r[a] >= r[b] ? 1u : 0u;
                    rank[a] += ge;
                    rank[b] += ge ^ 1u;
                }
        }
        UNROLL
        for (k = 0; k <= dims; k++) { /* corner k sets the k axes of highest rank */
            /* the unskew of k steps, without and with the step on the axis */
            const float kg = (float)(k * simplex_unskew[dims]), kg1 = (float)(k * simplex_unskew[dims] - 1.0);
            float dk[4];
            uint32_t v = s;
            UNROLL
            for (a = 0; a < dims; a++) {
                uint32_t o = rank[a] >= (uint32_t)(dims - k) && k > 0 ? 1u : 0u;
                dk[a] = x0[a] + select_f(o, kg1, kg); /* a select of constants, then one add */
                v ^= select_u(0u - o, cp1[a], cp[a]);
            }
            simplex_vec_corner(dims, iso, nch, deriv, k == 0, ng_lattice_hash(v), dk, sum, acc, &near);
        }
        simplex_vec_bump(dims, iso, nch, deriv, &near, sum, acc);
        UNROLL
        for (c = 0; c < VEC_CHANNELS; c++)
            if (c < nch) {
                float gscale = scale;
                if (iso) {
                    float slope;
                    out[(size_t)c * n + i] = plateau_limit(sum[c] * scale, &slope);
                    gscale = scale * slope;
                } else {
                    out[(size_t)c * n + i] = sum[c] * scale;
                }
                if (deriv) {
                    simplex_world(dims, iso, (const float(*)[3])mt, acc[c]);
                    UNROLL
                    for (d = 0; d < dims; d++)
                        grad[((size_t)c * (size_t)dims + (size_t)d) * n + i] =
                            ng_gscaled(acc[c][d] * gscale, gm[d], gma);
                }
            }
    }
}

#define SIMPLEX_VEC_NCH(dims, iso, sfx, nch)                                                                   \
    static void simplex##dims##sfx##_vec##nch(const ng_noise_pts *p, float *out)                               \
    {                                                                                                          \
        simplex_vec(p, out, NULL, dims, iso, nch, 0);                                                          \
    }                                                                                                          \
    static void simplex##dims##sfx##_vec##nch##_d(const ng_noise_pts *p, float *out, float *grad)              \
    {                                                                                                          \
        simplex_vec(p, out, grad, dims, iso, nch, 1);                                                          \
    }
#define SIMPLEX_VEC_SET(dims, iso, sfx) SIMPLEX_VEC_NCH(dims, iso, sfx, 2) SIMPLEX_VEC_NCH(dims, iso, sfx, 3)

SIMPLEX_VEC_SET(2, 0, )
SIMPLEX_VEC_SET(2, 1, i)
SIMPLEX_VEC_SET(3, 0, )
SIMPLEX_VEC_SET(3, 1, i)
SIMPLEX_VEC_SET(4, 0, )
SIMPLEX_VEC_SET(4, 1, i)

/* By dims and gradients. */
#define SIMPLEX_VEC_DISPATCH(p, channels, out, grad, dims, sfx)                                                \
    vec_dispatch(p, channels, out, grad, simplex##dims##sfx##_vec2, simplex##dims##sfx##_vec3,                \
                 simplex##dims##sfx##_vec2_d, simplex##dims##sfx##_vec3_d)

static void simplex_vector_at(const ng_noise_pts *p, int channels, float *out, float *grad)
{
    const int iso = p->gradients == NG_GRADIENTS_ISOTROPIC;
    if (p->dims == 2 && iso) SIMPLEX_VEC_DISPATCH(p, channels, out, grad, 2, i);
    else if (p->dims == 2) SIMPLEX_VEC_DISPATCH(p, channels, out, grad, 2, );
    else if (p->dims == 3 && iso) SIMPLEX_VEC_DISPATCH(p, channels, out, grad, 3, i);
    else if (p->dims == 3) SIMPLEX_VEC_DISPATCH(p, channels, out, grad, 3, );
    else if (p->dims == 4 && iso) SIMPLEX_VEC_DISPATCH(p, channels, out, grad, 4, i);
    else if (p->dims == 4) SIMPLEX_VEC_DISPATCH(p, channels, out, grad, 4, );
}

static void simplex_vector(const ng_noise_pts *p, int channels, float *out)
{
    simplex_vector_at(p, channels, out, NULL);
}

static void simplex_vector_d(const ng_noise_pts *p, int channels, float *out, float *grad)
{
    simplex_vector_at(p, channels, out, grad);
}

NG_FAMILY_TABLE_VECTOR(simplex, NG_BASES_SIMPLEX,
                       NG_VECTOR_ROW(SIMPLEX, simplex_vector, simplex_vector_d, NG_DIMS_234));
