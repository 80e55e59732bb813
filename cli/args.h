/*
 * args.h — the options of `noisegraph render | preview | info | dot | serve
 * | tiles | stitch`, read from one table (args.c) that also makes the
 * --help text; each option says which commands take it, and every command
 * reads them by the same rules (a value option given twice is an error). Every value is checked whole: a number with
 * anything after it, an empty list field, a value out of its range or too
 * long is a usage error, never cut or rounded.
 */
#ifndef NG_ARGS_H
#define NG_ARGS_H

#include "host.h"
#include "ng_io.h"

#include <stdio.h>

/* Longest value any option takes (a path: PATH_MAX), in bytes. */
#define NG_CLI_MAX_VALUE 4096

/* The commands, in the ORDER --help lists them. A view (preview, or
 * render --view) draws a picture of one output instead of writing the
 * output itself. nodes reads no options. */
typedef enum ng_cmd {
    NG_CMD_RENDER, NG_CMD_PREVIEW, NG_CMD_TILES, NG_CMD_STITCH, NG_CMD_NODES, NG_CMD_INFO, NG_CMD_DOT, NG_CMD_SERVE
} ng_cmd;

/* What ng_cli_parse returns when the command line asks for the command's
 * help (--help or -h where an option may stand): print ng_cli_help, exit 0. */
#define NG_CLI_HELP (-1)

typedef struct ng_cli {
    const char *script, *output; /* point into argv; NULL when not given */
    int bits;                    /* 0: the format's default */
    int quiet;
    const char *only;            /* --only NAME: the one output to render; NULL: all */
    ng_render_opts r;
    ng_file_options file;        /* --compression, --exr-tiles, --exr-compression; placed from r */
    int file_set;                /* one of them was given */
    int no_provenance;           /* --no-provenance: file.meta stays NULL */
    int normalize;               /* --normalize: 1-channel outputs through ng.normalize */
    ng_host_opts h;              /* h.set_name[] is owned (ng_cli_free) */
    int z_set, time_set;
    /* what was given, for the rules between options (args.c) */
    int pixel_set, voxel_set, tile_set, brick_set, ramp_set;
    int region_fields, origin_fields; /* 0: not given */
    double vdb_background; /* given: file.grid is set */
    /* --origin and --voxel-size as given: a render's world or a volume
     * view's box reads them, which only the whole command line tells */
    double origin[3], voxel_size[3];
    int voxel_fields;            /* 1: cubes; 3: --voxel-size X,Y,Z, boxes */
    /* --frames A-B: frame f renders at time f / h.fps (the script sees
     * h.fps through ng.frame()); --loop-frames N sets r.time_period */
    int frames_set;
    long frame_first, frame_last, loop_frames;
    int view; /* 1: draw v (preview, render --view); r is the picture's */
    ng_view_opts v;
    /* serve: the port (0: a free one) and address (NULL: 127.0.0.1);
     * r is the window the page opens on, v its hillshade and volume views */
    int port;
    const char *listen;
    /* tiles: --tile-size (default 1024), --index I (-1: every tile), --plan */
    int tile_size, plan;
    long index;
    /* stitch: its MANIFEST (the word that is not an option), and --script,
     * the script the tiles must have been made from (NULL: not checked) */
    const char *manifest, *source_script;
    /* option_of[i]: the long name of the option that word i of argv is
     * (or is the value of); NULL for the script or manifest. Owned. */
    const char **option_of;
    /* the words after the command, as given (the provenance's command line) */
    int argc;
    char **argv;
} ng_cli;

/* Parses argv (the words after the command cmd); an option cmd does not
 * take is a usage error. The script (stitch: the manifest) is the one word
 * that is not an option. 0, or the exit code (2) after printing the
 * one-line error "noisegraph: ..." on stderr. Allocates nothing that
 * ng_cli_free does not free; call ng_cli_free either way. */
int ng_cli_parse(ng_cmd cmd, int argc, char **argv, ng_cli *c);
void ng_cli_free(ng_cli *c);
/* 0 for an option (by its long name) that never changes the output's
 * bytes (-o, --threads, --tile, the limits, --quiet): the provenance
 * leaves it out; 1 for every other. */
int ng_cli_recorded(const char *name);
/* The --help text, from the table: every command and option. */
void ng_cli_usage(FILE *out);
/* One command's help: its usage and the options it reads, from the same
 * table (noisegraph CMD --help). */
void ng_cli_help(ng_cmd cmd, FILE *out);
/* The command's name ("render"). */
const char *ng_cli_command_name(ng_cmd cmd);
/* word is --help or -h. */
int ng_cli_is_help(const char *word);
/* Prints "noisegraph: MSG" as one line (newlines and tabs become spaces)
 * and returns code. */
int ng_cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --normalize: each 1-channel output of s through ng.normalize (render
 * and tiles alike). 0, or the exit code after the one-line error. */
int ng_cli_normalize(const ng_cli *c, ng_script *s);

/* signals.c: SIGINT, SIGTERM, SIGHUP remove the temporaries of the files
 * being written, then end the process by the same signal. */
void ng_catch_signals(void);

#endif
