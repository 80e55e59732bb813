/*
 * without/geotiff.c — the GeoTIFF row of formats.c in a build without GDAL
 * (make NO_GDAL=1, and every ARM=1 build: Debian 12's libgdal-dev:arm64
 * does not install beside the host's). Writing a .tif fails at once with
 * one line naming the switch, before anything is rendered; the format
 * stays listed, so a script or a tiles plan means the same thing in every
 * build.
 */
#include "filesink.h"

#include <stdio.h>

static const char why[] = "this noisegraph was built without GDAL (NO_GDAL=1): it writes and reads no GeoTIFF";

static int refuse(ng__image *im) { return ng__image_fail(im, 0, "%s", why); }

const ng__encoder ng__geotiff_encoder = {.begin = refuse};

int ng__geotiff_check(const ng_file_options *o, int bits, char *msg, size_t len)
{
    (void)o, (void)bits;
    snprintf(msg, len, "%s", why);
    return -1;
}

int ng__geotiff_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                     char *msg, size_t len)
{
    (void)path, (void)each, (void)user;
    snprintf(msg, len, "%s", why);
    return -1;
}
