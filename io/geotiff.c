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
 */
#include "filesink.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

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

static pthread_once_t registered = PTHREAD_ONCE_INIT;
static void register_drivers(void) { GDALAllRegister(); }

/* GDAL's last error, for messages; GDAL says nothing on stderr itself
 * (its handler is quiet while the encoder calls it). */
static int gdal_failed(ng__image *im, const char *what)
{
    const char *msg = CPLGetLastErrorMsg();
    return ng__image_fail(im, 0, "GeoTIFF: %s%s%s", what, msg && *msg ? ": " : "", msg ? msg : "");
}

/* The SRS text as WKT (CPLFree it), or NULL when GDAL cannot read it. */
static char *srs_wkt(const char *text)
{
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    char *wkt = NULL;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    if (srs && OSRSetFromUserInput(srs, text) == OGRERR_NONE && OSRExportToWkt(srs, &wkt) != OGRERR_NONE) {
        CPLFree(wkt);
        wkt = NULL;
    }
    CPLPopErrorHandler();
    if (srs) OSRDestroySpatialReference(srs);
    return wkt;
}

int ng__geotiff_check(const ng_file_options *o, int bits, char *msg, size_t len)
{
    char *wkt;
    if (o->srs) {
        pthread_once(&registered, register_drivers);
        if (!(wkt = srs_wkt(o->srs))) {
            snprintf(msg, len, "--srs: GDAL does not know the spatial reference '%.120s' (EPSG:n, WKT or PROJ text)",
                     o->srs);
            return -1;
        }
        CPLFree(wkt);
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
    if (GDALSetGeoTransform(ds, gt) != CE_None) return gdal_failed(im, "geotransform");
    if (o->srs) {
        char *wkt = srs_wkt(o->srs);
        CPLErr e = wkt ? GDALSetProjection(ds, wkt) : CE_Failure;
        CPLFree(wkt);
        if (e != CE_None) return gdal_failed(im, "spatial reference");
    }
    for (b = 1; o->nodata_set && b <= im->channels; b++)
        if (GDALSetRasterNoDataValue(GDALGetRasterBand(ds, b), o->nodata) != CE_None) return gdal_failed(im, "nodata");
    GDALSetMetadataItem(ds, "TIFFTAG_SOFTWARE", "noisegraph " NG_VERSION, NULL);
    for (k = 0; o->meta && o->meta[k] && o->meta[k + 1]; k += 2)
        if (GDALSetMetadataItem(ds, o->meta[k], o->meta[k + 1], NULL) != CE_None) return gdal_failed(im, "metadata");
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
    pthread_once(&registered, register_drivers);
    snprintf(level, sizeof level, "ZLEVEL=%d", im->opt.level >= 0 ? im->opt.level : 6);
    snprintf(predictor, sizeof predictor, "PREDICTOR=%d", im->bits == 16 ? 2 : 3);
    if (im->opt.cog) { /* the COG driver copies a finished dataset: this one */
        size_t n = strlen(im->path) + 8;
        if (!(g->src = malloc(n))) return ng__image_fail(im, 0, "out of memory");
        snprintf(g->src, n, "%s.strips", im->path);
        path = g->src;
    }
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErrorReset();
    if (!(drv = GDALGetDriverByName("GTiff"))) rc = gdal_failed(im, "no GTiff driver");
    else if (!(g->ds = GDALCreate(drv, path, im->width, im->height, im->channels,
                                  im->bits == 16 ? GDT_UInt16 : GDT_Float32, opts)))
        rc = gdal_failed(im, "cannot create");
    else rc = describe(im, g->ds);
    CPLPopErrorHandler();
    return rc;
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    geo *g = im->state;
    const int n = im->width * im->channels;
    CPLErr e = CE_None;
    int j, i;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    for (j = 0; j < nrows && e == CE_None; j++) {
        const float *src = rows + (size_t)j * n;
        void *data = (void *)src;
        if (im->bits == 16) { /* quantized as every integer format here */
            uint16_t *q = (uint16_t *)im->row;
            for (i = 0; i < n; i++) q[i] = (uint16_t)ng__quantize(src[i], 65535);
            data = q;
        }
        e = GDALDatasetRasterIO(g->ds, GF_Write, 0, y + j, im->width, 1, data, im->width, 1,
                                im->bits == 16 ? GDT_UInt16 : GDT_Float32, im->channels, NULL,
                                (GSpacing)(im->channels * (im->bits / 8)), (GSpacing)n * (im->bits / 8),
                                im->bits / 8);
    }
    CPLPopErrorHandler();
    return e == CE_None ? 0 : gdal_failed(im, "cannot write");
}

/* GDAL 3.6's flush and close say nothing: a failure is its last error. */
static int failed_since_reset(void) { return CPLGetLastErrorType() >= CE_Failure; }

static int encode_end(ng__image *im)
{
    geo *g = im->state;
    char *cog[] = {"COMPRESS=DEFLATE", "PREDICTOR=YES", "BLOCKSIZE=512", "OVERVIEWS=AUTO", NULL};
    GDALDatasetH out;
    int rc = 0;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErrorReset();
    GDALFlushCache(g->ds);
    if (failed_since_reset()) rc = gdal_failed(im, "cannot write");
    if (!rc && g->src) {
        GDALDriverH drv = GDALGetDriverByName("COG");
        if (!drv) rc = gdal_failed(im, "no COG driver");
        else if (!(out = GDALCreateCopy(drv, im->path, g->ds, FALSE, cog, NULL, NULL)))
            rc = gdal_failed(im, "cannot make the Cloud-Optimized GeoTIFF");
        else {
            GDALClose(out);
            if (failed_since_reset()) rc = gdal_failed(im, "cannot write");
        }
    }
    GDALClose(g->ds);
    g->ds = NULL;
    if (!rc && failed_since_reset()) rc = gdal_failed(im, "cannot write");
    CPLPopErrorHandler();
    return rc;
}

static void encode_discard(ng__image *im)
{
    geo *g = im->state;
    if (!g) return;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    if (g->ds) GDALClose(g->ds);
    CPLPopErrorHandler();
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
    pthread_once(&registered, register_drivers);
    CPLPushErrorHandler(CPLQuietErrorHandler);
    ds = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, (const char *const[]){"GTiff", "COG", NULL}, NULL, NULL);
    if (!ds) {
        snprintf(msg, len, "not a GeoTIFF GDAL reads (%s)", CPLGetLastErrorMsg());
        CPLPopErrorHandler();
        return -1;
    }
    md = GDALGetMetadata(ds, NULL);
    for (k = 0; md && md[k]; k++) {
        char *key = NULL;
        const char *value = CPLParseNameValue(md[k], &key);
        if (key && value) each(user, key, value);
        CPLFree(key);
    }
    {
        const char *wkt = GDALGetProjectionRef(ds);
        if (wkt && *wkt) each(user, "srs", wkt);
    }
    GDALClose(ds);
    CPLPopErrorHandler();
    return 0;
}

const ng__encoder ng__geotiff_encoder = {
    .begin = encode_begin, .rows = encode_rows, .end = encode_end, .discard = encode_discard,
};
