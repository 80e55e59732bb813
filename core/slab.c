/*
 * slab.c — memory for neighbourhood patches (core/hood.c) in chunks of
 * 2 MiB alignment that the kernel may back with transparent huge pages.
 *
 * A render's patches are fresh memory: a grid shading of a 2048^2 image
 * writes 17 MB of them, and each 4 KiB page's first touch is a page fault
 * (a tenth of the shading's time over a cheap noise, perf). In a chunk
 * advised MADV_HUGEPAGE, a 2 MiB page is one fault. A chunk holds slots of
 * one size (patches of one node have one size), as many as make it at
 * least 2 MiB (at most 64); a chunk whose slots are all free is given back
 * at once, so memory follows the patches the cache holds, as malloc did.
 * What the cache counts against its cap and the memory limit is still each
 * patch's bytes; the chunks' slack (free slots of partly used chunks) is
 * not counted, as malloc's was not.
 *
 * Small slots, and builds where huge pages do not apply (no
 * MADV_HUGEPAGE, or AddressSanitizer, which checks malloc'd buffers'
 * bounds), take malloc. Not thread-safe: the cache calls it under its
 * lock.
 */
#include "ng_internal.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#if defined(__linux__) && !defined(ASAN)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define HUGE_CHUNKS 1
#endif
#endif

#define HUGE_PAGE ((size_t)2 << 20)
/* Slots below this take malloc: a chunk of 64 would not fill a huge page. */
#define MIN_SLOT (HUGE_PAGE / 64)

struct ng__slab {
    struct ng__slab *next;
    unsigned char *base;
    size_t slot, len; /* slot size; the chunk's mapped length */
    int nslots, used;
    uint64_t busy; /* bit i: slot i is in use */
};

#ifdef HUGE_CHUNKS

/* len bytes at a 2 MiB boundary, advised for huge pages, or NULL. */
static unsigned char *map_aligned(size_t len)
{
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
}

static ng__slab *chunk_new(size_t slot)
{
    ng__slab *s = calloc(1, sizeof *s);
    const size_t page = 4096;
    if (!s) return NULL;
    s->slot = slot;
    s->nslots = (int)((HUGE_PAGE + slot - 1) / slot);
    if (s->nslots > 64) s->nslots = 64;
    s->len = ((size_t)s->nslots * slot + page - 1) / page * page;
    if (!(s->base = map_aligned(s->len))) {
        free(s);
        return NULL;
    }
    return s;
}

void *ng__slab_get(ng__slab **list, size_t bytes)
{
    ng__slab *s;
    int i;
    if (bytes < MIN_SLOT) return malloc(bytes);
    for (s = *list; s && (s->slot != bytes || s->used == s->nslots); s = s->next) continue;
    if (!s) {
        if (!(s = chunk_new(bytes))) return NULL;
        s->next = *list;
        *list = s;
    }
    for (i = 0; s->busy >> i & 1; i++) continue;
    s->busy |= (uint64_t)1 << i;
    s->used++;
    return s->base + (size_t)i * s->slot;
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
        s->busy &= ~((uint64_t)1 << (((unsigned char *)p - s->base) / s->slot));
        if (--s->used == 0) {
            *sp = s->next;
            munmap(s->base, s->len);
            free(s);
        }
        return;
    }
}

#else

void *ng__slab_get(ng__slab **list, size_t bytes)
{
    (void)list;
    return malloc(bytes);
}

void ng__slab_put(ng__slab **list, void *p, size_t bytes)
{
    (void)list, (void)bytes;
    free(p);
}

#endif
