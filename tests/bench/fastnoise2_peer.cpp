/*
 * fastnoise2_peer.cpp — the FastNoise2 side of `make bench PEERS=DIR`:
 * FastNoise2, built from the user's source folder (never part of this
 * repository), timed on the grids noisegraph's bench renders, one thread.
 *
 *   fastnoise2_peer [--runs N] [NAME...]     (no NAME: every row)
 *
 * Prints "peer-info TEXT" (version and the SIMD feature set in use), then
 * one line per row, "peer NAME MEDIAN MIN" in ns per sample, of N timed
 * runs (default 5) after one warm-up (--info: the info line alone). Each
 * run is one GenUniformGrid call that writes the whole grid into a float
 * buffer: 2D rows 2048x2048, 3D rows 128^3, sample (i + 0.5, j + 0.5, k + 0.5), feature scale 50 (frequency
 * 0.02) — the pixel centres and element_size 50 of the bench scripts.
 * Fractals: 6 octaves, lacunarity 2, gain 0.5, as fbm6.lua and ridged6.lua.
 */
#include <FastNoise/FastNoise.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

const int grid2 = 2048, grid3 = 128;
const float scale = 50; // 1 / 0.02

double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Seconds for one pass over the grid, written into out.
double pass(const FastNoise::Generator &g, int dims, float *out)
{
    double t0 = now();
    if (dims == 3) g.GenUniformGrid3D(out, 0.5f, 0.5f, 0.5f, grid3, grid3, grid3, 1, 1, 1, 1337);
    else g.GenUniformGrid2D(out, 0.5f, 0.5f, grid2, grid2, 1, 1, 1337);
    return now() - t0;
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

void measure(const row &r, int runs, std::vector<float> &buf)
{
    FastNoise::SmartNode<> g = r.make();
    std::vector<double> t;
    pass(*g, r.dims, buf.data()); // warm-up
    for (int k = 0; k < runs; k++) t.push_back(pass(*g, r.dims, buf.data()));
    std::sort(t.begin(), t.end());
    double med = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    double best = t[0];
    double samples = r.dims == 3 ? (double)grid3 * grid3 * grid3 : (double)grid2 * grid2;
    std::printf("peer %s %.4f %.4f\n", r.name, med * 1e9 / samples, best * 1e9 / samples);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    int runs = 5, named = 0;
    std::vector<float> buf((size_t)grid2 * grid2);
    std::printf("peer-info FastNoise2 %s, %s\n", FASTNOISE2_VERSION,
                FastSIMD::GetFeatureSetString(FastSIMD::DetectCpuMaxFeatureSet()));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = std::atoi(argv[++i]);
            if (runs < 1 || runs > 101) {
                std::fprintf(stderr, "fastnoise2_peer: --runs: '%s' is not 1 to 101\n", argv[i]);
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
            std::fprintf(stderr, "fastnoise2_peer: unknown row '%s'\n", argv[i]);
            return 2;
        }
        named = 1;
        measure(*r, runs, buf);
    }
    if (!named)
        for (const row &x : rows) measure(x, runs, buf);
    return 0;
}
