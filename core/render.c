/*
 * render.c — the tile scheduler. The calling thread and up to threads - 1
 * helpers of the persistent pool (pool.c: no thread starts per render) take
 * tiles from an atomic counter in row-major order and write finished tiles
 * into a small ring of row bands; the calling thread, between its own
 * tiles, hands each band to the sinks as soon as all its tiles are done, so
 * memory stays O(width x tile) for any image height.
 *
 * A volume is the same walk in three dimensions: its tiles are bricks of
 * brick^3 voxels, in z-major order, and a band is one row of bricks (every
 * brick of the same y and z), handed to the sinks as a slab. An image is
 * the case of one slice and bricks one voxel deep.
 *
 * Every pixel's sample position depends only on its index in the full image
 * (never on the tile or the region), so the output is bit-identical for any
 * thread count, tile size or region split. That also lets a tile's work be
 * any set of its band's samples: it is a run of them in the band's order
 * (run_tile), which a one-channel output is evaluated straight into.
 */
#include "ng_internal.h"
#include "pool.h"

#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h> /* SSE2: part of x86-64, so every path has it */
#endif

#define NG_MAX_TILE 1024
#define NG_MAX_BRICK 64
#define NG_MAX_THREADS 256

void ng_render_defaults(ng_render_opts *o, int width, int height)
{
    memset(o, 0, sizeof *o);
    o->width = width;
    o->height = height;
    o->pixel_size = 1.0;
    o->dims = 2;
    o->tile = 64;
    o->brick = 16;
}

typedef struct render {
    const ng_graph *g;
    const int *roots;
    int nroots;
    const ng_render_opts *o;
    int *uses;
    int channels[64];
    int rx, ry, rz, rw, rh, rd; /* the window, in full-image pixels (rd = 1, rz = 0: an image) */
    int volume;               /* a volume: slabs to the sinks, positions in z */
    int tile, tz;             /* tile edge in x and y; in z (1 for images) */
    int ntx, nty, ntz, ring;
    int64_t nbands;           /* rows of tiles: nty * ntz */
    int64_t ntiles;           /* up to 2^51 (2^20-voxel edges in 8-voxel bricks) */
    const ng__tile_job *job;  /* a view's own tiles, or NULL */
    int stream;               /* several workers: tiles go into bands with streaming stores */
    float **band;             /* band[slot * nroots + r]: rw * tile * channels */
    float *xplane;            /* column positions, periodic in rw (make_xplane) */
    float xstep;              /* the x plane's exact step (ng_block.grid_step), or 0 (grid_step) */
    atomic_int *band_left;    /* tiles of the slot's band still running */
    /* the counters every tile writes, each on its own cache line so the
     * fields read per tile above stay shared clean between cores */
    _Alignas(64) atomic_llong next_tile;
    _Alignas(64) atomic_llong next_write; /* the band the sinks get next */
    _Alignas(64) char line_end;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int failed;        /* set under mu; read anywhere */
    atomic_size_t memory_used; /* bands + scratch bytes over all contexts (stop.memory_limit) */
    ng__stop stop;            /* deadline, the caller's cancel flag, failed */
    ng__hood_cache *hood;     /* neighbourhood patches, when a node reads them; NULL otherwise */
    int own_hood;             /* hood is this render's own (the graph's was taken) */
    double started;           /* ng__now() when the render began, for the progress line */
    fenv_t fenv;              /* the caller's floating-point environment, which helpers take on */
    ng_error err;
} render;

static void fail_locked(render *r, const ng_error *e)
{
    if (!r->failed) {
        r->failed = 1;
        r->err = *e;
    }
    pthread_cond_broadcast(&r->cv);
}

static void fail(render *r, const ng_error *e)
{
    pthread_mutex_lock(&r->mu);
    fail_locked(r, e);
    pthread_mutex_unlock(&r->mu);
}

/* The spacing of samples along axis a (0 x, 1 y, 2 z): the pixel size,
 * or a box voxel's size on that axis. */
static double step(const ng_render_opts *o, int a) { return o->voxel_size[a] > 0 ? o->voxel_size[a] : o->pixel_size; }

/* The window's column positions, x of column i % rw at index i, over rw +
 * a block's worth of floats: a block starting at column x reads its x
 * positions at xplane + x whatever rows it spans, so no block writes them.
 * Each is the pixel (voxel) centre from its index in the full image only,
 * the same bits for any tile, thread count or region. */
static float *make_xplane(const render *r, size_t len)
{
    float *xs = NULL;
    size_t i, m;
    if (posix_memalign((void **)&xs, 64, len * sizeof(float))) return NULL;
    for (i = 0; i < (size_t)r->rw && i < len; i++) xs[i] = (float)(((double)(r->rx + (int)i) + 0.5) * step(r->o, 0));
    for (; i < len; i += m) { /* i a multiple of rw: the copy goes on the period */
        m = len - i < i ? len - i : i;
        memcpy(xs + i, xs, m * sizeof(float));
    }
    return xs;
}

/* The x plane's columns as a block may vouch for them (ng_block.grid_step):
 * s = the pixel size as a float, a power of two, and column i's x exactly
 * (h + i) s with h + 1/2 a whole number and |h + i| < 2^31, where all
 * the doubles below are exact; else 0. */
static float grid_step(const float *xs, int rw, double pixel)
{
    const float s = (float)pixel;
    const double h = (double)xs[0] / s - 0.5;
    int e, i;
    if (!(s > 0) || frexp(s, &e) != 0.5 || !(fabs(h) + rw < 2147483647.0) || h != floor(h)) return 0;
    for (i = 0; i < rw; i++)
        if ((double)xs[i] != (double)xs[0] + (double)i * s) return 0;
    return s;
}

/* The centre of row (axis 1) or slice (axis 2) `index` of the full image, as a float. */
static float centre(const render *r, int index, int axis) { return (float)(((double)index + 0.5) * step(r->o, axis)); }

/* v in dst[0 .. n - 1]. A block's y planes are written per block (and
 * a neighbourhood patch's, core/hood.c), a few thousand floats each
 * time, a visible share of a cheap render in 16-byte stores: the widest
 * stores the CPU has do it (the same bits). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void ng__fill(float *dst, float v, int n)
{
    int i;
    for (i = 0; i < n; i++) dst[i] = v;
}

/* y (and z) positions of samples start .. start + n - 1 of a band whose
 * rows are hb high, slices one after another (the band's layout): a row's
 * samples share a y, a slice's a z. pz is NULL for an image. */
static void chunk_positions(const render *r, int y0, int z0, int hb, int64_t start, int n, float *py, float *pz)
{
    const int64_t row = start / r->rw, slice = (int64_t)r->rw * hb;
    int i, m, x = (int)(start % r->rw), j = (int)(row % hb), s = (int)(row / hb);
    for (i = 0; i < n; i += m, x = 0, j = j + 1 == hb ? 0 : j + 1) {
        m = r->rw - x < n - i ? r->rw - x : n - i;
        ng__fill(py + i, centre(r, r->ry + y0 + j, 1), m);
    }
    if (!pz) return;
    for (i = 0, x = (int)(start % slice); i < n; i += m, x = 0, s++) {
        m = slice - x < n - i ? (int)(slice - x) : n - i;
        ng__fill(pz + i, centre(r, r->rz + z0 + s, 2), m);
    }
}

/*
 * One row of a view's tile (or a block's run of samples) into the band. On x86-64 with a 16-byte aligned
 * destination the stores are non-temporal: they go to memory without first
 * fetching the line. A band slot is reused every ring rows, by whichever
 * thread takes the tile, so an ordinary store would often have to pull the
 * line out of the other core's cache first, a large share of a cheap
 * render's time on 2 threads. With one thread the band stays in
 * the cache the sinks read it from, so stream is 0 there. The same bytes
 * either way.
 */
static void band_row(float *dst, const float *src, int w, int stream)
{
#if defined(__x86_64__)
    if (stream && ((uintptr_t)dst & 15) == 0) {
        int i = 0;
        for (; i + 4 <= w; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
        for (; i < w; i++) dst[i] = src[i];
        return;
    }
#else
    (void)stream;
#endif
    memcpy(dst, src, (size_t)w * sizeof(float));
}

/* A view's tile of h rows (channel planes) into its place in the band
 * (interleaved). */
static void to_band(float *band, int rw, int x0, const float *out, int w, int h, int nch, int stream)
{
    const size_t n = (size_t)w * h;
    int i, j, ch;
    if (nch == 1) {
        for (j = 0; j < h; j++) band_row(band + (size_t)j * rw + x0, out + (size_t)j * w, w, stream);
#if defined(__x86_64__)
        if (stream) _mm_sfence(); /* the streamed rows are visible before the band counts the tile done */
#endif
        return;
    }
    for (j = 0; j < h; j++)
        for (i = 0; i < w; i++)
            for (ch = 0; ch < nch; ch++)
                band[((size_t)j * rw + (size_t)(x0 + i)) * nch + ch] = out[ch * n + (size_t)j * w + i];
}

/*
 * Band memory kept between renders. A band freed to the C library goes
 * back to the system (a 2048-pixel band is 512 KiB: mmap, or the top of
 * the heap, trimmed), and the next render takes a page fault on every page
 * it writes: a visible share of a cheap render, paid again by every frame
 * of a sequence or a live preview. A few freed bands wait here for the next
 * render instead. Lock-free (a slot is taken by swapping NULL in), so a
 * fork in the middle of a render leaves no lock held in the child.
 */
#define BAND_KEEP 8                      /* bands kept */
#define BAND_KEEP_MAX ((size_t)4 << 20)  /* bytes: bigger bands go back to the system */
typedef struct kept_band {
    size_t bytes; /* usable bytes after the header */
    _Alignas(64) char data[];
} kept_band;
static _Atomic(kept_band *) kept[BAND_KEEP];

/* A 64-byte aligned band of `bytes`, a kept one if one fits (no more than
 * twice too big, so a small render does not hold a huge band). */
static float *band_alloc(size_t bytes)
{
    kept_band *k = NULL;
    int i;
    for (i = 0; i < BAND_KEEP; i++) {
        kept_band *expect = NULL;
        if (!atomic_load(&kept[i]) || !(k = atomic_exchange(&kept[i], NULL))) continue;
        if (k->bytes >= bytes && k->bytes / 2 <= bytes) return (float *)(void *)k->data;
        if (!atomic_compare_exchange_strong(&kept[i], &expect, k)) free(k); /* slot refilled meanwhile */
        k = NULL;
    }
    if (bytes > SIZE_MAX - sizeof *k || posix_memalign((void **)&k, 64, sizeof *k + bytes)) return NULL;
    k->bytes = bytes;
    return (float *)(void *)k->data;
}

/* Keeps band (from band_alloc) for the next render, or frees it. */
static void band_free(float *band)
{
    kept_band *k;
    int i;
    if (!band) return;
    k = (kept_band *)(void *)((char *)band - offsetof(kept_band, data));
    for (i = 0; k->bytes <= BAND_KEEP_MAX && i < BAND_KEEP; i++) {
        kept_band *expect = NULL;
        if (atomic_compare_exchange_strong(&kept[i], &expect, k)) return;
    }
    free(k);
}

static int band_rows(const render *r);
static int band_slices(const render *r);

/* Points in a block: a tile's (brick's), and no more than a band has. */
static int block_cap(const render *r)
{
    return (r->rw < r->tile ? r->rw : r->tile) * band_rows(r) * band_slices(r);
}

/* A thread's evaluation context and its tile buffers. */
typedef struct tiler {
    ng_ctx *c;
    float *py, *pz, *out[64];
} tiler;

static int tiler_init(render *r, tiler *t, ng_error *err)
{
    int k;
    memset(t, 0, sizeof *t);
    if (!(t->c = ng__ctx_new(r->g, r->uses, r->job ? r->tile * r->tile : block_cap(r), err))) return -1;
    ng__ctx_set_stop(t->c, &r->stop);
    if (r->hood) ng__ctx_set_hood(t->c, r->hood);
    if (!r->job) t->py = ng_scratch(t->c, 1);
    if (r->volume) t->pz = ng_scratch(t->c, 1);
    for (k = 0; k < r->nroots; k++) t->out[k] = ng_scratch(t->c, r->channels[k]);
    if ((!r->job && !t->py) || (r->volume && !t->pz) || (r->nroots && !t->out[r->nroots - 1])) {
        *err = *ng__ctx_error(t->c);
        return -1;
    }
    return 0;
}

static void tiler_free(render *r, tiler *t)
{
    int k;
    if (!t->c) return;
    if (t->py) ng_scratch_free(t->c, t->py, 1);
    if (t->pz) ng_scratch_free(t->c, t->pz, 1);
    for (k = 0; k < r->nroots; k++) ng_scratch_free(t->c, t->out[k], r->channels[k]);
    ng__ctx_free(t->c);
}

/* A view's tile t: a rectangle its job evaluates, copied into the band. */
static int run_job_tile(render *r, tiler *tl, int64_t t)
{
    const int64_t band = t / r->ntx;
    const int tx = (int)(t % r->ntx), x0 = tx * r->tile, y0 = (int)band * r->tile;
    const int w = r->rw - x0 < r->tile ? r->rw - x0 : r->tile, h = r->rh - y0 < r->tile ? r->rh - y0 : r->tile;
    const int slot = (int)(band % r->ring);
    int k;
    /* a job's tile may evaluate no node (rays that all miss the volume: sky
     * alone), so the deadline and cancel flag are checked here too */
    if (ng__ctx_stopped(tl->c) || r->job->run(r->job->user, tl->c, r->rx + x0, r->ry + y0, w, h, tl->out))
        return -1;
    for (k = 0; k < r->nroots; k++)
        to_band(r->band[slot * r->nroots + k], r->rw, x0, tl->out[k], w, h, r->channels[k], r->stream);
    return 0;
}

/*
 * Block t of a render: the t % ntx-th of ntx equal runs of the samples of
 * band t / ntx, in the band's own order (rows of slices), each a multiple
 * of 16 samples long (so blocks meet on cache lines) and at most a tile's
 * (brick's) count. Evaluation is per point, so how the band is cut does
 * not change a bit; cut this way, on one thread a one-channel output is
 * evaluated straight into its place in the band (no copy; several threads
 * stream a copy in, see band_row), and the x positions are the render's
 * xplane (not written per block). -1 on failure (the error in
 * the context).
 */
static int run_tile(render *r, tiler *tl, int64_t t)
{
    const int64_t band = t / r->ntx;
    const int y0 = (int)(band % r->nty) * r->tile, z0 = (int)(band / r->nty) * r->tz;
    const int hb = r->rh - y0 < r->tile ? r->rh - y0 : r->tile, db = r->rd - z0 < r->tz ? r->rd - z0 : r->tz;
    const int64_t total = (int64_t)r->rw * hb * db, run = ((total + r->ntx - 1) / r->ntx + 15) & ~(int64_t)15;
    const int64_t start = (t % r->ntx) * run;
    const int n = (int)(total - start < run ? total - start : run);
    const int slot = (int)(band % r->ring);
    ng_block b;
    int k, i, ch;
    if (r->job) return run_job_tile(r, tl, t);
    if (n <= 0) return 0; /* a short last band has fewer runs than ntx */
    chunk_positions(r, y0, z0, hb, start, n, tl->py, tl->pz);
    memset(&b, 0, sizeof b);
    b.n = n;
    b.dims = r->o->dims;
    b.anchor[0] = r->o->origin[0];
    b.anchor[1] = r->o->origin[1];
    b.anchor[2] = r->o->z;
    b.anchor[3] = r->o->time;
    b.p[0] = r->xplane + start % r->rw;
    b.p[1] = tl->py;
    b.p[2] = b.p[3] = ng__ctx_zeros(tl->c);
    if (tl->pz) b.p[2] = tl->pz;
    b.footprint = (float)r->o->pixel_size;
    if (r->xstep > 0) { /* rows of the x plane, the y planes one value a row (chunk_positions) */
        b.grid_p[0] = b.p[0], b.grid_p[1] = b.p[1];
        b.grid_step = r->xstep;
        b.grid_w = r->rw;
        b.grid_first = (int)(start % r->rw);
    }
    if (r->o->tileable) {
        b.period[0] = r->o->width * step(r->o, 0);
        b.period[1] = r->o->height * step(r->o, 1);
    }
    if (b.dims == 4) b.period[3] = r->o->time_period;
    b.pos_id = ng__ctx_tile(tl->c);
    for (k = 0; k < r->nroots; k++) {
        const int nch = r->channels[k];
        float *dst = r->band[slot * r->nroots + k] + start * nch;
        if (nch == 1 && !r->stream) { /* the band's layout is the block's */
            if (ng__eval(tl->c, r->roots[k], &b, dst, 0)) return -1;
            continue;
        }
        if (ng__eval(tl->c, r->roots[k], &b, tl->out[k], 0)) return -1;
        if (nch == 1) { /* streamed, as band_row says why */
            band_row(dst, tl->out[k], n, 1);
#if defined(__x86_64__)
            _mm_sfence(); /* the streamed samples are visible before the band counts the block done */
#endif
            continue;
        }
        for (i = 0; i < n; i++) /* channel planes to interleaved pixels */
            for (ch = 0; ch < nch; ch++) dst[(size_t)i * nch + ch] = tl->out[k][(size_t)ch * n + i];
    }
    return 0;
}

/* Tile t of band ty is in its band: the caller, waiting to hand that
 * band to the sinks, hears when it was the band's last. */
static void tile_done(render *r, int64_t ty)
{
    if (atomic_fetch_sub(&r->band_left[ty % r->ring], 1) == 1) {
        pthread_mutex_lock(&r->mu);
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
}

/* A pool helper's tiles: until none is left or the render failed. */
static void help_tiles(render *r)
{
    ng_error err;
    tiler tl;
    /* joined after the last tile was taken: no context to make */
    if (atomic_load(&r->next_tile) >= r->ntiles || r->failed) return;
    if (tiler_init(r, &tl, &err)) {
        fail(r, &err);
        tiler_free(r, &tl);
        return;
    }
    for (;;) {
        int64_t t = atomic_fetch_add(&r->next_tile, 1), ty;
        if (t >= r->ntiles) break;
        ty = t / r->ntx; /* its band */
        /* The lock only to sleep or to wake: a tile whose band has a slot
         * and that does not finish a band takes none. Both waits re-check
         * under the lock, and the changes they wait for are made and
         * broadcast under it, so no wake-up is lost. */
        if (ty >= atomic_load(&r->next_write) + r->ring) {
            pthread_mutex_lock(&r->mu);
            while (!r->failed && ty >= atomic_load(&r->next_write) + r->ring) pthread_cond_wait(&r->cv, &r->mu);
            pthread_mutex_unlock(&r->mu);
        }
        if (r->failed) break;
        if (run_tile(r, &tl, t)) {
            fail(r, ng__ctx_error(tl.c));
            break;
        }
        tile_done(r, ty);
    }
    tiler_free(r, &tl);
}

/* A pool helper's share of a render. A thread inherits the floating-point
 * environment (rounding mode, FTZ/DAZ) of the thread that started it, and
 * the pool's were started by whichever render came first: the helper
 * computes this render's tiles in its caller's environment, as the caller
 * computes its own, so every tile gets the same bits whoever takes it. */
static void help(void *arg)
{
    render *r = arg;
    fenv_t own;
    fegetenv(&own);
    fesetenv(&r->fenv);
    help_tiles(r);
    fesetenv(&own);
}

/* "noisegraph: rendering 42% 3.1 s, about 4.3 s left": the time left
 * assumes the rest goes at the pace so far. Trailing blanks cover what a
 * longer earlier line left on the terminal (the line is redrawn after \r). */
void ng__progress_line(char *buf, size_t len, const char *label, double done, double elapsed)
{
    int n = snprintf(buf, len, "noisegraph: %s%srendering %3d%% %.1f s", label ? label : "", label ? ": " : "",
                     (int)(100.0 * done), elapsed);
    if (n > 0 && (size_t)n < len && done > 0 && done < 1)
        n += snprintf(buf + n, len - (size_t)n, ", about %.1f s left", elapsed * (1 - done) / done);
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, "%24s", "");
}

/* Hands band i (tile row i; of a volume, the row of bricks at y = i % nty,
 * z = i / nty) to the sinks. */
static int write_band(render *r, ng_sink *sinks, int64_t i, ng_error *err)
{
    const int y = (int)(i % r->nty) * r->tile, z = (int)(i / r->nty) * r->tz;
    const int rows = r->rh - y < r->tile ? r->rh - y : r->tile, slices = r->rd - z < r->tz ? r->rd - z : r->tz;
    const int slot = (int)(i % r->ring);
    int k;
    for (k = 0; k < r->nroots; k++) {
        const float *band = r->band[slot * r->nroots + k];
        if (r->volume ? sinks[k].slab(sinks[k].user, z, slices, y, rows, band, err)
                      : sinks[k].rows(sinks[k].user, y, rows, band, err))
            return -1;
    }
    if (r->o->progress) {
        char line[160];
        ng__progress_line(line, sizeof line, r->o->progress_label, (double)(i + 1) / (double)r->nbands,
                          ng__now() - r->started);
        fprintf(stderr, "\r%s", line);
    }
    return 0;
}

/* Band `band`, the next in order and finished, to the sinks; its slot
 * then waits for band + ring. 0, or -1 after failing the render. */
static int deliver(render *r, ng_sink *sinks, int64_t band)
{
    const int slot = (int)(band % r->ring);
    ng_error e;
    if (write_band(r, sinks, band, &e)) {
        fail(r, &e);
        return -1;
    }
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->band_left[slot], band + r->ring < r->nbands ? r->ntx : 0);
    atomic_store(&r->next_write, band + 1);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* Waits awake, up to CALLER_SPIN seconds, for the band in slot to finish
 * (or the render to fail); 1 if it did. The caller waits only for tiles
 * that are running, at most a tile's time away, and a sleeping thread can
 * take longer to wake on a VM than a small render takes. */
#define CALLER_SPIN 100e-6
static int await_band(render *r, int slot)
{
    const double until = ng__now() + CALLER_SPIN;
    while (atomic_load(&r->band_left[slot]) > 0 && !r->failed) {
        if (ng__now() > until) return 0;
        sched_yield(); /* the helper may be waiting for this CPU */
    }
    return 1;
}

/* Hands the finished bands to the sinks in order, first waiting for every
 * band below `until` to finish. Only the caller writes bands, so only it
 * moves next_write. 0, or -1 once the render failed. */
static int deliver_bands(render *r, ng_sink *sinks, int64_t until)
{
    for (;;) {
        const int64_t band = atomic_load(&r->next_write);
        const int slot = (int)(band % r->ring);
        if (r->failed) return -1;
        if (band >= r->nbands) return 0;
        if (atomic_load(&r->band_left[slot]) > 0) {
            if (band >= until) return 0;
            if (await_band(r, slot)) continue;
            pthread_mutex_lock(&r->mu);
            while (!r->failed && atomic_load(&r->band_left[slot]) > 0) pthread_cond_wait(&r->cv, &r->mu);
            pthread_mutex_unlock(&r->mu);
            continue;
        }
        if (deliver(r, sinks, band)) return -1;
    }
}

/* The calling thread takes tiles like a helper, and between its tiles
 * hands finished bands to the sinks; before a tile whose band has no slot
 * yet, it writes the bands that free one (those tiles were all taken
 * earlier, so they finish without it). nthreads - 1 pool helpers join
 * when they are free; with one thread, or none free, the caller does it
 * all. Returns once every helper that joined has left. */
static int render_tiles(render *r, ng_sink *sinks, int nthreads, ng_error *err)
{
    ng__pool_job job;
    ng_error e;
    tiler tl;
    fegetenv(&r->fenv);
    ng__pool_post(&job, help, r, nthreads - 1);
    if (tiler_init(r, &tl, &e)) {
        fail(r, &e);
    } else {
        for (;;) {
            int64_t t = atomic_fetch_add(&r->next_tile, 1), ty = t / r->ntx;
            if (t >= r->ntiles || deliver_bands(r, sinks, ty - r->ring + 1)) break;
            if (run_tile(r, &tl, t)) {
                fail(r, ng__ctx_error(tl.c));
                break;
            }
            tile_done(r, ty);
            if (deliver_bands(r, sinks, 0)) break;
        }
    }
    tiler_free(r, &tl);
    deliver_bands(r, sinks, r->nbands);
    ng__pool_finish(&job);
    if (!r->failed) return 0;
    *err = r->err;
    return -1;
}

static int coord_ok(double v) { return v >= -NG_MAX_COORD && v <= NG_MAX_COORD; } /* NaN: no */

/* Box voxels: a volume's, each size in the pixel size's range, all three
 * or none. */
static int check_voxel_size(const ng_render_opts *o, ng_error *err)
{
    const double *v = o->voxel_size;
    int a;
    if (!(v[0] || v[1] || v[2])) return 0;
    if (o->depth < 1) return ng_errorf(err, "--voxel-size: box voxels X,Y,Z are for volumes (--size WxHxD)");
    for (a = 0; a < 3; a++)
        if (!(v[a] >= NG_MIN_PIXEL_SIZE && v[a] <= NG_MAX_PIXEL_SIZE))
            return ng_errorf(err, "--voxel-size: %g along %c is outside %g to %g", v[a], "xyz"[a], NG_MIN_PIXEL_SIZE,
                             NG_MAX_PIXEL_SIZE);
    return 0;
}

static int check_opts(const ng_render_opts *o, ng_error *err)
{
    const int *rg = o->region;
    if (o->width < 1 || o->height < 1 || o->width > NG_MAX_EXTENT || o->height > NG_MAX_EXTENT)
        return ng_errorf(err, "--size: %dx%d is not a size from 1x1 to %dx%d", o->width, o->height, NG_MAX_EXTENT,
                         NG_MAX_EXTENT);
    if (rg[2] && (rg[0] < 0 || rg[1] < 0 || rg[2] < 1 || rg[3] < 1 || rg[0] > o->width - rg[2] ||
                  rg[1] > o->height - rg[3]))
        return ng_errorf(err, "--region: %d,%d,%d,%d does not fit in the %dx%d image", rg[0], rg[1], rg[2], rg[3],
                         o->width, o->height);
    if (o->depth < 0 || o->depth > NG_MAX_EXTENT)
        return ng_errorf(err, "--size: a depth of %d is not from 1 to %d", o->depth, NG_MAX_EXTENT);
    if (o->depth > 0) {
        const int *zr = o->zregion;
        if (o->dims < 3)
            return ng_errorf(err, "render: a volume is sampled in 3D or 4D, not in %d dimensions", o->dims);
        if (o->brick < 8 || o->brick > NG_MAX_BRICK)
            return ng_errorf(err, "--brick: %d is outside 8 to %d", o->brick, NG_MAX_BRICK);
        if (zr[1] && (zr[0] < 0 || zr[1] < 1 || zr[0] > o->depth - zr[1]))
            return ng_errorf(err, "--region: slices %d to %lld do not fit in the %d slices of the volume", zr[0],
                             (long long)zr[0] + zr[1] - 1, o->depth);
        if (!rg[2] && zr[1])
            return ng_errorf(err, "--region: a window in z (zregion) needs one in x and y too");
    } else if (o->zregion[1]) {
        return ng_errorf(err, "--region: a window in z for an image (depth 0)");
    }
    if (o->tile < 8 || o->tile > NG_MAX_TILE)
        return ng_errorf(err, "--tile: %d is outside 8 to %d", o->tile, NG_MAX_TILE);
    if (o->threads < 0 || o->threads > NG_MAX_THREADS)
        return ng_errorf(err, "--threads: %d is outside 1 to %d", o->threads, NG_MAX_THREADS);
    if (!(o->pixel_size >= NG_MIN_PIXEL_SIZE && o->pixel_size <= NG_MAX_PIXEL_SIZE))
        return ng_errorf(err, "--pixel-size: %g is outside %g to %g", o->pixel_size, NG_MIN_PIXEL_SIZE,
                         NG_MAX_PIXEL_SIZE);
    if (check_voxel_size(o, err)) return -1;
    if (!coord_ok(o->origin[0]) || !coord_ok(o->origin[1]) || !coord_ok(o->z) || !coord_ok(o->time))
        return ng_errorf(err, "render: origin %g,%g, z %g, time %g: each must be within -%g to %g", o->origin[0],
                         o->origin[1], o->z, o->time, NG_MAX_COORD, NG_MAX_COORD);
    if (!(o->time_period >= 0 && o->time_period <= NG_MAX_COORD))
        return ng_errorf(err, "render: a time period of %g is outside 0 (none) to %g", o->time_period, NG_MAX_COORD);
    if (o->time_period > 0 && o->dims != 4)
        return ng_errorf(err, "render: looping time needs a 4D render (--time or --frames), not %dD", o->dims);
    if (!(o->time_limit >= 0 && o->time_limit <= 1e9))
        return ng_errorf(err, "--render-time-limit: %g is outside 0 (none) to 1e9 seconds", o->time_limit);
    return 0;
}

/* Lets every node reachable from the roots say how it adapts to tiling,
 * or refuse to: the notes only once no node refuses (a refused render
 * says one line, not a note on how it would have tiled first). */
static int tile_check(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o, ng_error *err)
{
    double period[4] = {o->width * step(o, 0), o->height * step(o, 1), 0, 0};
    unsigned char *mark = ng__reachable(g, roots, nroots);
    int i, pass, rc = 0;
    if (!mark) return ng_errorf(err, "render: out of memory");
    for (pass = 0; pass < 2 && rc == 0; pass++)
        for (i = 0; i < ng_graph_count(g) && rc == 0; i++) {
            const ng_node *n = ng_graph_node(g, i);
            char buf[512];
            int r;
            if (!mark[i] || !n->type->tile_check) continue;
            r = n->type->tile_check(n, period, o->dims, buf, sizeof buf);
            if (r < 0) rc = ng_errorf(err, "%s", buf);
            else if (r > 0 && pass == 1 && o->note) o->note(o->note_user, buf);
        }
    free(mark);
    return rc;
}

/* A band holds one row of tiles: at most tile rows (tz slices), and no
 * more than the window has. */
static int band_rows(const render *r) { return r->rh < r->tile ? r->rh : r->tile; }
static int band_slices(const render *r) { return r->rd < r->tz ? r->rd : r->tz; }

/* Bytes of the ring of row bands, or 0 when that does not fit size_t. */
static size_t band_bytes(const render *r)
{
    size_t per_slot = 0, row = (size_t)r->rw * (size_t)band_rows(r) * (size_t)band_slices(r) * sizeof(float);
    int k;
    for (k = 0; k < r->nroots; k++) {
        size_t one = row * (size_t)r->channels[k]; /* at most 2^20 * 2^10 * 4 * 4 */
        if (per_slot > SIZE_MAX - one) return 0;
        per_slot += one;
    }
    if (per_slot > SIZE_MAX / (size_t)r->ring) return 0;
    return per_slot * (size_t)r->ring;
}

/* Bytes of memory this machine has, 0 if unknown. Asked once: sysconf
 * reads it through a system call (sysinfo), a part of every small render's
 * fixed cost, and it does not change while the process runs. */
static double machine_memory(void)
{
    static _Atomic double have = -1;
    double h = atomic_load(&have);
    if (h < 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        h = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
        atomic_store(&have, h);
    }
    return h;
}

/* The row bands must fit this machine's memory: a wide image with big
 * tiles and many threads can ask for terabytes, which is better refused up
 * front, by size, than met by a failed allocation or the OOM killer. */
static int check_band_memory(const render *r, int nthreads, ng_error *err)
{
    const double gib = 1024.0 * 1024 * 1024;
    const char *unit = r->volume ? "voxel" : "pixel", *option = r->volume ? "--brick" : "--tile";
    const size_t need = band_bytes(r);
    const double have = machine_memory();
    const double want = need ? (double)need
                             : (double)r->ring * r->rw * band_rows(r) * band_slices(r) * sizeof(float) * r->nroots *
                                   NG_MAX_CHANNELS;
    const int over_limit = need && r->stop.memory_limit && need > r->stop.memory_limit;
    char window[160];
    if (!over_limit && need && (have <= 0 || want <= have)) return 0; /* every render: no formatting */
    snprintf(window, sizeof window, "a %d %s wide window in %d-%s %s on %d thread%s", r->rw, unit, r->tile, unit,
             r->volume ? "bricks" : "tiles", nthreads, nthreads == 1 ? "" : "s");
    if (over_limit)
        return ng_errorf(err,
                         "render: %s needs %.1f MiB for its %d band%s, more than the %.1f MiB the memory limit "
                         "leaves (raise --memory-limit, or use a smaller %s or a narrower --region)",
                         window, need / 1048576.0, r->ring, r->ring == 1 ? "" : "s", r->stop.memory_limit / 1048576.0,
                         option);
    return ng_errorf(err,
                     "render: %s needs %.1f GiB for its %d band%s, more than this machine's %.1f GiB (use a "
                     "smaller %s, fewer --threads or a narrower --region)",
                     window, want / gib, r->ring, r->ring == 1 ? "" : "s", have / gib, option);
}

/* Every output of a volume render must take volumes; said before any
 * sink begins or any voxel is evaluated. */
static int check_volume_sinks(const ng_sink *sinks, int nroots, ng_error *err)
{
    int k;
    for (k = 0; k < nroots; k++)
        if (!sinks[k].begin_volume || !sinks[k].slab)
            return ng_errorf(err, "render: output %d cannot hold a volume (its sink takes images only)", k + 1);
    return 0;
}

static int render_with(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o,
                       const ng__tile_job *job, ng_sink *sinks, ng_error *err)
{
    render r;
    size_t xlen;
    int nthreads, begun = 0, i, k, ok = 0;
    if (check_opts(o, err) || ng__check_roots(g, roots, nroots, o->dims, err)) return -1;
    if (nroots < 1 || nroots > 64) return ng_errorf(err, "render: %d outputs; 1 to 64 are possible", nroots);
    if (job && o->depth) return ng_errorf(err, "render: a view renders an image, not a volume");
    if (o->depth && check_volume_sinks(sinks, nroots, err)) return -1;
    memset(&r, 0, sizeof r);
    r.g = g;
    r.roots = roots;
    r.nroots = nroots;
    r.o = o;
    r.job = job;
    for (k = 0; k < nroots; k++)
        r.channels[k] = job ? job->channels[k] : ng_node_channels(ng_graph_node(g, roots[k]));
    r.volume = o->depth > 0;
    r.rx = o->region[2] ? o->region[0] : 0;
    r.ry = o->region[2] ? o->region[1] : 0;
    r.rz = o->zregion[1] ? o->zregion[0] : 0;
    r.rw = o->region[2] ? o->region[2] : o->width;
    r.rh = o->region[2] ? o->region[3] : o->height;
    r.rd = !r.volume ? 1 : o->zregion[1] ? o->zregion[1] : o->depth;
    r.tile = r.volume ? o->brick : o->tile;
    r.tz = r.volume ? o->brick : 1;
    r.ntx = (r.rw + r.tile - 1) / r.tile;
    r.nty = (r.rh + r.tile - 1) / r.tile;
    r.ntz = (r.rd + r.tz - 1) / r.tz;
    r.nbands = (int64_t)r.nty * r.ntz;
    r.ntiles = r.nbands * r.ntx;
    if (o->tileable && tile_check(g, roots, nroots, o, err)) return -1;
    nthreads = o->threads ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1) nthreads = 1;
    if (nthreads > r.ntiles) nthreads = (int)r.ntiles;
    if (nthreads > NG_MAX_THREADS) nthreads = NG_MAX_THREADS;
    r.ring = nthreads + 1 < r.nbands ? nthreads + 1 : (int)r.nbands;
    r.stream = nthreads > 1;
    r.stop.memory_limit = o->memory_limit >= 1.8e19 ? (size_t)-1 : o->memory_limit > 0 ? (size_t)o->memory_limit : 0;
    if (check_band_memory(&r, nthreads, err)) return -1;
    atomic_init(&r.next_tile, 0);
    atomic_init(&r.next_write, 0);
    atomic_init(&r.failed, 0);
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    r.stop.limit = o->time_limit;
    r.started = ng__now();
    r.stop.deadline = o->time_limit > 0 ? ng__now() + o->time_limit : 0;
    r.stop.cancel = o->cancel;
    r.stop.abandon = nthreads > 1 ? &r.failed : NULL;
    /* the bands come first out of the limit; the scratch gets the rest */
    xlen = job ? 0 : (size_t)r.rw + (size_t)((block_cap(&r) + 15) & ~15);
    atomic_init(&r.memory_used, r.stop.memory_limit ? band_bytes(&r) + xlen * sizeof(float) : 0);
    r.stop.memory_used = &r.memory_used;
    {
        /* neighbourhood patches take at most half of what the limit leaves,
         * so the tiles' scratch keeps room beside them, and never more than
         * NG_HOOD_CACHE_DEFAULT */
        const size_t used = atomic_load(&r.memory_used), lim = r.stop.memory_limit;
        const size_t half = !lim ? NG_HOOD_CACHE_DEFAULT : lim > used ? (lim - used) / 2 + 1 : 1;
        const size_t room = half < NG_HOOD_CACHE_DEFAULT ? half : NG_HOOD_CACHE_DEFAULT;
        const int hoods = ng__hood_check(g, roots, nroots, room, nthreads, err);
        if (hoods < 0) goto done;
        if (hoods && ng__hood_attach(ng__graph_hood(g), room, &r.stop) == 0) {
            r.hood = ng__graph_hood(g);
        } else if (hoods) { /* another render of this graph holds its patches */
            if (!(r.hood = ng__hood_cache_new(0, NULL, 1))) {
                ng_errorf(err, "render: out of memory");
                goto done;
            }
            r.own_hood = 1;
            ng__hood_attach(r.hood, room, &r.stop); /* a new cache is free */
        }
        if (r.hood) ng__hood_set_extent(r.hood, r.rx, r.ry, r.rw, r.rh, nthreads);
    }
    r.uses = ng__uses(g, roots, nroots);
    if (!job && !(r.xplane = make_xplane(&r, xlen))) {
        ng_errorf(err, "render: out of memory");
        goto done;
    }
    if (!job && r.o->dims == 2) r.xstep = grid_step(r.xplane, r.rw, step(r.o, 0));
    r.band = calloc((size_t)r.ring * (size_t)nroots, sizeof *r.band);
    r.band_left = calloc((size_t)r.ring, sizeof *r.band_left);
    if (!r.uses || !r.band || !r.band_left) {
        ng_errorf(err, "render: out of memory");
        goto done;
    }
    for (i = 0; i < r.ring; i++) {
        atomic_init(&r.band_left[i], r.ntx);
        for (k = 0; k < nroots; k++) {
            size_t len = (size_t)r.rw * (size_t)band_rows(&r) * (size_t)band_slices(&r) * (size_t)r.channels[k];
            /* cache-line aligned: blocks are runs of a multiple of 16
             * samples (run_tile), so the blocks of a one-channel band meet
             * on line boundaries and two threads writing neighbouring
             * blocks never share a line */
            if (!(r.band[i * nroots + k] = band_alloc(len * sizeof(float)))) {
                ng_errorf(err, "render: out of memory for a %dx%dx%d band", r.rw, r.tile, r.tz);
                goto done;
            }
        }
    }
    for (begun = 0; begun < nroots; begun++) {
        ng_sink *sk = &sinks[begun];
        if (r.volume) {
            ng_volume_info v = {r.rw, r.rh, r.rd, r.channels[begun], {r.rx, r.ry, r.rz},
                                {o->width, o->height, o->depth}, {o->origin[0], o->origin[1], o->z},
                                o->pixel_size, {o->voxel_size[0], o->voxel_size[1], o->voxel_size[2]}};
            if (sk->begin_volume(sk->user, &v, err)) goto done;
        } else if (sk->begin(sk->user, r.rw, r.rh, r.channels[begun], err)) {
            goto done;
        }
    }

    ok = render_tiles(&r, sinks, nthreads, err) == 0;
    if (o->progress) fputc('\n', stderr);
done:
    /* once one sink fails to finish, the others discard theirs too */
    for (k = 0; k < begun; k++) {
        ng_error e;
        if (sinks[k].end(sinks[k].user, ok, &e) && ok) {
            *err = e;
            ok = 0;
        }
    }
    for (i = 0; r.band && i < r.ring * nroots; i++) band_free(r.band[i]);
    free(r.band);
    free(r.band_left);
    free(r.uses);
    free(r.xplane);
    if (r.hood) ng__hood_detach(r.hood);
    if (r.own_hood) ng__hood_cache_free(r.hood);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    return ok ? 0 : -1;
}

int ng_render(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o, ng_sink *sinks,
              ng_error *err)
{
    return render_with(g, roots, nroots, o, NULL, sinks, err);
}

int ng__render_job(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o,
                   const ng__tile_job *job, ng_sink *sinks, ng_error *err)
{
    return render_with(g, roots, nroots, o, job, sinks, err);
}

/* ---- in-memory output --------------------------------------------------- */

typedef struct membuf {
    float *out;
    int width, channels;
} membuf;

static int mem_begin(void *u, int w, int h, int ch, ng_error *err)
{
    membuf *m = u;
    (void)h;
    (void)err;
    m->width = w;
    m->channels = ch;
    return 0;
}

static int mem_rows(void *u, int y, int nrows, const float *rows, ng_error *err)
{
    membuf *m = u;
    size_t row = (size_t)m->width * (size_t)m->channels;
    (void)err;
    memcpy(m->out + (size_t)y * row, rows, (size_t)nrows * row * sizeof(float));
    return 0;
}

static int mem_end(void *u, int ok, ng_error *err)
{
    (void)u;
    (void)ok;
    (void)err;
    return 0;
}

int ng_render_buffer(const ng_graph *g, int root, const ng_render_opts *o, float *out, ng_error *err)
{
    membuf m = {out, 0, 0};
    ng_sink s = {mem_begin, mem_rows, mem_end, &m, NULL, NULL};
    return ng_render(g, &root, 1, o, &s, err);
}

/* ---- arbitrary points ---------------------------------------------------- */

int ng_eval_points(const ng_graph *g, int root, int dims, const double *const *xs, int n, float *out,
                   ng_error *err)
{
    enum { CHUNK = 4096 };
    int *uses, i, d, rc = 0, ch;
    ng_ctx *c;
    float *pos[4] = {0}, *tmp;
    if (ng__check_roots(g, &root, 1, dims, err)) return -1;
    ch = ng_node_channels(ng_graph_node(g, root));
    if (!(uses = ng__uses(g, &root, 1))) return ng_errorf(err, "eval: out of memory");
    if (!(c = ng__ctx_new(g, uses, CHUNK, err))) {
        free(uses);
        return -1;
    }
    for (d = 0; d < dims; d++) pos[d] = ng_scratch(c, 1);
    tmp = ng_scratch(c, ch);
    /* n - i never overflows, where i + CHUNK could near INT_MAX */
    for (i = 0; n - i > 0 && rc == 0; i += n - i < CHUNK ? n - i : CHUNK) {
        int m = n - i < CHUNK ? n - i : CHUNK, j, k;
        ng_block b;
        memset(&b, 0, sizeof b);
        b.n = m;
        b.dims = dims;
        b.footprint = 0;
        for (d = 0; d < 4; d++) b.p[d] = ng__ctx_zeros(c);
        for (d = 0; d < dims; d++) {
            if (!pos[d]) break;
            b.anchor[d] = xs[d][i];
            for (j = 0; j < m; j++) pos[d][j] = (float)(xs[d][i + j] - b.anchor[d]);
            b.p[d] = pos[d];
        }
        b.pos_id = ng__ctx_tile(c);
        if (!tmp || (dims > 0 && !pos[dims - 1]) || ng__eval(c, root, &b, tmp, 0)) {
            *err = *ng__ctx_error(c);
            rc = -1;
            break;
        }
        for (k = 0; k < ch; k++)
            for (j = 0; j < m; j++) out[(size_t)(i + j) * (size_t)ch + (size_t)k] = tmp[k * m + j];
    }
    for (d = 0; d < dims; d++) ng_scratch_free(c, pos[d], 1);
    ng_scratch_free(c, tmp, ch);
    ng__ctx_free(c);
    free(uses);
    return rc;
}
