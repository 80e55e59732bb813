/*
 * white_kernels.c — the white family (bases.h): a hash per sample, 1D to
 * 4D. Compiled once per SIMD path (Makefile); its kernel is static, its one
 * export the family table.
 */
#include "lattice_parts.h"

/* ---- white noise ------------------------------------------------------------
 * Each axis of the absolute position, cell + fraction from the anchor split,
 * is rounded to the nearest point of a grid of 1/65536 cell (halves up; a
 * fraction that rounds to 1 carries into the next cell) and the pair (cell,
 * sub-cell) is hashed. So a sample's value depends on its world position
 * alone, to 1/65536 cell, at any distance from the origin.
 */
LOOP_INLINE void white(const ng_noise_pts *p, float *out, int dims)
{
    const uint32_t s = ng_hash_seed(p->seed);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    axis a[4];
    int i, d;
    for (d = 0; d < dims; d++) a[d] = split_axis(p->anchor[d], 0u);
    for (i = 0; i < p->n; i++) {
        uint32_t h = s;
        UNROLL
        for (d = 0; d < dims; d++) {
            uint32_t X;
            float t = cell_of(&a[d], f[d][i] * fsc[d], &X);
            uint32_t q = (uint32_t)(int32_t)(t * 65536.0f + 0.5f); /* 0 to 65536, exact */
            h = ng_hash_step(h, X + (q >> 16));
            h = ng_hash_step(h, q & 0xffffu);
        }
        out[i] = ng_hash_signed(h);
    }
}

static void white1(const ng_noise_pts *p, float *out) { white(p, out, 1); }
static void white2(const ng_noise_pts *p, float *out) { white(p, out, 2); }
static void white3(const ng_noise_pts *p, float *out) { white(p, out, 3); }
static void white4(const ng_noise_pts *p, float *out) { white(p, out, 4); }

static void white_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4] = {white1, white2, white3, white4};
    by_dims(p, out, fn);
}


NG_FAMILY_TABLE(white, NG_BASES_WHITE);
