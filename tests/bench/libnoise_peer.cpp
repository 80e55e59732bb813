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
#include "peer.h"

#include <libnoise/noise.h>

using namespace noise;
using peer::grid2;
using peer::grid3;

namespace {

const double freq = 0.02;

volatile double sink; // keeps the sums, so no evaluation is optimised away

// Seconds for one pass over the grid.
double pass(const module::Module &m, int dims)
{
    double t0 = peer::now(), sum = 0;
    if (dims == 3) {
        for (int k = 0; k < grid3; k++)
            for (int j = 0; j < grid3; j++)
                for (int i = 0; i < grid3; i++) sum += m.GetValue(i + 0.5, j + 0.5, k + 0.5);
    } else {
        for (int j = 0; j < grid2; j++)
            for (int i = 0; i < grid2; i++) sum += m.GetValue(i + 0.5, j + 0.5, 0.0);
    }
    sink = sum;
    return peer::now() - t0;
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

void measure(const row &r, int runs)
{
    const char *name = r.name;
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

    peer::report(name, r.dims, runs, [&] { return pass(*m, r.dims); });
}

} // namespace

int main(int argc, char **argv)
{
    return peer::main("libnoise_peer", argc, argv, rows, measure);
}
