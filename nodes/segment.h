/*
 * segment.h — finding the interval of sorted control points that holds a
 * value, for the nodes that remap through points (curves.c, colour.c).
 */
#ifndef NG_SEGMENT_H
#define NG_SEGMENT_H

/* Index s of the last segment [x[s], x[s+1]] with x[s] <= v, at most
 * n - 2 (x sorted, n >= 2). Callers handle v at or beyond the ends (and
 * NaN) first, so x[s] <= v < x[s+1] and the segment is never empty. */
static inline int ng__segment(const float *x, int n, float v)
{
    int lo = 0, hi = n - 2;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (v >= x[mid]) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

#endif
