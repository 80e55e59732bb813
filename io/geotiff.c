/*
 * geotiff.c — the GeoTIFF encoder of the file sink (filesink.c), through
 * GDAL's C API: a north-up raster that GIS tools, World Machine and
 * Unreal's landscape import take as it is. 32 bits: Float32 samples as
 * they are; 16 bits: UInt16 quantized as every integer format here
 * (ng__quantize: [0, 1] to 0..65535). One band, or three for RGB.
 *
 * Georeferencing: easting is world x and northing is minus world y
 * (noisegraph's y grows down the image, as rows do), so the geotransform
 * of a window at pixel offset (ox, oy) of an image whose corner is at
 * world (X, Y) with pixel size s is (X + ox s, s, 0, -(Y + oy s), 0, -s):
 * north up, and windows of one image (tiles) line up. An SRS given
 * (ng_file_options.srs: EPSG:n, WKT or PROJ text) is checked before
 * anything is written; nodata is the band's nodata value.
 *
 * GDAL writes by path: the encoder reopens the sink's temporary file by
 * its name (the sink keeps its lock and renames it at the end). Rows go
 * into a striped, deflated GTiff as they arrive. A Cloud-Optimized
 * GeoTIFF (ng_file_options.cog) is made at end() by GDAL's COG driver
 * from that GTiff, written beside it and then moved over the temporary:
 * tiled, with overviews, its header first.
 *
 * Provenance (ng_file_options.meta) goes into GDAL's metadata tag, which
 * gdalinfo prints and ng_file_meta reads back; TIFFTAG_SOFTWARE names
 * noisegraph.
 *
 * GDAL is loaded (dlopen) the first time a GeoTIFF is written or read, not
 * linked: linked, it and the hundred libraries it brings cost every start
 * of the program about 36 ms (perf stat: an empty program linked with
 * -lgdal 35.8 ms against 0.5 ms; `noisegraph --version` 91 ms in all),
 * paid by every CLI call, farm tile and test for a format most runs never
 * write. Its functions are called through the table G, filled from the
 * library the build was compiled against (NG_GDAL_SONAME); its header
 * still types them.
 */
#include "filesink.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct geo {
    GDALDatasetH ds;
    char *src;       /* COG: the striped GTiff it is made from (malloc'd), removed at discard */
} geo;

#ifndef NG_GDAL_SONAME
#define NG_GDAL_SONAME "libgdal.so"
#endif
/* The GDAL functions this file calls, X(name): the table's fields. */
#define GDAL_FUNCTIONS(X) \
    X(CPLErrorReset) \
    X(VSIFree) \
    X(CPLGetLastErrorMsg) \
    X(CPLGetLastErrorType) \
    X(CPLParseNameValue) \
    X(CPLPopErrorHandler) \
    X(CPLPushErrorHandler) \
    X(CPLQuietErrorHandler) \
    X(GDALClose) \
    X(GDALCreate) \
    X(GDALCreateCopy) \
    X(GDALDatasetRasterIO) \
    X(GDALFlushCache) \
    X(GDALGetDriverByName) \
    X(GDALGetMetadata) \
    X(GDALGetProjectionRef) \
    X(GDALGetRasterBand) \
    X(GDALOpenEx) \
    X(GDALSetGeoTransform) \
    X(GDALSetMetadataItem) \
    X(GDALSetProjection) \
    X(GDALSetRasterNoDataValue) \
    X(OSRDestroySpatialReference) \
    X(OSRExportToWkt) \
    X(OSRNewSpatialReference) \
    X(OSRSetFromUserInput) \
    X(GDALAllRegister)

static struct {
#define FIELD(f) __typeof__(f) *f;
    GDAL_FUNCTIONS(FIELD)
#undef FIELD
} G;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char load_error[200]; /* empty once GDAL is loaded and its drivers registered */

static void load_gdal(void)
{
    void *lib = dlopen(NG_GDAL_SONAME, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;
    if (!lib) {
        snprintf(load_error, sizeof load_error, "GeoTIFF needs GDAL: %s", dlerror());
        return;
    }
#define LOOKUP(f) \
    if (!(*(void **)&G.f = dlsym(lib, #f)) && !missing) missing = #f;
    GDAL_FUNCTIONS(LOOKUP)
#undef LOOKUP
    if (missing) {
        snprintf(load_error, sizeof load_error, "GeoTIFF needs GDAL: %s has no %s", NG_GDAL_SONAME, missing);
        dlclose(lib);
        return;
    }
    G.GDALAllRegister();
}

/* 0 when GDAL is there to call, else -1 with the reason in msg (if not
 * NULL) and in load_error. */
static int gdal_ready(char *msg, size_t len)
{
    pthread_once(&loaded, load_gdal);
    if (!load_error[0]) return 0;
    if (msg) snprintf(msg, len, "%s", load_error);
    return -1;
}

/* GDAL's last error, for messages; GDAL says nothing on stderr itself
 * (its handler is quiet while the encoder calls it). */
static int gdal_failed(ng__image *im, const char *what)
{
    const char *msg = G.CPLGetLastErrorMsg();
    return ng__image_fail(im, 0, "GeoTIFF: %s%s%s", what, msg && *msg ? ": " : "", msg ? msg : "");
}

/* The SRS text as WKT (CPLFree it), or NULL when GDAL cannot read it. */
static char *srs_wkt(const char *text)
{
    OGRSpatialReferenceH srs = G.OSRNewSpatialReference(NULL);
    char *wkt = NULL;
    G.CPLPushErrorHandler(G.CPLQuietErrorHandler);
    if (srs && G.OSRSetFromUserInput(srs, text) == OGRERR_NONE && G.OSRExportToWkt(srs, &wkt) != OGRERR_NONE) {
        G.VSIFree(wkt);
        wkt = NULL;
    }
    G.CPLPopErrorHandler();
    if (srs) G.OSRDestroySpatialReference(srs);
    return wkt;
}

int ng__geotiff_check(const ng_file_options *o, int bits, char *msg, size_t len)
{
    char *wkt;
    if (gdal_ready(msg, len) != 0) return -1; /* before anything is written */
    if (o->srs) {
        if (!(wkt = srs_wkt(o->srs))) {
            snprintf(msg, len, "--srs: GDAL does not know the spatial reference '%.120s' (EPSG:n, WKT or PROJ text)",
                     o->srs);
            return -1;
        }
        G.VSIFree(wkt);
    }
    if (o->nodata_set && bits == 16 && !(o->nodata >= 0 && o->nodata <= 65535 && o->nodata == (double)(long)o->nodata)) {
        snprintf(msg, len, "--nodata: a 16-bit GeoTIFF's nodata is a whole number 0 to 65535, not %g", o->nodata);
        return -1;
    }
    return 0;
}

/* Where the window lies: north-up, northing = -y. */
static void geotransform(const ng__image *im, double gt[6])
{
    const ng_file_options *o = &im->opt;
    const double s = o->pixel_size > 0 ? o->pixel_size : 1;
    const int at = o->full[0] > 0;
    gt[0] = o->origin[0] + (at ? o->offset[0] : 0) * s;
    gt[1] = s;
    gt[2] = 0;
    gt[3] = -(o->origin[1] + (at ? o->offset[1] : 0) * s);
    gt[4] = 0;
    gt[5] = -s;
}

/* Georeferencing, nodata and provenance on a new dataset. */
static int describe(ng__image *im, GDALDatasetH ds)
{
    const ng_file_options *o = &im->opt;
    double gt[6];
    int b, k;
    geotransform(im, gt);
    if (G.GDALSetGeoTransform(ds, gt) != CE_None) return gdal_failed(im, "geotransform");
    if (o->srs) {
        char *wkt = srs_wkt(o->srs);
        CPLErr e = wkt ? G.GDALSetProjection(ds, wkt) : CE_Failure;
        G.VSIFree(wkt);
        if (e != CE_None) return gdal_failed(im, "spatial reference");
    }
    for (b = 1; o->nodata_set && b <= im->channels; b++)
        if (G.GDALSetRasterNoDataValue(G.GDALGetRasterBand(ds, b), o->nodata) != CE_None) return gdal_failed(im, "nodata");
    G.GDALSetMetadataItem(ds, "TIFFTAG_SOFTWARE", "noisegraph " NG_VERSION, NULL);
    for (k = 0; o->meta && o->meta[k] && o->meta[k + 1]; k += 2)
        if (G.GDALSetMetadataItem(ds, o->meta[k], o->meta[k + 1], NULL) != CE_None) return gdal_failed(im, "metadata");
    return 0;
}

static int encode_begin(ng__image *im)
{
    geo *g = calloc(1, sizeof *g);
    char level[24], predictor[16];
    char *opts[8] = {"COMPRESS=DEFLATE", level, predictor, "BIGTIFF=IF_SAFER", NULL};
    const char *path = im->path;
    GDALDriverH drv;
    int rc = 0;
    if (!g) return ng__image_fail(im, 0, "out of memory");
    im->state = g;
    if (gdal_ready(NULL, 0) != 0) return ng__image_fail(im, 0, "%s", load_error);
    snprintf(level, sizeof level, "ZLEVEL=%d", im->opt.level >= 0 ? im->opt.level : 6);
    snprintf(predictor, sizeof predictor, "PREDICTOR=%d", im->bits == 16 ? 2 : 3);
    if (im->opt.cog) { /* the COG driver copies a finished dataset: this one */
        size_t n = strlen(im->path) + 8;
        if (!(g->src = malloc(n))) return ng__image_fail(im, 0, "out of memory");
        snprintf(g->src, n, "%s.strips", im->path);
        path = g->src;
    }
    G.CPLPushErrorHandler(G.CPLQuietErrorHandler);
    G.CPLErrorReset();
    if (!(drv = G.GDALGetDriverByName("GTiff"))) rc = gdal_failed(im, "no GTiff driver");
    else if (!(g->ds = G.GDALCreate(drv, path, im->width, im->height, im->channels,
                                  im->bits == 16 ? GDT_UInt16 : GDT_Float32, opts)))
        rc = gdal_failed(im, "cannot create");
    else rc = describe(im, g->ds);
    G.CPLPopErrorHandler();
    return rc;
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    geo *g = im->state;
    const int n = im->width * im->channels;
    CPLErr e = CE_None;
    int j, i;
    G.CPLPushErrorHandler(G.CPLQuietErrorHandler);
    for (j = 0; j < nrows && e == CE_None; j++) {
        const float *src = rows + (size_t)j * n;
        void *data = (void *)src;
        if (im->bits == 16) { /* quantized as every integer format here */
            uint16_t *q = (uint16_t *)im->row;
            for (i = 0; i < n; i++) q[i] = (uint16_t)ng__quantize(src[i], 65535);
            data = q;
        }
        e = G.GDALDatasetRasterIO(g->ds, GF_Write, 0, y + j, im->width, 1, data, im->width, 1,
                                im->bits == 16 ? GDT_UInt16 : GDT_Float32, im->channels, NULL,
                                (GSpacing)(im->channels * (im->bits / 8)), (GSpacing)n * (im->bits / 8),
                                im->bits / 8);
    }
    G.CPLPopErrorHandler();
    return e == CE_None ? 0 : gdal_failed(im, "cannot write");
}

/* GDAL 3.6's flush and close say nothing: a failure is its last error. */
static int failed_since_reset(void) { return G.CPLGetLastErrorType() >= CE_Failure; }

static int encode_end(ng__image *im)
{
    geo *g = im->state;
    char *cog[] = {"COMPRESS=DEFLATE", "PREDICTOR=YES", "BLOCKSIZE=512", "OVERVIEWS=AUTO", NULL};
    GDALDatasetH out;
    int rc = 0;
    G.CPLPushErrorHandler(G.CPLQuietErrorHandler);
    G.CPLErrorReset();
    G.GDALFlushCache(g->ds);
    if (failed_since_reset()) rc = gdal_failed(im, "cannot write");
    if (!rc && g->src) {
        GDALDriverH drv = G.GDALGetDriverByName("COG");
        if (!drv) rc = gdal_failed(im, "no COG driver");
        else if (!(out = G.GDALCreateCopy(drv, im->path, g->ds, FALSE, cog, NULL, NULL)))
            rc = gdal_failed(im, "cannot make the Cloud-Optimized GeoTIFF");
        else {
            G.GDALClose(out);
            if (failed_since_reset()) rc = gdal_failed(im, "cannot write");
        }
    }
    G.GDALClose(g->ds);
    g->ds = NULL;
    if (!rc && failed_since_reset()) rc = gdal_failed(im, "cannot write");
    G.CPLPopErrorHandler();
    return rc;
}

static void encode_discard(ng__image *im)
{
    geo *g = im->state;
    if (!g) return;
    G.CPLPushErrorHandler(G.CPLQuietErrorHandler);
    if (g->ds) G.GDALClose(g->ds);
    G.CPLPopErrorHandler();
    if (g->src) unlink(g->src);
    free(g->src);
    free(g);
    im->state = NULL;
}

int ng__geotiff_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                     char *msg, size_t len)
{
    GDALDatasetH ds;
    char **md;
    int k;
    if (gdal_ready(msg, len) != 0) return -1;
    G.CPLPushErrorHandler(G.CPLQuietErrorHandler);
    ds = G.GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, (const char *const[]){"GTiff", "COG", NULL}, NULL, NULL);
    if (!ds) {
        snprintf(msg, len, "not a GeoTIFF GDAL reads (%s)", G.CPLGetLastErrorMsg());
        G.CPLPopErrorHandler();
        return -1;
    }
    md = G.GDALGetMetadata(ds, NULL);
    for (k = 0; md && md[k]; k++) {
        char *key = NULL;
        const char *value = G.CPLParseNameValue(md[k], &key);
        if (key && value) each(user, key, value);
        G.VSIFree(key);
    }
    {
        const char *wkt = G.GDALGetProjectionRef(ds);
        if (wkt && *wkt) each(user, "srs", wkt);
    }
    G.GDALClose(ds);
    G.CPLPopErrorHandler();
    return 0;
}

const ng__encoder ng__geotiff_encoder = {
    .begin = encode_begin, .rows = encode_rows, .end = encode_end, .discard = encode_discard,
};
