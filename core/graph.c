/*
 * graph.c — building a graph node by node. A node takes inputs only from
 * nodes that already exist, so the graph is acyclic by construction; the
 * checks a user needs (ranges, choices, channel counts, dimensions, nesting
 * depth) happen here, once, so evaluation never has to fail on them.
 */
#include "ng_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ng_graph {
    ng_node **nodes;
    int n, cap;
    ng_budget *budget; /* see ng_graph_set_budget */
    size_t charged;    /* bytes of nodes[] counted in budget */
    ng_image_loader load_image; /* see ng_graph_set_image_loader */
    int classic;                /* see ng_graph_set_classic */
    /* Neighbourhood patches kept from render to render of this graph
     * (core/hood.c), made with its first neighbourhood node; NULL before. */
    ng__hood_cache *hood;
};

int ng_errorf(ng_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *dupstr(const char *s)
{
    size_t len;
    char *d;
    if (!s) return NULL;
    len = strlen(s) + 1;
    d = malloc(len);
    if (d) memcpy(d, s, len);
    return d;
}

ng_graph *ng_graph_new(void)
{
    return calloc(1, sizeof(ng_graph));
}

/* ---- budget ---------------------------------------------------------------- */

int ng_budget_take(ng_budget *b, size_t bytes)
{
    if (!b) return 0;
    if (bytes > b->limit || b->used > b->limit - bytes) {
        b->exceeded = 1;
        return -1;
    }
    b->used += bytes;
    return 0;
}

void ng_budget_give(ng_budget *b, size_t bytes)
{
    if (b) b->used = bytes < b->used ? b->used - bytes : 0;
}

static int over_budget(const ng_node *n, size_t bytes, ng_error *err)
{
    return ng_errorf(err, "%s: %.1f MiB more would pass the memory budget of %.1f MiB",
                     n->label ? n->label : n->type->name, (double)bytes / 1048576.0,
                     (double)n->budget->limit / 1048576.0);
}

int ng_node_charge(ng_node *n, size_t bytes, ng_error *err)
{
    if (ng_budget_take(n->budget, bytes)) return over_budget(n, bytes, err);
    n->charged += n->budget ? bytes : 0;
    return 0;
}

size_t ng_node_budget_left(const ng_node *n)
{
    return n->budget ? n->budget->limit - n->budget->used : (size_t)-1;
}

static void drop_state(ng_node *n)
{
    if (n->state && n->type->free_state) n->type->free_state(n->state);
    free(n->state);
    n->state = NULL;
}

void *ng_node_state_alloc(ng_node *n, size_t size, ng_error *err)
{
    void *s;
    if (ng_node_charge(n, size, err)) return NULL;
    if (!(s = calloc(1, size ? size : 1))) {
        ng_errorf(err, "%s: out of memory", n->label ? n->label : n->type->name);
        return NULL;
    }
    drop_state(n);
    n->state = s;
    return s;
}

void ng_graph_set_classic(ng_graph *g, int on)
{
    g->classic = on != 0;
}

void ng_graph_set_image_loader(ng_graph *g, ng_image_loader load)
{
    int i;
    g->load_image = load;
    for (i = 0; i < g->n; i++) g->nodes[i]->load_image = load;
}

void ng_image_free(ng_image *img)
{
    free(img->px);
    img->px = NULL;
}

void ng_graph_set_budget(ng_graph *g, ng_budget *b)
{
    int i;
    g->budget = b;
    g->charged = 0;
    for (i = 0; i < g->n; i++) {
        g->nodes[i]->budget = b;
        g->nodes[i]->charged = 0;
    }
}

static void node_free(ng_node *n)
{
    int k;
    if (!n) return;
    ng_budget_give(n->budget, n->charged);
    for (k = 0; k < n->type->nparams; k++) {
        free(n->param[k].s);
        free(n->param[k].list);
    }
    free(n->param);
    free(n->label);
    free(n->where);
    drop_state(n);
    free(n);
}

void ng_node_discard(ng_node *n) { node_free(n); }

void ng_graph_free(ng_graph *g)
{
    int i;
    if (!g) return;
    for (i = 0; i < g->n; i++) node_free(g->nodes[i]);
    ng__hood_cache_free(g->hood);
    ng_budget_give(g->budget, g->charged);
    free(g->nodes);
    free(g);
}

int ng_graph_count(const ng_graph *g) { return g->n; }

ng__hood_cache *ng__graph_hood(const ng_graph *g) { return g->hood; }

const ng_node *ng_graph_node(const ng_graph *g, int id)
{
    return id >= 0 && id < g->n ? g->nodes[id] : NULL;
}

const ng_node_type *ng_node_type_of(const ng_node *n) { return n->type; }

int ng_node_rename(ng_graph *g, int id, const char *name, ng_error *err)
{
    const size_t len = strlen(name);
    const char *c;
    ng_node *n;
    char *copy;
    if (id < 0 || id >= g->n) return ng_errorf(err, "named: no node %d", id);
    n = g->nodes[id];
    for (c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) break;
    if (len < 1 || len > 64 || *c)
        return ng_errorf(err, "%s: named: a name is 1 to 64 characters, none a control character", n->label);
    if (!(copy = dupstr(name))) return ng_errorf(err, "%s: out of memory", n->label);
    free(n->label);
    n->label = copy;
    return 0;
}
int ng_node_id(const ng_node *n) { return n->id; }
int ng_node_channels(const ng_node *n) { return n->channels; }
int ng_node_input(const ng_node *n, int k) { return n->input[k]; }
int ng_node_param_source(const ng_node *n, int k)
{
    int s = ng_driver_slot(n, k);
    return s < 0 ? -1 : n->input[s];
}
const ng_value *ng_node_param(const ng_node *n, int k) { return &n->param[k]; }
const char *ng_node_label(const ng_node *n) { return n->label; }
int ng_node_param_set(const ng_node *n, int k) { return (int)((n->set >> k) & 1); }
const char *ng_node_where(const ng_node *n) { return n->where; }

/* ---- descriptor lookups --------------------------------------------- */

int ng_param_index(const ng_node_type *t, const char *name)
{
    int k;
    for (k = 0; k < t->nparams; k++)
        if (strcmp(t->params[k].name, name) == 0) return k;
    return -1;
}

int ng_input_index(const ng_node_type *t, const char *name)
{
    int k;
    for (k = 0; k < t->ninputs; k++)
        if (strcmp(t->inputs[k].name, name) == 0) return k;
    return -1;
}

int ng_enum_index(const ng_param_desc *p, const char *choice)
{
    int k;
    for (k = 0; p->choices && p->choices[k]; k++)
        if (strcmp(p->choices[k], choice) == 0) return k;
    return -1;
}

/* Levenshtein distance, capped: keys are short. */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), i, j;
    int row[64];
    if (la > 63 || lb > 63) return 99;
    for (j = 0; j <= lb; j++) row[j] = j;
    for (i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            if (up + 1 < best) best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Keeps name in *best when it is closer to key than *bestd. */
static void closer(const char *key, const char *name, const char **best, int *bestd)
{
    int d = distance(key, name);
    if (d < *bestd) *bestd = d, *best = name;
}

/* A name is offered when at most about half of key must change. */
static const char *close_enough(const char *key, const char *best, int bestd)
{
    return bestd <= (int)strlen(key) / 2 + 2 ? best : NULL;
}

const char *ng_closest_key(const ng_node_type *t, const char *key)
{
    const char *best = NULL;
    int bestd = 1 << 30, k;
    for (k = 0; k < t->nparams + t->ninputs; k++)
        closer(key, k < t->nparams ? t->params[k].name : t->inputs[k - t->nparams].name, &best, &bestd);
    return close_enough(key, best, bestd);
}

const char *ng_closest_name(const char *key, const char *const *names, int count)
{
    const char *best = NULL;
    int bestd = 1 << 30, k;
    for (k = 0; k < count; k++) closer(key, names[k], &best, &bestd);
    return close_enough(key, best, bestd);
}

/* ---- building nodes ---------------------------------------------------- */

static const char *node_name(const ng_node *n)
{
    return n->label ? n->label : n->type->name;
}

int ng__node_name(const ng_node *n, char *buf, size_t len)
{
    return snprintf(buf, len, "%s%s%s", n->where ? n->where : "", n->where ? ": " : "", node_name(n));
}

/* Stops parameter k being driven (a number was given after a node). */
static void undrive(ng_node *n, int k)
{
    int s = ng_driver_slot(n, k), j;
    if (s < 0) return;
    for (j = s - n->type->ninputs; j + 1 < n->ndrivers; j++) {
        n->driven[j] = n->driven[j + 1];
        n->input[n->type->ninputs + j] = n->input[n->type->ninputs + j + 1];
    }
    n->ndrivers--;
    n->input[n->type->ninputs + n->ndrivers] = -1;
}

ng_node *ng_node_begin(ng_graph *g, const ng_node_type *t, const char *label,
                       const char *where, ng_error *err)
{
    ng_node *n;
    int k;
    if (g->n >= NG_MAX_NODES) {
        ng_errorf(err, "%s: the graph has reached its limit of %d nodes", label ? label : t->name,
                  NG_MAX_NODES);
        return NULL;
    }
    n = calloc(1, sizeof *n);
    if (!n || !(n->param = calloc((size_t)(t->nparams ? t->nparams : 1), sizeof(ng_value)))) {
        free(n);
        ng_errorf(err, "%s: out of memory", t->name);
        return NULL;
    }
    n->type = t;
    n->budget = g->budget;
    n->load_image = g->load_image;
    if (ng_node_charge(n, sizeof *n + (size_t)(t->nparams ? t->nparams : 1) * sizeof(ng_value) +
                              (label ? strlen(label) : strlen(t->name)) + (where ? strlen(where) : 0) + 2,
                       err)) {
        free(n->param);
        free(n);
        return NULL;
    }
    n->id = -1;
    n->channels = 1;
    for (k = 0; k < NG_MAX_INPUTS + NG_MAX_DRIVERS; k++) n->input[k] = -1;
    for (k = 0; k < t->nparams; k++) ng__param_default(&t->params[k], &n->param[k]);
    for (k = 0; g->classic && k < t->nchanged; k++) {
        n->param[t->changed[k].param].v[0] = t->changed[k].classic;
        n->param[t->changed[k].param].i = (int)t->changed[k].classic;
    }
    n->label = dupstr(label ? label : t->name);
    n->where = dupstr(where);
    return n;
}

static int check_kind(ng_node *n, int k, ng_param_kind want, ng_error *err)
{
    if (k < 0 || k >= n->type->nparams)
        return ng_errorf(err, "%s: no parameter #%d", node_name(n), k);
    if (n->type->params[k].kind != want &&
        !(want == NG_PARAM_NUMBER && n->type->params[k].kind == NG_PARAM_INT) &&
        !(want == NG_PARAM_STRING && n->type->params[k].kind == NG_PARAM_PATH))
        return ng_errorf(err, "%s: option '%s' must be %s", node_name(n), n->type->params[k].name,
                         ng_param_kind_must_be(n->type->params[k].kind));
    return 0;
}

ng_number_text ng_number(double v)
{
    ng_number_text e;
    int digits;
    for (digits = 6; digits < 17; digits++) {
        snprintf(e.s, sizeof e.s, "%.*g", digits, v);
        if (strtod(e.s, NULL) == v) return e;
    }
    snprintf(e.s, sizeof e.s, "%.17g", v);
    return e;
}


static int check_bounds(ng_node *n, const ng_param_desc *p, double v, ng_error *err)
{
    if (v != v) /* printf's %g spells it "-nan" or "nan" by its sign bit */
        return ng_errorf(err, "%s: option '%s' is NaN, not a number (accepted %s to %s)", node_name(n), p->name,
                         ng_number(p->min).s, ng_number(p->max).s);
    if (!(v >= p->min && v <= p->max))
        return ng_errorf(err, "%s: option '%s' = %s is out of range (accepted %s to %s)", node_name(n), p->name,
                         ng_number(v).s, ng_number(p->min).s, ng_number(p->max).s);
    return 0;
}

int ng_set_number(ng_node *n, int k, double v, ng_error *err)
{
    const ng_param_desc *p;
    if (check_kind(n, k, NG_PARAM_NUMBER, err)) return -1;
    p = &n->type->params[k];
    /* trunc, not a cast: a cast of 4e30 to an integer is undefined; past
     * the bounds (and NaN, infinities) check_bounds speaks */
    if (p->kind == NG_PARAM_INT && isfinite(v) && v != trunc(v))
        return ng_errorf(err, "%s: option '%s' must be an integer, got %s", node_name(n), p->name, ng_number(v).s);
    if (check_bounds(n, p, v, err)) return -1;
    undrive(n, k);
    n->param[k].v[0] = v;
    n->param[k].i = p->kind == NG_PARAM_INT ? (int)v : 0;
    n->set |= 1ull << k;
    return 0;
}

int ng_set_vec3(ng_node *n, int k, const double v[3], ng_error *err)
{
    int d;
    if (check_kind(n, k, NG_PARAM_VEC3, err)) return -1;
    for (d = 0; d < 3; d++)
        if (check_bounds(n, &n->type->params[k], v[d], err)) return -1;
    undrive(n, k);
    memcpy(n->param[k].v, v, 3 * sizeof(double));
    n->set |= 1ull << k;
    return 0;
}

int ng_set_choice(ng_node *n, int k, const char *choice, ng_error *err)
{
    const ng_param_desc *p;
    int idx, c, len = 0;
    char list[256];
    if (check_kind(n, k, NG_PARAM_ENUM, err)) return -1;
    p = &n->type->params[k];
    idx = ng_enum_index(p, choice);
    if (idx >= 0) {
        n->param[k].i = idx;
        n->set |= 1ull << k;
        return 0;
    }
    list[0] = 0;
    for (c = 0; p->choices[c] && len < (int)sizeof list - 40; c++)
        len += snprintf(list + len, sizeof list - (size_t)len, "%s\"%s\"", c ? ", " : "", p->choices[c]);
    return ng_errorf(err, "%s: option '%s' = \"%s\" is not one of %s", node_name(n), p->name, choice, list);
}

int ng_set_bool(ng_node *n, int k, int v, ng_error *err)
{
    if (check_kind(n, k, NG_PARAM_BOOL, err)) return -1;
    n->param[k].i = v != 0;
    n->set |= 1ull << k;
    return 0;
}

int ng_set_string(ng_node *n, int k, const char *s, ng_error *err)
{
    char *d;
    if (check_kind(n, k, NG_PARAM_STRING, err)) return -1;
    if (ng_node_charge(n, strlen(s) + 1, err)) return -1;
    if (!(d = dupstr(s))) return ng_errorf(err, "%s: out of memory", node_name(n));
    free(n->param[k].s);
    n->param[k].s = d;
    n->set |= 1ull << k;
    return 0;
}

int ng_set_list(ng_node *n, int k, const double *v, int count, ng_error *err)
{
    const ng_param_desc *p;
    int arity, i;
    double *copy;
    if (check_kind(n, k, NG_PARAM_LIST, err)) return -1;
    p = &n->type->params[k];
    arity = (int)p->def[0];
    if (count % arity || count / arity < (int)p->def[1] || count / arity > (int)p->def[2])
        return ng_errorf(err, "%s: option '%s' needs %d to %d %s, got %d number%s", node_name(n), p->name,
                         (int)p->def[1], (int)p->def[2], arity == 2 ? "{x, y} pairs" : "numbers", count,
                         count == 1 ? "" : "s");
    for (i = 0; i < count; i++)
        if (check_bounds(n, p, v[i], err)) return -1;
    if (ng_node_charge(n, (size_t)(count ? count : 1) * sizeof *copy, err)) return -1;
    if (!(copy = malloc((size_t)(count ? count : 1) * sizeof *copy))) return ng_errorf(err, "%s: out of memory", node_name(n));
    memcpy(copy, v, (size_t)count * sizeof *copy);
    free(n->param[k].list);
    n->param[k].list = copy;
    n->param[k].count = count;
    n->set |= 1ull << k;
    return 0;
}

int ng_set_range(ng_node *n, int k, int mode, double lo, double hi, ng_error *err)
{
    if (check_kind(n, k, NG_PARAM_RANGE, err)) return -1;
    if (mode < NG_RANGE_NATURAL || mode > NG_RANGE_CUSTOM)
        return ng_errorf(err, "%s: option '%s' has an unknown mode", node_name(n), n->type->params[k].name);
    if (mode == NG_RANGE_CUSTOM && !(isfinite(lo) && isfinite(hi)))
        return ng_errorf(err, "%s: option '%s' needs two finite numbers {lo, hi}", node_name(n),
                         n->type->params[k].name);
    n->param[k].i = mode;
    n->param[k].v[0] = mode == NG_RANGE_CUSTOM ? lo : 0;
    n->param[k].v[1] = mode == NG_RANGE_CUSTOM ? hi : 0;
    n->set |= 1ull << k;
    return 0;
}

int ng_set_input(ng_graph *g, ng_node *n, int k, int source, ng_error *err)
{
    if (k < 0 || k >= n->type->ninputs)
        return ng_errorf(err, "%s: no input #%d", node_name(n), k);
    if (source < 0 || source >= g->n)
        return ng_errorf(err, "%s: input '%s' refers to node %d, which does not exist", node_name(n),
                         n->type->inputs[k].name, source);
    n->input[k] = source;
    return 0;
}

int ng_set_param_node(ng_graph *g, ng_node *n, int k, int source, ng_error *err)
{
    const ng_param_desc *p;
    const ng_node *src;
    double v;
    int s, most;
    if (k < 0 || k >= n->type->nparams) return ng_errorf(err, "%s: no parameter #%d", node_name(n), k);
    p = &n->type->params[k];
    if (!ng_param_takes_node(n->type, k))
        return ng_errorf(err, "%s: option '%s' must be %s, not a node", node_name(n), p->name,
                         ng_param_kind_must_be(p->kind));
    if (source < 0 || source >= g->n)
        return ng_errorf(err, "%s: option '%s' refers to node %d, which does not exist", node_name(n), p->name,
                         source);
    src = g->nodes[source];
    if (ng_node_is_constant(src, &v)) { /* folded: the constant case stays a parameter */
        double vec[3] = {v, v, v};
        undrive(n, k);
        return p->kind == NG_PARAM_VEC3 ? ng_set_vec3(n, k, vec, err) : ng_set_number(n, k, v, err);
    }
    most = p->kind == NG_PARAM_VEC3 ? 3 : 1;
    if (src->channels > most)
        return ng_errorf(err, "%s: option '%s' takes %s, but %s gives %d channels", node_name(n), p->name,
                         most == 1 ? "a 1-channel node" : "a node of 1 to 3 channels", node_name(src), src->channels);
    if ((s = ng_driver_slot(n, k)) < 0) {
        if (n->ndrivers == NG_MAX_DRIVERS || n->type->ninputs + n->ndrivers >= NG_MAX_INPUTS + NG_MAX_DRIVERS)
            return ng_errorf(err, "%s: more than %d options are driven by nodes", node_name(n), NG_MAX_DRIVERS);
        s = n->type->ninputs + n->ndrivers;
        n->driven[n->ndrivers++] = (signed char)k;
    }
    n->input[s] = source;
    n->set |= 1ull << k;
    return 0;
}

static int dims_text(unsigned dims, char *buf, size_t len)
{
    int d, used = 0;
    buf[0] = 0;
    for (d = 1; d <= 4; d++)
        if (dims & (1u << d))
            used += snprintf(buf + used, len - (size_t)used, "%s%dD", used ? ", " : "", d);
    return used;
}

int ng_node_finish(ng_graph *g, ng_node *n, ng_error *err)
{
    const ng_node_type *t = n->type;
    int chans[NG_MAX_INPUTS] = {0};
    int k;
    n->dims = t->dims;
    n->detail = HUGE_VAL;
    for (k = 0; k < t->ninputs; k++) {
        const ng_input_desc *in = &t->inputs[k];
        const ng_node *src;
        if (n->input[k] < 0 && (in->flags & NG_INPUT_OPTIONAL)) continue;
        if (n->input[k] < 0 && (in->flags & NG_INPUT_HYBRID)) {
            int c = ng_constant(g, in->def, err);
            if (c < 0) goto fail;
            n->input[k] = c;
        }
        if (n->input[k] < 0) {
            ng_errorf(err, "%s: missing input '%s'", node_name(n), in->name);
            goto fail;
        }
        src = g->nodes[n->input[k]];
        chans[k] = src->channels;
        if (src->channels < in->min_channels || src->channels > in->max_channels) {
            if (in->min_channels == in->max_channels)
                ng_errorf(err, "%s: input '%s' needs %d channel%s, but %s gives %d%s", node_name(n),
                          in->name, in->min_channels, in->min_channels == 1 ? "" : "s", node_name(src),
                          src->channels,
                          in->min_channels == 1 ? " (take one with ng.channel or set output = \"float\")" : "");
            else
                ng_errorf(err, "%s: input '%s' needs %d to %d channels, but %s gives %d%s", node_name(n),
                          in->name, in->min_channels, in->max_channels, node_name(src), src->channels,
                          src->channels == 1 ? " (use a noise with output = \"vector\")" : "");
            goto fail;
        }
        if ((in->flags & NG_INPUT_VALUES) && src->positions) {
            ng_errorf(err, "%s: input '%s' is %s, whose channels are world positions, not values to sum (take the "
                           "value at each feature with a warp by position - coordinates)",
                      node_name(n), in->name, node_name(src));
            goto fail;
        }
        n->dims &= src->dims;
        if (src->detail < n->detail) n->detail = src->detail;
        if (src->pull_depth + ((in->flags & NG_INPUT_PULL) ? 1 : 0) > n->pull_depth)
            n->pull_depth = src->pull_depth + ((in->flags & NG_INPUT_PULL) ? 1 : 0);
    }
    for (k = t->ninputs; k < ng_node_slots(n); k++) {
        const ng_node *src = g->nodes[n->input[k]];
        n->dims &= src->dims;
        if (src->pull_depth > n->pull_depth) n->pull_depth = src->pull_depth;
    }
    if (n->pull_depth > NG_MAX_PULL_DEPTH) {
        ng_errorf(err, "%s: warps and fractals nest %d deep here; the limit is %d", node_name(n),
                  n->pull_depth, NG_MAX_PULL_DEPTH);
        goto fail;
    }
    if (!n->dims) {
        char a[64];
        dims_text(t->dims, a, sizeof a);
        ng_errorf(err, "%s: its inputs share no dimension with it (it evaluates in %s)", node_name(n), a);
        goto fail;
    }
    if (t->setup && t->setup(n, chans, err)) goto fail;
    if (ng_hood_active(n) && !g->hood && !(g->hood = ng__hood_cache_new(0, NULL, 1))) {
        ng_errorf(err, "%s: out of memory", node_name(n));
        goto fail;
    }
    if (g->n == g->cap) {
        int cap = g->cap ? g->cap * 2 : 256;
        size_t grow = (size_t)(cap - g->cap) * sizeof(ng_node *);
        ng_node **nodes;
        if (ng_budget_take(g->budget, grow)) {
            over_budget(n, grow, err);
            goto fail;
        }
        if (!(nodes = realloc(g->nodes, (size_t)cap * sizeof *nodes))) {
            ng_budget_give(g->budget, grow);
            ng_errorf(err, "%s: out of memory", node_name(n));
            goto fail;
        }
        if (g->budget) g->charged += grow;
        g->nodes = nodes;
        g->cap = cap;
    }
    for (k = 0; k < ng_node_slots(n); k++)
        if (n->input[k] >= 0) g->nodes[n->input[k]]->refcount++;
    n->id = g->n;
    g->nodes[g->n++] = n;
    return n->id;
fail:
    node_free(n);
    return -1;
}

/* Inputs always have lower ids, so one descending sweep marks everything
 * reachable. */
unsigned char *ng__reachable(const ng_graph *g, const int *roots, int nroots)
{
    unsigned char *mark = calloc((size_t)g->n + 1, 1);
    int i, k;
    if (!mark) return NULL;
    for (i = 0; i < nroots; i++) mark[roots[i]] = 1;
    for (i = g->n - 1; i >= 0; i--) {
        if (!mark[i]) continue;
        for (k = 0; k < ng_node_slots(g->nodes[i]); k++)
            if (g->nodes[i]->input[k] >= 0) mark[g->nodes[i]->input[k]] = 1;
    }
    return mark;
}

/* The first node reachable from the roots that cannot evaluate in `dims`
 * dimensions, or NULL. */
static const ng_node *find_dims_conflict(const ng_graph *g, const int *roots, int nroots, int dims)
{
    unsigned char *mark = ng__reachable(g, roots, nroots);
    const ng_node *bad = NULL;
    int i;
    if (!mark) return NULL;
    for (i = g->n - 1; i >= 0; i--) /* the lowest id wins: the culprit, not its consumers */
        if (mark[i] && !(g->nodes[i]->dims & (1u << dims))) bad = g->nodes[i];
    free(mark);
    return bad;
}

int ng__check_roots(const ng_graph *g, const int *roots, int nroots, int dims, ng_error *err)
{
    const ng_node *bad;
    int i;
    if (dims < 1 || dims > 4) return ng_errorf(err, "render: %d dimensions asked; 1 to 4 exist", dims);
    for (i = 0; i < nroots; i++)
        if (roots[i] < 0 || roots[i] >= g->n)
            return ng_errorf(err, "render: output %d refers to node %d, which does not exist", i, roots[i]);
    if ((bad = find_dims_conflict(g, roots, nroots, dims))) {
        char a[64];
        dims_text(bad->dims, a, sizeof a);
        if (bad->type->hood)
            return ng_errorf(err, "%s%s%s: a neighbourhood node reads a 2D lattice; a %dD render (%s) is not supported "
                                  "yet: render an image (2D)",
                             bad->where ? bad->where : "", bad->where ? ": " : "", node_name(bad), dims,
                             dims == 3 ? "a volume, or --z" : dims == 4 ? "--time or --frames" : "1D");
        return ng_errorf(err, "%s%s%s: evaluates in %s, but the render is %dD", bad->where ? bad->where : "",
                         bad->where ? ": " : "", node_name(bad), a, dims);
    }
    return 0;
}
