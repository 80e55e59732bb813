/* main.c — runs the test suites: all of them (make test), one tier
 * (--tier fast: make check, without the RUN_FULL tests of its suites) or
 * those named; --list names them with their
 * tiers. The last line is "N passed, N failed". The suites are the
 * NG_SUITE lines of tests/test_*.c, listed by the build (tests/suites.sh).
 * Each suite's wall time is printed after it ("suite NAME: S s"), so CI's
 * time budget can be read off a run. */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const tier_names[] = {[NG_T_TIER_fast] = "fast", [NG_T_TIER_full] = "full"};

static int usage(void)
{
    fprintf(stderr, "usage: run_tests [--tier fast|full] [--list] [SUITE...]\n");
    return 2;
}

static const ng_t_suite *suite_named(const char *name)
{
    int i;
    for (i = 0; i < ng_t_nsuites; i++)
        if (strcmp(ng_t_suites[i].name, name) == 0) return &ng_t_suites[i];
    return NULL;
}

int main(int argc, char **argv)
{
    int tier = 0, list = 0, named = 0, skipped = 0, a, i;
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--list") == 0) list = 1;
        else if (strcmp(argv[a], "--tier") == 0 && a + 1 < argc) {
            a++;
            for (tier = NG_T_TIER_full; tier > 0 && strcmp(argv[a], tier_names[tier]) != 0; tier--) continue;
            if (!tier) return usage();
        } else if (argv[a][0] == '-') return usage();
        else if (!suite_named(argv[a])) { /* a name that ran nothing would look like a pass */
            fprintf(stderr, "run_tests: no suite '%s' (run_tests --list names them)\n", argv[a]);
            return 2;
        } else named++;
    }
    ng_t_fast_only = tier == NG_T_TIER_fast;
    if (list) {
        for (i = 0; i < ng_t_nsuites; i++) printf("%s %s\n", ng_t_suites[i].name, tier_names[ng_t_suites[i].tier]);
        return 0;
    }
    for (i = 0; i < ng_t_nsuites; i++) {
        const ng_t_suite *s = &ng_t_suites[i];
        int run = named ? 0 : !tier || s->tier == tier;
        for (a = 1; named && a < argc; a++) run |= strcmp(argv[a], s->name) == 0;
        if (run) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            s->run();
            clock_gettime(CLOCK_MONOTONIC, &t1);
            printf("suite %s: %.1f s\n", s->name, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
            fflush(stdout);
        } else if (!named)
            skipped++;
    }
    if (skipped)
        printf("(%s tier only: %d suites of other tiers not run; make test runs them all)\n", tier_names[tier],
               skipped);
    return ng_t_summary();
}
