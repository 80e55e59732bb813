/* gradcheck.c — the gradient helpers of gradcheck.h. */
#include "gradcheck.h"
#include "harness.h"
#include "ng_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int t_puller_open(t_puller *P, const ng_graph *g, int root)
{
    ng_error err;
    memset(P, 0, sizeof *P);
    P->g = g;
    P->root = root;
    P->uses = ng__uses(g, &root, 1);
    P->c = P->uses ? ng__ctx_new(g, P->uses, T_GRAD_NPTS, &err) : NULL;
    P->consumer.input[0] = root;
    return P->c ? 0 : -1;
}

void t_puller_close(t_puller *P)
{
    ng__ctx_free(P->c);
    free(P->uses);
}

/* The block: anchor plus offsets in [0, 150) world units (a fixed stream). */
void t_puller_block(t_puller *P, ng_block *b, int dims, const double *anchor, unsigned seed)
{
    int d, i;
    memset(b, 0, sizeof *b);
    b->n = T_GRAD_NPTS;
    b->dims = dims;
    b->channels = 1;
    for (d = 0; d < 4; d++) b->p[d] = ng__ctx_zeros(P->c);
    for (d = 0; d < dims; d++) {
        b->anchor[d] = anchor[d];
        for (i = 0; i < T_GRAD_NPTS; i++) {
            seed = seed * 1664525u + 1013904223u;
            P->pos[d][i] = (float)((seed >> 8) * (150.0 / 16777216.0));
        }
        b->p[d] = P->pos[d];
    }
}

/* value and gradient at b: h = 0 analytic where possible, h > 0 central
 * differences of that step */
int t_pull(t_puller *P, ng_block *b, float *out, float *grad, double h)
{
    b->pos_id = ng__ctx_tile(P->c);
    return ng_pull_grad(P->c, &P->consumer, 0, b, out, grad, h);
}

int t_pull_eval(t_puller *P, ng_block *b, float *out)
{
    b->pos_id = ng__ctx_tile(P->c);
    return ng__eval(P->c, P->root, b, out, 0);
}

const double t_grad_anchors[3][3] = {{0, 0, 0}, {-3071.25, 977.5, 40}, {123456.7, -98765.4, 31415.9}};

/* Gradients of `root` at 3 blocks (near and far from the origin), analytic
 * and by central differences of a thousandth of its finest detail (a
 * hundredth crosses kinks too often, a ten-thousandth meets float
 * rounding), every channel. */
void t_grad_compare(const ng_graph *g, int root, int dims, t_grad_err *e)
{
    const ng_node *n = ng_graph_node(g, root);
    const int ch = ng_node_channels(n);
    const double h = (n->detail < 1e30 ? n->detail : 10.0) * 1e-3;
    static float out[NG_MAX_CHANNELS * T_GRAD_NPTS], ref[NG_MAX_CHANNELS * T_GRAD_NPTS];
    static float val[NG_MAX_CHANNELS * T_GRAD_NPTS];
    static float ga[NG_MAX_PLANES * T_GRAD_NPTS], gd[NG_MAX_PLANES * T_GRAD_NPTS];
    t_puller P;
    int a, i;
    memset(e, 0, sizeof *e);
    if (t_puller_open(&P, g, root)) {
        CHECKF(0, "no context");
        return;
    }
    for (a = 0; a < 3; a++) {
        ng_block b;
        t_puller_block(&P, &b, dims, t_grad_anchors[a], 77u + (unsigned)a);
        if (t_pull(&P, &b, out, ga, 0) || t_pull(&P, &b, ref, gd, h) || t_pull_eval(&P, &b, val)) {
            CHECKF(0, "evaluation failed: %s", ng__ctx_error(P.c)->msg);
            break;
        }
        if (memcmp(out, val, (size_t)ch * T_GRAD_NPTS * sizeof(float))) e->value_mismatch++;
        for (i = 0; i < ch * dims * T_GRAD_NPTS; i++) e->scale2 += (double)ga[i] * ga[i], e->n++;
        for (i = 0; i < ch * dims * T_GRAD_NPTS; i++) {
            const double d = fabs((double)ga[i] - gd[i]);
            if (d > e->worst) e->worst = d;
        }
    }
    for (a = 0; a < 3; a++) { /* second pass, now that the scale is known */
        ng_block b;
        const double scale = sqrt(e->scale2 / (e->n > 0 ? e->n : 1));
        t_puller_block(&P, &b, dims, t_grad_anchors[a], 77u + (unsigned)a);
        if (t_pull(&P, &b, out, ga, 0) || t_pull(&P, &b, ref, gd, h)) break;
        for (i = 0; i < ch * dims * T_GRAD_NPTS; i++, e->count++)
            if (fabs((double)ga[i] - gd[i]) > 0.03 * scale) e->big++;
    }
    t_puller_close(&P);
}

