/* main.c — runs the test suites: all of them (make test), one tier
 * (--tier fast: make check, without the RUN_FULL tests of its suites) or
 * those named; --list names them with their
 * tiers. The last line is "N passed, N failed". The suites are the
 * NG_SUITE lines of tests/test_*.c, listed by the build (tests/suites.sh).
 * Each suite's wall time is printed after it ("suite NAME: S s"), so CI's
 * time budget can be read off a run.
 *
 * --jobs N runs up to N suites at once, each in its own child process
 * (most suites use one CPU: on CI's two, the run takes about half the
 * time). A child's output goes to a scratch file, printed whole when the
 * suite ends, so suites' lines never interleave; its counts come back
 * through a shared page. A child that dies, or exits non-zero with no
 * failed test (a sanitizer's report, the leak checker at exit), counts as
 * one failed test, named. The suites keep their scratch files apart
 * (mkdtemp) and their servers on ports the system picks. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const tier_names[] = {[NG_T_TIER_fast] = "fast", [NG_T_TIER_full] = "full"};

static int usage(void)
{
    fprintf(stderr, "usage: run_tests [--tier fast|full] [--jobs N] [--list] [SUITE...]\n");
    return 2;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static void run_here(const ng_t_suite *s)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    s->run();
    printf("suite %s: %.1f s\n", s->name, seconds_since(&t0));
    fflush(stdout);
}

/* ---- --jobs N: suites in child processes ---- */
typedef struct counts {
    int passed, failed, deferred;
} counts;

typedef struct job {
    pid_t pid; /* 0: free */
    const ng_t_suite *suite;
    counts *back; /* on the shared page */
    FILE *out;
    struct timespec t0;
} job;

/* The leak checker's own call, in the sanitizer build alone. */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

/* In the child: the suite, its output into out, its counts into back.
 * It leaves by _exit: a library's exit handler (log4cplus, loaded with
 * OpenVDB) waits for a thread that only the parent has, so exit() would
 * hang. The leak check exit() would have run is called here. */
static void child(const ng_t_suite *s, FILE *out, counts *back)
{
    int leaked = 0, p0, f0, d0;
    ng_t_counts(&p0, &f0, &d0); /* the parent's, of the suites ended before the fork */
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(out), STDERR_FILENO);
    setvbuf(stdout, NULL, _IOLBF, 0); /* FAIL lines (stderr) stay in order with the rest */
    s->run();
    ng_t_counts(&back->passed, &back->failed, &back->deferred);
    back->passed -= p0, back->failed -= f0, back->deferred -= d0;
    if (__lsan_do_recoverable_leak_check) leaked = __lsan_do_recoverable_leak_check();
    fflush(stdout);
    fflush(stderr);
    _exit(leaked ? 23 : 0);
}

static int start(job *j, const ng_t_suite *s, counts *back)
{
    j->out = tmpfile();
    if (!j->out) {
        perror("run_tests: tmpfile");
        return -1;
    }
    memset(back, 0, sizeof *back);
    fflush(stdout);
    fflush(stderr);
    clock_gettime(CLOCK_MONOTONIC, &j->t0);
    j->pid = fork();
    if (j->pid < 0) {
        perror("run_tests: fork");
        fclose(j->out);
        j->pid = 0;
        return -1;
    }
    if (j->pid == 0) child(s, j->out, back);
    j->suite = s, j->back = back;
    return 0;
}

/* A child has ended: its output, its time and its counts. */
static void finish(job *j, int status)
{
    char buf[8192];
    size_t n;
    counts c = *j->back;
    rewind(j->out);
    while ((n = fread(buf, 1, sizeof buf, j->out)) > 0) fwrite(buf, 1, n, stdout);
    fclose(j->out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status)) printf("FAIL suite %s: killed by signal %d\n", j->suite->name, WTERMSIG(status));
        else printf("FAIL suite %s: exit status %d\n", j->suite->name, WEXITSTATUS(status));
        if (c.failed == 0) c.failed = 1;
    }
    printf("suite %s: %.1f s\n", j->suite->name, seconds_since(&j->t0));
    fflush(stdout);
    ng_t_add_counts(c.passed, c.failed, c.deferred);
    j->pid = 0;
}

/* Waits for one child of jobs[0..n) and finishes it; 0 when none was left. */
static int reap(job *jobs, int n)
{
    int status, i;
    pid_t pid = wait(&status);
    if (pid < 0) return 0;
    for (i = 0; i < n; i++)
        if (jobs[i].pid == pid) finish(&jobs[i], status);
    return 1;
}

/* Runs the suites marked in chosen[] on up to njobs children at once. */
static int run_parallel(const int *chosen, int njobs)
{
    counts *shared = mmap(NULL, (size_t)ng_t_nsuites * sizeof *shared, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    job *jobs = calloc((size_t)njobs, sizeof *jobs);
    int i, k, busy = 0, err = 0;
    if (shared == MAP_FAILED || !jobs) {
        perror("run_tests: --jobs");
        free(jobs);
        return -1;
    }
    for (i = 0; i < ng_t_nsuites && !err; i++) {
        if (!chosen[i]) continue;
        if (busy == njobs) busy -= reap(jobs, njobs);
        for (k = 0; jobs[k].pid; k++) continue;
        if (start(&jobs[k], &ng_t_suites[i], &shared[i]) != 0) err = 1;
        else busy++;
    }
    while (busy > 0 && reap(jobs, njobs)) busy--;
    free(jobs);
    munmap(shared, (size_t)ng_t_nsuites * sizeof *shared);
    return err ? -1 : 0;
}

static const ng_t_suite *suite_named(const char *name)
{
    int i;
    for (i = 0; i < ng_t_nsuites; i++)
        if (strcmp(ng_t_suites[i].name, name) == 0) return &ng_t_suites[i];
    return NULL;
}

/* The suites to run: file scope, so a child's leak check sees it held. */
static int *run;

int main(int argc, char **argv)
{
    int tier = 0, list = 0, named = 0, skipped = 0, njobs = 1, a, i;
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--list") == 0) list = 1;
        else if (strcmp(argv[a], "--jobs") == 0 && a + 1 < argc) {
            char *end;
            long v = strtol(argv[++a], &end, 10);
            if (*end || v < 1 || v > 64) return usage();
            njobs = (int)v;
        } else if (strcmp(argv[a], "--tier") == 0 && a + 1 < argc) {
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
    if (!(run = calloc((size_t)ng_t_nsuites + 1, sizeof *run))) return 2;
    for (i = 0; i < ng_t_nsuites; i++) {
        const ng_t_suite *s = &ng_t_suites[i];
        run[i] = named ? 0 : !tier || s->tier == tier;
        for (a = 1; named && a < argc; a++) run[i] |= strcmp(argv[a], s->name) == 0;
        if (!run[i] && !named) skipped++;
    }
    if (njobs > 1 && run_parallel(run, njobs) != 0) {
        free(run);
        return 2;
    }
    for (i = 0; njobs == 1 && i < ng_t_nsuites; i++)
        if (run[i]) run_here(&ng_t_suites[i]);
    free(run);
    if (skipped)
        printf("(%s tier only: %d suites of other tiers not run; make test runs them all)\n", tier_names[tier],
               skipped);
    return ng_t_summary();
}
