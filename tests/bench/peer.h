/*
 * peer.h — what the bench's peer programs share (libnoise_peer.cpp,
 * fastnoise2_peer.cpp): the grids, the clock, the timing of a row (one
 * warm-up, then the runs; "peer NAME MEDIAN MIN" in ns per sample) and the
 * command line (`[--runs N] [--info] [NAME...]`, no NAME: every row).
 * A peer program defines its rows (each with `name` and `dims`) and one
 * pass over a row's grid; this header does the rest.
 */
#ifndef NG_BENCH_PEER_H
#define NG_BENCH_PEER_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace peer {

const int grid2 = 2048, grid3 = 128; /* the bench's 2D image and 3D volume */

inline double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Times `runs` passes (pass() returns its seconds) after one warm-up and
 * prints the row's line. */
template <typename Pass> void report(const char *name, int dims, int runs, Pass pass)
{
    std::vector<double> t;
    pass(); // warm-up
    for (int k = 0; k < runs; k++) t.push_back(pass());
    std::sort(t.begin(), t.end());
    double med = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    double samples = dims == 3 ? (double)grid3 * grid3 * grid3 : (double)grid2 * grid2;
    std::printf("peer %s %.4f %.4f\n", name, med * 1e9 / samples, t[0] * 1e9 / samples);
    std::fflush(stdout);
}

/* The command line: measure(row, runs) for each NAME given, or every row.
 * 0, or 2 with one line on stderr. */
template <typename Row, size_t N, typename Measure>
int main(const char *prog, int argc, char **argv, const Row (&rows)[N], Measure measure)
{
    int runs = 5, named = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = std::atoi(argv[++i]);
            if (runs < 1 || runs > 101) {
                std::fprintf(stderr, "%s: --runs: '%s' is not 1 to 101\n", prog, argv[i]);
                return 2;
            }
            continue;
        }
        if (!strcmp(argv[i], "--info")) {
            named = 1;
            continue;
        }
        const Row *r = nullptr;
        for (const Row &x : rows)
            if (!strcmp(x.name, argv[i])) r = &x;
        if (!r) {
            std::fprintf(stderr, "%s: unknown row '%s'\n", prog, argv[i]);
            return 2;
        }
        named = 1;
        measure(*r, runs);
    }
    if (!named)
        for (const Row &x : rows) measure(x, runs);
    return 0;
}

} // namespace peer

#endif
