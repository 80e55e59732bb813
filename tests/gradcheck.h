/*
 * gradcheck.h — a root's value and gradient pulled at a block of points as
 * a consumer would (ng_pull_grad), and its analytic gradient measured
 * against central differences: for the gradients and property suites.
 */
#ifndef NG_TEST_GRADCHECK_H
#define NG_TEST_GRADCHECK_H

#include "ng_node.h"

enum { T_GRAD_NPTS = 64 };

/* A stand-in consumer whose input 0 is the root, with its context. */
typedef struct t_puller {
    const ng_graph *g;
    int root;
    int *uses;
    ng_ctx *c;
    ng_node consumer; /* a stand-in whose input 0 is the root */
    float pos[4][T_GRAD_NPTS];
} t_puller;

/* What t_grad_compare measured. */
typedef struct t_grad_err {
    double scale2, n;    /* mean square of the analytic gradient */
    double worst;        /* largest |analytic - differences| */
    long big, count;     /* components off by more than 3 % of the scale */
    long value_mismatch; /* value bits unlike eval's */
} t_grad_err;

int t_puller_open(t_puller *P, const ng_graph *g, int root);
void t_puller_close(t_puller *P);
/* The block: anchor plus offsets in [0, 150) world units (a fixed stream
 * from seed). */
void t_puller_block(t_puller *P, ng_block *b, int dims, const double *anchor, unsigned seed);
/* Value and gradient at b: h = 0 analytic where possible, h > 0 central
 * differences of that step. */
int t_pull(t_puller *P, ng_block *b, float *out, float *grad, double h);
/* The value as eval computes it. */
int t_pull_eval(t_puller *P, ng_block *b, float *out);

/* Near the origin, off it, and far from it. */
extern const double t_grad_anchors[3][3];
/* Gradients of root at a block near each anchor, analytic and by central
 * differences of a thousandth of its finest detail, every channel. */
void t_grad_compare(const ng_graph *g, int root, int dims, t_grad_err *e);

#endif
