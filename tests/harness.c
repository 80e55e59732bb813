/* harness.c — the test runner behind harness.h. */
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

int ng_t_failed_checks;
static int passed, failed;
static const char *current;

void ng_t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (ng_t_failed_checks++ == 0) fprintf(stderr, "FAIL %s\n", current);
    fprintf(stderr, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* A test that takes 5 s or more says so ("  slow: NAME S s"): CI's time
 * budget is read off these lines and the suites' totals. */
void ng_t_run(const char *name, void (*fn)(void))
{
    struct timespec t0, t1;
    double s;
    current = name;
    ng_t_failed_checks = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fn();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (s >= 5.0) {
        printf("  slow: %s %.1f s\n", name, s);
        fflush(stdout);
    }
    if (ng_t_failed_checks) failed++;
    else passed++;
}

int ng_t_fast_only;

int ng_t_emulated(void)
{
    static int emulated = -1; /* read once: sizes ask in their loops */
    if (emulated < 0) {
        const char *q = getenv("NG_QEMU");
        emulated = q && *q && strcmp(q, "0") != 0;
    }
    return emulated;
}

static int deferred;

void ng_t_run_full(const char *name, void (*fn)(void))
{
    if (!ng_t_fast_only) {
        ng_t_run(name, fn);
        return;
    }
    printf("  (%s: full tier, not run by make check)\n", name);
    deferred++;
}

/* The counts so far (a suite run in a child process hands them back). */
void ng_t_counts(int *p, int *f, int *d)
{
    *p = passed, *f = failed, *d = deferred;
}

/* Adds a child's counts to this process's. */
void ng_t_add_counts(int p, int f, int d)
{
    passed += p, failed += f, deferred += d;
}

int ng_t_summary(void)
{
    if (deferred) printf("(%d slow test(s) of fast suites not run; make test runs them)\n", deferred);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
