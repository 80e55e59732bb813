/*
 * constant.c — the constant node. It lives in core because core makes it:
 * an unconnected hybrid input becomes one, and so does every number a
 * client passes where a node is expected (ng_constant).
 */
#include "ng_node.h"

#include <string.h>

enum { P_VALUE, NPARAMS };

static const ng_param_desc constant_params[NPARAMS] = {
    [P_VALUE] = {"value", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "the value everywhere"},
};

static int constant_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const float v = (float)ng_num(n, P_VALUE);
    int i;
    (void)ctx;
    (void)in;
    for (i = 0; i < b->n; i++) out[i] = v;
    return 0;
}

/* Flat: a zero gradient. */
static int constant_chain(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,
                          const float *const *din, const float *out, float *grad)
{
    (void)ctx, (void)n, (void)in, (void)din, (void)out;
    memset(grad, 0, (size_t)b->dims * (size_t)b->n * sizeof *grad);
    return 0;
}

const ng_node_type ng_type_constant = {
    .name = "constant", .family = "math", .doc = "A number, the same at every point. Numbers in scripts become constants.",
    .params = constant_params, .nparams = NPARAMS, .dims = NG_DIMS_ALL, .positional = "value",
    .chain = constant_chain,
    .eval = constant_eval,
};

int ng_constant(ng_graph *g, double v, ng_error *err)
{
    ng_node *n = ng_node_begin(g, &ng_type_constant, NULL, NULL, err);
    if (!n) return -1;
    if (ng_set_number(n, P_VALUE, v, err)) {
        ng_node_discard(n);
        return -1;
    }
    return ng_node_finish(g, n, err);
}

int ng_node_is_constant(const ng_node *n, double *value)
{
    if (n->type != &ng_type_constant) return 0;
    if (value) *value = ng_num(n, P_VALUE);
    return 1;
}
