/*
 * kernels.c — choosing the SIMD path once: NG_SIMD (avx512, avx2, sse2,
 * scalar on x86-64; neon, scalar on aarch64) forces one, otherwise the
 * widest this CPU runs.
 */
#include "kernels.h"
#include "noisegraph.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NG__PATH_REF(path) &ng__path_##path,
static const ng_path *const paths[] = {NG_PATHS(NG__PATH_REF)};
#define NPATHS ((int)(sizeof paths / sizeof paths[0]))

#define NG__FAMILY_OF(F, ID, ...) [NG_BASIS_##ID] = NG_FAMILY_##F,
const unsigned char ng__basis_family[NG_NBASES] = {NG_BASES(NG__FAMILY_OF)};

/* The CPU features each path's flags assume (PATH_FLAGS_* in the Makefile). */
/* Whether this CPU runs the path named name (by name: a build may compile
 * a subset of NG_PATHS, see the Makefile's demo). */
#if defined(__x86_64__)
static int runs_named(const char *name)
{
    __builtin_cpu_init();
    if (!strcmp(name, "avx512"))
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && runs_named("avx2");
    if (!strcmp(name, "avx2"))
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    return 1; /* scalar, and sse2: every x86-64 CPU has it */
}
#else
/* aarch64: scalar and neon (Advanced SIMD is part of the architecture) */
static int runs_named(const char *name) { return name != NULL; }
#endif

static int runs(const ng_path *p) { return runs_named(p->name); }

static const ng_path *selected, *forced;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int path_named(const char *name)
{
    int p;
    for (p = 0; p < NPATHS; p++)
        if (strcmp(paths[p]->name, name) == 0) return p;
    return -1;
}

static void choose(void)
{
    const char *env = getenv("NG_SIMD");
    int p = env && *env ? path_named(env) : -1;
    if (p < 0 || !runs(paths[p])) /* ng_simd_check reports a bad NG_SIMD to the program */
        for (p = NPATHS - 1; p > 0 && !runs(paths[p]); p--) continue;
    selected = paths[p];
}

const ng_path *ng__path(void)
{
    pthread_once(&once, choose);
    return forced ? forced : selected;
}

void ng__path_force(const ng_path *p) { forced = p && runs(p) ? p : NULL; }

const ng_path *ng__path_at(int i, int *can_run)
{
    if (i < 0 || i >= NPATHS) return NULL;
    if (can_run) *can_run = runs(paths[i]);
    return paths[i];
}

const ng_loops *ng__loops(void) { return &ng__path()->loops; }

const char *ng_simd_path(void) { return ng__path()->name; }

/* The compiled paths, widest first: "avx512, avx2, sse2 or scalar". */
static const char *path_names(void)
{
    static char names[64];
    size_t used = 0;
    int p;
    for (p = NPATHS - 1; p >= 0; p--)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", paths[p]->name,
                                 p == 0 ? "" : p == 1 ? " or " : ", ");
    return names;
}

int ng_simd_check(ng_error *err)
{
    const char *env = getenv("NG_SIMD");
    int p;
    if (!runs(ng__path())) /* a build of one path (make demo) on another CPU */
        return ng_errorf(err, "this program has the %s SIMD path alone, which this CPU cannot run: build it with 'make'",
                         ng__path()->name);
    if (!env || !*env) return 0;
    if ((p = path_named(env)) < 0) return ng_errorf(err, "NG_SIMD=%s: not a SIMD path (%s)", env, path_names());
    if (!runs(paths[p])) return ng_errorf(err, "NG_SIMD=%s: this CPU cannot run that path", env);
    return 0;
}

int ng_simd_supported(const char *name)
{
    int p = path_named(name);
    return p >= 0 && runs(paths[p]);
}
