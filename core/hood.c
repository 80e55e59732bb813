/*
 * hood.c — neighbourhood evaluation: nodes whose value at a point depends
 * on their source around it (blur; slope, curvature, erosion to come).
 *
 * Such a node's value lives on a world-aligned 2D lattice of its own
 * spacing s (cell k of an axis at (k + 0.5) s), cut into patches of
 * P cells per axis (NG_HOOD_PATCH, or its type's) at fixed world places
 * (patch (ix, iy) holds cells ix * P .. ix * P + P - 1 and a margin,
 * side() below; a lattice anchored as the render is starts its patches at
 * the anchor's cell instead, grid_origin()). A node of the render's pixel lattice
 * (ng_hood_declare_pixel: grid shading) takes s from the footprint of the
 * block that samples it, the same in every cut of a render; s is part of
 * a patch's key. The points a patch evaluates its source on are float
 * offsets from a double anchor, as a render's are; a source's bits
 * depend on that split, so the pixel lattice anchors as the render does
 * (NG_HOOD_ANCHOR_RENDER, ng_node.h: at the lattice cell of the block's
 * anchor, the render's origin in every cut of it, part of the key): its
 * cells on the pixels hold the pixels' bits, and a node of its source's
 * graph the render also reads at its pixels is kept in the patch and read
 * back there instead of evaluated again (ng__hood_mark_kept,
 * ng__hood_read_kept). A patch is computed whole: the source
 * evaluated on the patch's cells plus a halo of the node's radius, then the
 * type's filter (a run filter's patch is its source and halo, the
 * filter computed where it is sampled; where the render keeps nothing in
 * it, that source is held in strips of rows instead: read_strips). Its
 * samples are a function of
 * (node, spacing, patch index, anchor cell, seed, z, time, period) alone,
 * never of the render's tiles, region, threads or
 * block size (the source is evaluated per point, whatever the chunking),
 * so a value sampled from it is the same bits in every cut of a render.
 * The node's value at a position is a sample of its lattice there
 * (bilinear, or a cubic B-spline for types that ask for smoothness):
 * positions a warp or fractal computed are as good as the pixels.
 * Nested neighbourhood nodes nest: a patch's source evaluation samples
 * the inner node's patches, whose halos so add to the outer one's.
 *
 * Patches are cached by the graph from render to render (the tiles of a
 * farm run in one process, serve's views), each render holding the cache
 * alone and its threads sharing it (a second render of the graph at the
 * same time gets a cache of its own): one mutex around a hash table and
 * an LRU list; a patch is computed by the thread
 * that first asks for it (without the lock). A block's points are taken in
 * segments of up to SEGMENT patches; a patch of the segment that another
 * thread is computing is passed over for the next, and waited for only
 * when nothing else is left. Waits point from a node to nodes in its
 * source's graph, never back, so they cannot go round in a circle. Every
 * byte (patches and the halo buffers of those being computed) is counted
 * against the render's cap and memory limit (a render that takes the cache
 * evicts what is beyond them and is charged the rest); least recently used
 * patches are evicted for room. Between renders the graph keeps at most
 * the last render's cap. A patch's data comes from core/slab.c, which
 * keeps the memory of freed patches for the next (any cache's), bounded;
 * under a memory limit its idle memory is given back as the render's
 * patches grow, so the two stay within the limit. A patch's compute
 * writes every cell it reads (its source on its domain, its filter's or
 * blend's planes whole), so memory a patch before it left is never read.
 * What the threads may hold at once is
 * checked against the cap before the render (ng__hood_check), so running
 * out midway is an error too, naming the node and its radius, not a
 * wait.
 *
 * Simulations (hydraulic erosion) need more than a halo: a droplet's path
 * is not bounded by a radius. Their type gives a tile function instead of
 * a filter, and the same patches then serve in two stages. A tile is the
 * simulation run once over a patch and half a patch around it (a
 * radius of P / 2 cells: 2 P a side for the type's patches of P cells,
 * NG_HOOD_PATCH or its own, tiles of neighbouring patches overlapping by
 * half), seeded from its world index, and cached
 * whole (stage 1 of the key). The node's own patch (stage 0) is then the
 * partition-of-unity blend of the 3 x 3 tiles around it: at each cell the
 * tiles covering it weighted by cos^2 windows that fall to 0 at a tile's
 * edge (where its droplets were cut short) and sum to 1 (normalised, so in
 * floats too), the source's first channel added back. A tile is a function
 * of its index like any patch, the blend a function of the cell, so the
 * value at a world point is again independent of the render's cut. Waits
 * go from a node's patches to its tiles to its source's patches: still
 * never back. A thread that would wait for a tile another is simulating
 * simulates one nobody has begun instead, of the patches its block reads
 * or of the row of patches below them (help), so two threads stay busy
 * across a row of patches' last tiles.
 */
#include "ng_internal.h"
#include "ngmath.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A patch's cells per edge, side(): its own (ix P .. ix P + P - 1) and a
 * margin of MARGIN before, 2 after, so a cubic sample's 4 x 4 cells (and
 * a bilinear one's 2 x 2) never straddle two patches. */
#define MARGIN 1
#define NBUCKETS 4096
/* Patches a run of points may hold at once (per thread and nesting level). */
#define SEGMENT 8

typedef struct hkey {
    int node, stage; /* stage 1: a tile of a tile type (the simulation); STRIP: rows of a run filter's source */
    uint32_t seed;
    int64_t ix, iy;
    int64_t ax, ay;        /* NG_HOOD_ANCHOR_RENDER: the anchor's cell (WORLD_ANCHOR: none) */
    uint64_t z, w, px, py; /* bits of the doubles: z, time, periods */
    uint64_t s;            /* bits of the lattice's spacing */
    int P;                 /* cells per patch edge (patch_cells); a strip's rows */
    int32_t W, y0, rows;   /* a strip's columns (ix the first), the first row of the first and the rows of all */
} hkey;

typedef struct patch {
    hkey key;
    struct patch *next;          /* hash chain */
    struct patch *older, *newer; /* LRU list of ready patches */
    float *data;                 /* node channels planes of side()^2, then one per kept node (kept_slot) */
    size_t bytes;
    int nkept, kept[NG_HOOD_KEPT]; /* the nodes it keeps (ng__hood_mark_kept), their ids */
    int pins;  /* readers holding it (never evicted while > 0) */
    int ready; /* computed; 0 while its thread computes it */
} patch;

struct ng__hood_cache {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a patch became ready or was dropped */
    ng_fork_guard guard; /* mu and cv held across fork (core/fork.c), if shared */
    int guarded;
    patch *bucket[NBUCKETS];
    patch lru; /* sentinel of the LRU list (lru_front) */
    size_t cap, bytes;
    const ng__stop *stop; /* its memory_used is charged too; may be NULL */
    int attached;         /* a render holds it (ng__hood_attach) */
    ng__hood_stats stats;
    ng__slab *slabs;      /* the patches' data (core/slab.c), under mu */
    int extent[2], threads; /* the attached render's image (ng__hood_set_extent); 0: unknown */
    int corner[2];          /* its first pixel in the whole image's */
    int strips;             /* strips in the table (ready or being computed) */
};

static pthread_mutex_t last_mu = PTHREAD_MUTEX_INITIALIZER;
static ng__hood_stats last;
static ng_fork_guard last_guard;

/* At load, before any thread: a guard added later could be added under a
 * lock the fork handler waits for. */
__attribute__((constructor)) static void guard_last(void)
{
    ng_fork_guard_add(&last_guard, &last_mu, NULL, NG_FORK_LEAF);
}

ng__hood_cache *ng__hood_cache_new(size_t cap, const ng__stop *stop, int shared)
{
    ng__hood_cache *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    if ((h->guarded = shared != 0)) ng_fork_guard_add(&h->guard, &h->mu, &h->cv, NG_FORK_CACHE);
    h->lru.older = h->lru.newer = &h->lru;
    h->cap = cap;
    h->stop = stop;
    h->stats.cap = cap;
    return h;
}

static void give(ng__hood_cache *h, size_t bytes)
{
    h->bytes -= bytes;
    if (h->stop && h->stop->memory_limit) atomic_fetch_sub(h->stop->memory_used, bytes);
}

void ng__hood_cache_free(ng__hood_cache *h)
{
    int i;
    if (!h) return;
    for (i = 0; i < NBUCKETS; i++) {
        patch *p = h->bucket[i], *next;
        for (; p; p = next) {
            next = p->next;
            give(h, p->bytes);
            ng__slab_put(&h->slabs, p->data, p->bytes);
            free(p);
        }
    }
    if (h->guarded) ng_fork_guard_remove(&h->guard);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}

void ng__hood_hold(ng__hood_cache *h, int hold)
{
    if (hold) pthread_mutex_lock(&h->mu);
    else pthread_mutex_unlock(&h->mu);
}

void ng__hood_last_stats(ng__hood_stats *s)
{
    pthread_mutex_lock(&last_mu);
    *s = last;
    pthread_mutex_unlock(&last_mu);
}

/* ---- the table ------------------------------------------------------------------ */

static uint64_t bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static double spacing_of(const hkey *k)
{
    double s;
    memcpy(&s, &k->s, sizeof s);
    return s;
}

static uint32_t key_hash(const hkey *k)
{
    uint64_t h = (uint64_t)(uint32_t)k->node * 0x9E3779B97F4A7C15u;
    h ^= (uint64_t)k->ix * 0xC2B2AE3D27D4EB4Fu;
    h = (h ^ (h >> 29)) * 0x165667B19E3779F9u;
    h ^= (uint64_t)k->iy * 0x85EBCA77C2B2AE63u + (uint64_t)k->stage + (uint64_t)k->ax * 0x94D049BB133111EBu +
         (uint64_t)k->ay * 0xBF58476D1CE4E5B9u;
    h ^= k->seed ^ k->z ^ (k->w >> 7) ^ (k->px >> 13) ^ (k->py >> 17) ^ (k->s >> 11) ^ ((uint64_t)k->P << 40) ^
         ((uint64_t)(uint32_t)k->W << 20) ^ (uint64_t)(uint32_t)k->rows;
    h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93u;
    return (uint32_t)(h >> 32) % NBUCKETS;
}

static int key_eq(const hkey *a, const hkey *b)
{
    return a->node == b->node && a->stage == b->stage && a->seed == b->seed && a->ix == b->ix && a->iy == b->iy &&
           a->ax == b->ax && a->ay == b->ay && a->z == b->z && a->w == b->w && a->px == b->px && a->py == b->py &&
           a->s == b->s && a->P == b->P && a->W == b->W && a->y0 == b->y0 && a->rows == b->rows;
}

static patch *find(ng__hood_cache *h, const hkey *k)
{
    patch *p = h->bucket[key_hash(k)];
    while (p && !key_eq(&p->key, k)) p = p->next;
    return p;
}

static void unlink_bucket(ng__hood_cache *h, patch *p)
{
    patch **pp = &h->bucket[key_hash(&p->key)];
    while (*pp != p) pp = &(*pp)->next;
    *pp = p->next;
}

static void lru_remove(patch *p)
{
    p->older->newer = p->newer;
    p->newer->older = p->older;
}

/* The list: lru.older the most recently used, each patch's older link
 * toward the least recently used, lru.newer. */
static void lru_front(ng__hood_cache *h, patch *p)
{
    p->older = h->lru.older;
    p->newer = &h->lru;
    h->lru.older->newer = p;
    h->lru.older = p;
}

/* The key's stage of a strip (read_strips). */
#define STRIP 2

/* Patch p (ready, no reader holding it) out of the table and its memory
 * back to the slabs, under the lock. */
static void drop(ng__hood_cache *h, patch *p)
{
    lru_remove(p);
    unlink_bucket(h, p);
    give(h, p->bytes);
    ng__slab_put(&h->slabs, p->data, p->bytes);
    h->strips -= p->key.stage == STRIP;
    free(p);
}

/* Drops the least recently used patch no reader holds: 0, or -1 when every
 * patch is held (or none is kept). */
static int evict_one(ng__hood_cache *h)
{
    patch *p;
    for (p = h->lru.newer; p != &h->lru; p = p->newer)
        if (p->pins == 0) break;
    if (p == &h->lru) return -1;
    drop(h, p);
    h->stats.evicted++;
    return 0;
}

/* Under a memory limit, idle patch memory (core/slab.c's pool, which
 * evictions fill) is given back as the render's patches grow: what the
 * render counts and the idle chunks stay within the limit. */
static void trim_pool(const ng__stop *stop)
{
    size_t used;
    if (!stop || !stop->memory_limit) return;
    used = atomic_load(stop->memory_used);
    ng__slab_trim(used < stop->memory_limit ? stop->memory_limit - used : 0);
}

/* bytes more, under the lock: within the cap and the render's memory
 * limit, evicting for room. 0, or -1 when even eviction leaves none. */
static int take(ng__hood_cache *h, size_t bytes)
{
    for (;;) {
        if (h->bytes + bytes <= h->cap) {
            int ok = 1;
            if (h->stop && h->stop->memory_limit) {
                if (atomic_fetch_add(h->stop->memory_used, bytes) + bytes > h->stop->memory_limit) {
                    atomic_fetch_sub(h->stop->memory_used, bytes);
                    ok = 0;
                }
            }
            if (ok) {
                h->bytes += bytes;
                if (h->bytes > h->stats.peak) h->stats.peak = h->bytes;
                trim_pool(h->stop);
                return 0;
            }
        }
        if (evict_one(h)) return -1;
    }
}

int ng__hood_attach(ng__hood_cache *h, size_t cap, const ng__stop *stop)
{
    const int limited = stop && stop->memory_limit;
    pthread_mutex_lock(&h->mu);
    if (h->attached) {
        pthread_mutex_unlock(&h->mu);
        return -1;
    }
    h->attached = 1;
    h->cap = cap;
    h->stop = NULL; /* what it keeps is charged below, once */
    while (h->bytes > cap && evict_one(h) == 0) continue;
    while (limited && h->bytes) {
        if (atomic_fetch_add(stop->memory_used, h->bytes) + h->bytes <= stop->memory_limit) break;
        atomic_fetch_sub(stop->memory_used, h->bytes);
        if (evict_one(h)) break; /* cannot happen: no render pins its patches now */
    }
    h->stop = stop;
    trim_pool(stop);
    memset(&h->stats, 0, sizeof h->stats);
    h->stats.cap = cap;
    h->stats.peak = h->bytes;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

void ng__hood_detach(ng__hood_cache *h)
{
    pthread_mutex_lock(&h->mu);
    if (h->stop && h->stop->memory_limit) atomic_fetch_sub(h->stop->memory_used, h->bytes);
    h->stop = NULL;
    h->attached = 0;
    pthread_mutex_lock(&last_mu);
    last = h->stats;
    pthread_mutex_unlock(&last_mu);
    pthread_mutex_unlock(&h->mu);
}

int ng_hood_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len)
{
    (void)period, (void)dims;
    snprintf(buf, len, "%s%s%s: a --tileable render is not supported by neighbourhood nodes yet (their lattice does "
                       "not wrap with the image)", n->where ? n->where : "", n->where ? ": " : "", n->label);
    return -1;
}

int ng_hood_grid_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len)
{
    const double s = n->hood_spacing;
    int d;
    (void)dims;
    if (s <= 0) return 0; /* the render's pixels, or no lattice (analytic): they wrap with the image */
    for (d = 0; d < 2; d++) {
        const double q = period[d] / s;
        if (period[d] > 0 && !(fabs(q - nearbyint(q)) <= 1e-9 * q)) {
            snprintf(buf, len,
                     "%s%s%s: a --tileable render needs a lattice that wraps with the image: spacing %g does not "
                     "divide the image's %g world units (leave spacing out: the render's pixels)",
                     n->where ? n->where : "", n->where ? ": " : "", n->label, s, period[d]);
            return -1;
        }
    }
    return 0;
}

/* ---- sizes and messages ------------------------------------------------------------ */

/* Cells per patch edge: the node's or its type's (a key's may differ:
 * patch_cells), and a patch's side with the margins, for P cells. */
static int cells(const ng_node *n)
{
    return n->hood_patch > 0 ? n->hood_patch : n->type->hood->patch > 0 ? n->type->hood->patch : NG_HOOD_PATCH;
}
static int side(int P) { return P + 3; }

/* The nodes a patch of n keeps beside its own channels (ng__hood_mark_kept). */
typedef struct keptlist {
    int n, id[NG_HOOD_KEPT];
} keptlist;

static int keeps(const ng_node *n);

static keptlist kept_of(const int *kept, const ng_node *n)
{
    keptlist k = {0, {0}};
    int i;
    if (!keeps(n)) return k;
    for (i = 0; kept && i < n->id && k.n < NG_HOOD_KEPT; i++) /* sources come before their consumers */
        if (kept[i] == n->id + 1) k.id[k.n++] = i;
    return k;
}

/* A type with a run filter (ng_hood_type.run) keeps its source, one
 * channel with its halo, and computes its value where sampled. */
static int by_run(const ng_node *n) { return n->type->hood->run != NULL; }

/* Along each axis, the cells the source is evaluated on: from lead()
 * cells before the patch's own first, domain() of them. A filter's
 * domain is its side() and the halo around it; a run filter's only the
 * cells its runs read, its radius around the patch's own cells and the
 * cell after them (a bilinear sample's second): (P + 2 r + 1)^2 source
 * evaluations, 2 fewer per axis than side()'s margins would take (1.6 %
 * of a 256-cell patch's evaluations). */
static int lead(const ng_node *n) { return (by_run(n) ? 0 : MARGIN) + n->hood_radius; }
static int domain(const ng_node *n, int P)
{
    return by_run(n) ? P + 2 * n->hood_radius + 1 : side(P) + 2 * n->hood_radius;
}

/* The row stride of the planes a patch's samples are read from: its
 * domain's for a run filter (whose patch is its source), else side(). */
static int stride(const ng_node *n, int P) { return by_run(n) ? domain(n, P) : side(P); }
/* Where the patch's own first cell lies along each axis of those planes. */
static int own_at(const ng_node *n) { return by_run(n) ? lead(n) : MARGIN; }

/* Whether node x, kept by n's patches, is n's source on a domain laid out
 * as a kept plane is (a run filter of radius 1: domain() == side(), its own
 * cells at MARGIN): the patch's data is then that plane already, and is
 * read in its place instead of copied (the grid shading's height: a copy
 * of 259^2 cells a patch, into memory no cache held). */
static int kept_in_domain(const ng_node *n, int x)
{
    return by_run(n) && x == n->input[n->type->hood->input] && domain(n, 0) == side(0) && own_at(n) == MARGIN;
}

/* How many of the nkept kept nodes need a plane of their own. */
static int kept_copies(const ng_node *n, const int *kept, int nkept)
{
    int c, r = 0;
    for (c = 0; c < nkept; c++) r += !kept_in_domain(n, kept[c]);
    return r;
}

/* copies: the planes of kept nodes (kept_copies); patches of P cells */
static size_t patch_bytes(const ng_node *n, int copies, int P)
{
    const size_t S2 = (size_t)side(P) * (size_t)side(P), W = (size_t)stride(n, P);
    return ((by_run(n) ? W * W : (size_t)n->channels * S2) + (size_t)copies * S2) * sizeof(float);
}

/* The plane of patch p's kept node c (side()^2): its own, after the
 * patch's channels, or the patch's data (kept_in_domain). */
static float *kept_slot(const ng_node *n, const patch *p, int c)
{
    const int P = p->key.P;
    const size_t S2 = (size_t)side(P) * (size_t)side(P), W = (size_t)stride(n, P);
    if (kept_in_domain(n, p->kept[c])) return p->data;
    return p->data + (by_run(n) ? W * W : (size_t)n->channels * S2) + (size_t)kept_copies(n, p->kept, c) * S2;
}

/* A tile of a tile type: its channels and the source's first channel,
 * planes of its whole domain. */
static size_t tile_bytes(const ng_node *n)
{
    const size_t w = (size_t)side(cells(n)) + 2 * (size_t)n->hood_radius;
    return (size_t)(n->channels + 1) * w * w * sizeof(float);
}

/* A strip's rows (the last strip's may be fewer) and its bytes. */
static int strip_rows(const hkey *k)
{
    const int64_t left = (int64_t)k->rows - k->iy * (int64_t)k->P;
    return left < k->P ? (int)left : k->P;
}
static size_t strip_bytes(const hkey *k) { return (size_t)k->W * (size_t)strip_rows(k) * sizeof(float); }

static size_t key_bytes(const ng_node *n, const hkey *k, const int *kept, int nkept)
{
    if (k->stage == STRIP) return strip_bytes(k);
    return k->stage ? tile_bytes(n) : patch_bytes(n, kept_copies(n, kept, nkept), k->P);
}

/* The source's samples (ch channels) and the filter's scratch while a
 * patch (or a tile) is computed. */
static size_t halo_bytes(const ng_node *n, int ch)
{
    if (by_run(n)) return 0; /* the source goes straight into the patch */
    {
    const size_t w = (size_t)side(cells(n)) + 2 * (size_t)n->hood_radius;
    return (size_t)ch * (n->type->hood->tile ? w * w : 2 * w * w + 2 * w) * sizeof(float) +
           w * w * (size_t)n->type->hood->scratch;
    }
}

/* What one thread may hold for node n itself: a segment of its patches,
 * for a tile type the 3 x 3 tiles one of them blends, and the halo of
 * the one it computes. */
static size_t own_bytes(const ng_node *n, int ch, int copies)
{
    return SEGMENT * patch_bytes(n, copies, cells(n)) + (n->type->hood->tile ? 9 * tile_bytes(n) : 0) +
           halo_bytes(n, ch);
}

/* threads > 0: need is what that many threads may hold at once. */
static int too_large(ng_error *err, const ng_node *n, size_t need, size_t room, int threads)
{
    char name[320], on[64] = "", radius[96];
    ng__node_name(n, name, sizeof name);
    if (threads > 0) snprintf(on, sizeof on, " on %d thread%s", threads, threads == 1 ? "" : "s");
    if (n->hood_spacing > 0)
        snprintf(radius, sizeof radius, "radius %g (%d lattice cells of %g)", n->hood_radius * n->hood_spacing,
                 n->hood_radius, n->hood_spacing);
    else
        snprintf(radius, sizeof radius, "radius %d cells of the pixel lattice", n->hood_radius);
    /* a tile type's tiles are cells, whatever the spacing: a smaller tile
     * (a node that has the knob) is what helps */
    return ng_errorf(err,
                     "%s: %s needs %.1f MiB for patches of %d^2 cells with their halos%s, more than the %.1f MiB "
                     "the memory limit leaves neighbourhood patches (raise --memory-limit%s%s)",
                     name, radius, need / 1048576.0, cells(n), on, room / 1048576.0,
                     !n->type->hood->tile ? ", or take a larger spacing" : n->hood_patch ? ", or take a smaller tile" : "",
                     threads > 1 ? (n->type->hood->tile && !n->hood_patch ? ", or fewer --threads" : " or fewer --threads")
                                 : "");
}

/* A tile type's geometry: its tiles are a patch and half a patch around
 * it (a radius of cells(n) / 2: ng_hood_tile_radius), patches of an even
 * number of cells, so neighbouring tiles overlap by exactly half. */
static int tile_geometry(const ng_node *n, int radius, ng_error *err)
{
    const ng_hood_type *t = n->type->hood;
    if (!t || !t->tile) return 0;
    if (cells(n) % 2)
        return ng_errorf(err, "%s: a tile type's patches are an even number of cells, not %d", n->label, cells(n));
    if (radius != cells(n) / 2)
        return ng_errorf(err, "%s: a tile type's radius is %d cells (half its patch), not %d", n->label, cells(n) / 2,
                         radius);
    return 0;
}

int ng_hood_tile_radius(const ng_node *n) { return cells(n) / 2; }

int ng_hood_tile_patch(ng_node *n, int count, ng_error *err)
{
    if (!n->type->hood || !n->type->hood->tile || count < 16 || count > 1024 || count % 2)
        return ng_errorf(err, "%s: a tile type's patch is an even number of cells from 16 to 1024, not %d", n->label,
                         count);
    n->hood_patch = count;
    return 0;
}

/* In setup: the caller (the Lua host) puts the script's place before the
 * message, so it names the node by its label alone. */
int ng_hood_declare(ng_node *n, double spacing, double radius_world, int radius, ng_error *err)
{
    const char *name = n->label;
    if (!(spacing > 0) || !isfinite(spacing))
        return ng_errorf(err, "%s: the lattice spacing must be a positive number, not %g", name, spacing);
    /* Neighbouring cells a millionth of the source's finest detail apart
     * differ by its float rounding alone (a light of spacing 1e-9 came out
     * flat, an erosion filter's gullies and a curvature random): refused */
    if (isfinite(n->detail) && spacing < n->detail * NG_HOOD_MIN_SPACING)
        return ng_errorf(err, "%s: spacing %g is too fine for its source, whose finest detail is %g world units: "
                              "float positions do not resolve cells closer than %g",
                         name, spacing, n->detail, n->detail * NG_HOOD_MIN_SPACING);
    if (tile_geometry(n, radius, err)) return -1;
    if (radius < 0 || radius > NG_HOOD_MAX_RADIUS)
        return ng_errorf(err,
                         "%s: radius %g is %.0f lattice cells of %g; a neighbourhood reaches at most %d cells (raise "
                         "the spacing to at least %g, or take a smaller radius)",
                         name, radius_world, ceil(radius_world / spacing), spacing, NG_HOOD_MAX_RADIUS,
                         radius_world / NG_HOOD_MAX_RADIUS);
    n->hood_spacing = spacing;
    n->hood_radius = radius;
    if (n->detail < spacing) n->detail = spacing; /* nothing finer survives the lattice: fractals of it stop there */
    return 0;
}

int ng_hood_declare_pixel(ng_node *n, int radius, int anchor, ng_error *err)
{
    if (tile_geometry(n, radius, err)) return -1;
    if (radius < 0 || radius > NG_HOOD_MAX_RADIUS)
        return ng_errorf(err, "%s: radius %d cells; a neighbourhood reaches at most %d cells", n->label, radius,
                         NG_HOOD_MAX_RADIUS);
    n->hood_spacing = -1; /* the block's footprint */
    n->hood_radius = radius;
    n->hood_anchor = anchor;
    return 0;
}

int ng_hood_active(const ng_node *n) { return n->type->hood && n->hood_spacing != 0; }

int ng__hood_check(const ng_graph *g, const int *roots, int nroots, size_t room, int threads, ng_error *err)
{
    const int count = ng_graph_count(g);
    unsigned char *mark = ng__reachable(g, roots, nroots);
    size_t *need = calloc((size_t)count + 1, sizeof *need);
    int *uses = ng__uses(g, roots, nroots);
    int i, k, found = 0, rc = 0;
    if (!mark || !need || !uses) {
        free(mark);
        free(need);
        free(uses);
        return ng_errorf(err, "render: out of memory");
    }
    /* need[i]: what one thread may hold for node i: its segment of pinned
     * patches and the halo of the one it computes, over the deepest chain
     * of neighbourhood nodes below (ids ascend from sources to consumers) */
    for (i = 0; i < count && rc == 0; i++) {
        const ng_node *n = ng_graph_node(g, i);
        for (k = 0; k < ng_node_slots(n); k++)
            if (n->input[k] >= 0 && need[n->input[k]] > need[i]) need[i] = need[n->input[k]];
        if (!ng_hood_active(n)) continue;
        const keptlist kl = kept_of(uses + count + 1, n);
        need[i] += own_bytes(n, ng_node_channels(ng_graph_node(g, n->input[n->type->hood->input])),
                             kept_copies(n, kl.id, kl.n));
        if (!mark[i]) continue;
        found++;
        if (room && need[i] > room / (size_t)threads) rc = too_large(err, n, need[i] * (size_t)threads, room, threads);
    }
    free(mark);
    free(need);
    free(uses);
    return rc ? rc : found;
}

/* Whether n keeps nodes of its source's graph: a pixel lattice anchored
 * as the render is, sampled bilinearly (a pixel reads its cell alone). */
static int keeps(const ng_node *n)
{
    return ng_hood_active(n) && n->hood_spacing < 0 && n->hood_anchor == NG_HOOD_ANCHOR_RENDER &&
           !n->type->hood->smooth && !n->type->hood->tile;
}

void ng__hood_mark_kept(const ng_graph *g, const int *uses, int *kept)
{
    const int count = ng_graph_count(g);
    int *inner = calloc((size_t)count + 1, sizeof *inner), *outer = calloc((size_t)count + 1, sizeof *outer);
    int *stack = calloc((size_t)count + 1, sizeof *stack);
    unsigned char *in = calloc((size_t)count + 1, 1);
    int i, j, k;
    if (!inner || !outer || !stack || !in) goto done; /* no node kept: each evaluated where it is read */
    /* outer[x]: reads of x at its reader's positions, the whole graph's */
    for (i = 0; i < count; i++)
        for (k = 0; k < ng_node_slots(ng_graph_node(g, i)); k++)
            if (ng__same_position(ng_graph_node(g, i), k)) outer[ng_graph_node(g, i)->input[k]]++;
    for (i = 0; i < count; i++) {
        const ng_node *n = ng_graph_node(g, i);
        int sp = 0, nk = 0;
        if (!keeps(n)) continue;
        /* the source's graph at the source's positions (the lattice's
         * cells): in[], and inner[x], its reads of x */
        memset(in, 0, (size_t)count);
        memset(inner, 0, (size_t)count * sizeof *inner);
        in[stack[sp++] = n->input[n->type->hood->input]] = 1;
        while (sp) {
            const ng_node *m = ng_graph_node(g, stack[--sp]);
            for (k = 0; k < ng_node_slots(m); k++) {
                if (!ng__same_position(m, k)) continue;
                inner[m->input[k]]++;
                if (!in[m->input[k]]) in[stack[sp++] = m->input[k]] = 1;
            }
        }
        /* kept: those the render reads elsewhere at its positions too (a
         * reader outside, or a root), one channel, not constant */
        for (j = count - 1; j >= 0 && nk < NG_HOOD_KEPT; j--) {
            const ng_node *x = ng_graph_node(g, j);
            double v;
            if (!in[j] || kept[j] || x->channels != 1 || ng_node_is_constant(x, &v)) continue;
            if (outer[j] > inner[j] || uses[j] > x->refcount) kept[j] = i + 1, nk++;
        }
    }
done:
    free(inner);
    free(outer);
    free(stack);
    free(in);
}

/* ---- computing a patch ------------------------------------------------------------- */

/* The y of a patch's cells start .. start + m - 1 (w a row, ys[row] a
 * row's y) into py: a fill per row. Their x need no copy: a row's xs
 * repeated (xrep) from the chunk's first column is every row's. */
static void cell_ys(const float *ys, float *py, int64_t start, int m, int w)
{
    int col = (int)(start % w), row = (int)(start / w), i, len;
    for (i = 0; i < m; i += len, col = 0, row++) {
        len = w - col < m - i ? w - col : m - i;
        ng__fill(py + i, ys[row], len);
    }
}

/* A sentinel of hkey.ax: the patch is anchored at its own first cell. */
#define WORLD_ANCHOR INT64_MIN

/* Along an axis (0: x, 1: y), the cell patch 0 starts at: for a lattice
 * anchored as the render is, the anchor's cell, so an image at any origin
 * is cut into whole patches from its corner (at a world-aligned cut, an
 * image whose origin lies mid-patch computed the slivers of patches around
 * it: a 2048^2 grid shading 128 pixels off, 27 % more of its source); a
 * cell's bits do not depend on where patches start, as every cell is
 * evaluated at the anchor with its own offset (cell_offsets). Else 0:
 * patches at fixed world places. */
static int64_t grid_origin(const hkey *k, int axis)
{
    return k->ax == WORLD_ANCHOR ? 0 : axis ? k->ay : k->ax;
}

/* The cell of the lattice of spacing s nearest world coordinate a (a
 * block's anchor), or WORLD_ANCHOR where it is 2^52 cells or more away
 * (offsets from it would be no position at all). */
static int64_t anchor_cell(double a, double s)
{
    const double q = a / s;
    if (!(fabs(q) < 4503599627370496.0)) return WORLD_ANCHOR;
    return (int64_t)nearbyint(q);
}

/* Along one axis, the anchor of patch cells first .. first + w - 1 (cell
 * first is the halo's) and their offsets from it into at[]: from the
 * anchor's cell `a` as a render's pixels are from its origin, ((cell - a)
 * + 0.5) s (NG_HOOD_ANCHOR_RENDER, ng_node.h), or from the first cell's
 * centre, i s (WORLD_ANCHOR). */
static double cell_offsets(int64_t first, int64_t a, double s, int w, float *at)
{
    double base;
    int i;
    if (a == WORLD_ANCHOR) {
        for (i = 0; i < w; i++) at[i] = (float)((double)i * s);
        return ((double)first + 0.5) * s;
    }
    /* (first - a) + i + 0.5 is exact in doubles (|first - a| < 2^52), as
     * first + i - a was: the same bits, and a loop that vectorises */
    for (i = 0, base = (double)(first - a) + 0.5; i < w; i++) at[i] = (float)((base + (double)i) * s);
    return (double)a * s;
}

/* Values v of the cells start .. start + m - 1 of a patch's domain (w a
 * side, its first cell r before the first of plane's) into plane, S^2
 * (the patch's own cells and its margins): the rest of the domain
 * dropped. */
static void keep_cells(float *plane, const float *v, int64_t start, int m, int w, int r, int S)
{
    int i, len;
    for (i = 0; i < m; i += len) {
        const int row = (int)((start + i) / w) - r, col = (int)((start + i) % w) - r; /* the plane's */
        const int lo = col > 0 ? col : 0;
        int hi;
        len = w - (col + r) < m - i ? w - (col + r) : m - i;
        hi = col + len < S ? col + len : S;
        if (row >= 0 && row < S && hi > lo)
            memcpy(plane + (size_t)row * S + lo, v + i + (lo - col), (size_t)(hi - lo) * sizeof(float));
    }
}

/* The source of n on w x hgt cells into in (its channels, planes of w x
 * hgt): those from (x + skip, y + skip) on, their anchor and offsets as
 * cell_offsets gives them for cells from (x, y). In chunks of the
 * context's block size rounded down to 16 cells: the same bits for any
 * chunking, as evaluation is per point. In a patch's memory (slab.c's
 * slots start on a cache line) each chunk then begins on a cache line,
 * and the source's vector stores never straddle two: chunks of whole rows
 * (w = P + 3 cells, odd) began anywhere in a line, and the grid shading's
 * source, which writes into the patch, took 4 % longer a sample than the
 * same kernel over the render's tiles (alligator, cycles counted around
 * its calls). A one-channel source is pulled straight into its place.
 * The nodes p keeps are evaluated first at each chunk (so the source's
 * graph finds them memoised) and their cells copied to p's planes past
 * n's. */
static int evaluate_cells(ng_ctx *ctx, const ng_node *n, const ng_block *b, const patch *p, float *in, int64_t x,
                          int64_t y, int skip, int w, int hgt)
{
    const int k = n->type->hood->input, ch = ng_input_channels(ctx, n, k), cap = ng__ctx_cap(ctx), P = p->key.P,
              S = side(P);
    const double s = spacing_of(&p->key);
    const int64_t total = (int64_t)w * hgt;
    const int64_t step = cap >= 16 ? cap / 16 * 16 : cap;
    float *py = ng_scratch(ctx, 1), *buf = ch > 1 ? ng_scratch(ctx, ch) : NULL;
    float *kb = p->nkept ? ng_scratch(ctx, 1) : NULL;
    float *mem = malloc(((size_t)(w + skip) + (size_t)(hgt + skip) + (size_t)w + (size_t)step) * sizeof *mem), *xs = mem,
          *ys, *xrep;
    ng_block lb;
    int64_t start;
    int rc = -1, c;
    ng__ctx_filling(ctx, 1);
    if (!py || (ch > 1 && !buf) || (p->nkept && !kb)) goto done;
    if (!mem) {
        ng_fail(ctx, "out of memory for a neighbourhood patch");
        goto done;
    }
    ys = mem + w + skip;
    xrep = ys + hgt + skip;
    memset(&lb, 0, sizeof lb);
    lb.dims = 2;
    lb.anchor[0] = cell_offsets(x, p->key.ax, s, w + skip, xs);
    lb.anchor[1] = cell_offsets(y, p->key.ay, s, hgt + skip, ys);
    xs += skip, ys += skip;
    for (c = 0; c < w + step; c += w) /* whole copies of the row: no division a cell */
        memcpy(xrep + c, xs, (size_t)(w + step - c < w ? w + step - c : w) * sizeof *xrep);
    lb.anchor[2] = b->anchor[2];
    lb.anchor[3] = b->anchor[3];
    lb.period[0] = b->period[0];
    lb.period[1] = b->period[1];
    lb.seed = b->seed;
    lb.footprint = (float)s; /* fractals below stop at the lattice's detail, which so filters them */
    lb.p[1] = py;
    lb.p[2] = lb.p[3] = ng__ctx_zeros(ctx);
    for (start = 0; start < total; start += step) {
        const int m = (int)(total - start < step ? total - start : step);
        lb.p[0] = xrep + start % w;
        cell_ys(ys, py, start, m, w);
        lb.n = m;
        lb.pos_id = ng_new_pos_id(ctx);
        for (c = 0; c < p->nkept; c++) {
            if (p->kept[c] == n->input[k]) continue; /* the source itself: from in, below */
            if (ng__eval(ctx, p->kept[c], &lb, kb, 0)) goto done;
            keep_cells(kept_slot(n, p, c), kb, start, m, w, lead(n) - MARGIN, S);
        }
        if (ng_pull(ctx, n, k, &lb, ch > 1 ? buf : in + start)) goto done;
        for (c = 0; c < p->nkept; c++) {
            if (p->kept[c] == n->input[k] && !kept_in_domain(n, p->kept[c]))
                keep_cells(kept_slot(n, p, c), in + start, start, m, w, lead(n) - MARGIN, S);
            ng__memo_drop(ctx, p->kept[c], &lb); /* read by the source's graph already */
        }
        for (c = 0; c < ch && ch > 1; c++)
            memcpy(in + (size_t)c * (size_t)total + (size_t)start, buf + (size_t)c * (size_t)m,
                   (size_t)m * sizeof(float));
    }
    rc = 0;
done:
    ng__ctx_filling(ctx, -1);
    ng_scratch_free(ctx, py, 1);
    if (kb) ng_scratch_free(ctx, kb, 1);
    if (buf) ng_scratch_free(ctx, buf, ch);
    free(mem);
    return rc;
}

/* The source of n on patch p's domain (lead(), domain(): w a side). The
 * points' anchor and offsets are those of a domain from MARGIN + radius
 * cells before the patch's own (a world-anchored patch's from its first
 * cell): a run filter's smaller domain has the bits of the cells it
 * shares. */
static int evaluate_source(ng_ctx *ctx, const ng_node *n, const ng_block *b, const patch *p, float *in, int w)
{
    const int skip = MARGIN + n->hood_radius - lead(n), P = p->key.P;
    const int64_t x = grid_origin(&p->key, 0) + p->key.ix * P - MARGIN - n->hood_radius;
    const int64_t y = grid_origin(&p->key, 1) + p->key.iy * P - MARGIN - n->hood_radius;
    return evaluate_cells(ctx, n, b, p, in, x, y, skip, w, w);
}

/* 0 where run filter n's source has one channel (its patches and strips
 * hold that one plane), else -1 with the context's error set. */
static int one_channel_source(ng_ctx *ctx, const ng_node *n)
{
    if (ng_input_channels(ctx, n, n->type->hood->input) == 1) return 0;
    return ng_fail(ctx, "%s: a run filter reads a one-channel source", n->label);
}

/* A patch's data (its bytes, counted already): from the cache's chunks
 * (core/slab.c), under its lock. NULL when the system has no room. */
static float *data_new(ng__hood_cache *h, size_t bytes)
{
    float *d;
    pthread_mutex_lock(&h->mu);
    d = ng__slab_get(&h->slabs, bytes);
    pthread_mutex_unlock(&h->mu);
    return d;
}

/* The seed of a tile: the render's seed and the tile's world index. */
static uint64_t tile_seed(const hkey *k)
{
    uint64_t z = (uint64_t)k->seed * 0x9E3779B97F4A7C15u ^ (uint64_t)k->ix * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 31)) * 0x94D049BB133111EBu ^ (uint64_t)k->iy * 0xD6E8FEB86659FD93u;
    return z ^ (z >> 29);
}

/* Patch p (stage 0, or a tile: stage 1) computed from its source: the
 * filter over the patch and its halo, or the tile function over the
 * tile's whole domain (the source's first channel kept beside it). */
static int compute_own(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, patch *p)
{
    const int P = p->key.P, w = domain(n, P);
    const int ch = ng_input_channels(ctx, n, n->type->hood->input);
    const ng_hood_type *t = n->type->hood;
    const size_t halo = halo_bytes(n, ch), plane = (size_t)w * (size_t)w;
    float *in;
    int rc, taken;
    pthread_mutex_lock(&h->mu);
    taken = take(h, halo) == 0;
    pthread_mutex_unlock(&h->mu);
    if (!taken) {
        ng_error e;
        too_large(&e, n, key_bytes(n, &p->key, p->kept, p->nkept) + halo, h->cap, 0);
        return ng_fail(ctx, "%s", e.msg);
    }
    p->data = data_new(h, p->bytes);
    in = by_run(n) ? p->data : malloc(halo); /* a run filter's patch is its source */
    rc = !in || !p->data ? ng_fail(ctx, "out of memory for a neighbourhood patch") : 0;
    if (rc == 0 && by_run(n)) rc = one_channel_source(ctx, n);
    if (rc == 0) rc = evaluate_source(ctx, n, b, p, in, w);
    if (rc == 0 && by_run(n)) {
        /* its value is computed where it is sampled */
    } else if (rc == 0 && p->key.stage) {
        memcpy(p->data + (size_t)n->channels * plane, in, plane * sizeof(float));
        if (t->tile(n, in, p->data, w, ch, tile_seed(&p->key)))
            rc = ng_fail(ctx, "%s: out of memory for a simulation tile of %d^2 cells", n->label, w);
    } else if (rc == 0 && t->filter_placed) {
        const double s = spacing_of(&p->key);
        const ng_hood_place at = {s, {((double)(grid_origin(&p->key, 0) + p->key.ix * P - MARGIN) + 0.5) * s,
                                      ((double)(grid_origin(&p->key, 1) + p->key.iy * P - MARGIN) + 0.5) * s},
                                  p->key.seed};
        t->filter_placed(n, in, p->data, in + (size_t)ch * plane, side(P), n->hood_radius, ch, &at);
    } else if (rc == 0 && t->filter_spaced) {
        t->filter_spaced(n, in, p->data, in + (size_t)ch * plane, side(P), n->hood_radius, ch, spacing_of(&p->key));
    } else if (rc == 0) {
        t->filter(n, in, p->data, in + (size_t)ch * plane, side(P), n->hood_radius, ch);
    }
    if (in != p->data) free(in);
    pthread_mutex_lock(&h->mu);
    give(h, halo);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* The window of a tile of 2 P cells at d cells from its centre,
 * normalised by the windows of the tiles P before and after (the three
 * that can reach a cell): cos^2 (pi d / 2 P), 0 from |d| = P on. */
static float tile_weight(int P, double d)
{
    const double pi = 3.14159265358979323846, half = P; /* half a tile: P / 2 + P / 2 */
    double wa[3], sum = 0;
    int a;
    for (a = 0; a < 3; a++) {
        const double e = d + (double)P * (a - 1);
        sum += wa[a] = fabs(e) < half ? ng_cos(pi * e / (2 * half)) * ng_cos(pi * e / (2 * half)) : 0.0;
    }
    return (float)(wa[1] / sum);
}

/* The partition of unity along an axis of a tile type's patches of P
 * cells: unity[a * S + i] (S = P + 3, side()) the weight of the tile a - 1
 * patches from a patch's own at the patch's cell i. Tile t's window is
 * cos^2 over its nominal extent (patch t and half a patch each side), 0
 * at its edges; neighbouring windows, a half period apart, sum to 1, and
 * the weights are divided by their sum so they do in floats too. A
 * function of P alone (3 S cosines, next to the blend's 9 S^2 products
 * per channel: made for each blend). */
static void make_unity(float *unity, int P)
{
    const int S = P + 3;
    int a, i;
    for (i = 0; i < S; i++)
        for (a = 0; a < 3; a++) unity[a * S + i] = tile_weight(P, i - MARGIN + 0.5 - (double)P * (a - 1) - P / 2.0);
}

void ng_hood_tile_window(const ng_node *n, float *win)
{
    const int P = cells(n), w = domain(n, P);
    int k;
    for (k = 0; k < w; k++) win[k] = tile_weight(P, k - n->hood_radius - MARGIN + 0.5 - P / 2.0);
}

/* The patches of a node that the block being sampled needs (its segment):
 * a thread that waits for a tile another is simulating computes a tile
 * of one of these instead (help). */
typedef struct wanted {
    const hkey *keys;
    int m;
} wanted;

static int acquire_all(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg,
                       const hkey *keys, patch **got, int m);
static void release_all(ng__hood_cache *h, patch **got, int m);

/* Patch p of a tile type: the blend of the 3 x 3 tiles around it (got[3
 * (b + 1) + a + 1] the tile a, b patches away), channel by channel, the
 * source's first channel added to channel 0. */
static void blend(const ng_node *n, patch *const *got, const float *unity, float *out)
{
    const int P = cells(n), S = side(P), R = n->hood_radius, w = S + 2 * R, C = n->channels;
    const size_t plane = (size_t)w * (size_t)w;
    int c, i, j, a, bb;
    for (c = 0; c < C; c++)
        for (j = 0; j < S; j++)
            for (i = 0; i < S; i++) {
                float v = 0.0f;
                for (bb = 0; bb < 3; bb++)
                    for (a = 0; a < 3; a++) {
                        const float wt = unity[a * S + i] * unity[bb * S + j];
                        const int lx = i + R - P * (a - 1);
                        const int ly = j + R - P * (bb - 1);
                        if (wt != 0.0f) v += wt * got[3 * bb + a]->data[(size_t)c * plane + (size_t)ly * w + lx];
                    }
                if (c == 0) v += got[4]->data[(size_t)C * plane + (size_t)(j + R) * w + i + R];
                out[(size_t)c * S * S + (size_t)j * S + i] = v;
            }
}

static int compute_blend(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg,
                         patch *p)
{
    hkey keys[9];
    patch *got[9];
    float *unity = malloc(3 * (size_t)side(cells(n)) * sizeof *unity);
    int a, bb;
    if (!unity) return ng_fail(ctx, "out of memory for a neighbourhood patch");
    make_unity(unity, cells(n));
    for (bb = 0; bb < 3; bb++)
        for (a = 0; a < 3; a++) {
            keys[3 * bb + a] = p->key;
            keys[3 * bb + a].stage = 1;
            keys[3 * bb + a].ix += a - 1;
            keys[3 * bb + a].iy += bb - 1;
        }
    if (!(p->data = data_new(h, p->bytes)) || acquire_all(ctx, h, n, b, seg, keys, got, 9)) {
        free(unity);
        return p->data ? -1 : ng_fail(ctx, "out of memory for a neighbourhood patch");
    }
    blend(n, got, unity, p->data);
    release_all(h, got, 9);
    free(unity);
    return 0;
}

static int compute_strip(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, patch *p);

static int compute(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg, patch *p)
{
    if (p->key.stage == STRIP) return compute_strip(ctx, h, n, b, p);
    if (n->type->hood->tile && !p->key.stage) return compute_blend(ctx, h, n, b, seg, p);
    return compute_own(ctx, h, n, b, p);
}

/* Under the lock: patch k of n ready (pinned for the caller: READY),
 * absent (inserted, pinned, for the caller to compute: CLAIMED), or being
 * computed by another thread (BUSY); NO_ROOM when none fits. */
enum { READY, CLAIMED, BUSY, NO_ROOM };
static int lookup_locked(ng__hood_cache *h, const ng_node *n, const hkey *k, const keptlist *kl, patch **out)
{
    const int nkept = k->stage ? 0 : kl->n;
    patch *p = find(h, k);
    *out = NULL;
    if (p && !p->ready) return BUSY;
    if (p) {
        p->pins++;
        lru_remove(p);
        lru_front(h, p);
        h->stats.hits++;
        *out = p;
        return READY;
    }
    if (!(p = calloc(1, sizeof *p))) return NO_ROOM;
    if (take(h, key_bytes(n, k, kl->id, nkept))) {
        free(p);
        return NO_ROOM;
    }
    p->key = *k;
    p->bytes = key_bytes(n, k, kl->id, nkept);
    p->nkept = nkept;
    memcpy(p->kept, kl->id, sizeof p->kept);
    p->pins = 1;
    h->strips += k->stage == STRIP;
    p->next = h->bucket[key_hash(k)];
    h->bucket[key_hash(k)] = p;
    *out = p;
    return CLAIMED;
}

/* Computes a claimed patch and publishes it (or, failing, drops it): 0, or
 * -1 with the context's error set. */
static int fill(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg, patch *p)
{
    const int rc = compute(ctx, h, n, b, seg, p);
    pthread_mutex_lock(&h->mu);
    if (rc) {
        unlink_bucket(h, p);
        give(h, p->bytes);
        ng__slab_put(&h->slabs, p->data, p->bytes);
        h->strips -= p->key.stage == STRIP;
    } else {
        p->ready = 1;
        lru_front(h, p);
        h->stats.computed++;
    }
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (rc) free(p);
    return rc;
}

/* got[0 .. m - 1]'s pins given back (NULLs skipped), under the lock. */
static void unpin(patch **got, int m)
{
    int i;
    for (i = 0; i < m; i++)
        if (got[i]) got[i]->pins--;
}

static void release_all(ng__hood_cache *h, patch **got, int m)
{
    pthread_mutex_lock(&h->mu);
    unpin(got, m);
    pthread_mutex_unlock(&h->mu);
}

/* Rather than wait for tiles another thread is simulating: a tile of a
 * tile type that nobody has begun, first among the 3 x 3 tiles of each
 * patch of the segment not ready yet (those other threads are blending,
 * and those the block reads next), then among those of the patches one
 * row below them (the row of patches the render reads next; at its last
 * row, a tile it may not need: the price of not idling). Whoever blends
 * the patch then finds the tile ready. 1 when it computed one, 0 when
 * there was none to compute, -1 with the context's error set. */
static int strip_help(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg);

static int help(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg)
{
    const keptlist none = {0, {0}};
    int i, t, below;
    if (seg->m && seg->keys[0].stage == STRIP) return strip_help(ctx, h, n, b, seg);
    if (!n->type->hood->tile) return 0;
    for (below = 0; below < 2; below++)
        for (i = 0; i < seg->m; i++) {
            hkey pk = seg->keys[i];
            pk.iy += below;
            for (t = below ? 6 : 0; t < 9 && !pk.stage; t++) { /* below: its new row of tiles alone */
                hkey k = pk;
                patch *p;
                int r = READY;
                k.stage = 1, k.ix += t % 3 - 1, k.iy += t / 3 - 1;
                pthread_mutex_lock(&h->mu);
                if ((p = find(h, &pk)) && p->ready) {
                    t = 9; /* blended already: its tiles are not wanted */
                } else if ((r = lookup_locked(h, n, &k, &none, &p)) == READY) {
                    p->pins--;
                }
                pthread_mutex_unlock(&h->mu);
                if (r != CLAIMED) continue; /* ready, busy, or no room now: the owner will see */
                if (fill(ctx, h, n, b, seg, p)) return -1;
                release_all(h, &p, 1);
                return 1;
            }
        }
    return 0;
}

/* The m patches keys[] of n pinned into got[] (release_all). A patch that
 * another thread is computing is passed over for the next, so threads
 * reading the same row of patches compute different ones; it waits only
 * when every patch left is being computed elsewhere. 0, or -1 with the
 * context's error set and nothing pinned. */
static int acquire_all(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg,
                       const hkey *keys, patch **got, int m)
{
    const keptlist kl = kept_of(ng__ctx_kept(ctx), n);
    int left = m, i;
    for (i = 0; i < m; i++) got[i] = NULL;
    while (left) {
        int progress = 0;
        for (i = 0; i < m; i++) {
            int r;
            if (got[i]) continue;
            pthread_mutex_lock(&h->mu);
            r = lookup_locked(h, n, &keys[i], &kl, &got[i]);
            pthread_mutex_unlock(&h->mu);
            if (r == BUSY) continue;
            if (r == NO_ROOM || (r == CLAIMED && fill(ctx, h, n, b, seg, got[i]))) {
                if (r == NO_ROOM) {
                    ng_error e;
                    too_large(&e, n, key_bytes(n, &keys[i], kl.id, kl.n) +
                                         halo_bytes(n, ng_input_channels(ctx, n, n->type->hood->input)),
                              h->cap, 0);
                    ng_fail(ctx, "%s", e.msg);
                }
                got[i] = NULL;
                release_all(h, got, m);
                return -1;
            }
            left--;
            progress = 1;
        }
        if (progress || !left) continue;
        if ((progress = help(ctx, h, n, b, seg)) < 0) {
            release_all(h, got, m);
            return -1;
        }
        if (progress) continue;
        pthread_mutex_lock(&h->mu); /* all left are being computed: wait for one */
        for (;;) {
            patch *p = NULL;
            for (i = 0; i < m; i++)
                if (!got[i] && (!(p = find(h, &keys[i])) || p->ready)) break;
            if (i < m) break;
            pthread_cond_wait(&h->cv, &h->mu);
        }
        pthread_mutex_unlock(&h->mu);
    }
    return 0;
}

/* ---- sampling ------------------------------------------------------------------------ */

/* Position v's coordinate in lattice cells of s (cell k centred on k):
 * v / s - 0.5, by a multiply with inv = 1 / s when s is a power of two
 * (the same bits: the product is then exact), else a division. */
static inline double lattice_coord(double v, double s, double inv) { return (inv != 0 ? v * inv : v / s) - 0.5; }

static int power_of_two(double s)
{
    int e;
    return frexp(s, &e) == 0.5;
}

/* floor(u) as an integer, |u| < 2^62, without a call to floor. */
static inline int64_t floor_cell(double u)
{
    const int64_t k = (int64_t)u;
    return (double)k > u ? k - 1 : k;
}

static int64_t patch_of(int64_t cell, int P) { return cell >= 0 ? cell / P : -((-cell + P - 1) / P); }


/* Along one axis, the value at fraction t between p[0] and p[step]: a
 * cubic B-spline over p[-step] .. p[2 step] (smooth: its slope and
 * curvature are continuous from cell to cell, so shading of it shows no
 * facets; its weights are positive, so it stays within its samples) or a
 * straight line. Written as p[0] plus weighted differences from it, so
 * equal samples give exactly their value. */
typedef struct bweights {
    float w0, w2, w3;
} bweights;

static inline bweights bspline_weights(float t)
{
    const float u = 1.0f - t, t2 = t * t, t3 = t2 * t;
    const bweights w = {u * u * u * (1.0f / 6), (-3.0f * t3 + 3.0f * t2 + 3.0f * t + 1.0f) * (1.0f / 6),
                        t3 * (1.0f / 6)};
    return w;
}

/* (the weights of a fraction computed once per point, for every row and
 * channel: the same bits as computing them at each) */
static inline float bspline(const float *p, ptrdiff_t step, bweights w)
{
    return p[0] + w.w0 * (p[-step] - p[0]) + w.w2 * (p[step] - p[0]) + w.w3 * (p[2 * step] - p[0]);
}

/* How many points from i on (1 to room) lie on the centres of the cells
 * that follow point i's (cell kx, on its centre) along its row: the
 * positions a render on the lattice's grid asks for, read without
 * interpolation (bilinear lattices only: a cubic B-spline's value on a
 * centre is not the cell's). A point counts only when the general path would find it
 * on that cell's centre too. */
static int on_centre(const ng_block *b, int i, int k, float y, double s, double inv, int64_t kx)
{
    return b->p[1][i + k] == y && lattice_coord(b->anchor[0] + (double)b->p[0][i + k], s, inv) == (double)(kx + k);
}

/* The test of a run of points from a row's first (x at px, y at py), on
 * the centres of cells base, base + 1, ...: the general path's,
 * (ax + x) inv - 0.5 == base + q in doubles; or, where it gives the same
 * verdicts (float_test), x == x0 + q s in floats, twice the points a
 * vector. */
typedef struct centre_test {
    const float *px, *py;
    float y, x0, s;
    double ax, inv, base;
    int floats;
} centre_test;

static const float iota32[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* Whether point k and the 31 after it pass t, each into ok[] (and-ed: a
 * lane 0 stays 0). No early exit, so it vectorises; exact comparisons,
 * the same answer on every path. k + j and base + k + j are exact: sums
 * of integers below 2^24 (floats) and 2^52 (doubles). */
static inline void centred_group(const centre_test *t, int k, int *ok)
{
    const float *px = t->px + k, *py = t->py + k;
    int j;
    if (t->floats) {
        const float at = (float)k;
        for (j = 0; j < 32; j++) ok[j] &= (py[j] == t->y) & (px[j] == t->x0 + (at + iota32[j]) * t->s);
    } else {
        const double at = t->base + (double)k;
        for (j = 0; j < 32; j++)
            ok[j] &= (py[j] == t->y) & ((t->ax + (double)px[j]) * t->inv - 0.5 == at + (double)iota32[j]);
    }
}

static inline int all_of(const int *ok)
{
    int r = 1, j;
    for (j = 0; j < 32; j++) r &= ok[j];
    return r;
}

/* From point k, how many of the points before end pass t (centred_group),
 * in AVX-512 or AVX2 where the CPU has them, end - k >= 32: end when
 * every one does (checked in groups of 32 with one verdict at the end: a
 * run's usual case, a whole row of a patch), else the first point of the
 * first group with a miss (the rest taken one by one). The last group
 * may overlap the one before. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static int centred_groups(const centre_test *t, int k, int end)
{
    int ok[32], j, q;
    for (j = 0; j < 32; j++) ok[j] = 1;
    for (q = k; q + 32 <= end; q += 32) centred_group(t, q, ok);
    if (q < end) centred_group(t, end - 32, ok);
    if (all_of(ok)) return end;
    for (q = k; q + 32 <= end; q += 32) {
        for (j = 0; j < 32; j++) ok[j] = 1;
        centred_group(t, q, ok);
        if (!all_of(ok)) break;
    }
    return q;
}

/* Whether the points of a row from point i (x0 at p, on cell kx's
 * centre as the general path finds it), end of them, may take the float
 * test: the same verdicts as the general path's. With s = 2^e (inv its
 * inverse, exact), the anchor a whole number a of cells and X = p / s (a
 * float, exact), the general path finds point q on cell kx + q's centre
 * iff fl(a + X) - 0.5 == kx + q; where |kx + q| < 2^21 that holds iff a
 * + X rounds to kx + q + 0.5, so X lies within 2^-31 of the half-integer
 * kx + q - a + 0.5, which no float but that half-integer does: iff X is
 * it. The float test's x0 + q s is (X0 + q) s, exact where |X0| + q <
 * 2^22 (X0 the half-integer of point 0), so it too holds iff X is X0 + q.
 * s within 2^+-60 keeps every product a normal float. */
static int float_test(const ng_block *b, int i, double s, double inv, int64_t kx, int end)
{
    const double a = b->anchor[0] * inv, x0 = (double)b->p[0][i] * inv;
    return inv != 0 && s >= 0x1p-60 && s <= 0x1p60 && fabs(a) < 0x1p52 && a == nearbyint(a) &&
           (kx < 0 ? -kx : kx) + end < (1 << 21) && fabs(x0) + end < 0x1p22 &&
           lattice_coord(b->anchor[0] + (double)b->p[0][i], s, inv) == (double)kx;
}

/* Whether the block vouches (ng_block.grid_p) that points i .. i + end -
 * 1 lie on one row of its grid with x steps of s: then each of them
 * passes the float test (x0 + q s in floats is x0 + q s exactly, the
 * point's own x), so where float_test holds so does the general path's,
 * with no point read. A render's pixel blocks on a lattice of their own
 * pixel size, the usual case, so skip the tests of their every pixel. */
static int vouched(const ng_block *b, int i, double s, int end)
{
    return b->grid_step != 0.0f && b->grid_p[0] == b->p[0] && b->grid_p[1] == b->p[1] &&
           (double)b->grid_step == s && (b->grid_first + i) % b->grid_w + end <= b->grid_w;
}

static int cell_run(const ng_block *b, int i, double s, double inv, int64_t kx, int64_t room)
{
    const float y = b->p[1][i];
    const int end = (int64_t)(b->n - i) < room ? b->n - i : (int)room;
    int k = 1;
    /* the groups' kx + k exact: |kx| < 2^52; the points past a miss are
     * taken one by one */
    if (inv != 0 && fabs((double)kx) < 4503599627370496.0 && end - k >= 32) {
        const centre_test t = {b->p[0] + i, b->p[1] + i, y, b->p[0][i], (float)s, b->anchor[0], inv, (double)kx,
                               float_test(b, i, s, inv, kx, end)};
        if (t.floats && vouched(b, i, s, end)) return end;
        k = centred_groups(&t, k, end);
    }
    while (k < end && on_centre(b, i, k, y, s, inv, kx)) k++;
    return k;
}

/* A run filter reads the rows around its own (the shading's
 * differences: one above, one below), and a block's rows follow one
 * another down a patch, so each run's row below is one no run has read,
 * written when the patch was computed, long enough ago to have left the
 * caches: the shading's loop waited on it (perf put 30 % of the loop's
 * time on that load). A run is read in pieces of RUN_PIECE cells, the
 * lines of the row two below each piece asked for before it (the next
 * run's new row below), a few at a time rather than a whole row at once
 * (whose 65 to 130 requests stalled on the CPU's line-fill buffers). No
 * value changes; a request past the patch's end is harmless. */
#define RUN_PIECE 256
static void ask_row(const float *row, int len)
{
    int i;
    for (i = 0; i < len; i += 16) __builtin_prefetch(row + i);
}

/* Points from .. to - 1 sampled from the segment's patches: point i's
 * patch seg[idx[i]], its cell at offset off[i], fractions tx, ty; run[i]
 * > 1: points i .. i + run[i] - 1 on the centres of successive cells. */
static void sample_by_run(const ng_node *n, const ng_block *b, patch *const *got, const int32_t *idx,
                          const int32_t *off, const int32_t *run, const float *tx, const float *ty, int from, int to,
                          float *out, double s, int P)
{
    const size_t len = (size_t)b->n;
    const ptrdiff_t G = stride(n, P);
    const int nch = b->channels > 0 && b->channels < n->channels ? b->channels : n->channels;
    int i, c;
    for (i = from; i < to; i++) {
        float d0[2 * NG_MAX_CHANNELS], d1[2 * NG_MAX_CHANNELS];
        const float *src;
        if (idx[i] < 0) {
            for (c = 0; c < nch; c++) out[(size_t)c * len + (size_t)i] = NAN;
            continue;
        }
        src = got[idx[i]]->data + off[i];
        if (run[i] > 1 || (tx[i] == 0.0f && ty[i] == 0.0f)) { /* cell centres: the cells' values, straight out */
            int at, m;
            for (at = 0; at < run[i]; at += m) {
                m = run[i] - at < RUN_PIECE ? run[i] - at : RUN_PIECE;
                ask_row(src + at + 2 * G, m);
                n->type->hood->run(n, src + at, G, m, s, out + i + at, len, nch);
            }
            i += run[i] - 1;
            continue;
        }
        /* the four cells around, then bilinear as sample() */
        n->type->hood->run(n, src, G, 2, s, d0, 2, nch);
        n->type->hood->run(n, src + G, G, 2, s, d1, 2, nch);
        for (c = 0; c < nch; c++) {
            const float r0 = d0[2 * c] + (d0[2 * c + 1] - d0[2 * c]) * tx[i];
            const float r1 = d1[2 * c] + (d1[2 * c + 1] - d1[2 * c]) * tx[i];
            out[(size_t)c * len + (size_t)i] = r0 + (r1 - r0) * ty[i];
        }
    }
}

static void sample(const ng_node *n, const ng_block *b, patch *const *got, const int32_t *idx, const int32_t *off,
                   const int32_t *run, const float *tx, const float *ty, int from, int to, float *out, double s, int P)
{
    const size_t len = (size_t)b->n, S = (size_t)side(P);
    const int smooth = n->type->hood->smooth;
    /* the channels the consumer reads (ng_block.channels): a height read
     * alone from the hydraulic node's 4 costs one */
    const int nch = b->channels > 0 && b->channels < n->channels ? b->channels : n->channels;
    int i, c, j;
    if (by_run(n)) {
        sample_by_run(n, b, got, idx, off, run, tx, ty, from, to, out, s, P);
        return;
    }
    for (i = from; i < to; i++) {
        if (idx[i] < 0) { /* a position that is not a number samples nothing */
            for (c = 0; c < nch; c++) out[(size_t)c * len + (size_t)i] = NAN;
            continue;
        }
        if (run[i] > 1) { /* cell centres in a row: the cells themselves */
            for (c = 0; c < nch; c++)
                memcpy(out + (size_t)c * len + (size_t)i, got[idx[i]]->data + (size_t)c * S * S + (size_t)off[i],
                       (size_t)run[i] * sizeof(float));
            i += run[i] - 1;
            continue;
        }
        bweights wx = {0, 0, 0}, wy = wx;
        if (smooth) wx = bspline_weights(tx[i]), wy = bspline_weights(ty[i]);
        for (c = 0; c < nch; c++) {
            const float *d = got[idx[i]]->data + (size_t)c * S * S + (size_t)off[i];
            float row[4];
            if (smooth) {
                for (j = 0; j < 4; j++) row[j] = bspline(d + ((ptrdiff_t)j - 1) * (ptrdiff_t)S, 1, wx);
                out[(size_t)c * len + (size_t)i] = bspline(row + 1, 1, wy);
                continue;
            }
            if (tx[i] == 0.0f && ty[i] == 0.0f) { /* on the cell's centre: the cell (a render on its grid) */
                out[(size_t)c * len + (size_t)i] = d[0];
                continue;
            }
            /* a + (b - a) t: equal corners give their value exactly */
            row[0] = d[0] + (d[1] - d[0]) * tx[i], row[1] = d[S] + (d[S + 1] - d[S]) * tx[i];
            out[(size_t)c * len + (size_t)i] = row[0] + (row[1] - row[0]) * ty[i];
        }
    }
}

/* A patch's cost in source evaluations besides its cells' (finding it,
 * computing it, the runs of a block it cuts), for patch_cells. */
#define PATCH_COST 4096.0

/* Cells per patch edge of the patches of n that a render reads: its
 * type's (cells()), but on a pixel lattice anchored as the render is (the
 * grid shading), whose cells' bits do not depend on where its patches
 * start or end (grid_origin), the edge from 64 to 1024 that covers the
 * render's image (h->extent) with the fewest source evaluations, patch
 * costs counted: a 2048^2 image takes 4 patches of 1024 (the halo 0.6 %
 * of the source's evaluations against 2.4 % at 256, and a block's rows
 * cut into 4 times fewer runs), a 300^2 one 9 of 128 rather than 4 of 256.
 * An edge larger than the type's only where the cap holds a segment of
 * them on each of the render's threads (ng__hood_check counted the
 * type's). */
static int patch_cells(const ng__hood_cache *h, const ng_node *n, const hkey *k)
{
    const int base = cells(n);
    double least = -1;
    int P, best = base;
    if (!by_run(n) || n->hood_spacing >= 0 || k->ax == WORLD_ANCHOR || h->extent[0] <= 0 || h->extent[1] <= 0)
        return base;
    for (P = 64; P <= 1024; P *= 2) {
        const double nx = ceil((double)h->extent[0] / P), ny = ceil((double)h->extent[1] / P), d = domain(n, P);
        const double cost = nx * ny * (d * d + PATCH_COST);
        if (P > base && (size_t)(h->threads > 0 ? h->threads : 1) * SEGMENT * patch_bytes(n, NG_HOOD_KEPT, P) > h->cap / 2)
            break;
        if (least < 0 || cost < least) least = cost, best = P;
    }
    return best;
}

void ng__hood_set_extent(ng__hood_cache *h, int x, int y, int width, int height, int threads)
{
    pthread_mutex_lock(&h->mu);
    h->corner[0] = x, h->corner[1] = y;
    h->extent[0] = width, h->extent[1] = height, h->threads = threads;
    pthread_mutex_unlock(&h->mu);
}

/* The key of n's patches that block b reads on the lattice of spacing s
 * (ix, iy left 0; P left 0: patch_cells). */
static hkey block_key(const ng_node *n, const ng_block *b, double s)
{
    hkey key;
    memset(&key, 0, sizeof key);
    key.node = n->id;
    key.seed = b->seed;
    key.z = bits(b->anchor[2]);
    key.w = bits(b->anchor[3]);
    key.px = bits(b->period[0]);
    key.py = bits(b->period[1]);
    key.s = bits(s);
    key.ax = key.ay = WORLD_ANCHOR;
    if (n->hood_anchor == NG_HOOD_ANCHOR_RENDER && (key.ax = anchor_cell(b->anchor[0], s)) != WORLD_ANCHOR)
        key.ay = anchor_cell(b->anchor[1], s);
    if (key.ay == WORLD_ANCHOR) key.ax = WORLD_ANCHOR;
    key.P = 0;
    return key;
}

/* The cell (from the anchor's) whose offset, as cell_offsets gives it,
 * is v: guess first (the next cell along a row), else v / s rounded;
 * INT32_MIN where v is no cell's offset. */
static inline int32_t cell_at(float v, double s, int32_t guess)
{
    double u;
    if ((float)(((double)guess + 0.5) * s) == v) return guess;
    u = (double)v / s - 0.5;
    if (!(fabs(u) < 2147483647.0)) return INT32_MIN;
    u = (double)floor_cell(u + 0.5);
    return (float)((u + 0.5) * s) == v ? (int32_t)u : INT32_MIN;
}

/* How many of the len points px, py from the first lie on a row at y on
 * the cells first, first + 1, ... (their offsets as cell_offsets gives
 * them): 32 at a time while a whole group does (no early exit inside a
 * group, so it vectorises, in AVX-512 or AVX2 where the CPU has them;
 * exact comparisons, the same answer on every path), then one by one. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static int row_of_cells(const float *px, const float *py, float y, double s, int32_t first, int len)
{
    int k = 0, q;
    while (k + 32 <= len) {
        int ok = 1;
        for (q = k; q < k + 32; q++) ok &= (py[q] == y) & ((float)(((double)(first + q) + 0.5) * s) == px[q]);
        if (!ok) break;
        k += 32;
    }
    while (k < len && py[k] == y && (float)(((double)(first + k) + 0.5) * s) == px[k]) k++;
    return k;
}

/* Whether every point of b is a cell of n's lattice as its patches
 * evaluate them (the anchor's cell's anchor and the cell's float offsets,
 * cell_offsets), in runs along rows: a run from point i is its cells
 * (rx[i], ry[i]) from the anchor's and run[i] points on the next cells of
 * its row. */
static int on_cells(const ng_block *b, const hkey *key, double s, int32_t *rx, int32_t *ry, int32_t *run)
{
    int32_t gx = 0, gy = 0;
    int i, k;
    if (key->ax == WORLD_ANCHOR || (double)key->ax * s != b->anchor[0] || (double)key->ay * s != b->anchor[1])
        return 0;
    for (i = 0; i < b->n; i += k) {
        if ((rx[i] = cell_at(b->p[0][i], s, gx)) == INT32_MIN || (ry[i] = cell_at(b->p[1][i], s, gy)) == INT32_MIN)
            return 0;
        k = 1 + row_of_cells(b->p[0] + i + 1, b->p[1] + i + 1, b->p[1][i], s, rx[i] + 1, b->n - i - 1);
        run[i] = k;
        gx = rx[i] + k, gy = ry[i];
    }
    return 1;
}

/* The plane of x in patch p, or NULL. */
static const float *kept_plane(const ng_node *n, const patch *p, int x)
{
    int c;
    for (c = 0; c < p->nkept; c++)
        if (p->kept[c] == x) return kept_slot(n, p, c);
    return NULL;
}

/* Points from .. to - 1 of a segment read from its patches' planes of x
 * (point i in seg[idx[i]] at off[i], it and the run[i] - 1 points after
 * it on the cells after its): 0, or -1 where a patch lacks it. */
static int read_segment(const ng_node *n, patch *const *got, int m, int x, const int32_t *idx, const int32_t *off,
                        const int32_t *run, int from, int to, float *out)
{
    const float *plane[SEGMENT];
    int j, i;
    for (j = 0; j < m; j++)
        if (!(plane[j] = kept_plane(n, got[j], x))) return -1;
    for (i = from; i < to; i += run[i]) memcpy(out + i, plane[idx[i]] + off[i], (size_t)run[i] * sizeof(float));
    return 0;
}

int ng__hood_read_kept(ng_ctx *ctx, const ng_node *n, int x, const ng_block *b, float *out)
{
    const double s = (double)b->footprint;
    int P, S;
    ng__hood_cache *h;
    hkey key, seg[SEGMENT];
    patch *got[SEGMENT];
    int32_t *rx, *ry, *idx, *off, *run;
    int64_t lo[2] = {0, 0}; /* the first cell of seg[cur] */
    int i, j, m = 0, from = 0, rc = -1, cur = -1;
    if (b->dims != 2 || b->p_scale != 0.0f || !(s > 0) || n->hood_spacing >= 0) return 0;
    rx = (int32_t *)ng_scratch(ctx, 1), ry = (int32_t *)ng_scratch(ctx, 1);
    idx = (int32_t *)ng_scratch(ctx, 1), off = (int32_t *)ng_scratch(ctx, 1), run = (int32_t *)ng_scratch(ctx, 1);
    if (!rx || !ry || !idx || !off || !run) goto done;
    if (!(h = ng__ctx_hood(ctx))) {
        ng_fail(ctx, "out of memory for the neighbourhood cache");
        goto done;
    }
    key = block_key(n, b, s);
    key.P = patch_cells(h, n, &key);
    P = key.P, S = side(P);
    rc = 0;
    if (!on_cells(b, &key, s, rx, ry, run)) goto done;
    for (i = 0; i <= b->n; i++) {
        if (i < b->n) {
            const int64_t kx = key.ax + rx[i], ky = key.ay + ry[i];
            if (cur >= 0 && kx - lo[0] >= 0 && kx - lo[0] < P && ky - lo[1] >= 0 && ky - lo[1] < P) {
                j = cur; /* the previous point's patch: the common case */
            } else {
                key.ix = patch_of(kx - key.ax, P), key.iy = patch_of(ky - key.ay, P); /* grid_origin */
                for (j = m - 1; j >= 0; j--)
                    if (seg[j].ix == key.ix && seg[j].iy == key.iy) break;
                if (j < 0 && m < SEGMENT) seg[j = m++] = key;
                if (j >= 0) cur = j, lo[0] = key.ax + seg[j].ix * P, lo[1] = key.ay + seg[j].iy * P;
            }
            if (j >= 0) { /* its run, cut where the patch's row ends: the rest a run of its own */
                const int32_t room = (int32_t)(lo[0] + P - kx);
                if (run[i] > room) {
                    rx[i + room] = rx[i] + room, ry[i + room] = ry[i], run[i + room] = run[i] - room;
                    run[i] = room;
                }
                idx[i] = j;
                off[i] = (int32_t)((ky - lo[1] + MARGIN) * S + (kx - lo[0] + MARGIN));
                i += run[i] - 1;
                continue;
            }
        }
        if (m) { /* the segment is full, or the block done */
            const wanted w = {seg, m};
            if (acquire_all(ctx, h, n, b, &w, seg, got, m)) {
                rc = -1;
                goto done;
            }
            rc = read_segment(n, got, m, x, idx, off, run, from, i, out) ? 0 : 1;
            release_all(h, got, m);
            if (!rc) goto done;
        }
        from = i;
        m = 0;
        cur = -1;
        if (i-- == b->n) break; /* else point i starts the next segment */
    }
    rc = 1;
    pthread_mutex_lock(&h->mu);
    h->stats.kept_reads++;
    pthread_mutex_unlock(&h->mu);
done:
    ng_scratch_free(ctx, (float *)rx, 1);
    ng_scratch_free(ctx, (float *)ry, 1);
    ng_scratch_free(ctx, (float *)idx, 1);
    ng_scratch_free(ctx, (float *)off, 1);
    ng_scratch_free(ctx, (float *)run, 1);
    return rc;
}

/* ---- strips: a run filter's source in rows ------------------------------------------ */

/* A render of a run filter (the grid shading) on its own pixel lattice
 * reads the source at its pixels and the radius r around them. Square
 * patches hold that source with a halo each: a 2048^2 render wrote 17 MB
 * of them, read bands of blocks later, and a patch's computing thread
 * could only be helped by threads computing other patches of the same
 * row (2 threads took 1.72x less time than 1 on a shaded alligator,
 * against 1.92x for its height alone). Strips are NG_HOOD_STRIP_ROWS
 * rows of the render's columns (and r more each side), from r rows
 * above its first to r below its last, with no halo rows: no cell is
 * evaluated twice. A block reads the strips its rows and the r rows above
 * and below them lie in (read_strips); a thread that would wait for a
 * strip computes one of the next instead (strip_help), so 2 threads
 * compute 2 strips at once (1.90x to 1.98x); and a strip no block needs
 * any more leaves the cache as the next are taken (trim_strips), so a
 * render holds about STRIP_KEEP strips (1 MB at 2048 columns) and a
 * first render pays no page faults for 17 MB (1.25x to 1.15x its
 * height, paired). A single-threaded render costs a little less (1.13x
 * against 1.15x, the means of 8 processes alternating with the patches'
 * binary; alligator: the source's kernel, the shading's loop and the
 * bookkeeping take about 101.5 %, 6.3 % and 3 % of the height's own
 * time, by the time-stamp counter). A run whose rows lie in two strips is read
 * through a window of its 2 r + 1 rows copied from them. Cells are
 * evaluated as a patch's are (evaluate_cells, cell_offsets from the
 * anchor's cell), so a strip's cells are the bits of the same cells of
 * any patch: the shading is the same, read from either, in any cut. What
 * a render keeps (ng__hood_mark_kept) is read back from patches, so a
 * node that keeps nodes takes patches. */
#define STRIP_KEEP(threads) (2 * (threads) + 2)

/* Strip p's cells: the source of n on its rows (evaluate_cells). */
static int compute_strip(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, patch *p)
{
    const hkey *k = &p->key;
    if (one_channel_source(ctx, n)) return -1;
    if (!(p->data = data_new(h, p->bytes))) return ng_fail(ctx, "out of memory for a neighbourhood strip");
    return evaluate_cells(ctx, n, b, p, p->data, grid_origin(k, 0) + k->ix, grid_origin(k, 1) + k->y0 + k->iy * k->P,
                          0, k->W, strip_rows(k));
}

/* Rather than wait for a strip another thread is computing: one of the
 * strips after the segment's last that nobody has begun, which blocks
 * after this one read (the render's blocks go down the image), so two
 * threads compute two strips at once. 1 when it computed one, 0 when
 * there was none, -1 with the context's error set. */
static int strip_help(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const wanted *seg)
{
    const keptlist none = {0, {0}};
    int ahead;
    for (ahead = 1; ahead <= (h->threads > 1 ? h->threads : 1); ahead++) {
        hkey k = seg->keys[seg->m - 1];
        patch *p;
        int r;
        k.iy += ahead;
        if (k.iy * (int64_t)k.P >= k.rows) return 0;
        pthread_mutex_lock(&h->mu);
        if ((r = lookup_locked(h, n, &k, &none, &p)) == READY) p->pins--;
        pthread_mutex_unlock(&h->mu);
        if (r != CLAIMED) continue;
        if (fill(ctx, h, n, b, seg, p)) return -1;
        release_all(h, &p, 1);
        return 1;
    }
    return 0;
}

/* Beyond STRIP_KEEP of node's strips, its least recently used that no
 * block holds leave (under the lock): their memory, likely still in the
 * caches, is the next strips'. Counted per node, so two shadings of a
 * render keep their strips each. */
static void trim_strips(ng__hood_cache *h, int node)
{
    const int keep = STRIP_KEEP(h->threads > 1 ? h->threads : 1);
    patch *p, *next;
    int mine = 0;
    if (h->strips <= keep) return;
    for (p = h->lru.newer; p != &h->lru; p = p->newer) mine += p->key.stage == STRIP && p->key.node == node;
    for (p = h->lru.newer; p != &h->lru && mine > keep; p = next) {
        next = p->newer;
        if (p->key.stage == STRIP && p->key.node == node && p->pins == 0) drop(h, p), mine--;
    }
}

/* The cells of a run's rows (2 r + 1 of them, from r above its row y, at
 * strip column x, len + 2 r columns) copied from strips got[] (the first
 * strip first0) into win, rows len + 2 r apart. */
static void strip_window(patch *const *got, int64_t first0, const hkey *k, int64_t y, int x, int len, int r,
                         float *win)
{
    const int wlen = len + 2 * r, G = k->W;
    int t;
    for (t = -r; t <= r; t++) {
        const int64_t row = y + t, j = row / k->P;
        memcpy(win + (size_t)(t + r) * wlen, got[j - first0]->data + (size_t)(row - j * k->P) * G + (x - r),
               (size_t)wlen * sizeof(float));
    }
}

/* Block b of run filter n read from strips: 0, or -1 with the context's
 * error set; 1, with nothing read, where the block is not the strips'
 * (a point off its cell's centre, or outside the render's columns and
 * rows: the patches take it). cx, cy, run: scratch of the block's size;
 * key: the block's key (block_key). */
static int read_strips(ng_ctx *ctx, ng__hood_cache *h, const ng_node *n, const ng_block *b, const hkey *key,
                       double s, double inv, int32_t *cx, int32_t *cy, int32_t *run, float *out)
{
    const int r = n->hood_radius, cap = ng__ctx_cap(ctx);
    const size_t len = (size_t)b->n;
    const int nch = b->channels > 0 && b->channels < n->channels ? b->channels : n->channels;
    hkey k = *key, keys[SEGMENT];
    patch *got[SEGMENT];
    int64_t ylo = INT64_MAX, yhi = INT64_MIN, first, final, j, x0, y0; /* x0, y0: the strips' first cell */
    float *win = NULL;
    int i, at, m, count, rc = 0;
    if (n->hood_spacing >= 0 || n->type->hood->smooth || k.ax == WORLD_ANCHOR || h->extent[0] <= 0 || h->extent[1] <= 0 ||
        kept_of(ng__ctx_kept(ctx), n).n || cap / (2 * r + 1) - 2 * r < 1)
        return 1;
    k.stage = STRIP, k.P = NG_HOOD_STRIP_ROWS;
    k.ix = (int64_t)h->corner[0] - r, k.W = h->extent[0] + 2 * r;
    k.y0 = h->corner[1] - r, k.rows = h->extent[1] + 2 * r;
    /* what every thread may pin at once (the strips a block's rows and
     * their radius straddle, and one it computes ahead) within half the
     * cap, as patch_cells asks of large patches; else the patches, which
     * the render's check counted (a very wide image under a memory limit) */
    if ((size_t)(h->threads > 0 ? h->threads : 1) * (size_t)((cap / k.W + 2 * r) / k.P + 3) * (size_t)k.W *
            (size_t)k.P * sizeof(float) >
        h->cap / 2)
        return 1;
    x0 = grid_origin(&k, 0) + k.ix, y0 = grid_origin(&k, 1) + k.y0;
    for (i = 0; i < b->n; i += run[i]) { /* the runs, each in the strips' columns and rows */
        const double ux = lattice_coord(b->anchor[0] + (double)b->p[0][i], s, inv);
        const double uy = lattice_coord(b->anchor[1] + (double)b->p[1][i], s, inv);
        int64_t kx, x, y;
        if (!(fabs(ux) < 1e18 && fabs(uy) < 1e18)) return 1;
        kx = floor_cell(ux), y = floor_cell(uy);
        if ((float)(ux - (double)kx) != 0.0f || (float)(uy - (double)y) != 0.0f) return 1;
        x = kx - x0, y -= y0;
        if (x < r || x >= k.W - r || y < r || y >= k.rows - r) return 1;
        run[i] = cell_run(b, i, s, inv, kx, k.W - r - x);
        cx[i] = (int32_t)x, cy[i] = (int32_t)y;
        if (y < ylo) ylo = y;
        if (y > yhi) yhi = y;
    }
    if (b->n == 0) return 0;
    first = (ylo - r) / k.P, final = (yhi + r) / k.P;
    if (final - first + 1 > SEGMENT) return 1;
    for (j = first; j <= final; j++) keys[j - first] = k, keys[j - first].iy = j;
    count = (int)(final - first + 1);
    {
        const wanted w = {keys, count};
        if (acquire_all(ctx, h, n, b, &w, keys, got, count)) return -1;
    }
    for (i = 0; i < b->n; i += run[i]) {
        const int64_t y = cy[i], top = (y - r) / k.P;
        if (top == (y + r) / k.P) { /* its rows in one strip: read in place */
            const float *src = got[top - first]->data + (size_t)(y - top * k.P) * k.W + cx[i];
            n->type->hood->run(n, src, k.W, run[i], s, out + i, len, nch);
            continue;
        }
        if (!win && !(win = ng_scratch(ctx, 1))) {
            rc = -1;
            break;
        }
        for (at = 0; at < run[i]; at += m) { /* across two: through a window, in pieces that fit one */
            const int piece = cap / (2 * r + 1) - 2 * r;
            m = run[i] - at < piece ? run[i] - at : piece;
            strip_window(got, first, &k, y, cx[i] + at, m, r, win);
            n->type->hood->run(n, win + (size_t)r * (m + 2 * r) + r, m + 2 * r, m, s, out + i + at, len, nch);
        }
    }
    if (win) ng_scratch_free(ctx, win, 1);
    pthread_mutex_lock(&h->mu); /* release_all's, and the trim, under one lock */
    unpin(got, count);
    trim_strips(h, n->id);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

int ng_hood_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const double s = n->hood_spacing > 0 ? n->hood_spacing : (double)b->footprint;
    const int L = own_at(n), smooth = n->type->hood->smooth;
    int P, G;
    ng__hood_cache *h;
    hkey key, seg[SEGMENT];
    patch *got[SEGMENT];
    int32_t *idx = NULL, *off = NULL, *run = NULL;
    float *tx = NULL, *ty = NULL;
    const double inv = power_of_two(s) ? 1.0 / s : 0;
    int64_t lo[2] = {0, 0}; /* the first cell of seg[cur] */
    int64_t g0[2];          /* the cell patch 0 starts at (grid_origin) */
    int i, m = 0, from = 0, rc = -1, cur = -1;
    (void)in;
    if (b->dims != 2) {
        char name[320];
        ng__node_name(n, name, sizeof name);
        return ng_fail(ctx, "%s: a neighbourhood node reads a 2D lattice; it is sampled in %dD here (a volume, 4D, "
                            "or a rotation into z), which is not supported yet",
                       name, b->dims);
    }
    if (!(s > 0)) {
        char name[320];
        ng__node_name(n, name, sizeof name);
        return ng_fail(ctx, "%s: sampled where no pixel size is known (its lattice is the render's pixels): give "
                            "it a spacing", name);
    }
    /* a lattice far finer than the render's own pixels, read at them (a
     * block of the render's grid: under a transform or a fractal the
     * positions are the node's own, and their spacing says nothing) */
    if (n->hood_spacing > 0 && b->grid_step > 0 && b->grid_p[0] == b->p[0] && b->grid_p[1] == b->p[1] &&
        (double)b->grid_step > n->hood_spacing * NG_HOOD_FINEST) {
        char name[320];
        ng__node_name(n, name, sizeof name);
        return ng_fail(ctx, "%s: spacing %g is %.0f times finer than the render's pixel (%g): each pixel would read "
                            "lattice cells of its own; render at a pixel size of at most %g, or give it a spacing of "
                            "at least %g",
                       name, n->hood_spacing, b->grid_step / n->hood_spacing, (double)b->grid_step,
                       n->hood_spacing * NG_HOOD_FINEST, b->grid_step / NG_HOOD_FINEST);
    }
    if (!(h = ng__ctx_hood(ctx))) return ng_fail(ctx, "out of memory for the neighbourhood cache");
    /* scratch planes of floats, three of them holding int32 (no other type reads them) */
    idx = (int32_t *)ng_scratch(ctx, 1), off = (int32_t *)ng_scratch(ctx, 1), run = (int32_t *)ng_scratch(ctx, 1);
    tx = ng_scratch(ctx, 1), ty = ng_scratch(ctx, 1);
    if (!idx || !off || !run || !tx || !ty) goto done;
    key = block_key(n, b, s);
    if (by_run(n) && (rc = read_strips(ctx, h, n, b, &key, s, inv, idx, off, run, out)) <= 0) goto done;
    rc = -1;
    key.P = patch_cells(h, n, &key);
    P = key.P, G = stride(n, P);
    g0[0] = grid_origin(&key, 0), g0[1] = grid_origin(&key, 1);
    for (i = 0; i <= b->n; i++) {
        double ux = 0, uy = 0;
        int64_t kx, ky;
        int j;
        if (i < b->n) {
            ux = lattice_coord(b->anchor[0] + (double)b->p[0][i], s, inv);
            uy = lattice_coord(b->anchor[1] + (double)b->p[1][i], s, inv);
            if (!(fabs(ux) < 1e18 && fabs(uy) < 1e18)) {
                if (ux != ux || uy != uy) {
                    idx[i] = -1;
                    continue;
                }
                char name[320];
                ng__node_name(n, name, sizeof name);
                ng_fail(ctx, "%s: sampled at (%.17g, %.17g), 10^18 or more lattice cells of %g from the origin: "
                             "too far for its lattice (a larger spacing reaches further)",
                        name, b->anchor[0] + (double)b->p[0][i], b->anchor[1] + (double)b->p[1][i], s);
                goto done;
            }
            kx = floor_cell(ux);
            ky = floor_cell(uy);
            if (cur >= 0 && kx - lo[0] >= 0 && kx - lo[0] < P && ky - lo[1] >= 0 && ky - lo[1] < P) {
                j = cur; /* the previous point's patch: the common case, no search */
                key.ix = seg[j].ix, key.iy = seg[j].iy;
            } else {
                key.ix = patch_of(kx - g0[0], P);
                key.iy = patch_of(ky - g0[1], P);
                for (j = m - 1; j >= 0; j--)
                    if (seg[j].ix == key.ix && seg[j].iy == key.iy) break;
            }
            if (j >= 0 || m < SEGMENT) {
                if (j < 0) seg[j = m++] = key;
                cur = j, lo[0] = g0[0] + key.ix * P, lo[1] = g0[1] + key.iy * P;
                idx[i] = j;
                off[i] = (int32_t)((ky - lo[1] + L) * G + (kx - lo[0] + L));
                tx[i] = (float)(ux - (double)kx);
                ty[i] = (float)(uy - (double)ky);
                run[i] = !smooth && tx[i] == 0.0f && ty[i] == 0.0f ? cell_run(b, i, s, inv, kx, lo[0] + P - kx) : 1;
                i += run[i] - 1;
                continue;
            }
        }
        /* the segment is full (or the block done): sample its points */
        if (m) {
            const wanted w = {seg, m};
            if (acquire_all(ctx, h, n, b, &w, seg, got, m)) goto done;
            sample(n, b, got, idx, off, run, tx, ty, from, i, out, s, P);
            release_all(h, got, m);
        } else {
            sample(n, b, got, idx, off, run, tx, ty, from, i, out, s, P);
        }
        from = i;
        m = 0;
        cur = -1;
        i--; /* point i starts the next segment */
        if (from == b->n) break;
    }
    rc = 0;
done:
    ng_scratch_free(ctx, (float *)idx, 1);
    ng_scratch_free(ctx, (float *)off, 1);
    ng_scratch_free(ctx, (float *)run, 1);
    ng_scratch_free(ctx, tx, 1);
    ng_scratch_free(ctx, ty, 1);
    return rc;
}
