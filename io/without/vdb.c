/*
 * without/vdb.c — the VDB row of formats.c in a build without OpenVDB
 * (make NO_VDB=1, and every ARM=1 build: Debian 12's libopenvdb-dev:arm64
 * does not install beside the host's). Writing a .vdb fails at once with
 * one line naming the switch, before anything is rendered; the format stays
 * listed, so a script means the same thing in every build.
 */
#include "filesink.h"

static int refuse(ng__image *im)
{
    return ng__image_fail(im, 0, "this noisegraph was built without OpenVDB (NO_VDB=1): it writes no .vdb");
}

const ng__encoder ng__vdb_encoder = {.begin = refuse};
