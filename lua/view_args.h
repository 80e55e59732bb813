/*
 * view_args.h — the options of `noisegraph preview` that only views have
 * (--view, the camera, the sun, the box of a density). They are taken out
 * of the command line first; what is left is read by ng_cli_parse as for
 * `render` (script, -o, --size, --threads, --set, limits ...).
 */
#ifndef NG_VIEW_ARGS_H
#define NG_VIEW_ARGS_H

#include "noisegraph.h"

#include <stdio.h>

typedef struct ng_view_cli {
    ng_view_opts v;
    /* --origin as given: X,Y for a terrain (the render's origin), X,Y,Z for
     * a volume (the box's corner); norigin numbers, 0 when not given */
    double origin[3];
    int norigin;
} ng_view_cli;

/* Takes the view options (each with its value) out of argv[0 .. *argc),
 * keeping the other words in order and leaving their count in *argc. 0, or
 * the exit code (2) after the one-line message. */
int ng_view_cli_parse(int *argc, char **argv, ng_view_cli *vc);
/* The view options, for `noisegraph preview --help`. */
void ng_view_cli_usage(FILE *out);

#endif
