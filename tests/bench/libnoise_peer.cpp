/*
 * libnoise_peer.cpp — the libnoise side of `make bench`: Debian's libnoise
 * (1.0) evaluated on the grids noisegraph's bench renders, one sample per
 * GetValue call (libnoise has no batch API), single-threaded.
 *
 *   libnoise_peer [--runs N] [NAME...]     (no NAME: every row)
 *
 * Prints one line per row, "peer NAME MEDIAN MIN" in ns per sample, of N
 * timed runs (default 5) after one warm-up (--info alone: nothing). Grids:
 * 2D rows 2048x2048 at z = 0 (libnoise is 3D only), 3D rows 128^3, sample
 * (i + 0.5, j + 0.5, k + 0.5), frequency 0.02 — the pixel centres and element_size 50 of the
 * bench scripts. Gradient noise uses QUALITY_BEST (quintic fade), as
 * noisegraph's improved Perlin does.
 */
#include <libnoise/noise.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

using namespace noise;

namespace {

const int grid2 = 2048, grid3 = 128;
const double freq = 0.02;

double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

volatile double sink; // keeps the sums, so no evaluation is optimised away

// Seconds for one pass over the grid.
double pass(const module::Module &m, int dims)
{
    double t0 = now(), sum = 0;
    if (dims == 3) {
        for (int k = 0; k < grid3; k++)
            for (int j = 0; j < grid3; j++)
                for (int i = 0; i < grid3; i++) sum += m.GetValue(i + 0.5, j + 0.5, k + 0.5);
    } else {
        for (int j = 0; j < grid2; j++)
            for (int i = 0; i < grid2; i++) sum += m.GetValue(i + 0.5, j + 0.5, 0.0);
    }
    sink = sum;
    return now() - t0;
}

struct row {
    const char *name;
    int dims;
};

// No Voronoi 2D: at about 3 us a sample (125 cells searched per call), a
// 2048x2048 pass takes over 10 s, which would double the bench's run time.
const row rows[] = {
    {"perlin1_2d", 2}, {"perlin1_3d", 3}, {"perlin6_2d", 2},  {"perlin6_3d", 3},
    {"voronoi_3d", 3}, {"ridged6_3d", 3}, {"billow6_3d", 3}, {"turbulence_2d", 2},
};

void measure(const char *name, int dims, int runs)
{
    module::Perlin perlin1, perlin6;
    module::Voronoi voronoi;
    module::RidgedMulti ridged;
    module::Billow billow;
    module::Turbulence turbulence;
    perlin1.SetFrequency(freq);
    perlin1.SetOctaveCount(1);
    perlin1.SetNoiseQuality(QUALITY_BEST);
    perlin6.SetFrequency(freq);
    perlin6.SetOctaveCount(6);
    perlin6.SetNoiseQuality(QUALITY_BEST);
    voronoi.SetFrequency(freq);
    voronoi.SetDisplacement(0);
    voronoi.EnableDistance(true);
    ridged.SetFrequency(freq);
    ridged.SetOctaveCount(6);
    ridged.SetNoiseQuality(QUALITY_BEST);
    billow.SetFrequency(freq);
    billow.SetOctaveCount(6);
    billow.SetNoiseQuality(QUALITY_BEST);
    // A Perlin displaced by three Perlin fields of one octave each: the
    // nearest libnoise has to one warp level of a noise by a vector noise.
    turbulence.SetSourceModule(0, perlin1);
    turbulence.SetFrequency(freq);
    turbulence.SetPower(20);
    turbulence.SetRoughness(1);

    const module::Module *m;
    if (!strncmp(name, "perlin1", 7)) m = &perlin1;
    else if (!strncmp(name, "perlin6", 7)) m = &perlin6;
    else if (!strncmp(name, "voronoi", 7)) m = &voronoi;
    else if (!strncmp(name, "ridged6", 7)) m = &ridged;
    else if (!strncmp(name, "billow6", 7)) m = &billow;
    else m = &turbulence;

    std::vector<double> t;
    pass(*m, dims); // warm-up
    for (int r = 0; r < runs; r++) t.push_back(pass(*m, dims));
    std::sort(t.begin(), t.end());
    double med = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    double best = t[0];
    double samples = dims == 3 ? (double)grid3 * grid3 * grid3 : (double)grid2 * grid2;
    std::printf("peer %s %.4f %.4f\n", name, med * 1e9 / samples, best * 1e9 / samples);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    int runs = 5, named = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = std::atoi(argv[++i]);
            if (runs < 1 || runs > 101) {
                std::fprintf(stderr, "libnoise_peer: --runs: '%s' is not 1 to 101\n", argv[i]);
                return 2;
            }
            continue;
        }
        if (!strcmp(argv[i], "--info")) {
            named = 1;
            continue;
        }
        const row *r = nullptr;
        for (const row &x : rows)
            if (!strcmp(x.name, argv[i])) r = &x;
        if (!r) {
            std::fprintf(stderr, "libnoise_peer: unknown row '%s'\n", argv[i]);
            return 2;
        }
        named = 1;
        measure(r->name, r->dims, runs);
    }
    if (!named)
        for (const row &x : rows) measure(x.name, x.dims, runs);
    return 0;
}
