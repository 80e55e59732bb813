/*
 * test_properties.c — what every node type and every basis promises,
 * walked from their declarations (ng_types() and its shorthands, NG_BASES
 * in bases.h), so that a type or basis added there is tested before anyone
 * writes a test of its own. Each subject is built with its defaults, its
 * inputs fed a plain source of the channels the descriptor accepts (a
 * Perlin noise kept within [0.25, 0.75], a vector noise for vectors) and
 * its file options (PATH) a small PNG written here; then:
 * - it renders, to finite samples;
 * - the same bits on every SIMD path this CPU runs, on 1, 2 and 3 threads
 *   and tiles of 64, 16 and 8 pixels;
 * - where the type declares an analytic gradient (eval_grad or chain): the
 *   gradient central differences measure (tests/gradcheck.h), with the
 *   value eval's own;
 * - fed NaN on every input, and asked for NaN and infinite positions, it
 *   gives a result or an error, never a crash or a hang (in a child);
 * - a `range` option set to "unit" keeps it within [0, 1].
 * Each basis also keeps its natural range (bases.h) in every dimension it
 * has, and uses it; the README's table of natural ranges says what
 * bases.h says.
 */
#include "build.h"
#include "cli_support.h"
#include "gradcheck.h"
#include "harness.h"
#include "kernels.h"
#include "ng_io.h"
#include "sample.h"
#include "types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { W = 37, H = 29 }; /* tiles of 8 and 16 leave partial ones */

/* ---- the subjects ---------------------------------------------------------------------- */

/* A type with its defaults, or with one choice preset (a shorthand, or a
 * basis of the noise type). */
typedef struct subject {
    const ng_node_type *type;
    const char *param, *value; /* the preset, or NULL */
    int basis;                 /* NG_BASIS_*, or -1 */
    char name[64];
    /* Its defaults are refused (why: refused), as for a type that needs
     * one of several options given (terrace: steps or points): its empty
     * lists are then given the fewest items their descriptor allows. */
    int fill_lists;
    char refused[sizeof(ng_error)];
} subject;

#define BASIS_ROW(F, ID, id, name, freq, lo, hi, dims, ...) {NG_BASIS_##ID, name, lo, hi, dims},
static const struct {
    int id;
    const char *name;
    double lo, hi; /* natural range */
    unsigned dims; /* bit d: d dimensions */
} bases[] = {NG_BASES(BASIS_ROW)};
#undef BASIS_ROW
#define NBASES ((int)(sizeof bases / sizeof bases[0]))

enum { MAX_SUBJECTS = 256 };
static subject subjects[MAX_SUBJECTS];
static int nsubjects, ntypes, nshorthands;
static char png_path[PATHLEN]; /* what a PATH option is given */

/* Every type; every shorthand but the noise type's (they are the bases,
 * walked from bases.h below); every basis. */
static void collect(void)
{
    int n, i, k;
    const ng_node_type *const *types = ng_types(&n);
    for (i = k = 0; i < n; i++) k += 1 + types[i]->nshorthands;
    if (k + NBASES > MAX_SUBJECTS) {
        fprintf(stderr, "test_properties.c: %d subjects, room for %d\n", k + NBASES, MAX_SUBJECTS);
        exit(3);
    }
    nsubjects = 0;
    for (i = 0; i < n; i++) {
        subject *s = &subjects[nsubjects++];
        memset(s, 0, sizeof *s);
        s->type = types[i], s->basis = -1;
        snprintf(s->name, sizeof s->name, "%s", types[i]->name);
        for (k = 0; k < types[i]->nshorthands && types[i] != &ng_type_noise; k++) {
            s = &subjects[nsubjects++];
            memset(s, 0, sizeof *s);
            s->type = types[i], s->basis = -1;
            s->param = types[i]->shorthands[k].param, s->value = types[i]->shorthands[k].value;
            snprintf(s->name, sizeof s->name, "%s (%s)", types[i]->shorthands[k].name, types[i]->name);
            nshorthands++;
        }
    }
    ntypes = n;
    for (i = 0; i < NBASES; i++) {
        subject *s = &subjects[nsubjects++];
        memset(s, 0, sizeof *s);
        s->type = &ng_type_noise, s->basis = bases[i].id;
        s->param = "type", s->value = bases[i].name;
        snprintf(s->name, sizeof s->name, "noise type = \"%s\"", bases[i].name);
    }
}

/* ---- building one ------------------------------------------------------------------------ */

/* What the inputs are fed. */
enum { FEED_PLAIN, FEED_NAN };

/* A scalar source: Perlin within [0.25, 0.75] (positive and away from 0,
 * so a divisor, a root or a power of it is finite), or NaN. */
static int scalar_source(ng_graph *g, int feed)
{
    ng_error err;
    ng_node *n;
    int id;
    if (feed == FEED_NAN) return t_bin(g, "div", t_const(g, 0), t_const(g, 0));
    n = t_begin(g, "perlin");
    t_set(n, "element_size", 23);
    t_set(n, "seed", 7);
    if (ng_set_range(n, ng_param_index(&ng_type_noise, "range"), NG_RANGE_CUSTOM, 0.25, 0.75, &err) ||
        (id = ng_node_finish(g, n, &err)) < 0) {
        fprintf(stderr, "test fixture failed: perlin source: %s\n", err.msg);
        exit(3);
    }
    return id;
}

/* A source of `channels` channels (1 to 3). */
static int source_of(ng_graph *g, int channels, int feed)
{
    if (channels <= 1) return scalar_source(g, feed);
    if (channels == 3 && feed == FEED_PLAIN) return t_vnoise(g, "simplex", 31, 5);
    return t_vector(g, scalar_source(g, feed), scalar_source(g, feed), channels == 3 ? scalar_source(g, feed) : -1);
}

/* The fewest tuples list option p allows, rising from 0 to 1. */
static int fill_list(ng_node *n, int k, const ng_param_desc *p, ng_error *err)
{
    double v[64];
    const int size = (int)p->def[0], tuples = (int)p->def[1] > 2 ? (int)p->def[1] : 2;
    int i, j;
    if (size * tuples > 64) return ng_errorf(err, "%s: a list of %d numbers", p->name, size * tuples);
    for (i = 0; i < tuples; i++)
        for (j = 0; j < size; j++) v[i * size + j] = (double)i / (tuples - 1);
    return ng_set_list(n, k, v, size * tuples, err);
}

/* The subject with its defaults and every input that is not optional fed;
 * range_unit: its RANGE options set to "unit". The node's id, or -1 with
 * err saying why. */
static int build_as(ng_graph *g, const subject *s, int feed, int range_unit, int fill_lists, ng_error *err)
{
    const ng_node_type *t = s->type;
    ng_node *n;
    int k, rc = 0;
    ng_graph_set_image_loader(g, ng_image_load);
    if (!(n = ng_node_begin(g, t, s->name, NULL, err))) return -1;
    if (s->param) rc = ng_set_choice(n, ng_param_index(t, s->param), s->value, err);
    for (k = 0; rc == 0 && k < t->nparams; k++) {
        const ng_param_desc *p = &t->params[k];
        if (p->kind == NG_PARAM_PATH) rc = ng_set_string(n, k, png_path, err);
        if (p->kind == NG_PARAM_RANGE && range_unit) rc = ng_set_range(n, k, NG_RANGE_UNIT, 0, 0, err);
        if (p->kind == NG_PARAM_LIST && fill_lists) rc = fill_list(n, k, p, err);
    }
    for (k = 0; rc == 0 && k < t->ninputs; k++) {
        const ng_input_desc *in = &t->inputs[k];
        int channels = in->min_channels > 1 ? in->min_channels : 1;
        if (in->flags & NG_INPUT_OPTIONAL) continue;
        rc = ng_set_input(g, n, k, source_of(g, channels > 3 ? 3 : channels, feed), err);
    }
    if (rc) {
        ng_node_discard(n);
        return -1;
    }
    return ng_node_finish(g, n, err);
}

/* The same, a refusal a test failure naming the subject. */
static int build(ng_graph *g, const subject *s, int feed, int range_unit)
{
    ng_error err = {{0}};
    int id = build_as(g, s, feed, range_unit, s->fill_lists, &err);
    if (id < 0) ng_t_fail(__FILE__, __LINE__, "%s: %s", s->name, err.msg);
    return id;
}

/* Whether the subject takes its defaults, or else its lists filled. */
static void try_defaults(subject *s)
{
    ng_graph *g = ng_graph_new();
    ng_error err = {{0}};
    if (build_as(g, s, FEED_PLAIN, 0, 0, &err) < 0) {
        snprintf(s->refused, sizeof s->refused, "%s", err.msg);
        ng_graph_free(g);
        g = ng_graph_new();
        s->fill_lists = build_as(g, s, FEED_PLAIN, 0, 1, &err) >= 0;
    }
    ng_graph_free(g);
}

/* The lowest render dimension (2 to 4) the node evaluates in, or 0. */
static int render_dims(const ng_graph *g, int root)
{
    int d;
    for (d = 2; d <= 4; d++)
        if ((ng_graph_node(g, root)->dims >> d) & 1u) return d;
    return 0;
}

/* root rendered W x H (dims 2 to 4) on the path in force, or NULL with
 * err filled. */
static float *render_as(const ng_graph *g, int root, int threads, int tile, ng_error *err)
{
    ng_render_opts o;
    float *buf = malloc((size_t)W * H * NG_MAX_CHANNELS * sizeof *buf);
    ng_render_defaults(&o, W, H);
    o.origin[0] = -13.25, o.origin[1] = 1e6 + 0.5; /* off the origin, and far along y */
    o.dims = render_dims(g, root);
    o.z = 17.5, o.time = 0.375;
    o.threads = threads, o.tile = tile;
    if (buf && ng_render_buffer(g, root, &o, buf, err) == 0) return buf;
    if (!buf) ng_errorf(err, "no memory");
    free(buf);
    return NULL;
}

/* The same, a failure a test failure. */
static float *render(const ng_graph *g, int root, const char *what, int threads, int tile)
{
    ng_error err;
    float *img = render_as(g, root, threads, tile, &err);
    if (!img)
        ng_t_fail(__FILE__, __LINE__, "%s: %dD render on %d thread(s), tile %d, path %s: %s", what,
                  render_dims(g, root), threads, tile, ng_simd_path(), err.msg);
    return img;
}

/* ---- the checks ----------------------------------------------------------------------------- */

/* Built with its defaults, it renders, every sample finite. (A type that
 * refuses its defaults for want of a list is built with one: said in the
 * output.) */
static void test_defaults_render(void)
{
    int i;
    for (i = 0; i < nsubjects; i++) {
        ng_graph *g = ng_graph_new();
        int root = build(g, &subjects[i], FEED_PLAIN, 0), ch, k, bad = 0;
        float *img = root < 0 ? NULL : render(g, root, subjects[i].name, 1, 64);
        ch = root < 0 ? 0 : ng_node_channels(ng_graph_node(g, root));
        for (k = 0; img && k < W * H * ch; k++) bad += !isfinite(img[k]);
        CHECKF(bad == 0, "%s: %d of %d samples not finite", subjects[i].name, bad, W * H * ch);
        free(img);
        ng_graph_free(g);
    }
}

/* The same bits on every path this CPU runs, for 1 thread and 64-pixel
 * tiles, 2 and 16, 3 and 8. */
static void test_same_bits_everywhere(void)
{
    static const int threads[] = {1, 2, 3}, tiles[] = {64, 16, 8};
    int i, p, j, runs;
    for (i = 0; i < nsubjects; i++) {
        ng_graph *g = ng_graph_new();
        int root = build(g, &subjects[i], FEED_PLAIN, 0);
        float *ref = NULL;
        size_t bytes;
        if (root < 0) {
            ng_graph_free(g);
            continue;
        }
        bytes = (size_t)W * H * (size_t)ng_node_channels(ng_graph_node(g, root)) * sizeof(float);
        for (p = 0; ng__path_at(p, &runs); p++) {
            if (!runs) continue;
            ng__path_force(ng__path_at(p, NULL));
            for (j = 0; j < 3; j++) {
                float *img = render(g, root, subjects[i].name, threads[j], tiles[j]);
                if (img && !ref) ref = img, img = NULL; /* the first path, 1 thread */
                CHECKF(!img || memcmp(img, ref, bytes) == 0, "%s: path %s, %d thread(s), tile %d: bits differ",
                       subjects[i].name, ng__path_at(p, NULL)->name, threads[j], tiles[j]);
                free(img);
            }
        }
        ng__path_force(NULL);
        free(ref);
        ng_graph_free(g);
    }
}

/* Where the type declares an analytic gradient: in 2D and 3D, near and
 * far from the origin, at least 97 % of the components within 3 % of the
 * gradient's RMS of central differences (a kink or step crossed by the
 * difference step misses by any amount; a gradient that is 0 everywhere
 * must measure 0), and the value eval's own, bit for bit. */
static void test_gradients_match_differences(void)
{
    int i, dims, checked = 0;
    for (i = 0; i < nsubjects; i++) {
        const subject *s = &subjects[i];
        ng_graph *g;
        int root;
        if (!s->type->eval_grad && !s->type->chain) continue;
        g = ng_graph_new();
        root = build(g, s, FEED_PLAIN, 0);
        for (dims = 2; root >= 0 && dims <= 3; dims++) {
            t_grad_err e;
            double scale;
            if (!((ng_graph_node(g, root)->dims >> dims) & 1u)) continue;
            t_grad_compare(g, root, dims, &e);
            scale = sqrt(e.scale2 / (e.n > 0 ? e.n : 1));
            CHECKF(e.count > 0 && e.big * 100 <= e.count * 3,
                   "%s %dD: %ld of %ld gradient components off central differences by more than 3%% of %g", s->name,
                   dims, e.big, e.count, scale);
            CHECKF(e.value_mismatch == 0, "%s %dD: the value with the gradient is not eval's, bit for bit", s->name,
                   dims);
            checked++;
        }
        ng_graph_free(g);
    }
    CHECK(checked > 0);
}

/* In a child (a crash or a hang there fails this test, not the run): the
 * subject fed NaN on every input renders or fails with a message; with
 * plain inputs, NaN and infinite positions give values or an error. */
static int nan_child(const subject *s)
{
    static const double bad[] = {NAN, -NAN, INFINITY, -INFINITY, 1e300, 0.5};
    enum { NB = sizeof bad / sizeof bad[0] };
    double xs[4][NB * NB];
    const double *px[4] = {xs[0], xs[1], xs[2], xs[3]};
    float out[NB * NB * NG_MAX_CHANNELS];
    ng_error err = {{0}};
    ng_graph *g = ng_graph_new();
    int root, dims, i, rc;
    float *img;
    alarm(60);
    if ((root = build_as(g, s, FEED_NAN, 0, s->fill_lists, &err)) >= 0) {
        img = render_as(g, root, 2, 16, &err); /* NaN samples are a result, and so is an error */
        if (!img && !err.msg[0]) return 3;     /* but not one without its reason */
        free(img);
    } else if (!err.msg[0]) return 3;
    if ((root = build_as(g, s, FEED_PLAIN, 0, s->fill_lists, &err)) < 0) return 2;
    for (i = 0; i < NB * NB; i++) {
        xs[0][i] = xs[2][i] = bad[i % NB];
        xs[1][i] = xs[3][i] = bad[i / NB];
    }
    for (dims = 1; dims <= 4; dims++) {
        if (!((ng_graph_node(g, root)->dims >> dims) & 1u)) continue;
        rc = ng_eval_points(g, root, dims, px, NB * NB, out, &err);
        if (rc && !err.msg[0]) return 3; /* an error without its reason */
    }
    ng_graph_free(g);
    return 0;
}

static void test_nan_gives_no_crash(void)
{
    int i;
    for (i = 0; i < nsubjects; i++) {
        int status = 0;
        pid_t pid;
        fflush(NULL);
        if ((pid = fork()) == 0) _exit(nan_child(&subjects[i]));
        CHECKF(pid > 0 && waitpid(pid, &status, 0) == pid, "%s: fork failed", subjects[i].name);
        CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "%s: NaN inputs or positions: %s %d (2: not built, 3: an error without its reason)", subjects[i].name,
               WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
}

static int has_range(const ng_node_type *t)
{
    int k;
    for (k = 0; k < t->nparams; k++)
        if (t->params[k].kind == NG_PARAM_RANGE) return 1;
    return 0;
}

/* A type with a `range` option keeps "unit" within [0, 1]. */
static void test_unit_range_holds(void)
{
    int i, k, checked = 0;
    for (i = 0; i < nsubjects; i++) {
        const subject *s = &subjects[i];
        ng_graph *g;
        float *img;
        int root, bad = 0, n;
        if (!has_range(s->type)) continue;
        g = ng_graph_new();
        root = build(g, s, FEED_PLAIN, 1);
        img = root < 0 ? NULL : render(g, root, s->name, 1, 64);
        n = root < 0 ? 0 : W * H * ng_node_channels(ng_graph_node(g, root));
        for (k = 0; img && k < n; k++) bad += !(img[k] >= 0.0f && img[k] <= 1.0f);
        CHECKF(img && bad == 0, "%s, range = \"unit\": %d of %d samples outside [0, 1]", s->name, bad, n);
        free(img);
        ng_graph_free(g);
        checked++;
    }
    CHECK(checked > 0);
}

/* Each basis in every dimension it has: 2^15 samples over a hundred cells
 * per axis within its natural range, and spanning at least 60 % of it
 * (tests/test_kernels.c and test_cells.c measure 90 % over 2^20). */
static void test_natural_ranges(void)
{
    enum { NPTS = 1 << 15 };
    static double xs[4][NPTS];
    static float out[NPTS];
    const double *px[4] = {xs[0], xs[1], xs[2], xs[3]};
    int b, dims, i, d;
    t_rng_seed(23);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const double blo = bases[b].lo, bhi = bases[b].hi;
            double lo = INFINITY, hi = -INFINITY;
            ng_graph *g;
            ng_node *n;
            ng_error err;
            int root, bad = 0;
            if (!((bases[b].dims >> dims) & 1u)) continue;
            g = ng_graph_new();
            n = t_begin(g, bases[b].name);
            t_set(n, "element_size", 4);
            root = t_finish_ok(g, n);
            for (i = 0; i < NPTS; i++)
                for (d = 0; d < dims; d++) xs[d][i] = t_rng_range(-200, 200);
            if (root < 0 || ng_eval_points(g, root, dims, px, NPTS, out, &err)) {
                ng_t_fail(__FILE__, __LINE__, "%s %dD: %s", bases[b].name, dims, root < 0 ? "refused" : err.msg);
                ng_graph_free(g);
                continue;
            }
            for (i = 0; i < NPTS; i++) {
                bad += !(out[i] >= blo && out[i] <= bhi);
                lo = fmin(lo, out[i]), hi = fmax(hi, out[i]);
            }
            CHECKF(bad == 0, "%s %dD: %d of %d samples outside its natural range [%g, %g] (%g to %g)", bases[b].name,
                   dims, bad, NPTS, blo, bhi, lo, hi);
            CHECKF(hi - lo >= 0.6 * (bhi - blo), "%s %dD: samples span %g to %g, under 60 %% of [%g, %g]",
                   bases[b].name, dims, lo, hi, blo, bhi);
            ng_graph_free(g);
        }
}

/* ---- the README --------------------------------------------------------------------------- */

/* "1D–4D" (an en dash) or "2D, 3D, 4D": bit d per dimension; 0 if neither. */
static unsigned dims_of(const char *s)
{
    unsigned bits = 0;
    int a, b;
    if (sscanf(s, "%dD\xe2\x80\x93%dD", &a, &b) == 2) {
        for (; a >= 1 && a <= b && b <= 4; a++) bits |= 1u << a;
        return bits;
    }
    for (; *s; s++)
        if (*s >= '1' && *s <= '4' && s[1] == 'D') bits |= 1u << (*s - '0');
    return bits;
}

static char *next_line(char *s)
{
    char *e = strchr(s, '\n');
    return e ? e + 1 : s + strlen(s);
}

/* The README's table of natural ranges (| type | dims | natural range |
 * notes |): one row per basis, its dimensions and range those of bases.h. */
static void test_readme_table_is_bases_h(void)
{
    static const char head[] = "| type | dims | natural range | notes |\n";
    char path[PATHLEN], *text, *row;
    int seen[NBASES] = {0}, rows = 0, b, line;
    size_t len;
    pathf(path, "%s/README.md", ng_root);
    text = (char *)slurp(path, &len);
    row = text ? strstr(text, head) : NULL;
    CHECKF(row != NULL, "README.md: no table headed %s", head);
    if (!row) {
        free(text);
        return;
    }
    for (line = 1, b = 0; text + b < row; b++) line += text[b] == '\n';
    row = next_line(next_line(row)); /* past the head and the separator */
    for (line += 2; *row == '|'; row = next_line(row), line++) {
        char name[32], dims[32], range[32];
        double lo, hi;
        rows++;
        if (sscanf(row, "| %31[^ |] | %31[^|]| %31[^|]|", name, dims, range) != 3 ||
            sscanf(range, "[%lf, %lf]", &lo, &hi) != 2) {
            ng_t_fail(__FILE__, __LINE__, "README.md:%d: not a row of type, dims and [lo, hi]", line);
            continue;
        }
        for (b = 0; b < NBASES && strcmp(bases[b].name, name) != 0; b++) continue;
        if (b == NBASES) {
            ng_t_fail(__FILE__, __LINE__, "README.md:%d: %s is no basis of bases.h", line, name);
            continue;
        }
        seen[b]++;
        for (len = strlen(dims); len > 0 && dims[len - 1] == ' '; len--) dims[len - 1] = '\0';
        CHECKF(dims_of(dims) == bases[b].dims, "README.md:%d: %s has dims %s; bases.h says otherwise", line, name,
               dims);
        CHECKF(lo == bases[b].lo && hi == bases[b].hi, "README.md:%d: %s ranges over [%g, %g]; bases.h: [%g, %g]",
               line, name, lo, hi, bases[b].lo, bases[b].hi);
    }
    for (b = 0; b < NBASES; b++) CHECKF(seen[b] == 1, "README.md: basis %s has %d rows", bases[b].name, seen[b]);
    CHECK_INT(rows, NBASES);
    free(text);
}

/* Every type of ng_types() and every basis of bases.h was walked. */
static void test_everything_walked(void)
{
    int n, i, found[NBASES] = {0}, graded = 0, ranged = 0;
    ng_types(&n);
    CHECK_INT(ntypes, n);
    for (i = 0; i < nsubjects; i++)
        if (subjects[i].basis >= 0) found[subjects[i].basis]++;
    for (i = 0; i < NBASES; i++) CHECKF(found[bases[i].id] == 1, "basis %s walked %d times", bases[i].name,
                                        found[bases[i].id]);
    for (i = 0; i < nsubjects; i++) graded += subjects[i].type->eval_grad || subjects[i].type->chain;
    for (i = 0; i < nsubjects; i++) ranged += has_range(subjects[i].type);
    printf("  (properties: %d types, %d shorthands and %d bases walked, %d subjects: %d with an analytic gradient, "
           "%d with a range option; SIMD path(s)",
           ntypes, nshorthands, NBASES, nsubjects, graded, ranged);
    for (i = 0; ng__path_at(i, NULL); i++) {
        int runs;
        ng__path_at(i, &runs);
        if (runs) printf(" %s", ng__path_at(i, NULL)->name);
    }
    printf(")\n");
    for (i = 0; i < nsubjects; i++)
        if (subjects[i].fill_lists)
            printf("  (properties: %s refuses its defaults (\"%s\"): built with its lists given the fewest items "
                   "they take)\n", subjects[i].name, subjects[i].refused);
}

static void test_program_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
}

NG_SUITE(properties, fast)
{
    static const unsigned char grey[4 * 3] = {0, 40, 80, 120, 160, 200, 240, 255, 7, 77, 177, 250};
    int i;
    if (cli_setup("ngprops") != 0) {
        RUN(test_program_environment);
        return;
    }
    tpath(png_path, "props.png");
    write_png(png_path, 4, 3, 8, PNG_COLOR_TYPE_GRAY, 1, grey);
    collect();
    for (i = 0; i < nsubjects; i++) try_defaults(&subjects[i]);
    RUN(test_everything_walked);
    RUN(test_defaults_render);
    RUN(test_same_bits_everywhere);
    RUN(test_gradients_match_differences);
    RUN(test_nan_gives_no_crash);
    RUN(test_unit_range_holds);
    RUN(test_natural_ranges);
    RUN(test_readme_table_is_bases_h);
    cli_teardown();
}
