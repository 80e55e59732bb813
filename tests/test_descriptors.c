/*
 * test_descriptors.c — every descriptor in ng_types() is well formed: the
 * Lua constructors, validation, `noisegraph nodes` and the docs are all
 * generated from them, so a slip in one (a default outside its range, a
 * shorthand naming a choice that does not exist, an undocumented option)
 * would surface as a wrong message far away. Each check is also run on a
 * broken descriptor, so none of them passes vacuously.
 */
#include "harness.h"
#include "ng_node.h"
#include "types.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The first problem found is kept in why; returns how many were found. */
typedef struct report {
    int count;
    char why[256];
} report;

static void problem(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(report *r, const char *fmt, ...)
{
    va_list ap;
    if (r->count++) return;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static int documented(const char *doc) { return doc && doc[0]; }

static int choice_count(const ng_param_desc *p)
{
    int c = 0;
    while (p->choices && p->choices[c]) c++;
    return c;
}

static void check_default(report *r, const ng_param_desc *p)
{
    int d, c = choice_count(p);
    switch (p->kind) {
    case NG_PARAM_INT:
        if (p->def[0] != floor(p->def[0]) || p->min != floor(p->min) || p->max != floor(p->max))
            problem(r, "option '%s': an integer with a fractional default or bound", p->name);
        /* fall through */
    case NG_PARAM_NUMBER:
        if (!(p->min <= p->def[0] && p->def[0] <= p->max))
            problem(r, "option '%s': default %g outside %g to %g", p->name, p->def[0], p->min, p->max);
        break;
    case NG_PARAM_VEC3:
        for (d = 0; d < 3; d++)
            if (!(p->min <= p->def[d] && p->def[d] <= p->max))
                problem(r, "option '%s': default component %g outside %g to %g", p->name, p->def[d], p->min, p->max);
        break;
    case NG_PARAM_BOOL:
        if (p->def[0] != 0 && p->def[0] != 1) problem(r, "option '%s': boolean default %g", p->name, p->def[0]);
        break;
    case NG_PARAM_ENUM:
        if (c == 0) problem(r, "option '%s': a choice without choices", p->name);
        else if (!(p->def[0] >= 0 && p->def[0] < c && p->def[0] == floor(p->def[0])))
            problem(r, "option '%s': default choice %g of %d", p->name, p->def[0], c);
        for (d = 0; d < c; d++)
            if (ng_enum_index(p, p->choices[d]) != d) problem(r, "option '%s': choice \"%s\" twice", p->name, p->choices[d]);
        break;
    case NG_PARAM_RANGE:
        if (p->def[0] != NG_RANGE_NATURAL && p->def[0] != NG_RANGE_UNIT && p->def[0] != NG_RANGE_SIGNED)
            problem(r, "option '%s': default range mode %g", p->name, p->def[0]);
        break;
    case NG_PARAM_LIST:
        if ((p->def[0] != 1 && p->def[0] != 2) || !(p->def[1] >= 0 && p->def[1] <= p->def[2]))
            problem(r, "option '%s': list shape {%g, %g, %g}", p->name, p->def[0], p->def[1], p->def[2]);
        break;
    case NG_PARAM_STRING:
    case NG_PARAM_PATH: break;
    }
    if (p->kind != NG_PARAM_ENUM && p->choices) problem(r, "option '%s': choices on a non-choice", p->name);
}

static void check_params(report *r, const ng_node_type *t)
{
    int k;
    if (t->nparams < 0 || t->nparams > NG_MAX_PARAMS || (t->nparams > 0) != (t->params != NULL))
        problem(r, "nparams %d does not match its params", t->nparams);
    for (k = 0; t->params && k < t->nparams; k++) {
        const ng_param_desc *p = &t->params[k];
        if (!documented(p->name)) {
            problem(r, "parameter #%d has no name (nparams %d beyond the array?)", k, t->nparams);
            continue;
        }
        if (!ng_param_kind_word(p->kind)) problem(r, "option '%s': kind %d does not exist", p->name, (int)p->kind);
        else check_default(r, p);
        if (!documented(p->doc)) problem(r, "option '%s' is not documented", p->name);
    }
}

static void check_inputs(report *r, const ng_node_type *t)
{
    int k;
    if (t->ninputs < 0 || t->ninputs > NG_MAX_INPUTS || (t->ninputs > 0) != (t->inputs != NULL))
        problem(r, "ninputs %d does not match its inputs", t->ninputs);
    for (k = 0; t->inputs && k < t->ninputs; k++) {
        const ng_input_desc *in = &t->inputs[k];
        if (!documented(in->name)) {
            problem(r, "input #%d has no name (ninputs %d beyond the array?)", k, t->ninputs);
            continue;
        }
        if (!(1 <= in->min_channels && in->min_channels <= in->max_channels && in->max_channels <= NG_MAX_CHANNELS))
            problem(r, "input '%s': channels %d to %d", in->name, in->min_channels, in->max_channels);
        if (in->flags & ~(NG_INPUT_PULL | NG_INPUT_OPTIONAL | NG_INPUT_HYBRID | NG_INPUT_VALUES))
            problem(r, "input '%s': unknown flags %#x", in->name, (unsigned)in->flags);
        if ((in->flags & NG_INPUT_PULL) && (in->flags & NG_INPUT_HYBRID))
            problem(r, "input '%s': a pulled input cannot take a number", in->name);
        if (!documented(in->doc)) problem(r, "input '%s' is not documented", in->name);
    }
}

/* Parameters and inputs are keys of one Lua table: one namespace. */
static void check_names_unique(report *r, const ng_node_type *t)
{
    int a, b, n = t->nparams + t->ninputs;
    for (a = 0; a < n; a++)
        for (b = a + 1; b < n; b++) {
            const char *x = a < t->nparams ? t->params[a].name : t->inputs[a - t->nparams].name;
            const char *y = b < t->nparams ? t->params[b].name : t->inputs[b - t->nparams].name;
            if (x && y && strcmp(x, y) == 0) problem(r, "the key '%s' is declared twice", x);
        }
}

static void check_positional(report *r, const ng_node_type *t)
{
    const char *s = t->positional;
    while (s && *s) {
        size_t len = strcspn(s, ",");
        char name[64];
        if (len == 0 || len >= sizeof name) {
            problem(r, "positional list \"%s\" has an empty or overlong name", t->positional);
            break;
        }
        memcpy(name, s, len);
        name[len] = 0;
        if (ng_param_index(t, name) < 0 && ng_input_index(t, name) < 0)
            problem(r, "positional name '%s' is neither an option nor an input", name);
        s += len + (s[len] == ',');
    }
}

static void check_shorthands(report *r, const ng_node_type *t)
{
    int k;
    if (t->nshorthands < 0 || (t->nshorthands > 0) != (t->shorthands != NULL))
        problem(r, "nshorthands %d does not match its shorthands", t->nshorthands);
    for (k = 0; t->shorthands && k < t->nshorthands; k++) {
        const ng_shorthand *sh = &t->shorthands[k];
        int p = sh->param ? ng_param_index(t, sh->param) : -1;
        if (!documented(sh->name)) problem(r, "shorthand #%d has no name", k);
        else if (!sh->param && !sh->value) continue; /* a plain alias */
        else if (p < 0 || t->params[p].kind != NG_PARAM_ENUM)
            problem(r, "shorthand '%s' presets '%s', not a choice option", sh->name, sh->param ? sh->param : "?");
        else if (!sh->value || ng_enum_index(&t->params[p], sh->value) < 0)
            problem(r, "shorthand '%s' presets %s = \"%s\", not one of its choices", sh->name, sh->param,
                    sh->value ? sh->value : "?");
    }
}

static void check_type(report *r, const ng_node_type *t)
{
    memset(r, 0, sizeof *r);
    if (!documented(t->name) || !documented(t->family) || !documented(t->doc))
        problem(r, "a name, family and doc are required");
    if (!t->dims || (t->dims & ~NG_DIMS_ALL)) problem(r, "dims %#x: bits 1 to 4 only, at least one", t->dims);
    if (!t->eval) problem(r, "no eval");
    check_params(r, t);
    check_inputs(r, t);
    check_names_unique(r, t);
    check_positional(r, t);
    check_shorthands(r, t);
}

static void test_every_descriptor_is_well_formed(void)
{
    int n, i;
    const ng_node_type *const *types = ng_types(&n);
    CHECK(n > 0);
    for (i = 0; i < n; i++) {
        report r;
        check_type(&r, types[i]);
        CHECKF(r.count == 0, "%s: %s (%d problem%s)", types[i]->name, r.why, r.count, r.count == 1 ? "" : "s");
    }
}

/* Type names, shorthands, operators and methods name one thing each: the
 * Lua module registers them all in one table. */
static void test_names_across_types_are_unique(void)
{
    int n, i, j, a, b;
    const ng_node_type *const *types = ng_types(&n);
    for (i = 0; i < n; i++) {
        const ng_node_type *t = types[i];
        CHECKF(ng_type_find(t->name) == t, "type '%s' is found as another", t->name);
        for (a = 0; a < t->nshorthands; a++) {
            const ng_shorthand *sh;
            CHECKF(ng_type_lookup(t->shorthands[a].name, &sh) == t && sh == &t->shorthands[a],
                   "shorthand '%s' of %s names something else first", t->shorthands[a].name, t->name);
        }
        for (j = i + 1; j < n; j++) {
            const ng_node_type *u = types[j];
            CHECKF(!(t->op && u->op && strcmp(t->op, u->op) == 0), "%s and %s both implement %s", t->name,
                   u->name, t->op);
            CHECKF(!(t->method && u->method && strcmp(t->method, u->method) == 0), "%s and %s both define :%s",
                   t->name, u->name, t->method);
            for (a = 0; a < t->nshorthands; a++)
                for (b = 0; b < u->nshorthands; b++)
                    CHECKF(strcmp(t->shorthands[a].name, u->shorthands[b].name) != 0,
                           "shorthand '%s' in %s and %s", t->shorthands[a].name, t->name, u->name);
        }
    }
}

/* Every parameter kind has a word, a "must be" text and a printer. */
static void test_every_parameter_kind_is_complete(void)
{
    int k;
    CHECK(ng_param_kind_word((ng_param_kind)NG_PARAM_KIND_COUNT) == NULL);
    for (k = 0; k < NG_PARAM_KIND_COUNT; k++) {
        ng_param_desc p;
        static const char *const one[] = {"only", NULL};
        char buf[64];
        CHECKF(documented(ng_param_kind_word((ng_param_kind)k)), "kind %d has no word", k);
        CHECKF(documented(ng_param_kind_must_be((ng_param_kind)k)), "kind %d has no \"must be\" text", k);
        memset(&p, 0, sizeof p);
        p.name = "p";
        p.kind = (ng_param_kind)k;
        p.choices = k == NG_PARAM_ENUM ? one : NULL;
        CHECKF(ng_param_format_default(&p, buf, sizeof buf) > 0 && buf[0] != '?', "kind %d has no printer", k);
    }
}

/* ---- the checks catch what they are for ------------------------------- */

static const char *const ab[] = {"a", "b", NULL};
static const ng_param_desc good_params[] = {
    {"size", NG_PARAM_NUMBER, {1}, 0, 10, NULL, "a size"},
    {"kind", NG_PARAM_ENUM, {0}, 0, 0, ab, "a or b"},
};
static const ng_input_desc good_inputs[] = {
    {"source", 0, 1, 1, 0, "a source"},
};
static const ng_shorthand good_shorthands[] = {{"bee", "kind", "b"}};

static int no_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx, (void)n, (void)b, (void)in, (void)out;
    return 0;
}

static ng_node_type good_type(void)
{
    ng_node_type t = {
        .name = "good", .family = "test", .doc = "well formed", .params = good_params, .nparams = 2,
        .inputs = good_inputs, .ninputs = 1, .dims = NG_DIMS_ALL, .shorthands = good_shorthands, .nshorthands = 1,
        .positional = "source,size", .eval = no_eval,
    };
    return t;
}

static void expect_refused(ng_node_type *t, const char *needle)
{
    report r;
    check_type(&r, t);
    CHECKF(r.count > 0, "a descriptor that should fail (\"%s\") passed", needle);
    CHECK_CONTAINS(r.why, needle);
}

static void test_broken_descriptors_are_caught(void)
{
    static const ng_param_desc out_of_range[] = {{"size", NG_PARAM_NUMBER, {11}, 0, 10, NULL, "a size"}};
    static const ng_param_desc bad_enum[] = {{"kind", NG_PARAM_ENUM, {2}, 0, 0, ab, "a or b"}};
    static const ng_param_desc undocumented[] = {{"size", NG_PARAM_NUMBER, {1}, 0, 10, NULL, ""}};
    static const ng_param_desc twice[] = {{"source", NG_PARAM_NUMBER, {1}, 0, 10, NULL, "clashes"}};
    static const ng_shorthand bad_short[] = {{"cee", "kind", "c"}};
    static const ng_input_desc undocumented_input[] = {{"source", 0, 1, 1, 0, NULL}};
    report r;
    ng_node_type t = good_type();
    check_type(&r, &t);
    CHECKF(r.count == 0, "the good descriptor: %s", r.why);

    t = good_type(), t.params = out_of_range, t.nparams = 1, t.positional = NULL;
    expect_refused(&t, "outside");
    t = good_type(), t.params = bad_enum, t.nparams = 1, t.shorthands = NULL, t.nshorthands = 0, t.positional = NULL;
    expect_refused(&t, "default choice");
    t = good_type(), t.params = undocumented, t.nparams = 1, t.positional = NULL;
    expect_refused(&t, "not documented");
    t = good_type(), t.inputs = undocumented_input;
    expect_refused(&t, "not documented");
    t = good_type(), t.params = twice, t.nparams = 1, t.positional = NULL;
    expect_refused(&t, "declared twice");
    t = good_type(), t.positional = "source,sise";
    expect_refused(&t, "'sise'");
    t = good_type(), t.shorthands = bad_short;
    expect_refused(&t, "not one of its choices");
    t = good_type(), t.nparams = 0;
    expect_refused(&t, "nparams");
    t = good_type(), t.dims = 0x21u;
    expect_refused(&t, "dims");
}

NG_SUITE(descriptors, fast)
{
    RUN(test_every_descriptor_is_well_formed);
    RUN(test_names_across_types_are_unique);
    RUN(test_every_parameter_kind_is_complete);
    RUN(test_broken_descriptors_are_caught);
}
