/*
 * ng_io.h — the io library's public API: files written band by band from
 * renders (file sinks), and images read for ng.image. Built as its own
 * archive (libnoisegraph_io.a) on top of the engine's (libnoisegraph.a),
 * which reads and writes no files.
 */
#ifndef NG_IO_H
#define NG_IO_H

#include "noisegraph.h"

#include <stddef.h>
#include <stdint.h>

/* ---- files -------------------------------------------------------------- */

/* A sink writing an image file, band by band into a temporary file beside
 * path that is renamed over path only when the render succeeded: a failed
 * or cancelled render leaves whatever was there and no temporary file.
 * The format comes from the extension (case ignored):
 *   .png        8- or 16-bit grey or RGB, values clamped to [0,1];
 *   .pfm        Portable Float Map, 32-bit float grey or RGB, values as
 *               they are (not clamped; NaN and infinities kept);
 *   .r16, .raw  headerless 16-bit little-endian grey heightmap (Unity,
 *               Unreal), values clamped to [0,1];
 *   .vdb        OpenVDB, volumes only: one grid, float (1 channel, a fog
 *               volume) or vector (3); voxels at or below the background
 *               (ng_file_sink_set_grid), and NaN, left inactive; 32-bit
 *               floats, or halves for 16 bits;
 *   .nrrd       NRRD (NRRD0004, ParaView, 3D Slicer): an image or a volume of
 *               raw little-endian 32-bit floats, 1 to 4 channels (a leading
 *               "N-vector" axis), values as they are. A volume is placed in
 *               "space: right-anterior-superior" (world x, y, z): the voxel
 *               size on the diagonal of "space directions", and "space
 *               origin" the world position of the window's first voxel
 *               centre, origin + (offset + 0.5) * voxel_size;
 *   .exr        OpenEXR: 32-bit float (default) or 16-bit half, 1 to 4
 *               channels (Y; R, G; R, G, B; R, G, B, A), scanlines, tiles
 *               or mip-mapped tiles (ng_file_sink_set_options), values as
 *               they are; its data window is the render's region of the
 *               full image. Several named outputs share one file as
 *               layers (channels NAME.Y, NAME.R, ...) or parts
 *               (ng_file_sink_join, ng_exr_layout);
 *   .tif, .tiff GeoTIFF through GDAL, north up: Float32 (default) or UInt16
 *               quantized as PNG's, one band or RGB; an SRS, nodata and
 *               Cloud-Optimized layout from ng_file_options;
 *   .r32        headerless 32-bit little-endian float grey heightmap, values
 *               as they are.
 * (Each is one row of io/formats.c, which ng_file_formats lists.)
 * A name with {z} in its file name ("slices/cloud_{z}.png", any format
 * above that holds images) writes a volume as one image per slice, {z}
 * replaced by the slice's index in the full volume (a window's slices keep
 * their indices), zero-padded to the digits of depth - 1 (depth 128: 000
 * to 127). The slices are written into a temporary folder beside them and
 * moved into place only when the whole volume succeeded. {z} may appear
 * once, in the file name only (not in a folder name); an image render to
 * such a name is an error. Folders are never made here.
 * bits is the sample depth, or 0 for the format's default (PNG: 8); a
 * depth the format does not have is an error. Error messages start with
 * the path. */
typedef struct ng_file_sink ng_file_sink;
ng_file_sink *ng_file_sink_new(const char *path, int bits, ng_error *err);
ng_sink ng_file_sink_as_sink(ng_file_sink *s);
/* ng_file_sink_new refuses a path that is a directory. A sink freed before
 * its image was committed removes its temporary. */
void ng_file_sink_free(ng_file_sink *s);
/* Two-phase output, for several files that must change together: after
 * ng_file_sink_defer, a successful end() leaves the finished temporary
 * (complete and synced) in place, and ng_file_sink_commit renames it over
 * the target; commit every sink only once every render and end succeeded.
 * A slice sequence moves its slices one by one: a commit failing half way
 * (a slice that cannot replace its target) leaves those moved before it.
 * 0, or -1 with err filled (commit of a sink whose image is not complete). */
void ng_file_sink_defer(ng_file_sink *s);
int ng_file_sink_commit(ng_file_sink *s, ng_error *err);
/* Samples of the last image the format could not hold: NaN (written as 0)
 * and infinities (clamped to 0 or 1). Always 0 for PFM and NRRD, which
 * keep them. */
void ng_file_sink_changed(const ng_file_sink *s, uint64_t *nan, uint64_t *inf);
/* Finite samples of the last image outside [0, 1], which the format
 * clamped, and every sample it was given. Both 0 for the formats that keep
 * values as they are (PFM, NRRD, VDB). */
void ng_file_sink_clamped(const ng_file_sink *s, uint64_t *clamped, uint64_t *samples);
/* Removes the temporary file (or a slice sequence's temporary folder and
 * the slices in it) of every sink of this process still writing or waiting
 * for its commit; async-signal-safe, for a SIGINT / SIGTERM
 * handler that then dies (the sinks are unusable after it, and no sink of
 * the process creates a temporary again). A handler may run on any thread
 * that leaves the signal open (a library's own): it waits for temporaries
 * being created to be registered, so none is left. A process
 * killed outright leaves its temporaries; the next ng_file_sink that
 * begins writing the same target removes those no live process holds. */
void ng_file_remove_temporaries(void);
/* Whether ng_file_remove_temporaries has run in this process: a handler
 * is ending it (a thread that then finds it can create nothing must not
 * end the process first, with an exit status of its own). */
int ng_file_stopping(void);
/* The checks of ng_file_sink_new but the target's own, creating nothing:
 * path names a format and bits suits it. 0, or -1 with err filled. */
int ng_file_check(const char *path, int bits, ng_error *err);
/* The same for a render of depth slices (0: an image): the format must
 * hold what the render makes (a .vdb needs a volume, a .png an image unless
 * path is a slice pattern with {z}). */
int ng_file_check_depth(const char *path, int bits, int depth, ng_error *err);
/* The sample depth a sink for path writes: bits, or the format's default
 * for 0 (PNG 8, raw 16, the float formats 32); 0 when ng_file_check fails. */
int ng_file_bits(const char *path, int bits);
/* Volume files (.vdb): the grid's name (NULL: "density"; copied) and the
 * background: voxels at or below it are left inactive (and read as it).
 * Before the render begins. 0, or -1 with err filled (an empty name). */
int ng_file_sink_set_grid(ng_file_sink *s, const char *name, double background, ng_error *err);
/* Several outputs in one file (a .vdb's grids, an .exr's layers or
 * parts): member writes no file of its own; its grid or channels go into
 * lead's file, with those of every member joined before it, in the order
 * joined, then its own. Every member must begin before lead does, be
 * given each band's rows before lead is (an .exr's lead writes them as
 * they come), and end (complete) before lead does: ng_render begins, feeds
 * and ends its sinks in order, so make lead the last output. A member's
 * commit only frees what it holds. Both sinks name the same file, whose
 * format puts several outputs in one (ng_file_shares); before the render
 * begins. 0, or -1 with err filled. */
int ng_file_sink_join(ng_file_sink *member, ng_file_sink *lead, ng_error *err);
/* 1 when path's format is georeferenced north up (a GeoTIFF: northing is
 * minus world y), 0 otherwise. */
int ng_file_north_up(const char *path);
/* 1 when path's format puts several named outputs in one file (.vdb: a
 * grid each; .exr: a layer or a part each, unless o's exr_layout is
 * NG_EXR_FILES), 0 otherwise. o may be NULL (the defaults). */
struct ng_file_options;
int ng_file_shares(const char *path, const struct ng_file_options *o);
/* How GDAL reads a file of path's format as a tile of a VRT mosaic
 * (`noisegraph tiles`): by a driver of its own, or as raw samples (a
 * VRTRawRasterBand) after no header, a PFM's three lines (rows bottom
 * up) or an NRRD's header up to its blank line. */
typedef enum ng_vrt_source { NG_VRT_NATIVE, NG_VRT_RAW, NG_VRT_PFM, NG_VRT_NRRD } ng_vrt_source;
ng_vrt_source ng_file_vrt_source(const char *path);
/* GDAL's data type of the samples of a file of path's format at that
 * depth: "Byte" or "UInt16" where they are quantized (8 or 16 bits),
 * "Float32" for floats (halves included). */
const char *ng_file_gdal_type(const char *path, int bits);
/* Calls each(user, key, value) for the text metadata of the file at path
 * that noisegraph can read (a .vdb's file and grid metadata: the
 * provenance noisegraph wrote, and the grids' names, classes and types).
 * 0, or -1 with err filled (not such a file, or unreadable). */
int ng_file_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 ng_error *err);
/* Bytes an encoder may keep besides its row buffer (a .vdb holds the tree
 * of active voxels until the end); past it the render stops with an
 * error. 0: no limit. Before the render begins. */
void ng_file_sink_set_memory_limit(ng_file_sink *s, double bytes);
/* How a file is encoded, and where its image lies (ng_file_sink_set_options). */
typedef enum ng_exr_compression { /* ORDER: the words of --exr-compression in cli/args.c */
    NG_EXR_ZIP,  /* zlib, 16 scanlines a chunk (the default) */
    NG_EXR_PIZ,  /* wavelet + Huffman, 32 scanlines a chunk: smaller for noisy float data */
    NG_EXR_NONE,
    NG_EXR_ZIPS, /* zlib, one scanline a chunk (what compositors read fastest line by line) */
    NG_EXR_RLE,  /* run lengths: fast, for flat images (masks) */
    /* Lossy, DCT of 8x8 blocks (R, G, B, Y channels; A and others lossless),
     * through OpenEXR's C++ library (exr_dwa.cc): 32 or 256 scanlines a chunk. */
    NG_EXR_DWAA,
    NG_EXR_DWAB,
    NG_EXR_NCOMPRESSIONS
} ng_exr_compression;
/* How the named outputs of one render go into .exr files. */
typedef enum ng_exr_layout { /* ORDER: the words of --exr-layout in cli/args.c */
    NG_EXR_LAYERS, /* one single-part file, a layer each: channels height.Y, N.R, N.G, N.B (the default) */
    NG_EXR_PARTS,  /* one multi-part file, a part each, named after its output (channels named as in layers) */
    NG_EXR_FILES   /* a file each, FILE-name.exr, channels Y or R, G, B (the only layout before layers) */
} ng_exr_layout;
typedef struct ng_file_options {
    /* The deflate level (0 stored to 9 smallest) of PNG and of an EXR's ZIP
     * chunks; -1: the format's default. */
    int level;
    int exr_tile;       /* .exr: 0 scanlines, else square tiles of this edge */
    ng_exr_compression exr_compression;
    /* .exr, DWAA or DWAB: the dwaCompressionLevel (its quantisation's base
     * error, in 1/100000ths; 0 to 10000); -1: OpenEXR's default, 45. */
    double exr_dwa_level;
    ng_exr_layout exr_layout;
    /* .exr: 1 writes tiles (of exr_tile, or 64) with mip-map levels, each
     * level the box-filtered half of the one above (exr.c says how). */
    int exr_mipmap;
    /* 1: a grid's background was given (its value goes to
     * ng_file_sink_set_grid): only a format of grids (.vdb) takes it. */
    int grid;
    /* Threads that compress beside the render (0: as ng_render's threads:
     * one per CPU). The file's bytes do not depend on it. */
    int threads;
    /* Where the image is in the full image, and that image's world, as the
     * render's options say them (width, height, region, origin,
     * pixel_size): an .exr's data window and display window, and its
     * worldOrigin / worldPixelSize attributes. An image whose size differs
     * from the window's is placed at 0,0 of itself. */
    int full[2], offset[2];
    double origin[2], pixel_size;
    /* .vdb: 1 stores y up (Houdini's and most DCCs' axes): noisegraph's
     * (x, y, z) becomes (x, z, -y), vectors turned alike; 0: z up, as
     * rendered. Only a format of grids takes it. */
    int y_up;
    /* Provenance: NULL, or key, value, ..., NULL, borrowed until the sink
     * is freed: written into the file where the format has room for text
     * (a .vdb's file and grid metadata) and read back by ng_file_meta. */
    const char *const *meta;
    /* GeoTIFF (.tif): the spatial reference (EPSG:n, WKT or PROJ text;
     * NULL: none, borrowed like meta), the bands' nodata value when
     * nodata_set, and cog 1 for a Cloud-Optimized GeoTIFF (tiled, with
     * overviews). Only a GeoTIFF takes them. */
    const char *srs;
    int nodata_set;
    double nodata;
    int cog;
} ng_file_options;
/* level -1, scanline ZIP, threads 0, no placement (an image of its own). */
void ng_file_options_default(ng_file_options *o);
/* Sets full, offset, origin and pixel_size (and threads) from a render's options. */
void ng_file_options_place(ng_file_options *o, const ng_render_opts *r);
/* Before the render begins. 0, or -1 with err filled: an option the
 * format does not take (--compression of a raw format, --exr-tiles of a
 * .png), or a value out of range. */
int ng_file_sink_set_options(ng_file_sink *s, const ng_file_options *o, ng_error *err);
/* The same check against a path alone, creating nothing. */
int ng_file_check_options(const char *path, const ng_file_options *o, ng_error *err);
/* The extensions understood, for messages, every row's in the table's
 * order: ".png, .pfm, .r16, .raw, .vdb, .nrrd, .exr, .tif, .tiff, .r32". */
const char *ng_file_formats(void);

/* ---- images in memory ----------------------------------------------------- */

/* A PNG of width x height pixels of `channels` interleaved floats (1 grey,
 * 3 RGB) at 8 or 16 bits, by the .png file sink's encoder: the bytes
 * `noisegraph render` writes for the same samples and options (o: level
 * and threads; NULL for the defaults). On success *out (malloc'd; the
 * caller frees it) holds *len bytes. 0, or -1 with err filled. */
int ng_png_encode_memory(const float *px, int width, int height, int channels, int bits, const ng_file_options *o,
                         unsigned char **out, size_t *len, ng_error *err);

/* ---- reading files ---------------------------------------------------------- */

/* The one way the program opens a file to read (readfile.c): scripts and
 * their modules, images, tiles, tile records, manifests. Opened without
 * blocking, so a FIFO with no writer is refused rather than waited on, then
 * checked on that descriptor (what is checked is what is read): a regular
 * file, not a directory, FIFO, device or socket (a link to /dev/zero is a
 * device), of at most max_bytes (0: any size; a format that implies a
 * bound says it). what names the file for messages ("an image file").
 * Returns the descriptor (close-on-exec; reads of a regular file never
 * block), its size in *bytes; or -1 with err "PATH: WHY" and errno ENOENT
 * (missing) or another open error, EISDIR, EINVAL (not a regular file) or
 * EFBIG (over max_bytes). */
int ng_file_open_read(const char *path, const char *what, uint64_t max_bytes, uint64_t *bytes, ng_error *err);
/* The whole of such a file, malloc'd, with a NUL after its *len bytes
 * (the caller frees it); NULL with err and errno as above. */
char *ng_file_read_all(const char *path, const char *what, uint64_t max_bytes, size_t *len, ng_error *err);

/* ---- images in ------------------------------------------------------------ */

/*
 * Reads the image file at path (PNG, TGA or BMP through stb_image, JPEG
 * through libjpeg-turbo; 16-bit PNG samples keep their 16 bits). The file is the untrusted
 * input; any bytes in it give either 0 with img filled or -1 with a one-line
 * reason "PATH: ..." in err and img->px NULL, never more memory than
 * max_bytes:
 * - path is opened by ng_file_open_read: a regular file of at most
 *   2 GiB + 1 MiB (a FIFO, device or directory is refused unread); it is
 *   opened once, and what was checked is what is read;
 * - the header's size is refused before decoding when over 2^28 pixels, or
 *   when the load's peak, (1 or 2 bytes + 4) * width * height * channels
 *   + the file's size + 64 KiB (stb's samples, the floats, what stb holds
 *   besides), is over max_bytes ("PATH: a WxH image needs N MiB, more than
 *   the M MiB allowed (raise --memory-limit)");
 * - every allocation of the decoder counts against max_bytes too; SIZE_MAX
 *   means no limit but the pixel count.
 * On success the caller owns img->px (ng_image_free), which keeps
 * 4 * width * height * channels bytes of the peak. Thread-safe.
 */
int ng_image_load(const char *path, ng_image *img, size_t max_bytes, ng_error *err);

#endif
