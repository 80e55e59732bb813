/*
 * without/exr.c — the EXR row of formats.c in a build without OpenEXR
 * (make NO_EXR=1, and every ARM=1 build: Debian 12's libopenexr-dev:arm64
 * does not install beside the host's). Writing or reading an .exr fails at
 * once with one line naming the switch, before anything is rendered; the
 * format stays listed, so a script or a tiles plan means the same thing in
 * every build.
 */
#include "filesink.h"
#include "tileread.h"

#include <stdio.h>

static const char why[] = "this noisegraph was built without OpenEXR (NO_EXR=1): it writes and reads no .exr";

static int refuse_write(ng__image *im) { return ng__image_fail(im, 0, "%s", why); }

static int refuse_read(ng__tile_reader *r) { return ng__tile_fail(r, "%s", why); }

const ng__encoder ng__exr_encoder = {.begin = refuse_write};
const ng__reader ng__exr_reader = {.open = refuse_read};

int ng__exr_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 char *msg, size_t len)
{
    (void)path, (void)each, (void)user;
    snprintf(msg, len, "%s", why);
    return -1;
}
