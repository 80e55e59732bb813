/*
 * deflate.h — a fast deflate coder (RFC 1951) for the PNG encoder's levels
 * 1 and 2 (deflate.c): dynamic-Huffman blocks of literals, and at level 2
 * also runs of one byte (length/distance-1 pairs, as zlib's Z_RLE).
 *
 * One call codes one buffer as a raw deflate stream that needs no history
 * before it. Not final: it ends byte-aligned with an empty stored block
 * (what a zlib sync flush writes), so the next call's stream may follow it
 * directly and the two are one deflate stream. Final: its last block is
 * the stream's last.
 */
#ifndef NG_DEFLATE_H
#define NG_DEFLATE_H

#include <stddef.h>

/* Bytes of output that coding n bytes may need, at most. */
size_t ng__deflate_bound(size_t n);

/* Codes src[0..n) into dst (ng__deflate_bound(n) bytes); runs: also code
 * runs of a byte (level 2). Returns the bytes written, or 0 when out of
 * memory (a stream is never empty). */
size_t ng__deflate(unsigned char *dst, const unsigned char *src, size_t n, int runs, int final);

#endif
