/*
 * ng_internal.h — what core/ files share among themselves: the per-thread
 * evaluation context as the tile scheduler drives it.
 */
#ifndef NG_INTERNAL_H
#define NG_INTERNAL_H

#include "ng_node.h"

#include <stdatomic.h>

/* Marks (1) every node the roots depend on; caller frees. NULL: no memory. */
unsigned char *ng__reachable(const ng_graph *g, const int *roots, int nroots);
/* A parameter's default value, as its descriptor gives it. */
void ng__param_default(const ng_param_desc *p, ng_value *v);
/* Checks a render's roots: valid ids, dimensions supported everywhere. */
int ng__check_roots(const ng_graph *g, const int *roots, int nroots, int dims, ng_error *err);

/* A context evaluates blocks of at most `cap` points on one thread. `uses`
 * (per node: consumers plus root appearances) decides which results are
 * memoised for the tile; it is shared read-only between contexts. */
ng_ctx *ng__ctx_new(const ng_graph *g, const int *uses, int cap, ng_error *err);
void ng__ctx_free(ng_ctx *c);
/* Per-node use counts for a set of roots, count + 1 ints, then a second
 * table of as many: for each node, the pixel lattice that keeps its
 * samples (ng__hood_mark_kept), its id + 1, or 0; caller frees. */
int *ng__uses(const ng_graph *g, const int *roots, int nroots);
/* Whether input slot k of n is read at n's own positions (not pulled). */
int ng__same_position(const ng_node *n, int k);
/* Context c starts (+1) or ends (-1) computing a neighbourhood patch:
 * nodes kept by a lattice are evaluated, not read back, inside it. */
void ng__ctx_filling(ng_ctx *c, int delta);
/* Forgets node's memoised result at b (every read left). */
void ng__memo_drop(ng_ctx *c, int node, const ng_block *b);
/* Start a tile: forget the memo, return the base positions' identity. */
uint32_t ng__ctx_tile(ng_ctx *c);
/* Evaluate root at b into out (channels * b->n floats, channel-major);
 * want > 0: only the first want channels are needed (see ng_pull_channels).
 * b->channels is not read: each node evaluated gets its own. */
int ng__eval(ng_ctx *c, int root, const ng_block *b, float *out, int want);
const ng_error *ng__ctx_error(const ng_ctx *c);

/* When evaluation must stop early; shared read-only by a render's contexts. */
typedef struct ng__stop {
    double deadline;           /* monotonic seconds (ng__now), 0: none */
    double limit;              /* the time limit it came from, for the message */
    const atomic_int *cancel;  /* the caller's flag, or NULL */
    const atomic_int *abandon; /* another thread failed: stop quietly; or NULL */
    size_t memory_limit;       /* bytes of scratch over all contexts, 0: none */
    atomic_size_t *memory_used;
} ng__stop;
/* Seconds on the monotonic clock. */
double ng__now(void);
/* The progress line of a render `done` (0 to 1) of the way through after
 * `elapsed` seconds, without \r or newline: the label (a frame of a
 * sequence; NULL: none), percent, elapsed time and an estimate of the
 * time left. */
void ng__progress_line(char *buf, size_t len, const char *label, double done, double elapsed);
/* Evaluation in c checks stop (may be NULL) before each node it runs. */
void ng__ctx_set_stop(ng_ctx *c, const ng__stop *stop);
/* The same check, for work that runs no node (a view's rays that miss the
 * volume): -1 with the context's error set when it must stop. */
int ng__ctx_stopped(ng_ctx *c);
const float *ng__ctx_zeros(const ng_ctx *c);
/* v in dst[0 .. n - 1], in the widest stores the CPU has (core/render.c):
 * the y planes of a render's blocks and of a patch's. */
void ng__fill(float *dst, float v, int n);

/* Memory for neighbourhood patches in huge-page chunks (core/slab.c): a
 * list of chunks the caller keeps (NULL at first) and locks. get: bytes,
 * or NULL (what an earlier patch left there: the caller writes every cell
 * it reads); put: what get gave, with the same bytes. A chunk all put
 * back goes to a process-wide pool of idle chunks for reuse, at most
 * NG_SLAB_POOL_CAP bytes (ng__slab_pool_cap sets another cap, trimming to
 * it, and returns the old); idle: its bytes now; trim: unmaps its oldest
 * chunks until at most keep bytes are idle (0: all). scribble: every slot
 * handed out from now on filled with NaN (1) or not (0), for the tests
 * that prove no cell is read before it is written. counts: chunks mapped
 * and chunks taken from the pool since the process began. Thread-safe,
 * but for a list. */
typedef struct ng__slab ng__slab;
#define NG_SLAB_POOL_CAP (NG_HOOD_CACHE_DEFAULT / 4)
void *ng__slab_get(ng__slab **list, size_t bytes);
void ng__slab_put(ng__slab **list, void *p, size_t bytes);
size_t ng__slab_idle(void);
void ng__slab_trim(size_t keep);
size_t ng__slab_pool_cap(size_t cap);
void ng__slab_scribble(int on);
/* For the fork tests: takes (hold 1) or lets go (0) the pool's lock, as a
 * thread using the pool at a fork would hold it. */
void ng__slab_hold(int hold);
void ng__slab_counts(long *chunks_mapped, long *chunks_reused);

/* Neighbourhood patches (core/hood.c): thread-safe, shared by a render's
 * contexts, bounded by cap bytes and by the render's memory limit (stop,
 * may be NULL: cap alone), least recently used evicted first. A graph
 * keeps one from render to render (ng__graph_hood), so a process that
 * renders a graph again (the tiles of `noisegraph tiles`, serve's views)
 * reuses its patches. */
typedef struct ng__hood_cache ng__hood_cache;
typedef struct ng__hood_stats {
    size_t cap;        /* bytes the cache may hold */
    size_t peak;       /* most bytes held at once (patches and their halos while computed) */
    long computed;     /* patches evaluated */
    long hits;         /* patches found in the cache */
    long evicted;      /* patches dropped for room */
    long kept_reads;   /* blocks of a kept node read back from patches (ng__hood_read_kept) */
} ng__hood_stats;
/* The cache's bound, also without a memory limit. */
#define NG_HOOD_CACHE_DEFAULT ((size_t)1 << 30)
/* shared: the cache outlives a render or serves several threads (a
 * graph's, a render's), so its lock is held across fork (core/fork.c); 0
 * for one evaluation context's own, which one thread uses and which may
 * be made inside a node's guarded lock (cloud coverage's), where adding a
 * guard could wait on a fork being prepared. */
ng__hood_cache *ng__hood_cache_new(size_t cap, const ng__stop *stop, int shared);
void ng__hood_cache_free(ng__hood_cache *h);
/* The graph's cache, or NULL (no neighbourhood node). */
ng__hood_cache *ng__graph_hood(const ng_graph *g);
/* A render takes cache h with its cap and memory limit: what h keeps
 * beyond them is evicted, the rest charged to the render. -1 when another
 * render holds it (that render then makes its own). ng__hood_detach hands
 * it back, its bytes no longer charged, its statistics the last ones. */
int ng__hood_attach(ng__hood_cache *h, size_t cap, const ng__stop *stop);
/* The attached render's image, width x height pixels from pixel (x, y)
 * of the whole image's, on threads: the grid shading sizes its patches
 * (core/hood.c, patch_cells) and its strips (read_strips) to it. */
void ng__hood_set_extent(ng__hood_cache *h, int x, int y, int width, int height, int threads);
void ng__hood_detach(ng__hood_cache *h);
/* Rows of a strip, the grid shading's source where the render keeps
 * nothing in its patches (core/hood.c, read_strips). */
#define NG_HOOD_STRIP_ROWS 32
/* The statistics of the last render's cache in this process (tests). */
void ng__hood_last_stats(ng__hood_stats *s);
/* For the fork tests: takes (hold 1) or lets go (0) h's lock. */
void ng__hood_hold(ng__hood_cache *h, int hold);
/* Before a render on `threads` threads: what the neighbourhood nodes the
 * roots read may hold at once (each thread its patches and halos, nested
 * nodes adding up) fits in `room` bytes (0: no bound). The count of such
 * nodes, or -1 with an error naming the node and its radius. */
int ng__hood_check(const ng_graph *g, const int *roots, int nroots, size_t room, int threads, ng_error *err);
/* How much finer than the render's pixel a lattice read at the render's
 * pixels may be (ng_hood_eval): past that its pixels each read cells no
 * other pixel reads (spacing 1 under a pixel of 100 held 575 MB for a
 * 96^2 image). */
#define NG_HOOD_FINEST 64
/* Kept nodes. A node of the render's pixel lattice anchored as the
 * render is (NG_HOOD_ANCHOR_RENDER, bilinear) evaluates its source on
 * cells that are the render's pixels, bit for bit; a node of its source's
 * graph at the source's positions that the render also reads at its own
 * (another consumer, or a root: a height shown and shaded) is kept by its
 * patches, a plane beside the node's, and read back from them where a
 * block's points are the lattice's cells (the same anchor, the same float
 * offsets), so it is evaluated once for both. kept[i] (count ints): the
 * id + 1 of the lattice node keeping node i, or 0; uses as ng__uses gives
 * (its first table). At most NG_HOOD_KEPT nodes a lattice. */
#define NG_HOOD_KEPT 4
void ng__hood_mark_kept(const ng_graph *g, const int *uses, int *kept);
/* Node x, kept by lattice node n, read at b's points into out: 1; 0 where
 * a point is not one of the lattice's cells or a patch lacks it (the
 * caller evaluates it); -1 with the context's error set. */
int ng__hood_read_kept(ng_ctx *ctx, const ng_node *n, int x, const ng_block *b, float *out);
/* The kept table of c's render (see above). */
const int *ng__ctx_kept(const ng_ctx *c);

/* The cache c's neighbourhood nodes use (set by the render; a context
 * without one makes its own on first use). */
void ng__ctx_set_hood(ng_ctx *c, ng__hood_cache *h);
ng__hood_cache *ng__ctx_hood(ng_ctx *c);
/* Points per block of c: the most a node may evaluate in one pull. */
int ng__ctx_cap(const ng_ctx *c);
/* The name a message gives node n: "file:line: label" or the label. */
int ng__node_name(const ng_node *n, char *buf, size_t len);

/* A render whose tiles are computed by `run` instead of by evaluating the
 * roots on the tile's pixel grid: views (core/view.c) that ask the engine
 * for samples of their own (rays through a volume, say) and stream an
 * image through the same tile scheduler, band ring and sinks as any
 * render. run fills out[k] (channels[k] planes of w * h floats,
 * channel-major) for pixels x0 .. x0 + w - 1, y0 .. y0 + h - 1 of the full
 * image (region offsets included). It may evaluate the roots with
 * ng__eval on c for blocks it builds itself of up to o->tile^2 points
 * (scratch: ng_scratch), and must make every pixel depend on its index
 * alone, never on the tile, so the picture is the same for any thread
 * count or tile size. 0, or -1 with the context's error set (ng_fail). */
typedef struct ng__tile_job {
    int (*run)(void *user, ng_ctx *c, int x0, int y0, int w, int h, float *const *out);
    void *user;
    const int *channels; /* per output: its channels (1 to 4) */
} ng__tile_job;
int ng__render_job(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o,
                   const ng__tile_job *job, ng_sink *sinks, ng_error *err);

#endif
