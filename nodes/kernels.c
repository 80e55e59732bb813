/*
 * kernels.c — choosing the SIMD path once: NG_SIMD (avx512, avx2, sse2,
 * scalar) forces one, otherwise the widest this CPU runs. sse2 is the
 * library's own baseline build; the others come from nodes/simd/.
 */
#include "kernels.h"
#include "cell_kernels.h"
#include "loops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DECLARE_PATH(sfx)                                                                                     \
    void ng_value_noise_##sfx(const ng_noise_pts *, float *);                                                 \
    void ng_perlin_noise_##sfx(const ng_noise_pts *, float *);                                                \
    void ng_fast_noise_##sfx(const ng_noise_pts *, float *);                                                  \
    void ng_simplex_noise_##sfx(const ng_noise_pts *, float *);                                               \
    void ng_flow_noise_##sfx(const ng_noise_pts *, float *);                                                  \
    void ng_white_noise_##sfx(const ng_noise_pts *, float *);                                                 \
    void ng_simplex_tiled2_##sfx(const ng_noise_pts *, float *);                                              \
    void ng_worley_noise_##sfx(const ng_noise_pts *, float *);                                                \
    void ng_sparse_noise_##sfx(const ng_noise_pts *, float *);                                                \
    void ng_alligator_noise_##sfx(const ng_noise_pts *, float *);                                             \
    void ng_value_noise_d_##sfx(const ng_noise_pts *, float *, float *);                                      \
    void ng_perlin_noise_d_##sfx(const ng_noise_pts *, float *, float *);                                     \
    void ng_fast_noise_d_##sfx(const ng_noise_pts *, float *, float *);                                       \
    void ng_simplex_noise_d_##sfx(const ng_noise_pts *, float *, float *);                                    \
    void ng_flow_noise_d_##sfx(const ng_noise_pts *, float *, float *);

#define PATH_TABLE(label, sfx)                                                                                \
    {                                                                                                         \
        label,                                                                                                \
        {ng_value_noise##sfx, ng_perlin_noise##sfx, ng_fast_noise##sfx, ng_simplex_noise##sfx,                \
         ng_flow_noise##sfx, ng_white_noise##sfx, ng_worley_noise##sfx, ng_sparse_noise##sfx,                 \
         ng_alligator_noise##sfx},                                                                            \
        {ng_value_noise_d##sfx, ng_perlin_noise_d##sfx, ng_fast_noise_d##sfx, ng_simplex_noise_d##sfx,       \
         ng_flow_noise_d##sfx, 0, 0, 0, 0},                                                                   \
        0x1Eu, ng_simplex_tiled2##sfx                                                                         \
    }

DECLARE_PATH(scalar)
DECLARE_PATH(avx2)
DECLARE_PATH(avx512)

enum { PATH_SCALAR, PATH_SSE2, PATH_AVX2, PATH_AVX512, NPATHS };

static const ng_kernels paths[NPATHS] = {
    PATH_TABLE("scalar", _scalar),
    PATH_TABLE("sse2", ),
    PATH_TABLE("avx2", _avx2),
    PATH_TABLE("avx512", _avx512),
};

static int supported(int path)
{
    __builtin_cpu_init();
    switch (path) {
    case PATH_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && supported(PATH_AVX2);
    case PATH_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("popcnt");
    default: return 1; /* x86-64 always has SSE2 */
    }
}

NG_LOOP_DECLS(_scalar)
NG_LOOP_DECLS()
NG_LOOP_DECLS(_avx2)
NG_LOOP_DECLS(_avx512)

static const ng_loops loop_paths[NPATHS] = {
    NG_LOOP_TABLE(_scalar), NG_LOOP_TABLE(), NG_LOOP_TABLE(_avx2), NG_LOOP_TABLE(_avx512),
};

static const ng_kernels *selected;
static const ng_loops *selected_loops;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int path_named(const char *name)
{
    int p;
    for (p = 0; p < NPATHS; p++)
        if (strcmp(paths[p].name, name) == 0) return p;
    return -1;
}

static void choose(void)
{
    const char *env = getenv("NG_SIMD");
    int p = env && *env ? path_named(env) : -1;
    if (p < 0 || !supported(p)) /* ng_simd_check reports a bad NG_SIMD to the program */
        for (p = NPATHS - 1; p > 0 && !supported(p); p--) continue;
    selected = &paths[p];
    selected_loops = &loop_paths[p];
}

const ng_kernels *ng__kernels(void)
{
    pthread_once(&once, choose);
    return selected;
}

const ng_loops *ng__loops(void)
{
    pthread_once(&once, choose);
    return selected_loops;
}

const char *ng_simd_path(void) { return ng__kernels()->name; }

int ng_simd_check(ng_error *err)
{
    const char *env = getenv("NG_SIMD");
    int p;
    if (!env || !*env) return 0;
    if ((p = path_named(env)) < 0)
        return ng_errorf(err, "NG_SIMD=%s: not a SIMD path (avx512, avx2, sse2 or scalar)", env);
    if (!supported(p)) return ng_errorf(err, "NG_SIMD=%s: this CPU cannot run that path", env);
    return 0;
}

int ng_simd_supported(const char *name)
{
    int p = path_named(name);
    return p >= 0 && supported(p);
}
