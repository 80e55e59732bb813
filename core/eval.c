/*
 * eval.c — evaluating a node on a block of points.
 *
 * Within one set of positions the evaluator walks the graph with an explicit
 * stack (post-order), so a chain of any length never deepens the C stack:
 * only nodes that pull inputs at new positions (warps, fractals) recurse,
 * and their nesting is bounded at construction (NG_MAX_PULL_DEPTH).
 *
 * Results of nodes read by more than one consumer are memoised per tile,
 * keyed by (node, positions, seed), and freed when the last consumer has
 * read them; other results live only until their one consumer has run.
 * Buffers come from per-thread free lists sized to the tile: after the
 * first tile no allocation happens.
 */
#include "ng_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct memo_ent {
    int node;
    uint32_t pos_id, seed, gen;
    float *buf;
    int uses; /* reads left before the buffer is freed */
} memo_ent;

typedef struct frame {
    int node;
    int expanded;
} frame;

/* A constant input read as a block: filled once per context (its cap of
 * points), shared by every constant node of that float value. */
typedef struct konst {
    uint32_t bits;
    float *buf;
} konst;
#define NG_KONSTS 16 /* values past these are evaluated per block, as any node */
#define NG_FLAT_PLANES 4 /* a gradient in up to 4 dims */
#define NG_KEPT_BYTES ((size_t)1 << 20) /* per context: constant blocks and flat planes */

typedef struct pool {
    float **free;
    int n, cap;
} pool;

struct ng_ctx {
    const ng_graph *g;
    const int *uses;
    const int *kept_by; /* uses' second table (ng__uses): the lattice keeping each node, + 1 */
    int filling;        /* patches this context is computing: no kept reads inside them */
    int cap;            /* points per block, rounded up for alignment */
    pool pools[NG_MAX_PLANES + 1]; /* by planes: channels, or channels x dims of a gradient */
    memo_ent *memo;
    uint32_t memo_mask; /* table size - 1 (power of two) */
    int memo_live;      /* entries of this generation */
    uint32_t gen;
    float **slot;       /* result of each unshared node, while it waits for its consumer */
    frame *stack;
    int sp, stack_cap;
    uint32_t next_pos_id;
    float *zeros;
    float *flat; /* NG_FLAT_PLANES planes of zeros, a constant's gradient; made when first read */
    konst konsts[NG_KONSTS]; /* filled blocks of constant inputs, by value */
    int nkonsts;
    size_t kept; /* bytes of konsts and flat (NG_KEPT_BYTES) */
    int grad_depth; /* nesting of analytic gradients (NG_GRAD_DEPTH) */
    int failed;
    const ng__stop *stop; /* NULL: runs to the end */
    ng__hood_cache *hood; /* neighbourhood patches: the render's, or own_hood */
    int own_hood;         /* hood was made by this context, which frees it */
    ng_error err;
};

int ng_fail(ng_ctx *c, const char *fmt, ...)
{
    va_list ap;
    if (c->failed) return -1;
    c->failed = 1;
    va_start(ap, fmt);
    vsnprintf(c->err.msg, sizeof c->err.msg, fmt, ap);
    va_end(ap);
    return -1;
}

const ng_error *ng__ctx_error(const ng_ctx *c) { return &c->err; }
const float *ng__ctx_zeros(const ng_ctx *c) { return c->zeros; }

/* ---- scratch buffers ---------------------------------------------------- */

/* bytes more against the render's memory limit (stop.memory_limit): 0 and
 * nothing charged where they would pass it. */
static int charge(ng_ctx *c, size_t bytes)
{
    if (!c->stop || !c->stop->memory_limit) return 1;
    if (atomic_fetch_add(c->stop->memory_used, bytes) + bytes <= c->stop->memory_limit) return 1;
    atomic_fetch_sub(c->stop->memory_used, bytes);
    return 0;
}

static void uncharge(ng_ctx *c, size_t bytes)
{
    if (c->stop && c->stop->memory_limit) atomic_fetch_sub(c->stop->memory_used, bytes);
}

float *ng_scratch(ng_ctx *c, int channels)
{
    pool *p = &c->pools[channels];
    const size_t bytes = (size_t)channels * (size_t)c->cap * sizeof(float);
    float *b;
    if (p->n) return p->free[--p->n];
    if (!charge(c, bytes)) {
        ng_fail(c, "render: the graph's intermediate results need more than the %.0f MiB its memory limit leaves them "
                   "(raise --memory-limit, or use fewer --threads or a smaller --tile, --brick for a volume)",
                c->stop->memory_limit / 1048576.0);
        return NULL;
    }
    b = aligned_alloc(64, bytes);
    if (!b) {
        uncharge(c, bytes);
        ng_fail(c, "out of memory for scratch buffers");
    }
    return b;
}

void ng_scratch_free(ng_ctx *c, float *buf, int channels)
{
    pool *p = &c->pools[channels];
    if (!buf) return;
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 16;
        float **f = realloc(p->free, (size_t)cap * sizeof *f);
        if (!f) { /* cannot keep it: give it back to the system instead */
            free(buf);
            return;
        }
        p->free = f;
        p->cap = cap;
    }
    p->free[p->n++] = buf;
}

uint32_t ng_new_pos_id(ng_ctx *c) { return ++c->next_pos_id; }

/* ---- memo ----------------------------------------------------------------- */

static uint32_t memo_hash(int node, uint32_t pos, uint32_t seed)
{
    uint32_t h = (uint32_t)node * 0x9E3779B1u ^ pos * 0x85EBCA77u ^ seed * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static memo_ent *memo_slot(ng_ctx *c, int node, uint32_t pos, uint32_t seed)
{
    uint32_t i = memo_hash(node, pos, seed) & c->memo_mask;
    for (;; i = (i + 1) & c->memo_mask) {
        memo_ent *e = &c->memo[i];
        if (e->gen != c->gen) return e; /* empty this tile */
        if (e->node == node && e->pos_id == pos && e->seed == seed) return e;
    }
}

static int memo_grow(ng_ctx *c)
{
    uint32_t oldsize = c->memo_mask + 1, i;
    memo_ent *old = c->memo;
    memo_ent *mem = calloc((size_t)oldsize * 2, sizeof *mem);
    if (!mem) return ng_fail(c, "out of memory for the tile memo");
    c->memo = mem;
    c->memo_mask = oldsize * 2 - 1;
    for (i = 0; i < oldsize; i++) {
        if (old[i].gen != c->gen) continue;
        *memo_slot(c, old[i].node, old[i].pos_id, old[i].seed) = old[i];
    }
    free(old);
    return 0;
}

static int memo_put(ng_ctx *c, int node, const ng_block *b, float *buf)
{
    memo_ent *e;
    if ((uint32_t)(c->memo_live + 1) * 2 > c->memo_mask + 1 && memo_grow(c)) return -1;
    e = memo_slot(c, node, b->pos_id, b->seed);
    if (e->gen != c->gen) c->memo_live++;
    e->node = node;
    e->pos_id = b->pos_id;
    e->seed = b->seed;
    e->gen = c->gen;
    e->buf = buf;
    e->uses = c->uses[node];
    return 0;
}

static float *memo_get(ng_ctx *c, int node, const ng_block *b)
{
    memo_ent *e = memo_slot(c, node, b->pos_id, b->seed);
    return e->gen == c->gen ? e->buf : NULL;
}

/* One consumer has read the memoised result. */
static void memo_release(ng_ctx *c, const ng_node *n, const ng_block *b)
{
    memo_ent *e = memo_slot(c, n->id, b->pos_id, b->seed);
    if (e->gen == c->gen && e->buf && --e->uses <= 0) {
        ng_scratch_free(c, e->buf, n->channels);
        e->buf = NULL;
    }
}

uint32_t ng__ctx_tile(ng_ctx *c)
{
    uint32_t i;
    /* memoised results nobody consumed (their readers were elsewhere);
     * none when nothing was memoised, the common case of a chain without
     * shared nodes, so the table is not walked per tile */
    for (i = 0; c->memo_live && i <= c->memo_mask; i++) {
        memo_ent *e = &c->memo[i];
        if (e->gen == c->gen && e->buf) {
            ng_scratch_free(c, e->buf, ng_graph_node(c->g, e->node)->channels);
            e->buf = NULL;
        }
    }
    c->gen++;
    c->memo_live = 0;
    c->next_pos_id = 1;
    return 1;
}

/* ---- context ---------------------------------------------------------- */

int *ng__uses(const ng_graph *g, const int *roots, int nroots)
{
    int n = ng_graph_count(g), i;
    int *uses = calloc(2 * ((size_t)n + 1), sizeof *uses);
    if (!uses) return NULL;
    for (i = 0; i < n; i++) uses[i] = ng_graph_node(g, i)->refcount;
    for (i = 0; i < nroots; i++) uses[roots[i]]++;
    ng__hood_mark_kept(g, uses, uses + n + 1);
    return uses;
}

ng_ctx *ng__ctx_new(const ng_graph *g, const int *uses, int cap, ng_error *err)
{
    ng_ctx *c = calloc(1, sizeof *c);
    int n = ng_graph_count(g);
    if (!c) goto oom;
    c->g = g;
    c->uses = uses;
    c->kept_by = uses + n + 1;
    c->cap = (cap + 15) & ~15;
    c->memo_mask = 63;
    c->gen = 1;
    c->memo = calloc(c->memo_mask + 1, sizeof *c->memo);
    c->slot = calloc((size_t)n + 1, sizeof *c->slot);
    c->zeros = aligned_alloc(64, (size_t)c->cap * sizeof(float));
    if (!c->memo || !c->slot || !c->zeros) goto oom;
    memset(c->zeros, 0, (size_t)c->cap * sizeof(float));
    return c;
oom:
    ng__ctx_free(c);
    ng_errorf(err, "render: out of memory for an evaluation context");
    return NULL;
}

void ng__ctx_free(ng_ctx *c)
{
    int k, i;
    if (!c) return;
    if (c->memo) ng__ctx_tile(c); /* returns memoised buffers to the pools */
    for (i = 0; c->slot && i < ng_graph_count(c->g); i++) free(c->slot[i]); /* left by a failed walk */
    for (k = 0; k <= NG_MAX_PLANES; k++) {
        for (i = 0; i < c->pools[k].n; i++) free(c->pools[k].free[i]);
        free(c->pools[k].free);
    }
    free(c->memo);
    free(c->slot);
    free(c->stack);
    free(c->zeros);
    free(c->flat);
    for (i = 0; i < c->nkonsts; i++) free(c->konsts[i].buf);
    if (c->own_hood) ng__hood_cache_free(c->hood);
    free(c);
}

/* ---- stopping early -------------------------------------------------------- */

double ng__now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void ng__ctx_set_stop(ng_ctx *c, const ng__stop *stop) { c->stop = stop; }

void ng__ctx_set_hood(ng_ctx *c, ng__hood_cache *h) { c->hood = h; }

ng__hood_cache *ng__ctx_hood(ng_ctx *c)
{
    if (!c->hood && (c->hood = ng__hood_cache_new(NG_HOOD_CACHE_DEFAULT, c->stop, 0))) c->own_hood = 1;
    return c->hood;
}

int ng__ctx_cap(const ng_ctx *c) { return c->cap; }

/* Checked before every node evaluation: a clock read (vDSO, tens of ns)
 * against work of a block of points, so one slow tile (nested fractals)
 * still stops within a node's evaluation of the deadline. -1 with the
 * context's error set when evaluation must stop. */
static int stopped(ng_ctx *c)
{
    const ng__stop *s = c->stop;
    if (s->abandon && atomic_load_explicit(s->abandon, memory_order_relaxed))
        return ng_fail(c, "render: stopped by an error on another thread");
    if (s->cancel && atomic_load_explicit(s->cancel, memory_order_relaxed))
        return ng_fail(c, "render: cancelled");
    if (s->deadline > 0 && ng__now() > s->deadline)
        return ng_fail(c, "render: the render ran longer than its render time limit of %g s "
                          "(raise it with --render-time-limit)", s->limit);
    return 0;
}

int ng__ctx_stopped(ng_ctx *c) { return c->stop && stopped(c); }

/* ---- evaluation ----------------------------------------------------------- */

static int push(ng_ctx *c, int node)
{
    if (c->sp == c->stack_cap) {
        int cap = c->stack_cap ? c->stack_cap * 2 : 256;
        frame *s = realloc(c->stack, (size_t)cap * sizeof *s);
        if (!s) return ng_fail(c, "out of memory for the evaluation stack");
        c->stack = s;
        c->stack_cap = cap;
    }
    c->stack[c->sp].node = node;
    c->stack[c->sp].expanded = 0;
    c->sp++;
    return 0;
}

static int shared(const ng_ctx *c, int node) { return c->uses[node] > 1; }

int ng__same_position(const ng_node *n, int k)
{
    /* drivers of parameters (slots past the type's inputs) read the node's positions */
    return n->input[k] >= 0 && (k >= n->type->ninputs || !(n->type->inputs[k].flags & NG_INPUT_PULL));
}

void ng__ctx_filling(ng_ctx *c, int delta) { c->filling += delta; }

void ng__memo_drop(ng_ctx *c, int node, const ng_block *b)
{
    memo_ent *e;
    if (!shared(c, node)) return;
    e = memo_slot(c, node, b->pos_id, b->seed);
    if (e->gen == c->gen && e->buf) {
        ng_scratch_free(c, e->buf, ng_graph_node(c->g, node)->channels);
        e->buf = NULL;
    }
}

/* A buffer the context keeps for the whole render: at most NG_KEPT_BYTES
 * of them, charged to the memory limit like scratch (ng_scratch); NULL, and
 * no error, past either or where the system has no room: the caller then
 * goes the per-block way, which fails with the limit's message if it must.
 * Constants at large tiles (1 MiB blocks from tile 512) are so evaluated
 * per block, as before the blocks were kept. */
static float *kept_alloc(ng_ctx *c, size_t bytes)
{
    float *b;
    if (c->kept + bytes > NG_KEPT_BYTES || !charge(c, bytes)) return NULL;
    if (!(b = aligned_alloc(64, bytes))) {
        uncharge(c, bytes);
        return NULL;
    }
    c->kept += bytes;
    return b;
}

/* The block of constant node `node`, filled once for this context, or NULL:
 * not a constant (or more distinct values than NG_KONSTS, or no room),
 * evaluated per block like any node. insert 0: only one made already. The
 * same float constant_eval writes, so the same bits. */
static const float *konst_block(ng_ctx *c, int node, int insert)
{
    double v;
    uint32_t bits;
    float f, *buf;
    int i;
    if (!ng_node_is_constant(ng_graph_node(c->g, node), &v)) return NULL;
    f = (float)v;
    memcpy(&bits, &f, sizeof bits);
    for (i = 0; i < c->nkonsts; i++)
        if (c->konsts[i].bits == bits) return c->konsts[i].buf;
    if (!insert || c->nkonsts == NG_KONSTS || !(buf = kept_alloc(c, (size_t)c->cap * sizeof(float)))) return NULL;
    for (i = 0; i < c->cap; i++) buf[i] = f;
    c->konsts[c->nkonsts].bits = bits;
    c->konsts[c->nkonsts++].buf = buf;
    return buf;
}

/* A constant's gradient: NG_FLAT_PLANES planes of zeros, or NULL (no room). */
static const float *flat_planes(ng_ctx *c)
{
    const size_t bytes = NG_FLAT_PLANES * (size_t)c->cap * sizeof(float);
    if (!c->flat && (c->flat = kept_alloc(c, bytes))) memset(c->flat, 0, bytes);
    return c->flat;
}

static float *result_of(ng_ctx *c, int node, const ng_block *b)
{
    return shared(c, node) ? memo_get(c, node, b) : c->slot[node];
}

static void release(ng_ctx *c, int node, const ng_block *b)
{
    const ng_node *n = ng_graph_node(c->g, node);
    if (shared(c, node)) {
        memo_release(c, n, b);
    } else {
        ng_scratch_free(c, c->slot[node], n->channels);
        c->slot[node] = NULL;
    }
}

/* ---- scaled and turned positions (ng_block.p_scale, turn_axes) -------------- */

/* Whether b's positions are not multiplied out: scaled or turned. */
static int moved(const ng_block *b) { return b->p_scale != 0.0f || b->turn_axes != 0; }

/* Point i's turned offset along d (ng_block.turn_axes says how), of
 * positions p times s (exact: a power of two, ng_node.h). */
static float turned_at(const ng_block *b, float s, int d, int i)
{
    const float *t = b->turn[d];
    const float x = fmaf(t[1], b->p[1][i] * s, t[0] * (b->p[0][i] * s));
    return b->turn_axes == 3 ? fmaf(t[2], b->p[2][i] * s, x) : x;
}

const ng_block *ng_block_unscaled(const ng_block *b, ng_block *tmp, float *pos)
{
    const float s = b->p_scale != 0.0f ? b->p_scale : 1.0f;
    int d, i;
    if (!moved(b)) return b;
    *tmp = *b;
    for (d = 0; d < b->dims; d++) {
        const float *src = b->p[d];
        float *dst = pos + (size_t)d * (size_t)b->n;
        if (d < b->turn_axes)
            for (i = 0; i < b->n; i++) dst[i] = turned_at(b, s, d, i);
        else
            for (i = 0; i < b->n; i++) dst[i] = src[i] * s;
        tmp->p[d] = dst;
    }
    tmp->p_scale = 0.0f;
    tmp->turn_axes = 0;
    return tmp;
}

/* Whether n is evaluated on a block with a scale (and with turned: a
 * turn) as it is: its type folds them, and no input is evaluated at its
 * positions (they would not). */
static int takes(const ng_node *n, int turned)
{
    int k;
    if (!n->type->takes_p_scale || (turned && !n->type->takes_turn)) return 0;
    for (k = 0; k < ng_node_slots(n); k++)
        if (ng__same_position(n, k)) return 0;
    return 1;
}

static int takes_block(const ng_node *n, const ng_block *b) { return takes(n, b->turn_axes != 0); }

int ng_input_takes_turn(const ng_ctx *c, const ng_node *node, int k)
{
    return node->input[k] >= 0 && takes(ng_graph_node(c->g, node->input[k]), 1);
}

int ng_input_reads_neighbourhood(ng_ctx *c, const ng_node *node, int k)
{
    unsigned char *mark;
    int i, found = 0;
    if (node->input[k] < 0) return 0;
    if (!(mark = ng__reachable(c->g, &node->input[k], 1))) return ng_fail(c, "out of memory");
    for (i = 0; i < ng_graph_count(c->g) && !found; i++) found = mark[i] && ng_graph_node(c->g, i)->type->hood != NULL;
    free(mark);
    return found;
}

/* eval (grad: NULL) or grad_of at b with its scale multiplied out; the
 * positions' identity is kept: they are the same points. */
static int grad_of(ng_ctx *c, const ng_node *src, const ng_block *b, float *out, float *grad, double h, int want);

static int at_unscaled(ng_ctx *c, const ng_node *n, const ng_block *b, float *out, int want, float *grad, double h)
{
    float *pos = ng_scratch(c, b->dims);
    ng_block plain;
    int rc;
    if (!pos) return -1;
    ng_block_unscaled(b, &plain, pos);
    rc = grad ? grad_of(c, n, &plain, out, grad, h, want) : ng__eval(c, n->id, &plain, out, want);
    ng_scratch_free(c, pos, b->dims);
    return rc;
}

/* Node id's result dst at b, evaluated, handed on: to the memo (shared)
 * or its consumer's slot; the root's into out. 0, or -1. */
static int store(ng_ctx *c, int id, int root, const ng_block *b, float *dst, float *out)
{
    const ng_node *n = ng_graph_node(c->g, id);
    if (id == root && shared(c, id)) {
        memcpy(out, dst, (size_t)n->channels * (size_t)b->n * sizeof(float));
        if (memo_put(c, id, b, dst)) return -1;
        memo_release(c, n, b);
    } else if (id != root) {
        if (shared(c, id)) {
            if (memo_put(c, id, b, dst)) return -1;
        } else {
            c->slot[id] = dst;
        }
    }
    return 0;
}

/* Node id read back from the patches of the pixel lattice that keeps it
 * (ng__hood_read_kept), where b's points are that lattice's cells: 1
 * (stored as an evaluation would), 0 where they are not (evaluate it), -1
 * on failure. */
static int kept_read(ng_ctx *c, int id, int root, const ng_block *b, float *out)
{
    const ng_node *n = ng_graph_node(c->g, id);
    float *dst = (id == root && !shared(c, id)) ? out : ng_scratch(c, n->channels);
    int r;
    if (!dst) return -1;
    r = ng__hood_read_kept(c, ng_graph_node(c->g, c->kept_by[id] - 1), id, b, dst);
    if (r > 0 && store(c, id, root, b, dst, out)) r = -1;
    if (r <= 0 && dst != out) ng_scratch_free(c, dst, n->channels);
    return r;
}

int ng__eval(ng_ctx *c, int root, const ng_block *b, float *out, int want)
{
    const ng_graph *g = c->g;
    int base = c->sp;
    if (c->failed) return -1;
    if (moved(b) && !takes_block(ng_graph_node(g, root), b))
        return at_unscaled(c, ng_graph_node(g, root), b, out, want, NULL, 0);
    if (shared(c, root)) { /* already computed at these positions? */
        float *m = memo_get(c, root, b);
        if (m) {
            memcpy(out, m, (size_t)ng_graph_node(g, root)->channels * (size_t)b->n * sizeof(float));
            memo_release(c, ng_graph_node(g, root), b);
            return 0;
        }
    }
    if (push(c, root)) return -1;
    while (c->sp > base) {
        int top = c->sp - 1, id = c->stack[top].node, k, missing = 0;
        const ng_node *n = ng_graph_node(g, id);
        const float *in[NG_MAX_INPUTS + NG_MAX_DRIVERS] = {0};
        ng_block nb;
        float *dst;
        if (!c->stack[top].expanded) {
            if (id != root && shared(c, id) && memo_get(c, id, b)) {
                c->sp--; /* a sibling computed it already */
                continue;
            }
            if (c->kept_by[id] && !c->filling) {
                const int r = kept_read(c, id, root, b, out);
                if (r < 0) goto fail;
                if (r) {
                    c->sp--;
                    continue;
                }
            }
            c->stack[top].expanded = 1;
            for (k = 0; k < ng_node_slots(n); k++)
                if (ng__same_position(n, k) && !konst_block(c, n->input[k], 1) && !result_of(c, n->input[k], b) &&
                    push(c, n->input[k]))
                    goto fail;
            continue;
        }
        for (k = 0; k < ng_node_slots(n); k++) {
            if (!ng__same_position(n, k)) continue;
            if (!(in[k] = konst_block(c, n->input[k], 0))) in[k] = result_of(c, n->input[k], b);
            if (!in[k]) missing = 1;
        }
        if (missing) { /* a shared input was consumed early: compute it again */
            c->stack[top].expanded = 0;
            continue;
        }
        if (c->stop && stopped(c)) goto fail;
        dst = (id == root && !shared(c, id)) ? out : ng_scratch(c, n->channels);
        if (!dst) goto fail;
        /* fewer channels only where the result goes straight to the caller:
         * a memoised result serves every reader */
        nb = *b;
        nb.channels = dst == out && want > 0 && want < n->channels ? want : n->channels;
        if (n->type->eval(c, n, &nb, in, dst)) {
            if (dst != out) ng_scratch_free(c, dst, n->channels);
            goto fail;
        }
        for (k = 0; k < ng_node_slots(n); k++)
            if (ng__same_position(n, k) && !konst_block(c, n->input[k], 0)) release(c, n->input[k], b);
        if (store(c, id, root, b, dst, out)) goto fail;
        c->sp--;
    }
    return 0;
fail:
    /* leave the slots of this walk as they are: the render is abandoned and
     * the context freed, which returns every pooled buffer */
    c->sp = base;
    if (!c->failed) ng_fail(c, "evaluation failed");
    return -1;
}

int ng_pull(ng_ctx *c, const ng_node *node, int k, const ng_block *b, float *out)
{
    return ng__eval(c, node->input[k], b, out, 0);
}

int ng_pull_channels(ng_ctx *c, const ng_node *node, int k, const ng_block *b, float *out, int channels)
{
    return ng__eval(c, node->input[k], b, out, channels);
}

int ng_input_channels(const ng_ctx *c, const ng_node *node, int k)
{
    return node->input[k] >= 0 ? ng_graph_node(c->g, node->input[k])->channels : 0;
}

int ng_input_constant(const ng_ctx *c, const ng_node *node, int k, double *value)
{
    return node->input[k] >= 0 && ng_node_is_constant(ng_graph_node(c->g, node->input[k]), value);
}

const float *ng_input_constant_block(ng_ctx *c, const ng_node *node, int k)
{
    return node->input[k] >= 0 ? konst_block(c, node->input[k], 1) : NULL;
}

/* ---- gradients ---------------------------------------------------------------- */

/* A source evaluated outside the walk (ng_pull_grad's analytic path) is
 * read by the consumer like ng__eval's result: a shared source's value goes
 * into the memo for its other readers (or, already there, loses one read). */
static int memo_share(ng_ctx *c, const ng_node *src, const ng_block *b, const float *out)
{
    const size_t bytes = (size_t)src->channels * (size_t)b->n * sizeof(float);
    float *m;
    if (!shared(c, src->id)) return 0;
    if (!memo_get(c, src->id, b)) {
        if (!(m = ng_scratch(c, src->channels))) return -1;
        memcpy(m, out, bytes);
        if (memo_put(c, src->id, b, m)) {
            ng_scratch_free(c, m, src->channels);
            return -1;
        }
    }
    memo_release(c, src, b);
    return 0;
}

/* Value and gradient of a chain node: its inputs' values and gradients,
 * eval on the values, chain for the gradient. 1: no analytic gradient
 * (the inputs were read already: the central differences that follow find
 * a shared input's memo entry gone sooner and compute it again, correct
 * if slower; no chain in nodes/ returns 1). */
static int chain_grad(ng_ctx *c, const ng_node *src, const ng_block *b, float *out, float *grad)
{
    const int slots = ng_node_slots(src);
    float *val[NG_MAX_INPUTS + NG_MAX_DRIVERS] = {0}, *dval[NG_MAX_INPUTS + NG_MAX_DRIVERS] = {0};
    const float *cval[NG_MAX_INPUTS + NG_MAX_DRIVERS] = {0}, *cdval[NG_MAX_INPUTS + NG_MAX_DRIVERS] = {0};
    int k, rc = -1;
    ng_block nb = *b;
    for (k = 0; k < slots; k++) {
        const ng_node *in;
        const float *kb;
        if (src->input[k] < 0) continue;
        in = ng_graph_node(c->g, src->input[k]);
        if ((kb = konst_block(c, in->id, 1)) && flat_planes(c)) {
            cval[k] = kb, cdval[k] = c->flat;
            continue;
        }
        if (!(val[k] = ng_scratch(c, in->channels)) || !(dval[k] = ng_scratch(c, in->channels * b->dims))) goto done;
        if (grad_of(c, in, b, val[k], dval[k], 0, 0)) goto done;
        cval[k] = val[k], cdval[k] = dval[k];
    }
    if (c->stop && stopped(c)) goto done;
    nb.channels = src->channels;
    if (src->type->eval(c, src, &nb, cval, out)) goto done;
    rc = src->type->chain(c, src, b, cval, cdval, out, grad);
done:
    for (k = 0; k < slots; k++) {
        const int ch = src->input[k] < 0 ? 0 : ng_graph_node(c->g, src->input[k])->channels;
        ng_scratch_free(c, val[k], ch);
        ng_scratch_free(c, dval[k], ch * b->dims);
    }
    return rc;
}

/* The analytic value and gradient of src, 1 where it has none; want: the
 * leading channels the consumer reads (eval_grad sees them in its block's
 * channels; a chain computes every channel). */
static int analytic(ng_ctx *c, const ng_node *src, const ng_block *b, float *out, float *grad, int want)
{
    if (src->type->eval_grad) {
        ng_block nb = *b;
        nb.channels = want;
        if (c->stop && stopped(c)) return -1;
        return src->type->eval_grad(c, src, &nb, out, grad);
    }
    if (src->type->chain && src->ndrivers == 0) {
        int k;
        for (k = 0; k < src->type->ninputs; k++)
            if (src->type->inputs[k].flags & NG_INPUT_PULL) return 1; /* a chain reads its inputs where it is */
        return chain_grad(c, src, b, out, grad);
    }
    return 1;
}

/* Central differences of src's leading `want` channels: the step goes into
 * the double anchor, so it is exact at any distance. */
static int central_differences(ng_ctx *c, const ng_node *src, const ng_block *b, float *out, float *grad, double h,
                               int want)
{
    const int ch = src->channels, n = b->n, dims = b->dims;
    const float inv = (float)(0.5 / h);
    float *hi = NULL, *lo = NULL;
    int d, j, i, rc = -1;
    if (ng__eval(c, src->id, b, out, want)) return -1;
    if (!(hi = ng_scratch(c, ch)) || !(lo = ng_scratch(c, ch))) goto done;
    for (d = 0; d < dims; d++) {
        ng_block s = *b;
        s.anchor[d] = b->anchor[d] + h;
        s.pos_id = ng_new_pos_id(c);
        if (ng__eval(c, src->id, &s, hi, want)) goto done;
        s.anchor[d] = b->anchor[d] - h;
        s.pos_id = ng_new_pos_id(c);
        if (ng__eval(c, src->id, &s, lo, want)) goto done;
        for (j = 0; j < want; j++) {
            float *g = grad + ((size_t)j * (size_t)dims + (size_t)d) * (size_t)n;
            const float *x = hi + (size_t)j * (size_t)n, *y = lo + (size_t)j * (size_t)n;
            for (i = 0; i < n; i++) g[i] = (x[i] - y[i]) * inv;
        }
    }
    rc = 0;
done:
    ng_scratch_free(c, hi, ch);
    ng_scratch_free(c, lo, ch);
    return rc;
}

/* want: the leading channels the consumer reads, 0 for all; a shared
 * source computes all (its memoised value serves every reader). */
static int grad_of(ng_ctx *c, const ng_node *src, const ng_block *b, float *out, float *grad, double h, int want)
{
    if (c->failed) return -1;
    if (moved(b) && !takes_block(src, b)) return at_unscaled(c, src, b, out, want, grad, h);
    if (want <= 0 || want > src->channels || shared(c, src->id)) want = src->channels;
    if (h <= 0 && c->grad_depth < NG_GRAD_DEPTH) {
        int rc;
        c->grad_depth++;
        rc = analytic(c, src, b, out, grad, want);
        c->grad_depth--;
        if (rc < 0) {
            if (!c->failed) ng_fail(c, "evaluation failed");
            return -1;
        }
        if (rc == 0) return memo_share(c, src, b, out);
    }
    if (h <= 0) h = src->detail < HUGE_VAL ? src->detail * 1e-3 : 1e-2;
    return central_differences(c, src, b, out, grad, h, want);
}

int ng_pull_grad(ng_ctx *c, const ng_node *node, int k, const ng_block *b, float *out, float *grad, double h)
{
    return grad_of(c, ng_graph_node(c->g, node->input[k]), b, out, grad, h, 0);
}

int ng_pull_grad_channels(ng_ctx *c, const ng_node *node, int k, const ng_block *b, float *out, float *grad, double h,
                          int channels)
{
    return grad_of(c, ng_graph_node(c->g, node->input[k]), b, out, grad, h, channels > 0 ? channels : 1);
}

const int *ng__ctx_kept(const ng_ctx *c) { return c->kept_by; }
