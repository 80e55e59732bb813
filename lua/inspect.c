/*
 * inspect.c — showing the graph a script built: `noisegraph info` (nodes,
 * their options with non-default values marked, edges, outputs, script
 * parameters) and `noisegraph dot` (Graphviz). Constants feeding a node are
 * folded into it as "input = value", the way a user wrote them. The live
 * page may also fold whole branches into the node they feed, so an
 * 80-node graph can be read a part at a time (ng_print_dot_folded).
 */
#include "inspect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_constant(const ng_graph *g, int id)
{
    return id >= 0 && ng_node_is_constant(ng_graph_node(g, id), NULL);
}

static double constant_value(const ng_graph *g, int id)
{
    double v = 0;
    ng_node_is_constant(ng_graph_node(g, id), &v);
    return v;
}

/* Constants used only as inputs are shown inside their consumers. */
static int folded(const ng_script *s, int id)
{
    int i;
    if (!is_constant(s->graph, id)) return 0;
    for (i = 0; i < s->noutputs; i++)
        if (s->output[i] == id) return 0;
    return 1;
}

int ng_inspect_shown(const ng_script *s, int id) { return !folded(s, id); }

/* ---- branches folded into the node they feed ---------------------------------- */

static int is_output(const ng_script *s, int id)
{
    int i;
    for (i = 0; i < s->noutputs; i++)
        if (s->output[i] == id) return 1;
    return 0;
}

/* Calls fn(user, src) for each node feeding node id (inputs, driven options). */
static void each_source(const ng_graph *g, int id, void (*fn)(void *user, int src), void *user)
{
    const ng_node *n = ng_graph_node(g, id);
    const ng_node_type *t = ng_node_type_of(n);
    int k;
    for (k = 0; k < t->ninputs; k++)
        if (ng_node_input(n, k) >= 0) fn(user, ng_node_input(n, k));
    for (k = 0; k < t->nparams; k++)
        if (ng_node_param_source(n, k) >= 0) fn(user, ng_node_param_source(n, k));
}

typedef struct hiding {
    unsigned char *open; /* 1: a consumer that is drawn with its inputs */
} hiding;

static void keep_source(void *user, int src) { ((hiding *)user)->open[src] = 1; }

/* hidden[id] = 1 for the nodes that feed only folded nodes or other hidden
 * ones: the branches each folded node stands for. A node that also feeds
 * a node drawn with its inputs, or an output, stays. Consumers come after
 * their inputs, so one pass from the last node down decides each. NULL
 * (out of memory) hides nothing. */
static unsigned char *hidden_nodes(const ng_script *s, const unsigned char *fold)
{
    const int n = ng_graph_count(s->graph);
    unsigned char *hidden = calloc((size_t)n + 1, 1), *fed = calloc((size_t)n + 1, 1);
    hiding h = {calloc((size_t)n + 1, 1)};
    int i;
    if (!hidden || !fed || !h.open) {
        free(hidden), free(fed), free(h.open);
        return NULL;
    }
    for (i = n - 1; i >= 0; i--) {
        hidden[i] = fed[i] && !h.open[i] && !is_output(s, i);
        if (hidden[i] || (fold && fold[i])) {
            hiding into = {fed};
            each_source(s->graph, i, keep_source, &into); /* its sources feed a folded branch */
        } else {
            each_source(s->graph, i, keep_source, &h);
        }
    }
    free(fed), free(h.open);
    return hidden;
}

typedef struct counting {
    const unsigned char *hidden;
    unsigned char *seen;
    const ng_script *s;
    int count;
} counting;

static void count_hidden(void *user, int src)
{
    counting *c = user;
    if (!c->hidden[src] || c->seen[src]) return;
    c->seen[src] = 1;
    c->count += !folded(c->s, src); /* constants are never drawn: not counted */
    each_source(c->s->graph, src, count_hidden, c);
}

/* How many hidden nodes folded node id stands for (boxes it replaces). */
static int folded_count(const ng_script *s, const unsigned char *hidden, int id)
{
    counting c = {hidden, calloc((size_t)ng_graph_count(s->graph) + 1, 1), s, 0};
    if (c.seen) each_source(s->graph, id, count_hidden, &c);
    free(c.seen);
    return c.count;
}

/* Whether dot draws node id as a box: neither a constant shown in its
 * consumers nor in a folded branch (hidden may be NULL: none). */
static int drawn(const ng_script *s, const unsigned char *hidden, int id)
{
    return !folded(s, id) && !(hidden && hidden[id]);
}

int ng_inspect_drawn(const ng_script *s, const unsigned char *fold)
{
    unsigned char *hidden = fold ? hidden_nodes(s, fold) : NULL;
    int i, n = s->noutputs;
    for (i = 0; i < ng_graph_count(s->graph); i++) n += drawn(s, hidden, i);
    free(hidden);
    return n;
}

/* ---- cost estimate ---------------------------------------------------------- */

/* Evaluations per pixel of a node and of everything below it: nodes run,
 * and noise kernels among them. An upper bound from the descriptors alone:
 * a node with an "octaves" option runs its pull inputs (or, without any,
 * its own kernel) once per octave; other pull inputs run once; nothing is
 * assumed shared, and octaves finer than a pixel, which fractals skip,
 * are counted. Nesting multiplies, which is what the estimate is for. */
typedef struct cost {
    double nodes, kernels;
} cost;

static double octaves_of(const ng_node *n)
{
    const ng_node_type *t = ng_node_type_of(n);
    int k = ng_param_index(t, "octaves");
    /* an octaves option that does not apply (a noise without its fractal) counts one */
    if (k < 0 || (t->applies && !t->applies(n, k))) return 1;
    return ceil(ng_node_param(n, k)->v[0]);
}

static cost node_cost(const ng_node *n, const cost *below)
{
    const ng_node_type *t = ng_node_type_of(n);
    double oct = octaves_of(n);
    cost c = {1, 0};
    int k, pulls = 0;
    for (k = 0; k < t->ninputs; k++) {
        int src = ng_node_input(n, k);
        double times = 1;
        if (src < 0) continue;
        if (t->inputs[k].flags & NG_INPUT_PULL) {
            times = oct;
            pulls = 1;
        }
        c.nodes += times * below[src].nodes;
        c.kernels += times * below[src].kernels;
    }
    for (k = 0; k < t->nparams; k++) { /* options driven by nodes: once per evaluation */
        int src = ng_node_param_source(n, k);
        if (src < 0) continue;
        c.nodes += below[src].nodes;
        c.kernels += below[src].kernels;
    }
    if (!strcmp(t->family, "noise") || (!pulls && oct > 1)) c.kernels += oct;
    return c;
}

static void print_cost(const ng_script *s, FILE *f)
{
    const ng_graph *g = s->graph;
    int n = ng_graph_count(g), i;
    cost *c = malloc(((size_t)n + 1) * sizeof *c);
    if (!c) return;
    /* inputs always come before their consumers */
    for (i = 0; i < n; i++) c[i] = node_cost(ng_graph_node(g, i), c);
    for (i = 0; i < s->noutputs; i++)
        fprintf(f, "cost %s: at most %.3g noise kernel and %.3g node evaluations per pixel\n",
                s->output_name[i] ? s->output_name[i] : "(single)", c[s->output[i]].kernels, c[s->output[i]].nodes);
    free(c);
}

void ng_print_info(const ng_script *s, const char *script, FILE *f)
{
    const ng_graph *g = s->graph;
    int i, k;
    fprintf(f, "script %s\n", script);
    for (i = 0; i < s->nparams; i++)
        fprintf(f, "param %s = %s%s%s\n", s->params[i].name, s->params[i].value, s->params[i].doc ? "  -- " : "",
                s->params[i].doc ? s->params[i].doc : "");
    for (i = 0; i < s->noutputs; i++)
        fprintf(f, "output %s = #%d (%d channel%s)\n", s->output_name[i] ? s->output_name[i] : "(single)",
                s->output[i], ng_node_channels(ng_graph_node(g, s->output[i])),
                ng_node_channels(ng_graph_node(g, s->output[i])) == 1 ? "" : "s");
    print_cost(s, f);
    fprintf(f, "nodes (* marks options that differ from their defaults)\n");
    for (i = 0; i < ng_graph_count(g); i++) {
        const ng_node *n = ng_graph_node(g, i);
        const ng_node_type *t = ng_node_type_of(n);
        if (folded(s, i)) continue;
        fprintf(f, "#%d %s", i, ng_node_label(n));
        if (strcmp(ng_node_label(n), t->name) != 0) fprintf(f, " (%s)", t->name);
        if (ng_node_where(n)) fprintf(f, " at %s", ng_node_where(n));
        fputc('\n', f);
        for (k = 0; k < t->ninputs; k++) {
            int src = ng_node_input(n, k);
            if (src < 0) continue;
            if (folded(s, src)) fprintf(f, "    %s = %g\n", t->inputs[k].name, constant_value(g, src));
            else fprintf(f, "    %s <- #%d %s\n", t->inputs[k].name, src, ng_node_label(ng_graph_node(g, src)));
        }
        for (k = 0; k < t->nparams; k++) {
            char buf[256];
            if (t->applies && !t->applies(n, k)) continue; /* worley's jitter on a perlin noise */
            ng_param_format(n, k, buf, sizeof buf);
            fprintf(f, "  %c %s = %s\n", ng_param_is_default(n, k) ? ' ' : '*', t->params[k].name, buf);
        }
    }
}

/* Graphviz wants labels with " and \ escaped. */
static void dot_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
}

void ng_print_dot(const ng_script *s, const char *script, FILE *f) { ng_print_dot_folded(s, script, NULL, f); }

void ng_print_dot_folded(const ng_script *s, const char *script, const unsigned char *fold, FILE *f)
{
    const ng_graph *g = s->graph;
    unsigned char *hidden = fold ? hidden_nodes(s, fold) : NULL;
    int i, k;
    fprintf(f, "digraph noisegraph {\n  label=\"");
    dot_text(f, script);
    fprintf(f, "\";\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
    for (i = 0; i < ng_graph_count(g); i++) {
        const ng_node *n = ng_graph_node(g, i);
        const ng_node_type *t = ng_node_type_of(n);
        int branch = 0;
        if (!drawn(s, hidden, i)) continue;
        fprintf(f, "  n%d [label=\"", i);
        dot_text(f, ng_node_label(n));
        if (strcmp(ng_node_label(n), t->name) != 0) {
            fprintf(f, " (");
            dot_text(f, t->name);
            fprintf(f, ")");
        }
        for (k = 0; k < t->ninputs; k++)
            if (folded(s, ng_node_input(n, k)))
                fprintf(f, "\\n%s = %g", t->inputs[k].name, constant_value(g, ng_node_input(n, k)));
        for (k = 0; k < t->nparams; k++) {
            char buf[256];
            if (ng_param_is_default(n, k) || !strcmp(t->params[k].name, "type")) continue;
            if (t->applies && !t->applies(n, k)) continue; /* --classic's gradients on a value noise, as info */
            ng_param_format(n, k, buf, sizeof buf);
            fprintf(f, "\\n%s = ", t->params[k].name);
            dot_text(f, buf);
        }
        if (hidden && fold[i] && (branch = folded_count(s, hidden, i)) > 0)
            fprintf(f, "\\n[+%d node%s folded]", branch, branch == 1 ? "" : "s");
        fprintf(f, "\"%s%s];\n", ng_node_channels(n) > 1 ? ", style=bold" : "", branch ? ", peripheries=2" : "");
    }
    for (i = 0; i < ng_graph_count(g); i++) {
        const ng_node *n = ng_graph_node(g, i);
        const ng_node_type *t = ng_node_type_of(n);
        if (!drawn(s, hidden, i)) continue;
        for (k = 0; k < t->ninputs; k++) {
            int src = ng_node_input(n, k);
            if (src < 0 || !drawn(s, hidden, src)) continue;
            fprintf(f, "  n%d -> n%d [label=\"%s\"%s];\n", src, i, t->inputs[k].name,
                    (t->inputs[k].flags & NG_INPUT_PULL) ? ", style=dashed" : "");
        }
    }
    for (i = 0; i < s->noutputs; i++) {
        fprintf(f, "  out%d [shape=doubleoctagon, label=\"", i);
        dot_text(f, s->output_name[i] ? s->output_name[i] : "output");
        fprintf(f, "\"];\n  n%d -> out%d;\n", s->output[i], i);
    }
    fprintf(f, "}\n");
    free(hidden);
}
