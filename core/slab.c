/*
 * slab.c — memory for neighbourhood patches (core/hood.c) in chunks of
 * 2 MiB alignment that the kernel may back with transparent huge pages,
 * kept for reuse when freed.
 *
 * A render's patches are fresh memory: a grid shading of a 2048^2 image
 * writes 17 MB of them, and each 4 KiB page's first touch is a page fault
 * (a tenth of the shading's time over a cheap noise, perf). In a chunk
 * advised MADV_HUGEPAGE, a 2 MiB page is one fault. A chunk holds slots of
 * one size (patches of one node have one size), as many as fill its
 * length, a whole number of 2 MiB pages (at most 64 slots). What the cache
 * counts against its cap and the memory limit is still each patch's
 * bytes; the chunks' slack (free slots of partly used chunks) is not
 * counted, as malloc's was not.
 *
 * A chunk whose slots are all free goes to a process-wide pool instead of
 * back to the system: the next chunk of its length, for any cache and any
 * slot size, is taken from there, so a render after the first (serve, the
 * tiles of a farm, a script run again) pays neither the page faults nor
 * the kernel's zeroing of fresh pages. Its slots hold the data of the
 * patches before: a patch's compute writes every cell it reads (scribble
 * below fills each slot handed out with NaN so the tests prove it). The
 * pool is bounded: its idle bytes stay under pool_cap (NG_SLAB_POOL_CAP,
 * a quarter of the patches' own default cap), oldest chunks unmapped
 * first; a render under a memory limit gives idle chunks back before its
 * patches take more (ng__slab_trim from core/hood.c), so its counted bytes
 * and the pool's idle ones stay within the limit. The pool's chunks are
 * reachable from it (LeakSanitizer sees no leak); ng__slab_trim(0) frees
 * them all.
 *
 * Small slots take malloc. Where huge pages do not apply (no
 * MADV_HUGEPAGE), every slot takes malloc and nothing is pooled. Under
 * AddressSanitizer chunks are malloc'd, each slot followed by a red zone,
 * and whatever is not handed out is poisoned, so an overrun is caught as
 * it was with a malloc per patch. A cache's chunk list is not
 * thread-safe: the cache calls it under its lock (the pool has its own,
 * taken inside the cache's, never the other way).
 */
#include "ng_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#if defined(__linux__)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define HUGE_CHUNKS 1
#endif
#endif

#ifdef ASAN
#include <sanitizer/asan_interface.h>
#define RED_ZONE 64
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define RED_ZONE 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define HUGE_PAGE ((size_t)2 << 20)
/* Slots below this take malloc: a chunk of 64 would not fill a huge page. */
#define MIN_SLOT (HUGE_PAGE / 64)

/* When set, every slot handed out is filled with NaN (ng__slab_scribble). */
static atomic_int scribble;

void ng__slab_scribble(int on) { atomic_store(&scribble, on); }

static void *handed_out(void *p, size_t bytes)
{
    if (p && atomic_load_explicit(&scribble, memory_order_relaxed)) memset(p, 0xff, bytes);
    return p;
}

#ifdef HUGE_CHUNKS

struct ng__slab {
    struct ng__slab *next;
    unsigned char *base;
    size_t slot, stride, len; /* slot size; its stride (the slot and a red zone); the chunk's length */
    int nslots, used;
    uint64_t busy; /* bit i: slot i is in use */
};

/* The pool: chunks no cache uses, the most recently freed first. */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static ng_fork_guard pool_guard; /* pool_mu held across fork (core/fork.c) */
static ng__slab *pool;
static atomic_size_t pool_bytes;
static size_t pool_cap = NG_SLAB_POOL_CAP;
static atomic_long mapped, reused;

/* At load, before any thread: added on first use, the guard would be
 * added under a patch cache's lock, which the fork handler may be waiting
 * for while it holds the guards' list. */
__attribute__((constructor)) static void guard_pool(void)
{
    ng_fork_guard_add(&pool_guard, &pool_mu, NULL, NG_FORK_LEAF);
}

static void lock_pool(void) { pthread_mutex_lock(&pool_mu); }

/* len bytes (a multiple of HUGE_PAGE) at a 2 MiB boundary, advised for
 * huge pages, or NULL; zeros, as fresh pages are. */
static unsigned char *map_aligned(size_t len)
{
#ifdef ASAN
    unsigned char *a = aligned_alloc(HUGE_PAGE, len);
    if (a) memset(a, 0, len);
    return a;
#else
    const size_t span = len + HUGE_PAGE;
    unsigned char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *a;
    size_t head;
    if (m == MAP_FAILED) return NULL;
    head = (HUGE_PAGE - (uintptr_t)m % HUGE_PAGE) % HUGE_PAGE;
    a = m + head;
    if (head) munmap(m, head);
    if (span - head > len) munmap(a + len, span - head - len);
    (void)madvise(a, len, MADV_HUGEPAGE); /* advice: without it, ordinary pages */
    return a;
#endif
}

static void unmap(ng__slab *s)
{
#ifdef ASAN
    UNPOISON(s->base, s->len);
    free(s->base);
#else
    munmap(s->base, s->len);
#endif
    free(s);
}

/* The stride of slots of `slot` bytes, and the length of a chunk of them:
 * enough slots for a huge page (at most 64), in whole huge pages, and
 * more while their last huge page would be mostly empty: a slot that
 * reaches into a page has the whole page zeroed by the kernel when first
 * touched, so one slot of 4.2 MB (a 1024-cell patch) in a 6 MB chunk had
 * a 2048^2 render zero 24 MB for 17; slots filling all but a sixteenth
 * of the chunk (four of them in 18 MB) zero what they use. Untouched
 * pages of a chunk cost no memory. */
/* slots start on a cache line (core/hood.c's evaluate_source stores whole
 * lines) */
static size_t stride_of(size_t slot) { return (slot + 63) / 64 * 64 + RED_ZONE; }
static size_t pages_for(size_t bytes) { return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE; }
static size_t chunk_len(size_t stride)
{
    size_t n = (HUGE_PAGE + stride - 1) / stride, k;
    if (n > 64) n = 64;
    for (k = n; k <= 64 && k <= 8 * n; k++)
        if ((pages_for(k * stride) - k * stride) * 16 <= pages_for(k * stride)) return pages_for(k * stride);
    return pages_for(n * stride);
}

/* Under pool_mu: unmaps the oldest chunks until at most keep bytes idle. */
static void trim_locked(size_t keep)
{
    while (atomic_load(&pool_bytes) > keep) {
        ng__slab **sp = &pool, *s;
        while ((*sp)->next) sp = &(*sp)->next;
        s = *sp;
        *sp = NULL;
        atomic_fetch_sub(&pool_bytes, s->len);
        unmap(s);
    }
}

/* A pooled chunk of length len, or NULL. */
static ng__slab *from_pool(size_t len)
{
    ng__slab **sp, *s = NULL;
    lock_pool();
    for (sp = &pool; *sp; sp = &(*sp)->next)
        if ((*sp)->len == len) {
            s = *sp;
            *sp = s->next;
            atomic_fetch_sub(&pool_bytes, len);
            break;
        }
    pthread_mutex_unlock(&pool_mu);
    if (s) atomic_fetch_add(&reused, 1);
    return s;
}

static void to_pool(ng__slab *s)
{
    lock_pool();
    s->next = pool;
    pool = s;
    atomic_fetch_add(&pool_bytes, s->len);
    trim_locked(pool_cap);
    pthread_mutex_unlock(&pool_mu);
}

static ng__slab *chunk_new(size_t slot)
{
    const size_t stride = stride_of(slot), len = chunk_len(stride);
    ng__slab *s = from_pool(len);
    if (!s) {
        if (!(s = calloc(1, sizeof *s))) return NULL;
        if (!(s->base = map_aligned(len))) {
            free(s);
            return NULL;
        }
        s->len = len;
        POISON(s->base, len);
        atomic_fetch_add(&mapped, 1);
    }
    s->slot = slot;
    s->stride = stride;
    s->nslots = (int)(len / stride < 64 ? len / stride : 64);
    s->used = 0;
    s->busy = 0;
    return s;
}

void *ng__slab_get(ng__slab **list, size_t bytes)
{
    ng__slab *s;
    unsigned char *p;
    int i;
    if (bytes < MIN_SLOT) return handed_out(malloc(bytes), bytes);
    for (s = *list; s && (s->slot != bytes || s->used == s->nslots); s = s->next) continue;
    if (!s) {
        if (!(s = chunk_new(bytes))) return NULL;
        s->next = *list;
        *list = s;
    }
    for (i = 0; s->busy >> i & 1; i++) continue;
    s->busy |= (uint64_t)1 << i;
    s->used++;
    p = s->base + (size_t)i * s->stride;
    UNPOISON(p, bytes);
    return handed_out(p, bytes);
}

void ng__slab_put(ng__slab **list, void *p, size_t bytes)
{
    ng__slab **sp, *s;
    if (!p) return;
    if (bytes < MIN_SLOT) {
        free(p);
        return;
    }
    for (sp = list; (s = *sp); sp = &s->next) {
        if ((unsigned char *)p < s->base || (unsigned char *)p >= s->base + s->len) continue;
        s->busy &= ~((uint64_t)1 << (((unsigned char *)p - s->base) / s->stride));
        POISON(p, s->stride);
        if (--s->used == 0) {
            *sp = s->next;
            to_pool(s);
        }
        return;
    }
}

size_t ng__slab_idle(void) { return atomic_load(&pool_bytes); }

void ng__slab_trim(size_t keep)
{
    if (atomic_load(&pool_bytes) <= keep) return;
    lock_pool();
    trim_locked(keep);
    pthread_mutex_unlock(&pool_mu);
}

size_t ng__slab_pool_cap(size_t cap)
{
    size_t old;
    lock_pool();
    old = pool_cap;
    pool_cap = cap;
    trim_locked(cap);
    pthread_mutex_unlock(&pool_mu);
    return old;
}

void ng__slab_counts(long *chunks_mapped, long *chunks_reused)
{
    *chunks_mapped = atomic_load(&mapped);
    *chunks_reused = atomic_load(&reused);
}

void ng__slab_hold(int hold)
{
    if (hold) lock_pool();
    else pthread_mutex_unlock(&pool_mu);
}

#else

struct ng__slab {
    int unused;
};

void *ng__slab_get(ng__slab **list, size_t bytes)
{
    (void)list;
    return handed_out(malloc(bytes), bytes);
}

void ng__slab_put(ng__slab **list, void *p, size_t bytes)
{
    (void)list, (void)bytes;
    free(p);
}

size_t ng__slab_idle(void) { return 0; }
void ng__slab_trim(size_t keep) { (void)keep; }
size_t ng__slab_pool_cap(size_t cap) { return cap; }
void ng__slab_hold(int hold) { (void)hold; }

void ng__slab_counts(long *chunks_mapped, long *chunks_reused)
{
    *chunks_mapped = *chunks_reused = 0;
}

#endif
