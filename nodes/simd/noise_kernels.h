/*
 * noise_kernels.h — the batch every noise kernel takes (ng_noise_pts), the
 * contract of the lattice bases (value, improved Perlin, fast, flow,
 * simplex, white: nodes/simd/lattice_kernels.c, simplex_kernels.c,
 * white_kernels.c; the cellular ones are in cell_kernels.h), and the
 * integer hashes every procedural node shares. The kernels themselves are
 * static in each SIMD path's units and reached through its table
 * (kernels.h).
 *
 * Precision: a batch is a double anchor plus small float offsets. Kernels
 * split the anchor once into a 32-bit lattice cell (added inside the hash)
 * and a float fraction, so a render at 1e9 is as fine-grained as one at 0.
 * The lattice wraps modulo 2^32 cells per axis.
 */
#ifndef NG_NOISE_KERNELS_H
#define NG_NOISE_KERNELS_H

#include <stdint.h>

/* Worley outputs and metrics (cell_kernels.h); new ones are appended, so
 * the old numbers keep their meaning. */
enum {
    NG_WORLEY_F1, NG_WORLEY_F2, NG_WORLEY_F2_F1, NG_WORLEY_CELL,
    NG_WORLEY_F3, NG_WORLEY_EDGE, NG_WORLEY_POSITION,
    NG_WORLEY_NFEATURES
};
enum { NG_METRIC_EUCLIDEAN, NG_METRIC_MANHATTAN, NG_METRIC_CHEBYSHEV, NG_METRIC_MINKOWSKI, NG_NMETRICS };
/* The gradient sets of perlin, fast, flow and simplex (lattice_parts.h):
 * classic (0, a zeroed struct's: the bits before 0.2.0) or isotropic. */
enum { NG_GRADIENTS_CLASSIC, NG_GRADIENTS_ISOTROPIC };
/* The isotropic set's simplex 3D reads its lattice turned: lattice
 * coordinates q = M x of the noise-space position x, M's rows below
 * (simplex_kernels.c, 3D ORIENTATION; the tests rebuild lattice borders
 * from it). */
#define NG_SIMPLEX3_TURN                                                                                         \
    {{0.3990847025470507, -0.12363140427455188, 0.90854096003979601},                                           \
     {-0.91428584210606134, 0.021313719232967133, 0.40450849718747367},                                         \
     {-0.069374340482214622, -0.99209929001565178, -0.10452846326765355}}

typedef struct ng_noise_pts {
    int n, dims;       /* 1 to 4 */
    double anchor[4];  /* noise-space anchor, may be huge: point i is at anchor[d] + f[d][i] */
    const float *f[4]; /* offsets, modest magnitude (|f| < ~1e5); f[d] read for d < dims */
    /* Point i's noise-space offset along d is f[d][i] * scale[d] (one float
     * multiply, as if the caller had scaled the array); 0, a zeroed
     * struct's value, means 1. */
    float scale[4];
    /* Gradient kernels (the _d forms) only: partial d comes out times
     * gmul[d], then times gmul_all, the bits of those two multiplies as
     * passes over the planes after the kernel (a node's frequency and its
     * output scale); 0, a zeroed struct's value, means 1. */
    float gmul[4], gmul_all;
    uint32_t seed;
    /* Tileable output: the lattice repeats every period[d] cells along axis
     * d (0: no period). Only whole cells, so a basis's look is unchanged. */
    uint32_t period[4];
    int gradients;     /* perlin, fast, flow, simplex 2D-4D: NG_GRADIENTS_* */
    float flow;        /* perlin flow: gradient rotation in turns (0 and 1 identical) */
    float jitter;      /* worley: feature point spread within its cell, 0 to 1 */
    int feature;       /* worley: NG_WORLEY_* */
    int metric;        /* worley: NG_METRIC_* */
    float exponent;    /* worley, NG_METRIC_MINKOWSKI: p, clamped to [0.5, 10] */
    /* worley, NG_WORLEY_POSITION: distance between the output's planes
     * (0, a zeroed struct's value, means n) */
    int plane;
    /* worley, NG_WORLEY_POSITION: nonzero: planes dims to 2 dims - 1 get
     * the nearest feature's coordinates inside its own cell (c0 + the
     * jittered unit of its hash, as feature_vec places it), a function of
     * the feature alone, so a node places it in the world with the same
     * bits from every point that finds it (noise.c: world_positions). */
    int cells;
    /* Turned positions (a fractal's rotated octave; 0, a zeroed struct's
     * value: none): for d < turn_axes (min(dims, 3)) point i's offset
     * along d is turned_off(turn[d], f) (bits.h) times scale[d], the
     * float operations of the pass that would multiply the turn out
     * (loops.c: loop_turn) and of the kernel reading its planes, so the
     * bits are the pass's without its planes, but for the isotropic 3D
     * and 4D sets, which fold turn, frequency and their lattice
     * orientation into one matrix (lattice_kernels.c: turn_fold; within
     * float rounding of the pass). Lattice family (value, perlin, fast,
     * flow), untiled calls only. */
    int turn_axes;
    float turn[3][3];
} ng_noise_pts;

/*
 * The bases' kernels (the kernel column of bases.h: value_noise, ...).
 * Each writes out[0..n-1]; dims a basis does not support write
 * zeros. Non-finite or enormous positions give finite output inside the
 * range. Every range is symmetric about 0 and never exceeded; "max" is the
 * true maximum of |v| over every gradient configuration (numerical search,
 * unscaled), "reached" the largest |v| of 2^21 random samples after
 * scaling, "|d/dx|" the bound on the derivative along any axis after
 * scaling (tests/test_kernels.c checks all three).
 *
 *   kernel             dims  range        max (unscaled)          reached  |d/dx|
 *   value_noise        1-4   [-1, 1]      1 - 2^-20 (lattice)     0.998+   3.75
 *   perlin_noise       1     [-1, 1]      0.5                     0.991    2.6940
 *                      2                  0.70710678              0.9994   2.8320
 *                      3                  1.0363538               0.949    3.6181
 *                      4     soft limit   1.5365823 -> 0.983      0.952    5.1137
 *   fast_noise         1     [-1, 1]      0.5                     0.995    2.8281
 *                      2                  0.70710678              0.9998   2.3748
 *                      3                  1.0449052               0.955    2.8708
 *                      4     soft limit   1.5451999 -> 0.984      0.939    4.1667
 *   flow_noise         2     [-1, 1]      0.70710678              0.997    2.9231
 *                      3     soft limit   1.1641266 -> 0.975      0.954    4.0310
 *   simplex_noise      1     [-1, 1]      0.31640625              0.996    3.3330
 *                      2                  0.0100802047            0.9999   7.0424
 *                      3                  0.0130071572            0.9997   6.8315
 *                      4                  0.0159292215            0.998    5.9278
 *   simplex_tiled2     2     [-1, 1]      (4D simplex)            0.996    8.383
 *   white_noise        1-4   (-1, 1)      uniform                 1.0      none
 *
 * With p->gradients = NG_GRADIENTS_ISOTROPIC (lattice_parts.h: 128 vectors
 * long near the axes in 2D for perlin and flow, 64 for fast, 2^15 unit ones for simplex; in 3D and
 * 4D independent components (2^12 and 2^16 vectors) for perlin, fast,
 * flow and simplex, simplex's normalised; 1D unchanged), same
 * range [-1, 1]:
 *   kernel             dims  max (unscaled)               |d/dx| (bound)
 *   perlin_noise       2     plateau (1.030 at 1e-6)     3.6105
 *                      3     plateau (1.135 at 1e-6)     6.3917
 *                      4     plateau (1.155 at 1e-6)     8.7361
 *   fast_noise         2     plateau (0.827 at 1e-6)     2.6495
 *                      3     plateau (1.104 at 1e-6)     5.1290
 *                      4     plateau (1.089 at 1e-6)     7.2886
 *   flow_noise         2     plateau (1.096 at 1e-6)     3.4275
 *                      3     plateau (1.136 at 1e-6)     6.3861
 *   simplex_noise      2     0.0338954753 (cubic falloff; 5.6677
 *                            rms 0.41)
 *                      3     0.0019475532 (unit 0.0018836074 8.2945
 *                            x longest 1.0339486; falloff
 *                            t^4 (t - 1/4); rms 0.287)
 *                      4     0.0042773918 (unit 0.0041369022 7.5532
 *                            x longest 1.0339601; falloff
 *                            t^5; rms 0.210)
 * (derivations in lattice_kernels.c and simplex_kernels.c; the classic
 * sets, p->gradients = 0, are the table above and the bits of 0.1.0).
 *
 * "soft limit": scaled by the value 1 sample in 10^6 exceeds, then
 * compressed smoothly above 0.9 so that even the true maximum stays below
 * 1 (it lands at the value after the arrow); see lattice_kernels.c.
 * "plateau": scaled the same way, then compressed above 0.9 by a
 * quadratic without a division that reaches 1 with slope 0 at 1.1 and
 * stays 1 beyond (1 sample in 10^7 or fewer); see lattice_kernels.c.
 *
 * value: lattice values blended with the quintic fade.
 * perlin: improved Perlin, quintic fade; 1D gradients uniform in [-1, 1],
 *   2D 8 unit directions, 3D the 12 cube edges, 4D the 32 hypercube edges.
 *   Exactly 0 at integer lattice points (so are fast and flow).
 * fast: the same gradient sets and hash with a cubic (smoothstep, C1)
 *   fade: two multiplies fewer per axis and a slightly squarer look. The
 *   node applies Houdini's x1.25 frequency.
 * flow: Perlin flow noise (Perlin & Neyret 2001): perlin's gradients
 *   rotated by 2 pi flow (p->flow, in turns: flow and flow + 1 are the same
 *   bits). 2D turns every gradient in the plane, so at integer flow it is
 *   perlin_noise    bit for bit; 3D turns each about one of the 8 cube
 *   diagonals chosen per lattice point. |d/dflow| <= 6.2826 (2D), 7.580
 *   (3D) per turn.
 * simplex: Perlin's simplex noise with falloff (0.5 - r^2)^4, continuous in
 *   2D to 4D (the classic 0.6 is not); 1D is gradient noise with falloff
 *   (1 - x^2)^4 over each cell's two ends. Ignores p->period: its skewed
 *   lattice has no axis-aligned period; use simplex_tiled2.
 * simplex_tiled2: for dims 2 with period[0] and period[1] > 0, 4D simplex
 *   on the flat torus (x, y) -> (Rx cos 2 pi x/Px, Rx sin 2 pi x/Px, Ry cos
 *   2 pi y/Py, Ry sin 2 pi y/Py), R = P / 2 pi: periodic in x and y with
 *   the look of a 2D slice of 4D simplex (rounder, sparser features than 2D
 *   simplex). Scalar, ~15x the cost of 2D simplex. Other inputs: exactly
 *   simplex_noise   .
 * white: a hash per sample. The absolute position (anchor cell + fraction)
 *   is rounded per axis to the nearest 1/65536 cell, halves up, carrying
 *   into the next cell; the (cell, sub-cell) pairs are hashed. Same world
 *   point, same value, at any distance; ignores p->period.
 *
 * Tiling (value, perlin, fast, flow): with period[d] > 0 on any axis the
 * lattice cell in the hash is wrapped modulo period[d] (exactly, for any
 * anchor and negative cells), so f(x + k period[d]) == f(x); an axis with
 * period 0 is not wrapped. Periods are whole cells: the node converts.
 */

/*
 * The gradient kernels (value_noise_d, ...: the grad column of bases.h).
 * Value and gradient in one pass: out[i] as the plain kernel (bit-identical
 * to it), grad[d * n + i] = d out / d (noise-space axis d) for d < dims;
 * grad holds dims planes of n. Every dims the plain kernel has (value,
 * perlin, fast, simplex 1D-4D; flow 2D, 3D); others write zeros to out and
 * to the dims planes. Honours period exactly like the plain kernel (simplex
 * ignores it), so a tiled gradient repeats as the value does.
 *
 * The gradient is the exact derivative of the computed field (fade and
 * falloff derivatives, the range scale and, where it applies, the soft
 * limiter's slope), evaluated in float: |grad| along each axis stays within
 * the table's |d/dx|. The fields are C2 (value, perlin, flow), C3 (simplex)
 * or C1 (fast: the gradient is continuous, with kinks on cell borders); a
 * soft-limited one is C1 at the knee. out, grad and the offsets must not
 * overlap. `bench kernels` prints their cost against the plain kernels.
 */

/* The offset scale of axis d (see ng_noise_pts.scale). */
static inline float ng_pts_scale(const ng_noise_pts *p, int d)
{
    return p->scale[d] != 0.0f ? p->scale[d] : 1.0f;
}

/* The gradient multipliers of axis d and of every axis (ng_noise_pts.gmul). */
static inline float ng_pts_gmul(const ng_noise_pts *p, int d)
{
    return p->gmul[d] != 0.0f ? p->gmul[d] : 1.0f;
}

static inline float ng_pts_gmul_all(const ng_noise_pts *p)
{
    return p->gmul_all != 0.0f ? p->gmul_all : 1.0f;
}

/* A gradient kernel's partial v (its own scale applied) times gm, the
 * axis's gmul, then times gma, gmul_all (x * 1 is x: unset, the same bits). */
static inline float ng_gscaled(float v, float gm, float gma)
{
    return v * gm * gma;
}

/* ---- hashing ------------------------------------------------------------
 * Seeds differing in any bit give unrelated fields: the seed is mixed
 * before the first coordinate, and coordinates are multiplied before being
 * folded in, so a new seed is not a translate of the old field.
 */

/* Chris Wellons' "lowbias32" finaliser: a bijection with near-ideal
 * avalanche; unsigned arithmetic only. */
static inline uint32_t ng_hash_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

static inline uint32_t ng_hash_seed(uint32_t seed)
{
    return ng_hash_mix(seed ^ 0x5bd1e995U);
}

static inline uint32_t ng_hash_step(uint32_t h, uint32_t coord)
{
    return ng_hash_mix(h ^ (coord * 0x9e3779b1U));
}

/* ---- lattice hash -----------------------------------------------------------
 * The lattice bases (value, perlin, fast, flow, simplex) hash a lattice
 * point with one multiply: the cell coordinates times per-axis odd
 * constants (the xxHash32 primes), xor-ed with the mixed seed, folded once
 * (v ^= v >> 16, so high input bits reach the low ones) and multiplied by
 * an odd constant. A kernel multiplies a point's cell by the prime once per
 * axis and steps to the neighbouring cell by adding the prime, so 3D costs
 * 3 + 8 multiplies per sample where chaining ng_hash_step over the axes
 * would cost 3 per axis and corner. Its output bits are not all equal: the top ones depend on every
 * input bit, bit b only on the folded word's bits 0 to b, and the low bits
 * are weak (bit 0 is the parity of the coordinates' low bits). Users take
 * bits 16 and up (the gradient choices, ng_hash_signed's top 24); the
 * uniformity and neighbour-independence of the choices are tested through
 * the kernels (tests/test_kernels.c). */
#define NG_LATTICE_PRIME_X 0x9e3779b1u
#define NG_LATTICE_PRIME_Y 0x85ebca77u
#define NG_LATTICE_PRIME_Z 0xc2b2ae3du
#define NG_LATTICE_PRIME_W 0x27d4eb2fu
#define NG_LATTICE_MUL 0x2c1b3c6du

/* v = seed ^ x * PRIME_X ^ y * PRIME_Y ^ ... */
static inline uint32_t ng_lattice_hash(uint32_t v)
{
    return (v ^ (v >> 16)) * NG_LATTICE_MUL;
}

/* Top 24 bits as a float in [0, 1): exact, every value equally likely. */
static inline float ng_hash_unit(uint32_t h)
{
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* Top 24 bits as a float in [-(1 - 2^-24), 1 - 2^-24], symmetric about 0
 * and never exactly 0. Exact: (h >> 8) < 2^24, 8388607.5 = 2^23 - 1/2 is a
 * float, and the scale is a power of two. */
static inline float ng_hash_signed(uint32_t h)
{
    return ((float)(h >> 8) - 8388607.5f) * (1.0f / 8388608.0f);
}

#endif
