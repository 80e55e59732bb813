/*
 * test_gradk.c — the gradient kernels' shortcuts (issue 14): the simplex
 * _d kernels take each corner's gradient vector from selects on its hash
 * (grad8_vec, grad12_vec, grad32_vec in nodes/simd/lattice_parts.h) instead of
 * applying the gradient set to each unit vector. They must be those
 * vectors exactly: the kernels' gradients (compared to central
 * differences elsewhere) would only be off by a little if, say, a diagonal
 * lost its sqrt(1/2), which a tolerance can miss.
 */
#include "harness.h"
#include "lattice_parts.h"
#include "suites.h"

#include <stdint.h>

enum { HASHES = 200000 };

/* A spread of hashes covering every combination of the top bits and the
 * thirds grad12 reads. */
static uint32_t nth_hash(uint32_t i)
{
    return ng_lattice_hash(i * 0x9e3779b9u);
}

/* a == b as numbers (a zero's sign aside: the kernels add these to sums
 * started at +0), and never NaN */
static int same(float a, float b)
{
    return a == b;
}

static void test_grad8_vec_is_the_set(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        float g[2];
        grad8_vec(h, g);
        bad += !same(g[0], grad8(h, 1.0f, 0.0f)) || !same(g[1], grad8(h, 0.0f, 1.0f));
    }
    CHECK_INT(bad, 0);
}

static void test_grad12_vec_is_the_set(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        float g[3];
        grad12_vec(h, g);
        bad += !same(g[0], grad12(h, 1.0f, 0.0f, 0.0f)) || !same(g[1], grad12(h, 0.0f, 1.0f, 0.0f)) ||
               !same(g[2], grad12(h, 0.0f, 0.0f, 1.0f));
    }
    CHECK_INT(bad, 0);
}

static void test_grad32_vec_is_the_set(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        float g[4];
        grad32_vec(h, g);
        bad += !same(g[0], grad32(h, 1.0f, 0.0f, 0.0f, 0.0f)) || !same(g[1], grad32(h, 0.0f, 1.0f, 0.0f, 0.0f)) ||
               !same(g[2], grad32(h, 0.0f, 0.0f, 1.0f, 0.0f)) || !same(g[3], grad32(h, 0.0f, 0.0f, 0.0f, 1.0f));
    }
    CHECK_INT(bad, 0);
}

/* The gradient at a point is linear in the offset: grad . d from the
 * vector equals the set's value at d (up to the rounding of the sum), so a
 * vector with a swapped or missing component shows here too. */
static void test_grad_vecs_dot_offsets(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        const float d[4] = {0.3f, -0.45f, 0.2f, -0.1f};
        float g8[2], g12[3], g32[4];
        grad8_vec(h, g8);
        grad12_vec(h, g12);
        grad32_vec(h, g32);
        bad += fabsf(g8[0] * d[0] + g8[1] * d[1] - grad8(h, d[0], d[1])) > 1e-6f;
        bad += fabsf(g12[0] * d[0] + g12[1] * d[1] + g12[2] * d[2] - grad12(h, d[0], d[1], d[2])) > 1e-6f;
        bad += fabsf(g32[0] * d[0] + g32[1] * d[1] + g32[2] * d[2] + g32[3] * d[3] -
                     grad32(h, d[0], d[1], d[2], d[3])) > 1e-6f;
    }
    CHECK_INT(bad, 0);
}

void suite_gradk(void)
{
    RUN(test_grad8_vec_is_the_set);
    RUN(test_grad12_vec_is_the_set);
    RUN(test_grad32_vec_is_the_set);
    RUN(test_grad_vecs_dot_offsets);
}
