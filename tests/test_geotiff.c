/*
 * test_geotiff.c — GeoTIFF, Cloud-Optimized GeoTIFF and .r32 outputs read
 * by GDAL's own tools from Debian's gdal-bin, not by us: gdalinfo must
 * find the georeferencing as written (north up, origin, pixel size, SRS,
 * nodata, the provenance in the metadata, the COG layout and its
 * overviews), and gdal_translate must give back every sample bit for bit
 * (the Float32 one against the .r32 render of the same script, the UInt16
 * one against the .r16, whose integers are the same). A tiles mosaic of
 * GeoTIFF tiles reads through its VRT as the whole render, in the same
 * place. Terrain sizes by engine (--size unity:N, unreal:N), and
 * --normalize (deterministic auto-levels). The provenance of PNG and EXR
 * (gdalinfo, exrheader). Bad
 * options: one line, nothing written.
 */
#include "cli_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Signed values and values above 1: a Float32 GeoTIFF keeps them. */
static const char height_lua[] = "return ng.perlin{element_size = 23}:fit(-1, 1, -50, 900)\n";
static const char unit_lua[] = "return ng.perlin{element_size = 23}:fit(-1, 1, 0, 1)\n";

/* gdalinfo's text for path (malloc'd), or NULL after a failed check. */
static char *gdalinfo(const char *path)
{
    char cmd[PATHLEN + 64], *out = NULL;
    snprintf(cmd, sizeof cmd, "gdalinfo '%s' 2>&1", path);
    CHECKF(shell(cmd, &out) == 0, "gdalinfo %s: %.600s", path, out ? out : "");
    return out;
}

/* The samples as GDAL reads them, raw (ENVI: rows top to bottom, little
 * endian), into raw; 1 when gdal_translate read it. */
static int translate(const char *path, const char *raw)
{
    char cmd[3 * PATHLEN], *out = NULL;
    int rc;
    snprintf(cmd, sizeof cmd, "gdal_translate -q -of ENVI '%s' '%s' 2>&1", path, raw);
    rc = shell(cmd, &out);
    CHECKF(rc == 0, "gdal_translate %s: %.600s", path, out ? out : "");
    free(out);
    return rc == 0;
}

/* Renders script to out with the extra arguments (NULL-terminated). */
static void render(const char *script, const char *out, const char *const *extra)
{
    const char *args[24] = {"render", script, "-o", out, "--quiet"};
    int n = 5, k;
    res r;
    for (k = 0; extra[k] && n < 23; k++) args[n++] = extra[k];
    args[n] = NULL;
    run_argv(&r, DEFAULT_TIMEOUT, args);
    CHECKF(r.code == 0, "render %s: exit %d: %s", out, r.code, r.err ? r.err : "");
    res_free(&r);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Float32: placed north up in its SRS with its nodata, every sample
 * what the .r32 render of the same script holds, the provenance in
 * the metadata (gdalinfo and `noisegraph info` both print it). */
static void test_float_georeferenced(void)
{
    char s[PATHLEN], tif[PATHLEN], r32[PATHLEN], raw[PATHLEN], *info;
    res r;
    mkscript(s, "h.lua", height_lua);
    tpath(tif, "h.tif");
    tpath(r32, "h.r32");
    tpath(raw, "h_gdal.bin");
    render(s, tif, ARGS("--size", "300x170", "--origin", "500000,-4000000", "--pixel-size", "10", "--srs",
                        "EPSG:32633", "--nodata", "-9999"));
    render(s, r32, ARGS("--size", "300x170", "--origin", "500000,-4000000", "--pixel-size", "10"));
    info = gdalinfo(tif);
    if (info) {
        CHECK_CONTAINS(info, "Size is 300, 170");
        CHECK_CONTAINS(info, "WGS 84 / UTM zone 33N");
        CHECK_CONTAINS(info, "Origin = (500000.000000000000000,4000000.000000000000000)");
        CHECK_CONTAINS(info, "Pixel Size = (10.000000000000000,-10.000000000000000)");
        CHECK_CONTAINS(info, "Type=Float32");
        CHECK_CONTAINS(info, "NoData Value=-9999");
        CHECK_CONTAINS(info, "noisegraph_script_sha256=");
        CHECK_CONTAINS(info, "noisegraph_command=noisegraph render ");
        CHECK_CONTAINS(info, "TIFFTAG_SOFTWARE=noisegraph");
    }
    free(info);
    if (translate(tif, raw)) CHECKF(same_bytes(raw, r32), "GDAL's samples of %s differ from %s", tif, r32);
    cli(&r, "info", tif, NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "noisegraph_script_sha256: ");
    CHECK_CONTAINS(r.out, "srs: PROJCS[\"WGS 84 / UTM zone 33N\"");
    res_free(&r);
}

/* UInt16: the integers of the .r16 render; a region lands at its own
 * corner of the same world. */
static void test_uint16_and_region(void)
{
    char s[PATHLEN], tif[PATHLEN], r16[PATHLEN], raw[PATHLEN], part[PATHLEN], *info;
    mkscript(s, "u.lua", unit_lua);
    tpath(tif, "u.tif");
    tpath(r16, "u.r16");
    tpath(raw, "u_gdal.bin");
    tpath(part, "u_part.tif");
    render(s, tif, ARGS("--size", "257x129", "--bits", "16", "--srs", "EPSG:4326", "--pixel-size", "0.5"));
    render(s, r16, ARGS("--size", "257x129", "--pixel-size", "0.5"));
    info = gdalinfo(tif);
    if (info) {
        CHECK_CONTAINS(info, "Type=UInt16");
        CHECK_CONTAINS(info, "WGS 84");
    }
    free(info);
    if (translate(tif, raw)) CHECKF(same_bytes(raw, r16), "GDAL's samples of %s differ from %s", tif, r16);
    render(s, part, ARGS("--size", "257x129", "--region", "64,32,40,20", "--origin", "100,-200"));
    info = gdalinfo(part);
    if (info) {
        CHECK_CONTAINS(info, "Size is 40, 20");
        /* corner x 100 + 64, northing -(-200 + 32) */
        CHECK_CONTAINS(info, "Origin = (164.000000000000000,168.000000000000000)");
    }
    free(info);
}

/* --cog: GDAL finds the COG layout, 512-pixel tiles and overviews, and
 * the same samples as the plain GeoTIFF. */
static void test_cog(void)
{
    char s[PATHLEN], cog[PATHLEN], plain[PATHLEN], a[PATHLEN], b[PATHLEN], *info;
    mkscript(s, "h.lua", height_lua);
    tpath(cog, "c.tif");
    tpath(plain, "p.tif");
    tpath(a, "c.bin");
    tpath(b, "p.bin");
    render(s, cog, ARGS("--size", "1100x700", "--cog", "--srs", "EPSG:3857"));
    render(s, plain, ARGS("--size", "1100x700"));
    info = gdalinfo(cog);
    if (info) {
        CHECK_CONTAINS(info, "LAYOUT=COG");
        CHECK_CONTAINS(info, "Block=512x512");
        CHECK_CONTAINS(info, "Overviews: 550x350");
        CHECK_CONTAINS(info, "Pseudo-Mercator");
    }
    free(info);
    if (translate(cog, a) && translate(plain, b)) CHECKF(same_bytes(a, b), "the COG's samples differ from %s", plain);
    CHECK_INT(count_entries(tmpdir, ".strips"), 0);
    CHECK_INT(count_entries(tmpdir, ".tmp"), 0);
}

/* tiles of GeoTIFFs: the VRT mosaic is placed as the tiles are (north
 * up, SRS, nodata), and GDAL reads it as the whole render. */
static void test_tiles_vrt(void)
{
    char s[PATHLEN], pat[PATHLEN], vrt[PATHLEN], whole[PATHLEN], a[PATHLEN], b[PATHLEN], *info;
    res r;
    mkscript(s, "mosaic.lua", height_lua);
    mksub(pat, "m");
    pathf(pat, "%s/m/t_{i}.tif", tmpdir);
    cli(&r, "tiles", s, "-o", pat, "--size", "300x200", "--tile-size", "128", "--origin", "500000,-4000000",
        "--pixel-size", "10", "--srs", "EPSG:32633", "--nodata", "-9999", "--quiet", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    pathf(vrt, "%s/m/mosaic.vrt", tmpdir);
    tpath(whole, "whole.tif");
    render(s, whole, ARGS("--size", "300x200", "--origin", "500000,-4000000", "--pixel-size", "10", "--srs",
                          "EPSG:32633"));
    info = gdalinfo(vrt);
    if (info) {
        CHECK_CONTAINS(info, "Size is 300, 200");
        CHECK_CONTAINS(info, "WGS 84 / UTM zone 33N");
        CHECK_CONTAINS(info, "Origin = (500000.000000000000000,4000000.000000000000000)");
        CHECK_CONTAINS(info, "Pixel Size = (10.000000000000000,-10.000000000000000)");
        CHECK_CONTAINS(info, "NoData Value=-9999");
    }
    free(info);
    tpath(a, "mosaic.bin");
    tpath(b, "whole.bin");
    if (translate(vrt, a) && translate(whole, b)) CHECKF(same_bytes(a, b), "the mosaic differs from the whole render");
}

/* Terrain sizes by engine: unity:N (2^n + 1) and unreal:N (its
 * recommended landscape sizes) are NxN renders; any other N is refused
 * with the list. The .r32's size is its samples. */
static void test_size_presets(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    size_t n = 0;
    unsigned char *d;
    res r;
    mkscript(s, "u.lua", unit_lua);
    tpath(a, "unity.r32");
    tpath(b, "unreal.r16");
    render(s, a, ARGS("--size", "unity:65"));
    render(s, b, ARGS("--size", "unreal:127"));
    d = slurp(a, &n);
    CHECK_INT((long)n, 65L * 65 * 4);
    free(d);
    d = slurp(b, &n);
    CHECK_INT((long)n, 127L * 127 * 2);
    free(d);
    cli(&r, "render", s, "-o", a, "--size", "unity:100", NULL);
    EXPECT_ERR(&r, 2, "--size", "unity", "33, 65, 129, 257, 513, 1025, 2049, 4097");
    res_free(&r);
    cli(&r, "render", s, "-o", a, "--size", "unreal:4097", NULL);
    EXPECT_ERR(&r, 2, "--size", "unreal", "127, 253, 505, 1009, 2017, 4033, 8129");
    res_free(&r);
    cli(&r, "render", s, "-o", a, "--size", "godot:513", NULL);
    EXPECT_ERR(&r, 2, "--size", "no terrain preset 'godot'");
    res_free(&r);
}

/* --normalize: a height of range [-50, 900] comes out in [0, 1] reaching
 * near both ends, and a region is the crop of the whole render bit for
 * bit (the range is measured at fixed points, not from the pixels a
 * render happens to have). ng.normalize refuses high <= low. */
static void test_normalize(void)
{
    char s[PATHLEN], bad[PATHLEN], whole[PATHLEN], part[PATHLEN];
    size_t n = 0, m = 0, i;
    float *w, *p, lo = 1e30f, hi = -1e30f;
    int j, diff = 0;
    res r;
    mkscript(s, "h.lua", height_lua);
    tpath(whole, "n_whole.r32");
    tpath(part, "n_part.r32");
    render(s, whole, ARGS("--size", "200x120", "--normalize"));
    render(s, part, ARGS("--size", "200x120", "--region", "70,40,50,30", "--normalize"));
    w = (float *)slurp(whole, &n);
    p = (float *)slurp(part, &m);
    CHECK_INT((long)n, 200L * 120 * 4);
    CHECK_INT((long)m, 50L * 30 * 4);
    if (w && p && n == 200u * 120 * 4 && m == 50u * 30 * 4) {
        for (i = 0; i < n / 4; i++) {
            if (w[i] < lo) lo = w[i];
            if (w[i] > hi) hi = w[i];
        }
        CHECKF(lo >= 0 && lo <= 0.1f, "normalized minimum %g", lo);
        CHECKF(hi <= 1 && hi >= 0.9f, "normalized maximum %g", hi);
        for (j = 0; j < 30; j++) diff += memcmp(p + j * 50, w + (j + 40) * 200 + 70, 50 * sizeof(float)) != 0;
        CHECKF(diff == 0, "%d rows of the region differ from the whole render", diff);
    }
    free(w);
    free(p);
    /* tiles --normalize stitch into the --normalize render */
    mksub(part, "norm_tiles");
    pathf(part, "%s/norm_tiles/t_{i}.pfm", tmpdir);
    cli(&r, "tiles", s, "-o", part, "--size", "200x120", "--tile-size", "64", "--normalize", "--quiet", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    pathf(part, "%s/norm_tiles/manifest.json", tmpdir);
    tpath(bad, "n_stitched.pfm");
    cli(&r, "stitch", part, "-o", bad, "--quiet", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    tpath(whole, "n_whole.pfm");
    render(s, whole, ARGS("--size", "200x120", "--normalize"));
    CHECKF(same_bytes(bad, whole), "the --normalize tiles stitched differ from the --normalize render");
    mkscript(bad, "bad_levels.lua", "return ng.normalize{ng.perlin{}, low = 0.6, high = 0.5}\n");
    tpath(whole, "n_bad.r32");
    cli(&r, "render", bad, "-o", whole, NULL);
    EXPECT_ERR(&r, 1, "bad_levels.lua", "high", "above low");
    CHECK(!exists(whole));
    res_free(&r);
}

/* The provenance of a PNG (tEXt) and an EXR (string attributes), read by
 * GDAL's PNG driver and OpenEXR's exrheader, and by `noisegraph info`;
 * --no-provenance writes none. */
static void test_provenance_png_exr(void)
{
    char s[PATHLEN], png[PATHLEN], exr[PATHLEN], bare[PATHLEN], cmd[2 * PATHLEN], *said = NULL;
    res r;
    mkscript(s, "prov.lua", "local a = ng.param('a', 1, {min = 0, max = 3})\nreturn ng.perlin{} * a * 0.3 + 0.5\n");
    tpath(png, "prov.png");
    tpath(exr, "prov.exr");
    tpath(bare, "bare.png");
    render(s, png, ARGS("--size", "16", "--set", "a=2", "--threads", "1"));
    render(s, exr, ARGS("--size", "16", "--set", "a=2"));
    render(s, bare, ARGS("--size", "16", "--set", "a=2", "--no-provenance"));
    said = gdalinfo(png);
    if (said) {
        CHECK_CONTAINS(said, "noisegraph_set=a=2");
        CHECK_CONTAINS(said, "noisegraph_script_sha256=");
        /* what never changes the bytes is not recorded */
        CHECK_CONTAINS(said, "noisegraph_command=noisegraph render ");
        CHECKF(!strstr(said, "--threads") && !strstr(said, " -o "), "recorded: %s", said);
    }
    free(said);
    said = NULL;
    snprintf(cmd, sizeof cmd, "exrheader '%s' 2>&1", exr);
    CHECK_INT(shell(cmd, &said), 0);
    if (said) {
        CHECK_CONTAINS(said, "noisegraph_set (type string): \"a=2\"");
        CHECK_CONTAINS(said, "noisegraph_version (type string)");
    }
    free(said);
    cli(&r, "info", exr, NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "noisegraph_set: a=2\n");
    res_free(&r);
    cli(&r, "info", bare, NULL);
    CHECK_INT(r.code, 0);
    CHECKF(!strstr(r.out ? r.out : "", "noisegraph_"), "--no-provenance wrote: %s", r.out ? r.out : "");
    res_free(&r);
}

/* Bad options: one line, nothing written. */
static void test_refused(void)
{
    char s[PATHLEN], tif[PATHLEN], png[PATHLEN];
    res r;
    mkscript(s, "u.lua", unit_lua);
    tpath(tif, "bad.tif");
    tpath(png, "bad.png");
    cli(&r, "render", s, "-o", tif, "--srs", "EPSG:99999999", NULL);
    EXPECT_ERR(&r, 2, "bad.tif", "--srs", "EPSG:99999999");
    res_free(&r);
    cli(&r, "render", s, "-o", tif, "--srs", "not a projection", NULL);
    EXPECT_ERR(&r, 2, "--srs");
    res_free(&r);
    cli(&r, "render", s, "-o", tif, "--bits", "16", "--nodata", "-1", NULL);
    EXPECT_ERR(&r, 1, "--nodata", "0 to 65535");
    res_free(&r);
    cli(&r, "render", s, "-o", tif, "--bits", "8", NULL);
    EXPECT_ERR(&r, 2, "GeoTIFF bits must be 32 or 16");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--cog", NULL);
    EXPECT_ERR(&r, 2, "--cog", ".tif");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--srs", "EPSG:4326", NULL);
    EXPECT_ERR(&r, 2, "--srs", "not PNG");
    res_free(&r);
    cli(&r, "render", s, "-o", tif, "--size", "8x8x8", NULL);
    EXPECT_ERR(&r, 2, "bad.tif");
    res_free(&r);
    CHECK(!exists(tif));
    CHECK(!exists(png));
    CHECK_INT(count_entries(tmpdir, ".tmp"), 0);
}

NG_SUITE(geotiff, full)
{
    if (cli_setup("ng-geotiff")) return;
    RUN(test_float_georeferenced);
    RUN(test_uint16_and_region);
    RUN(test_cog);
    RUN(test_tiles_vrt);
    RUN(test_size_presets);
    RUN(test_normalize);
    RUN(test_provenance_png_exr);
    RUN(test_refused);
    cli_teardown();
}
