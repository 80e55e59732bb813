/*
 * deflate.c — a fast deflate coder (RFC 1951) for PNG levels 1 and 2: see
 * deflate.h.
 *
 * zlib's Z_HUFFMAN_ONLY and Z_RLE go through its general machinery (a
 * sliding window, a pending buffer, per-symbol tallies with block-full
 * checks); this file does only what those two strategies need, 3-6 times
 * faster. The input is cut into chunks of at most BLOCK bytes; each is
 * one block with its own dynamic Huffman code, or four when their own
 * codes are smaller (statistics that change within the chunk), and any
 * block is stored when that is smaller (random bytes). The sizes come
 * out at or a little under zlib's with the same strategy.
 *
 * Code lengths are limited (15 bits, 7 for the code-length code) by
 * package-merge (Larmore and Hirschberg, 1990): optimal lengths under the
 * limit, in O(symbols x limit) time.
 */
#include "deflate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Input bytes per chunk: a stored block holds at most 65535. Smaller
 * blocks follow the data's statistics more closely but pay a code table
 * (about 60-100 bytes) each: on filtered noise 64 KiB takes 0.2% less
 * than zlib's blocks of 16 K symbols. */
#define BLOCK 65535
#define NLIT 286       /* literal/length symbols that may occur: 0-285 */
#define NCL 19         /* code-length code symbols */
#define MAXBITS 15
#define MAXCLBITS 7
#define MIN_RUN 3
#define MAX_RUN 258

/* ---- the bit writer: bits go out least significant first ---------------- */

/* The writer stores 8 bytes at a time and moves on by the whole bytes
 * among them, without a branch; the output buffer has 8 bytes to spare
 * (ng__deflate_bound). */
typedef struct bitw {
    unsigned char *p;
    uint64_t bb; /* pending bits, the oldest lowest */
    unsigned bn; /* how many: < 8 after a flush */
} bitw;

static inline void store64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> 8 * i);
#endif
}

/* Adds n bits of code; at most 56 bits may be added between flushes. */
static inline void add(bitw *w, uint64_t code, unsigned n)
{
    w->bb |= code << w->bn;
    w->bn += n;
}

static inline void flush(bitw *w)
{
    store64(w->p, w->bb);
    w->p += w->bn >> 3;
    w->bb >>= w->bn & ~7u;
    w->bn &= 7;
}

/* n <= 32 bits, flushed. */
static inline void put(bitw *w, uint32_t code, unsigned n)
{
    add(w, code, n);
    flush(w);
}

/* Pads to a byte boundary with zero bits and writes every pending byte. */
static void align(bitw *w)
{
    if (w->bn) *w->p++ = (unsigned char)w->bb;
    w->bb = 0;
    w->bn = 0;
}

/* ---- length-limited code lengths: package-merge --------------------------- */

typedef struct leaf {
    uint32_t w;
    int sym;
} leaf;

static int by_weight(const void *a, const void *b)
{
    const leaf *x = a, *y = b;
    if (x->w != y->w) return x->w < y->w ? -1 : 1;
    return x->sym - y->sym; /* ties by symbol: the same lengths on every libc */
}

/* Optimal code lengths, at most maxbits, for the symbols 0..nsym-1 of
 * freq (nsym <= NLIT, 2^maxbits >= nsym); unused symbols get 0. A code
 * needs two symbols to be complete, so with fewer used, symbol 0 or 1
 * stands in with weight 1.
 *
 * Package-merge: at the deepest level the items are the leaves; each
 * level up, the items are the leaves merged with the pairs ("packages")
 * of the level below. The 2n-2 cheapest items of the top level are the
 * solution; a symbol's length is how many of the chosen items, over all
 * levels, hold it. Since leaves enter every level in the same order, the
 * chosen leaves of a level are a prefix of the sorted leaves, so only
 * whether each item is a leaf needs keeping. */
static void code_lengths(const uint32_t *freq, int nsym, int maxbits, unsigned char *len)
{
    leaf lv[NLIT];
    uint32_t wa[2 * NLIT], wb[2 * NLIT], *prev = wa, *cur = wb, *t;
    unsigned char is_leaf[MAXBITS][2 * NLIT];
    int n = 0, i, d, m, nprev, ncur;
    for (i = 0; i < nsym; i++) {
        len[i] = 0;
        if (freq[i]) lv[n].w = freq[i], lv[n++].sym = i;
    }
    for (i = 0; n < 2; i++)
        if (!freq[i]) lv[n].w = 1, lv[n++].sym = i;
    qsort(lv, (size_t)n, sizeof lv[0], by_weight);
    for (i = 0; i < n; i++) prev[i] = lv[i].w, is_leaf[maxbits - 1][i] = 1;
    nprev = n;
    for (d = maxbits - 2; d >= 0; d--) {
        int a = 0, b = 0; /* next leaf, next package (of prev) */
        ncur = 0;
        while (a < n || b + 1 < nprev) {
            if (b + 1 >= nprev || (a < n && lv[a].w <= prev[b] + prev[b + 1])) {
                is_leaf[d][ncur] = 1;
                cur[ncur++] = lv[a++].w;
            } else {
                is_leaf[d][ncur] = 0;
                cur[ncur++] = prev[b] + prev[b + 1];
                b += 2;
            }
        }
        t = prev, prev = cur, cur = t;
        nprev = ncur;
    }
    m = 2 * n - 2;
    for (d = 0; d < maxbits && m > 0; d++) {
        int leaves = 0;
        for (i = 0; i < m; i++) leaves += is_leaf[d][i];
        for (i = 0; i < leaves; i++) len[lv[i].sym]++;
        m = 2 * (m - leaves);
    }
}

/* Canonical codes of the lengths (RFC 1951 3.2.2), bit-reversed because
 * the writer sends the least significant bit first and Huffman codes go
 * most significant bit first. */
static void canonical_codes(const unsigned char *len, int nsym, uint32_t *code)
{
    unsigned count[MAXBITS + 1] = {0}, next[MAXBITS + 1];
    unsigned c = 0;
    int i, b;
    for (i = 0; i < nsym; i++) count[len[i]]++;
    count[0] = 0;
    for (b = 1; b <= MAXBITS; b++) {
        c = (c + count[b - 1]) << 1;
        next[b] = c;
    }
    for (i = 0; i < nsym; i++) {
        uint32_t v = len[i] ? next[len[i]]++ : 0, r = 0;
        for (b = 0; b < len[i]; b++) r |= (v >> b & 1) << (len[i] - 1 - b);
        code[i] = r;
    }
}

/* ---- lengths and their symbols --------------------------------------------- */

/* A run of length l + 3 (l in 0..255): its symbol's offset from 257, its
 * extra bits and their value. Symbols 257-264 are lengths 3-10; then
 * groups of four symbols with one more extra bit each; 285 is 258. */
static void run_symbol(unsigned l, unsigned *sym, unsigned *nextra, unsigned *extra)
{
    if (l < 8) {
        *sym = l, *nextra = 0, *extra = 0;
    } else if (l == 255) {
        *sym = 28, *nextra = 0, *extra = 0;
    } else {
        unsigned top = 31u - (unsigned)__builtin_clz(l), e = top - 2;
        *sym = 4 * e + 4 + (l >> e & 3);
        *nextra = e;
        *extra = l & ((1u << e) - 1);
    }
}

/* ---- one block ----------------------------------------------------------------- */

/* What a block's code table says, ready to write. */
typedef struct table {
    unsigned char len[NLIT]; /* literal/length code lengths */
    uint32_t code[NLIT];
    int hlit, hclen, ncl;
    unsigned char cl_len[NCL];
    uint32_t cl_code[NCL];
    unsigned char cl_sym[NLIT + 2], cl_extra[NLIT + 2]; /* the lengths, run-length coded */
    uint64_t bits;                                    /* the table's size */
} table;

static const unsigned char cl_order[NCL] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
static const unsigned char cl_extra_bits[NCL] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

/* The code lengths as code-length symbols: 16 repeats the last length
 * 3-6 times, 17 and 18 write 3-10 and 11-138 zeros. */
static void rle_lengths(table *t, const unsigned char *lens, int n)
{
    int i = 0, k = 0;
    while (i < n) {
        const unsigned char v = lens[i];
        int r = 1;
        while (i + r < n && lens[i + r] == v) r++;
        i += r;
        if (v == 0) {
            while (r >= 11) {
                const int c = r > 138 ? 138 : r;
                t->cl_sym[k] = 18, t->cl_extra[k++] = (unsigned char)(c - 11), r -= c;
            }
            if (r >= 3) t->cl_sym[k] = 17, t->cl_extra[k++] = (unsigned char)(r - 3), r = 0;
        } else {
            t->cl_sym[k] = v, t->cl_extra[k++] = 0, r--;
            while (r >= 3) {
                const int c = r > 6 ? 6 : r;
                t->cl_sym[k] = 16, t->cl_extra[k++] = (unsigned char)(c - 3), r -= c;
            }
        }
        while (r-- > 0) t->cl_sym[k] = v, t->cl_extra[k++] = 0;
    }
    t->ncl = k;
}

/* The block's code from its symbol counts (freq[256], end of block, is
 * set here), and the size of its header. Distance codes: only distance 1
 * (code 0) occurs; codes 0 and 1 both get one bit, a complete code every
 * inflater takes. */
static void build_table(table *t, uint32_t *freq)
{
    uint32_t clf[NCL] = {0};
    unsigned char lens[NLIT + 2];
    int i;
    freq[256] = 1;
    code_lengths(freq, NLIT, MAXBITS, t->len);
    canonical_codes(t->len, NLIT, t->code);
    for (t->hlit = NLIT; t->hlit > 257 && !t->len[t->hlit - 1]; t->hlit--) {
    }
    memcpy(lens, t->len, (size_t)t->hlit);
    lens[t->hlit] = lens[t->hlit + 1] = 1;
    rle_lengths(t, lens, t->hlit + 2);
    for (i = 0; i < t->ncl; i++) clf[t->cl_sym[i]]++;
    code_lengths(clf, NCL, MAXCLBITS, t->cl_len);
    canonical_codes(t->cl_len, NCL, t->cl_code);
    for (t->hclen = NCL; t->hclen > 4 && !t->cl_len[cl_order[t->hclen - 1]]; t->hclen--) {
    }
    t->bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)t->hclen;
    for (i = 0; i < t->ncl; i++) t->bits += t->cl_len[t->cl_sym[i]] + cl_extra_bits[t->cl_sym[i]];
}

static void put_table(bitw *w, const table *t, int final)
{
    int i;
    put(w, (final ? 1u : 0u) | 2u << 1, 3); /* BFINAL, BTYPE 10: dynamic */
    put(w, (uint32_t)(t->hlit - 257), 5);
    put(w, 1, 5); /* HDIST - 1: two distance codes */
    put(w, (uint32_t)(t->hclen - 4), 4);
    for (i = 0; i < t->hclen; i++) put(w, t->cl_len[cl_order[i]], 3);
    for (i = 0; i < t->ncl; i++) {
        const int s = t->cl_sym[i];
        put(w, t->cl_code[s], t->cl_len[s]);
        if (cl_extra_bits[s]) put(w, t->cl_extra[i], cl_extra_bits[s]);
    }
}

static void put_stored(bitw *w, const unsigned char *src, size_t n, int final)
{
    put(w, final ? 1u : 0u, 3); /* BTYPE 00 */
    align(w);
    w->p[0] = (unsigned char)(n & 0xff);
    w->p[1] = (unsigned char)(n >> 8);
    w->p[2] = (unsigned char)(~n & 0xff);
    w->p[3] = (unsigned char)(~n >> 8 & 0xff);
    if (n) memcpy(w->p + 4, src, n);
    w->p += 4 + n;
}

/* ---- tokens ------------------------------------------------------------------- */

/* Each run length's symbol (- 257), extra bits and their value. */
typedef struct runsyms {
    unsigned sym[256], nextra[256], extra[256];
} runsyms;

/* Literal counts of src[0..n) added to freq, four counts apart so that a
 * run of one byte does not wait on its own increments. */
static void count_literals(uint32_t *freq, const unsigned char *src, size_t n)
{
    uint32_t part[3][256] = {{0}};
    size_t i;
    int s;
    for (i = 0; i + 4 <= n; i += 4) {
        freq[src[i]]++;
        part[0][src[i + 1]]++;
        part[1][src[i + 2]]++;
        part[2][src[i + 3]]++;
    }
    for (; i < n; i++) freq[src[i]]++;
    for (s = 0; s < 256; s++) freq[s] += part[0][s] + part[1][s] + part[2][s];
}

/* How many bytes from p on (at most max) equal v. */
static size_t run_length(const unsigned char *p, size_t max, unsigned char v)
{
    size_t r = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t rep = 0x0101010101010101ull * v;
    while (r + 8 <= max) {
        uint64_t x;
        memcpy(&x, p + r, 8);
        x ^= rep;
        if (x) return r + (size_t)__builtin_ctzll(x) / 8;
        r += 8;
    }
#endif
    while (r < max && p[r] == v) r++;
    return r;
}

/* src[start..end) as tokens: a literal byte (0-255), or 256 + l for a
 * run of l + 3 copies of the byte before (distance 1), counted into freq
 * by symbol, and runs also by length (freq[NLIT + l]). A run may reach back before start (the decoder still has
 * those bytes), never before src. Returns the token count. */
static size_t tokenize(uint16_t *tok, uint32_t *freq, const runsyms *rs, const unsigned char *src, size_t start,
                       size_t end)
{
    size_t i = start, k = 0;
    if (i == 0 && i < end) freq[tok[k++] = src[i++]]++;
    while (i < end) {
        const unsigned char v = src[i];
        if (v == src[i - 1]) {
            const size_t max = end - i < MAX_RUN ? end - i : MAX_RUN;
            const size_t r = run_length(src + i, max, v);
            if (r >= MIN_RUN) {
                tok[k++] = (uint16_t)(256 + r - MIN_RUN);
                freq[257 + rs->sym[r - MIN_RUN]]++;
                freq[NLIT + r - MIN_RUN]++;
                i += r;
                continue;
            }
        }
        tok[k++] = v;
        freq[v]++;
        i++;
    }
    return k;
}

/* ---- one block ------------------------------------------------------------------ */

/* Input bytes [start, end) and, at level 2, their tokens [tok0, tok1):
 * a block to be, with its code, the code of each token (a literal's, or a
 * run's length, extra bits and distance together) and its size. */
typedef struct span {
    size_t start, end, tok0, tok1;
    uint32_t freq[NLIT + 256]; /* by symbol, then runs by length - 3 */
    table t;
    uint32_t code[512];
    unsigned char len[512];
    uint64_t bits;  /* the block's size, coded as it will be */
    int stored;     /* stored: smaller than its dynamic code */
} span;

/* The span's code and size. tok: NULL at level 1 (the bytes are the
 * literals). */
static void plan_block(span *sp, const uint16_t *tok, const runsyms *rs)
{
    table *t = &sp->t;
    uint64_t data = 0, stored;
    int s;
    build_table(t, sp->freq);
    for (s = 0; s < 256; s++) {
        sp->code[s] = t->code[s];
        sp->len[s] = t->len[s];
        data += (uint64_t)sp->freq[s] * t->len[s];
    }
    /* a run: its length symbol, the extra bits, then distance code 0 (one bit, 0) */
    for (s = 0; tok && s < 256; s++) {
        const unsigned ls = 257 + rs->sym[s];
        sp->code[256 + s] = t->code[ls] | rs->extra[s] << t->len[ls];
        sp->len[256 + s] = (unsigned char)(t->len[ls] + rs->nextra[s] + 1);
    }
    for (s = 0; tok && s < 256; s++) data += (uint64_t)sp->freq[NLIT + s] * sp->len[256 + s];
    data += t->bits + t->len[256];
    /* a stored block: its header, the worst padding, LEN and NLEN, the bytes */
    stored = 3 + 7 + 32 + 8 * (uint64_t)(sp->end - sp->start);
    sp->stored = stored < data;
    sp->bits = sp->stored ? stored : data;
}

static void emit_block(bitw *w, const unsigned char *src, const uint16_t *tok, const span *sp, int final)
{
    const uint32_t *code = sp->code;
    const unsigned char *len = sp->len;
    bitw o;
    if (sp->stored) {
        put_stored(w, src + sp->start, sp->end - sp->start, final);
        return;
    }
    put_table(w, &sp->t, final);
    /* the writer in a local, which the compiler keeps in registers (the
     * stores through w->p might otherwise alias it) */
    o = *w;
    if (!tok) { /* three codes of at most 15 bits between flushes */
        const unsigned char *p = src + sp->start, *e = src + sp->end;
        for (; e - p >= 3; p += 3) {
            add(&o, code[p[0]], len[p[0]]);
            add(&o, code[p[1]], len[p[1]]);
            add(&o, code[p[2]], len[p[2]]);
            flush(&o);
        }
        for (; p < e; p++) put(&o, code[*p], len[*p]);
    } else { /* tokens of at most 21 bits (a run: 15 + 5 extra + 1), two between flushes */
        const uint16_t *p = tok + sp->tok0, *e = tok + sp->tok1;
        for (; e - p >= 2; p += 2) {
            add(&o, code[p[0]], len[p[0]]);
            add(&o, code[p[1]], len[p[1]]);
            flush(&o);
        }
        for (; p < e; p++) put(&o, code[*p], len[*p]);
    }
    put(&o, sp->t.code[256], sp->t.len[256]); /* end of block */
    *w = o;
}

/* ---- a chunk: one block, or PARTS when its statistics change within it ---------- */

#define PARTS 4

/* log2(x) for x >= 1 to within 0.09: the float's exponent plus its
 * mantissa as the fraction. Good enough to compare two estimates. */
static float rough_log2(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return (float)u * (1.0f / 8388608.0f) - 127.0f;
}

/* Bits the counts cost: their entropy, and a code table of about 5 bits
 * a symbol used. */
static float estimate(const uint32_t *freq)
{
    float total = 1, bits = 0, used = 0, lt;
    int s;
    for (s = 0; s < NLIT; s++) total += (float)freq[s];
    lt = rough_log2(total);
    for (s = 0; s < NLIT; s++)
        if (freq[s]) {
            bits += (float)freq[s] * (lt - rough_log2((float)freq[s]));
            used += 1;
        }
    return bits + 5 * used + 40;
}

/* src[start..end) (at most BLOCK bytes) as one block, or as PARTS blocks
 * when that is smaller. The estimate spares building PARTS codes for
 * nothing where the statistics hold (most images); where it says split,
 * the exact sizes decide, so a chunk never takes more than one block
 * would. */
static void code_chunk(bitw *w, const unsigned char *src, size_t start, size_t end, uint16_t *tok,
                       const runsyms *rs, int final)
{
    span part[PARTS], all;
    float split = 0;
    uint64_t bits = 0;
    size_t k = 0;
    int i, s;
    memset(all.freq, 0, sizeof all.freq);
    all.start = start, all.end = end, all.tok0 = 0;
    for (i = 0; i < PARTS; i++) {
        span *p = &part[i];
        memset(p->freq, 0, sizeof p->freq);
        p->start = start + (end - start) * (size_t)i / PARTS;
        p->end = start + (end - start) * (size_t)(i + 1) / PARTS;
        p->tok0 = k;
        if (tok) k += tokenize(tok + k, p->freq, rs, src, p->start, p->end);
        else count_literals(p->freq, src + p->start, p->end - p->start);
        p->tok1 = k;
        for (s = 0; s < NLIT + 256; s++) all.freq[s] += p->freq[s];
        split += estimate(p->freq);
    }
    all.tok1 = k;
    plan_block(&all, tok, rs);
    if (split < estimate(all.freq)) {
        for (i = 0; i < PARTS; i++) {
            plan_block(&part[i], tok, rs);
            bits += part[i].bits;
        }
        if (bits < all.bits) {
            for (i = 0; i < PARTS; i++) emit_block(w, src, tok, &part[i], final && i == PARTS - 1);
            return;
        }
    }
    emit_block(w, src, tok, &all, final);
}

/* ---- the stream ----------------------------------------------------------------- */

size_t ng__deflate_bound(size_t n)
{
    /* each block no larger than stored (5 bytes of header, one of padding),
     * the closing empty stored block, and the writer's 8 bytes of slack */
    return n + 6 * (n / BLOCK + 1) + 6 + 8;
}

size_t ng__deflate(unsigned char *dst, const unsigned char *src, size_t n, int runs, int final)
{
    bitw w = {dst, 0, 0};
    uint16_t *tok = NULL;
    runsyms rs;
    size_t at = 0;
    unsigned l;
    if (runs && n && !(tok = malloc((n < BLOCK ? n : BLOCK) * sizeof *tok))) return 0;
    for (l = 0; runs && l < 256; l++) run_symbol(l, &rs.sym[l], &rs.nextra[l], &rs.extra[l]);
    if (n == 0 && final) put_stored(&w, src, 0, 1);
    while (at < n) {
        const size_t end = n - at > BLOCK ? at + BLOCK : n;
        code_chunk(&w, src, at, end, tok, &rs, final && end == n);
        at = end;
    }
    /* what a sync flush writes: the next stream starts on a byte */
    if (!final) put_stored(&w, src, 0, 0);
    align(&w);
    free(tok);
    return (size_t)(w.p - dst);
}
