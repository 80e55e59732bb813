/*
 * fastnoise2_peer.cpp — the FastNoise2 side of `make bench PEERS=DIR`:
 * FastNoise2, built from the user's source folder (never part of this
 * repository), timed on the grids noisegraph's bench renders, one thread.
 *
 *   fastnoise2_peer [--runs N] [NAME...]     (no NAME: every row)
 *
 * Prints "peer-info TEXT" (version, the SIMD feature set in use and the
 * compiler that built it: make bench PEERS=DIR builds it by clang and g++), then
 * one line per row, "peer NAME MEDIAN MIN" in ns per sample, of N timed
 * runs (default 5) after one warm-up (--info: the info line alone). Each
 * run is one GenUniformGrid call that writes the whole grid into a float
 * buffer: 2D rows 2048x2048, 3D rows 128^3, sample (i + 0.5, j + 0.5, k + 0.5), feature scale 50 (frequency
 * 0.02) — the pixel centres and element_size 50 of the bench scripts.
 * Fractals: 6 octaves, lacunarity 2, gain 0.5, as fbm6.lua and ridged6.lua.
 */
#include "peer.h"

#include <FastNoise/FastNoise.h>

using peer::grid2;
using peer::grid3;

namespace {

const float scale = 50; // 1 / 0.02

// Seconds for one pass over the grid, written into out.
double pass(const FastNoise::Generator &g, int dims, float *out)
{
    double t0 = peer::now();
    if (dims == 3) g.GenUniformGrid3D(out, 0.5f, 0.5f, 0.5f, grid3, grid3, grid3, 1, 1, 1, 1337);
    else g.GenUniformGrid2D(out, 0.5f, 0.5f, grid2, grid2, 1, 1, 1337);
    return peer::now() - t0;
}

template <typename T> FastNoise::SmartNode<T> scaled()
{
    auto n = FastNoise::New<T>(FastSIMD::FeatureSet::Max);
    n->SetScale(scale);
    return n;
}

FastNoise::SmartNode<> cellular_f1()
{
    auto n = scaled<FastNoise::CellularDistance>();
    n->SetDistanceFunction(FastNoise::DistanceFunction::Euclidean);
    n->SetDistanceIndex0(0);
    n->SetReturnType(FastNoise::CellularDistance::ReturnType::Index0);
    return n;
}

template <typename T> FastNoise::SmartNode<> fractal6()
{
    auto f = FastNoise::New<T>(FastSIMD::FeatureSet::Max);
    f->SetSource(scaled<FastNoise::Perlin>());
    f->SetOctaveCount(6);
    f->SetLacunarity(2);
    f->SetGain(0.5f);
    return f;
}

// A simplex displaced by a simplex vector field, one level: warp.lua.
FastNoise::SmartNode<> warp()
{
    auto w = scaled<FastNoise::DomainWarpSimplex>();
    w->SetSource(scaled<FastNoise::Simplex>());
    w->SetWarpAmplitude(20);
    return w;
}

struct row {
    const char *name;
    int dims;
    FastNoise::SmartNode<> (*make)();
};

const row rows[] = {
    {"value_2d", 2, [] { return FastNoise::SmartNode<>(scaled<FastNoise::Value>()); }},
    {"perlin_2d", 2, [] { return FastNoise::SmartNode<>(scaled<FastNoise::Perlin>()); }},
    {"perlin_3d", 3, [] { return FastNoise::SmartNode<>(scaled<FastNoise::Perlin>()); }},
    {"simplex_2d", 2, [] { return FastNoise::SmartNode<>(scaled<FastNoise::Simplex>()); }},
    {"simplex_3d", 3, [] { return FastNoise::SmartNode<>(scaled<FastNoise::Simplex>()); }},
    {"cellular_f1_2d", 2, cellular_f1},
    {"cellular_f1_3d", 3, cellular_f1},
    {"fbm6_2d", 2, fractal6<FastNoise::FractalFBm>},
    {"fbm6_3d", 3, fractal6<FastNoise::FractalFBm>},
    {"ridged6_3d", 3, fractal6<FastNoise::FractalRidged>},
    {"warp_2d", 2, warp},
};

std::vector<float> buf((size_t)grid2 * grid2);

void measure(const row &r, int runs)
{
    FastNoise::SmartNode<> g = r.make();
    peer::report(r.name, r.dims, runs, [&] { return pass(*g, r.dims, buf.data()); });
}

} // namespace

#ifdef __clang__
#define COMPILER __VERSION__ /* "Debian Clang 14.0.6" */
#else
#define COMPILER "g++ " __VERSION__
#endif

int main(int argc, char **argv)
{
    std::printf("peer-info FastNoise2 %s, %s, compiled by %s\n", FASTNOISE2_VERSION,
                FastSIMD::GetFeatureSetString(FastSIMD::DetectCpuMaxFeatureSet()), COMPILER);
    return peer::main("fastnoise2_peer", argc, argv, rows, measure);
}
