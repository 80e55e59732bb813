/*
 * worley_norm.c — measures the Worley normalisers of nodes/simd/worley_norm.c:
 * the 1 - 1e-5 quantile of the raw value (a distance in cells, F2-F1, or
 * the edge distance) over uniformly random points and seeds, as the range
 * test draws them (anchors 0 or up to +-1e9, offsets in [-128, 128), a new
 * seed per 4096 points). It links the engine archive with its own
 * ng_worley_normaliser, which returns 2^16, so the kernel's output times
 * 2^16 is the raw value, bit for bit. Not part of the build:
 *
 *   make -s all
 *   gcc -std=c11 -O2 -Icore -Inodes/simd tests/bench/worley_norm.c \
 *       build/opt/libnoisegraph.a -lm -lpthread -o /tmp/worley_norm
 *   /tmp/worley_norm f3|edge|minkowski [log2 samples [first last]]
 *
 * prints C rows for the tables (jitter 0, 1/8, ..., 1 for f3 and edge;
 * 0, 1/4, ..., 1 for each exponent of minkowski, features first to last
 * of F1, F2, F2-F1, F3). 4D takes half the samples.
 */
#include "cell_kernels.h"
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

float ng_worley_normaliser(int feature, int metric, int dims, float jitter, float exponent)
{
    (void)feature, (void)metric, (void)dims, (void)jitter, (void)exponent;
    return 65536.0f;
}

#define B 4096

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double unit(void) { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float *vals;

static double quantile(int feature, int metric, int dims, float jitter, float exponent, int lg)
{
    static float f[4][B], out[B];
    const long n = 1l << lg;
    const ng_basis_fn fn = ng__kernel(ng__path(), NG_BASIS_WORLEY);
    long k, i, d;
    for (k = 0; k < n / B; k++) {
        ng_noise_pts p;
        memset(&p, 0, sizeof p);
        p.n = B;
        p.dims = dims;
        p.seed = (uint32_t)next();
        p.feature = feature;
        p.metric = metric;
        p.jitter = jitter;
        p.exponent = exponent;
        for (d = 0; d < 4; d++) {
            p.anchor[d] = (k & 1) ? unit() * 2e9 - 1e9 : 0.0;
            for (i = 0; i < B; i++) f[d][i] = (float)(unit() * 256.0 - 128.0);
            p.f[d] = f[d];
        }
        fn(&p, out);
        for (i = 0; i < B; i++) vals[k * B + i] = out[i] * 65536.0f;
    }
    qsort(vals, (size_t)n, sizeof *vals, cmp);
    return vals[(long)((double)n * (1.0 - 1e-5))];
}

int main(int argc, char **argv)
{
    static const char *const metric_names[] = {"euclidean", "manhattan", "chebyshev"};
    static const float exps[] = {0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, 10.0f};
    const char *what = argc > 1 ? argv[1] : "f3";
    const int lg = argc > 2 ? atoi(argv[2]) : 20;
    int m, dims, j, x, f;
    vals = malloc(sizeof *vals << lg);
    if (!vals) return 1;
    if (!strcmp(what, "f3") || !strcmp(what, "edge")) {
        const int edge = !strcmp(what, "edge");
        for (m = 0; m < (edge ? 1 : 3); m++) {
            printf("{/* %s */\n", metric_names[m]);
            for (dims = 1; dims <= 4; dims++) {
                printf(" {");
                for (j = 0; j <= 8; j++) {
                    printf("%.5gf%s", quantile(edge ? NG_WORLEY_EDGE : NG_WORLEY_F3, m, dims, (float)j / 8.0f, 2.0f,
                                               lg - (dims == 4)),
                           j < 8 ? ", " : "},\n");
                    fflush(stdout);
                }
            }
            printf("},\n");
        }
    } else {
        static const int feats[] = {NG_WORLEY_F1, NG_WORLEY_F2, NG_WORLEY_F2_F1, NG_WORLEY_F3};
        static const char *const names[] = {"F1", "F2", "F2-F1", "F3"};
        const int first = argc > 4 ? atoi(argv[3]) : 0, last = argc > 4 ? atoi(argv[4]) : 3;
        for (f = first; f <= last; f++) {
            printf("{/* %s */\n", names[f]);
            for (dims = 1; dims <= 4; dims++) {
                printf(" {/* %dD */\n", dims);
                for (x = 0; x < 9; x++) {
                    printf("  {");
                    for (j = 0; j <= 4; j++) {
                        printf("%.5gf%s",
                               quantile(feats[f], NG_METRIC_MINKOWSKI, dims, (float)j / 4.0f, exps[x], lg - (dims == 4)),
                               j < 4 ? ", " : "},\n");
                        fflush(stdout);
                    }
                }
                printf(" },\n");
            }
            printf("},\n");
        }
    }
    free(vals);
    return 0;
}
