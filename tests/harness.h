/*
 * harness.h — the test harness: checks that print the expression, file:line
 * and both values, keep going after a failure, and a summary line
 * "N passed, N failed" (counted per test case) at the end.
 *
 * A suite is one file, tests/test_NAME.c: its test functions and the suite
 * that runs them, begun by one line NG_SUITE(NAME, TIER) { RUN(test_...); }
 * The build lists the suites from those lines (tests/suites.sh) and fails
 * on a test file without one, so a suite that is written runs. TIER:
 *   fast  no root, servers, Slurm, Chromium, GDAL or network, and quick:
 *         the whole tier is `make check`, about a minute of CPU (a
 *         slow test of a fast suite is RUN_FULL: the full tier's)
 *   full  the rest; `make test` (CI) runs every tier
 */
#ifndef NG_HARNESS_H
#define NG_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int ng_t_failed_checks; /* failed checks in the running test */
void ng_t_run(const char *name, void (*fn)(void));
void ng_t_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* SANITIZED: 1 in the sanitizer build (make test SAN=1), whose tests
 * scale their work down (it runs about 8x slower). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* EMULATED: 1 when the tests run under qemu-user (make test-arm sets
 * NG_QEMU=1), 10 to 30 times slower: suites scale their sizes down as
 * under SANITIZED, keeping every configuration. */
int ng_t_emulated(void);
#define EMULATED (ng_t_emulated())
/* SCALED: either; the kernel suites' sizes and sweeps follow it */
#define SCALED (SANITIZED || EMULATED)

#define RUN(fn) ng_t_run(#fn, fn)
/* A test of a fast suite too slow for `make check` (the whole of the
 * example graphs on every SIMD path, an 8192^2 farm): it belongs to the
 * full tier, so `run_tests --tier fast` names it and runs it not; make
 * test, and the suite run by name, run it. */
#define RUN_FULL(fn) ng_t_run_full(#fn, fn)
void ng_t_run_full(const char *name, void (*fn)(void));
/* Set by the runner: 1 when only the fast tier runs (make check). */
extern int ng_t_fast_only;

enum { NG_T_TIER_fast = 1, NG_T_TIER_full = 2 };
/* The tier's enum is named after the suite so that a tier other than fast
 * or full does not compile either. */
#define NG_SUITE(name, tier)                                                  \
    enum { ng_t_tier_of_##name = NG_T_TIER_##tier };                          \
    void suite_##name(void);                                                  \
    void suite_##name(void)

/* The suites, from the NG_SUITE lines (generated: build/.../gen/suites.c). */
typedef struct ng_t_suite {
    const char *name;
    int tier; /* NG_T_TIER_* */
    void (*run)(void);
} ng_t_suite;
extern const ng_t_suite ng_t_suites[];
extern const int ng_t_nsuites;
int ng_t_summary(void);
/* For the runner's --jobs: a suite's counts, read in its child process
 * and added in the parent. */
void ng_t_counts(int *passed, int *failed, int *deferred);
void ng_t_add_counts(int passed, int failed, int deferred);

#define CHECK(e)                                                              \
    do {                                                                      \
        if (!(e)) ng_t_fail(__FILE__, __LINE__, "CHECK(%s)", #e);             \
    } while (0)

/* CHECK with a printf-style message */
#define CHECKF(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) ng_t_fail(__FILE__, __LINE__, __VA_ARGS__);              \
    } while (0)

#define CHECK_INT(a, b)                                                       \
    do {                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                   \
        if (a_ != b_)                                                         \
            ng_t_fail(__FILE__, __LINE__, "%s == %s: %lld vs %lld", #a, #b,   \
                      a_, b_);                                                \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                 \
    do {                                                                      \
        double a_ = (double)(a), b_ = (double)(b);                            \
        if (!(fabs(a_ - b_) <= (eps)))                                        \
            ng_t_fail(__FILE__, __LINE__, "%s ~= %s (eps %g): %.9g vs %.9g",  \
                      #a, #b, (double)(eps), a_, b_);                         \
    } while (0)

/* a <= b */
#define CHECK_LE(a, b)                                                        \
    do {                                                                      \
        double a_ = (double)(a), b_ = (double)(b);                            \
        if (!(a_ <= b_))                                                      \
            ng_t_fail(__FILE__, __LINE__, "%s <= %s: %.9g vs %.9g", #a, #b,   \
                      a_, b_);                                                \
    } while (0)

#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *a_ = (a), *b_ = (b);                                      \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                \
            ng_t_fail(__FILE__, __LINE__, "%s == %s: \"%s\" vs \"%s\"", #a,   \
                      #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");            \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                           \
    do {                                                                      \
        const char *h_ = (hay), *n_ = (needle);                               \
        if (!h_ || !strstr(h_, n_))                                           \
            ng_t_fail(__FILE__, __LINE__, "%s contains \"%s\": got \"%s\"",   \
                      #hay, n_, h_ ? h_ : "(null)");                          \
    } while (0)

#endif
