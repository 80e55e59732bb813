/*
 * without/vdb.c — the VDB row of formats.c in a build without OpenVDB
 * (make NO_VDB=1, make demo, and every ARM=1 build: Debian 12's libopenvdb-dev:arm64
 * does not install beside the host's). Writing a .vdb fails at once with
 * one line naming the switch, before anything is rendered; the format stays
 * listed, so a script means the same thing in every build.
 */
#include "filesink.h"
#include "vdbgrid.h"

#include <stdio.h>

static const char why[] = "this noisegraph was built without OpenVDB (make demo, ARM=1 or NO_VDB=1; make builds the full program): it writes and reads no .vdb";

static int refuse(ng__image *im) { return ng__image_fail(im, 0, "%s", why); }

int ng__vdb_read_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                      char *msg, size_t len)
{
    (void)path, (void)each, (void)user;
    snprintf(msg, len, "%s", why);
    return -1;
}

const ng__encoder ng__vdb_encoder = {.begin = refuse};
