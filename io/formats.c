/*
 * formats.c — every file format noisegraph writes, one row each: what the
 * file is called and holds, which depths, channels and options it takes,
 * its encoder, where stitch reads tiles back its reader, and how GDAL
 * reads its tiles in the VRT mosaic of `tiles`. The file sink
 * (filesink.c), ng_file_check*, ng_file_formats, the tile reader
 * (tileread.c), ng_tile_readable and the VRT's ng_file_vrt_source and
 * ng_file_gdal_type read this table and nothing else, so a new format is
 * its codec file and one row here.
 */
#include "formats.h"

#include "filesink.h"
#include "tileread.h"
#include "tilefile.h"
#include "vdbgrid.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ORDER: the order ng_file_formats() names them in. */
const ng__format ng__formats[] = {
    {.name = "PNG", .ext = {".png"}, .bits = {8, 16}, .channels = NG__GREY_RGB_OR_RGBA, .holds = NG__IMAGES,
     .takes = NG__LEVEL, .meta = ng__png_meta, .encoder = &ng__png_encoder, .reader = &ng__png_reader},
    {.name = "PFM", .ext = {".pfm"}, .bits = {32}, .channels = NG__GREY_OR_RGB, .holds = NG__IMAGES, .exact = 1,
     .uncompressed = 1, .encoder = &ng__pfm_encoder, .reader = &ng__pfm_reader, .vrt = NG_VRT_PFM},
    {.name = "raw heightmap", .ext = {".r16", ".raw"}, .bits = {16}, .channels = NG__GREY_ONLY, .holds = NG__IMAGES,
     .uncompressed = 1, .encoder = &ng__raw16_encoder, .reader = &ng__raw16_reader, .vrt = NG_VRT_RAW},
    /* exact: NaN is stored too, as an inactive voxel */
    {.name = "VDB", .ext = {".vdb"}, .bits = {32, 16}, .channels = NG__GREY_OR_RGB, .holds = NG__VOLUMES,
     .takes = NG__GRID, .exact = 1, .shares = 1, .meta = ng__vdb_read_meta, .encoder = &ng__vdb_encoder},
    /* uncompressed unless a level asks for gzip */
    {.name = "NRRD", .ext = {".nrrd"}, .bits = {32}, .channels = NG__VECTORS, .holds = NG__IMAGES | NG__VOLUMES,
     .takes = NG__LEVEL, .exact = 1, .uncompressed = 1, .encoder = &ng__nrrd_encoder, .vrt = NG_VRT_NRRD},
    {.name = "EXR", .ext = {".exr"}, .bits = {32, 16}, .channels = NG__VECTORS, .holds = NG__IMAGES,
     .takes = NG__LEVEL | NG__EXR, .exact = 1, .shares = 1, .meta = ng__exr_meta, .encoder = &ng__exr_encoder,
     .reader = &ng__exr_reader},
    {.name = "GeoTIFF", .ext = {".tif", ".tiff"}, .bits = {32, 16}, .channels = NG__GREY_OR_RGB,
     .holds = NG__IMAGES, .takes = NG__LEVEL | NG__GEO, .exact = 1, .quantized_bits = 16,
     .check = ng__geotiff_check, .meta = ng__geotiff_meta, .encoder = &ng__geotiff_encoder},
    {.name = "raw float heightmap", .ext = {".r32"}, .bits = {32}, .channels = NG__GREY_ONLY, .holds = NG__IMAGES,
     .exact = 1, .uncompressed = 1, .encoder = &ng__r32_encoder, .vrt = NG_VRT_RAW},
};
const size_t ng__nformats = sizeof ng__formats / sizeof ng__formats[0];

const ng__format *ng__format_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base), i, k;
    for (i = 0; i < ng__nformats; i++)
        for (k = 0; ng__formats[i].ext[k]; k++) {
            size_t e = strlen(ng__formats[i].ext[k]);
            if (n > e && strcasecmp(base + n - e, ng__formats[i].ext[k]) == 0) return &ng__formats[i];
        }
    return NULL;
}

const char *ng__format_article(const ng__format *f)
{
    const char *c = f->name;
    int acronym = 1;
    for (; *c && *c != ' '; c++) acronym &= (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
    /* letters whose English names start with a vowel sound: "an F", "an S" */
    return f->name[0] && strchr(acronym ? "AEFHILMNORSX" : "AEIOUaeiou", f->name[0]) ? "an" : "a";
}

const char *ng__format_list(char *buf, size_t size, int (*pick)(const ng__format *f), int exts, const char *last)
{
    const char *item[3 * sizeof ng__formats / sizeof ng__formats[0]];
    size_t n = 0, i, k, used = 0;
    for (i = 0; i < ng__nformats; i++) {
        if (pick && !pick(&ng__formats[i])) continue;
        if (!exts) item[n++] = ng__formats[i].name;
        for (k = 0; exts && ng__formats[i].ext[k]; k++) item[n++] = ng__formats[i].ext[k];
    }
    buf[0] = '\0';
    for (i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", !i ? "" : i + 1 == n && last ? last : ", ", item[i]);
    return buf;
}

static int has_meta(const ng__format *f) { return f->meta != NULL; }

static char every_extension[128];
static void list_extensions(void) { ng__format_list(every_extension, sizeof every_extension, NULL, 1, NULL); }

const char *ng_file_formats(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, list_extensions);
    return every_extension;
}

int ng_file_north_up(const char *path)
{
    const ng__format *f = ng__format_of(path);
    return f && (f->takes & NG__GEO);
}

int ng_file_shares(const char *path, const ng_file_options *o)
{
    const ng__format *f = ng__format_of(path);
    if (f && (f->takes & NG__EXR) && o && o->exr_layout == NG_EXR_FILES) return 0;
    return f && f->shares;
}

int ng_file_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 ng_error *err)
{
    const ng__format *f = ng__format_of(path);
    char msg[sizeof err->msg - 64];
    uint64_t bytes;
    int fd;
    if (!f || !f->meta)
        return ng_errorf(err, "%s: noisegraph reads the metadata of %s files only", path,
                         ng__format_list(msg, sizeof msg, has_meta, 1, " and "));
    /* what the reader opens must be a regular file (no FIFO, no device) */
    if ((fd = ng_file_open_read(path, "a file", 0, &bytes, err)) < 0) return -1;
    close(fd);
    if (f->meta(path, each, user, msg, sizeof msg)) return ng_errorf(err, "%s: %s", path, msg);
    return 0;
}

ng_vrt_source ng_file_vrt_source(const char *path)
{
    const ng__format *f = ng__format_of(path);
    return f ? f->vrt : NG_VRT_NATIVE;
}

const char *ng_file_gdal_type(const char *path, int bits)
{
    const ng__format *f = ng__format_of(path);
    if (f && (!f->exact || bits == f->quantized_bits)) return bits == 8 ? "Byte" : "UInt16";
    return "Float32";
}

int ng_tile_readable(const char *path)
{
    const ng__format *f = ng__format_of(path);
    return f && f->reader;
}
