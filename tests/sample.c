/* sample.c — the kernel suites' shared helpers of sample.h. */
#include "sample.h"
#include "harness.h"

#include <math.h>

const ng_path *t_path;

void t_on_every_path(const char *suite, void (*tests)(void))
{
    int i, runs;
    for (i = 0; (t_path = ng__path_at(i, &runs)); i++) {
        if (runs) tests();
        else printf("  (%s: SIMD path %s not supported by this CPU, skipped)\n", suite, t_path->name);
    }
    t_path = NULL;
}

const ng_path *t_widest_path(void)
{
    const ng_path *p, *w = NULL;
    int i, runs;
    for (i = 0; (p = ng__path_at(i, &runs)); i++)
        if (runs) w = p;
    return w;
}

void t_run_on_path(const char *name, void (*fn)(void))
{
    static char label[160]; /* the harness keeps the pointer for this run only */
    snprintf(label, sizeof label, "%s [%s]", name, t_path->name);
    ng_t_run(label, fn);
}

static uint64_t rng_state;

void t_rng_seed(uint64_t s) { rng_state = s * 0x9e3779b97f4a7c15ULL + 1; }

uint64_t t_rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

double t_rng_unit(void) { return (double)(t_rng_next() >> 11) * (1.0 / 9007199254740992.0); }

double t_rng_range(double lo, double hi) { return lo + (hi - lo) * t_rng_unit(); }

double t_correlation(const float *a, const float *b, int n)
{
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    int i;
    for (i = 0; i < n; i++) {
        sa += a[i];
        sb += b[i];
        saa += (double)a[i] * a[i];
        sbb += (double)b[i] * b[i];
        sab += (double)a[i] * b[i];
    }
    sa /= n;
    sb /= n;
    return (sab / n - sa * sb) / sqrt((saa / n - sa * sa) * (sbb / n - sb * sb));
}

void t_steps_add(t_steps *st, const float *v, int n)
{
    int i;
    for (i = 1; i < n; i++) {
        double dv = (double)v[i] - v[i - 1];
        st->same += v[i] == v[i - 1];
        st->sum += dv;
        st->sum2 += dv * dv;
        st->count++;
    }
}

double t_steps_same(const t_steps *st) { return (double)st->same / (double)st->count; }

double t_steps_sd(const t_steps *st)
{
    double m = st->sum / (double)st->count;
    return sqrt(st->sum2 / (double)st->count - m * m);
}
