/* main.c — runs every test suite (or those named as arguments); the last
 * line is "N passed, N failed". */
#include "suites.h"

#include <stdio.h>
#include <string.h>

int ng_t_summary(void);

static const struct {
    const char *name;
    void (*fn)(void);
} suites[] = {
    {"kernels", suite_kernels}, {"cells", suite_cell_kernels}, {"png", suite_png},   {"files", suite_files},
    {"core", suite_core},       {"render", suite_render}, {"cli", suite_cli},
    {"graphs", suite_graphs},
    {"fractal", suite_fractal},
    {"nodes", suite_nodes},
    {"sandbox", suite_sandbox},
    {"image_input", suite_image_input},
    {"readme", suite_readme},
    {"hostile_cli", suite_hostile_cli},
    {"fuzz_regress", suite_fuzz_regress},
    {"descriptors", suite_descriptors},
    {"volume", suite_volume},
    {"cloudshape", suite_cloudshape},
    {"preview", suite_preview},
    {"vdb", suite_vdb},
    {"volfiles", suite_volfiles},
    {"colour", suite_colour},
    {"review12", suite_review12},
    {"unified", suite_unified},
    {"anim", suite_anim},
    {"pool", suite_pool},
    {"friction", suite_friction},
    {"deriv", suite_deriv},
    {"vecnoise", suite_vecnoise},
    {"vecwalk", suite_vecwalk},
    {"warpspeed", suite_warpspeed},
    {"speed", suite_speed},
    {"review14", suite_review14},
    {"overhead", suite_overhead},
    {"exr", suite_exr},
    {"encode", suite_encode},
    {"gradk", suite_gradk},
    {"serve", suite_serve},
    {"tiles", suite_tiles},
    {"farm", suite_farm},
    {"octscale", suite_octscale},
    {"hillshade", suite_hillshade},
    {"deflate", suite_deflate},
    {"dker", suite_dker},
    {"neighbourhood", suite_neighbourhood},
};

/* Whether suite `name` was asked for: no arguments ask for all. */
static int wanted(int argc, char **argv, const char *name)
{
    int a;
    for (a = 1; a < argc; a++)
        if (strcmp(argv[a], name) == 0) return 1;
    return argc < 2;
}

int main(int argc, char **argv)
{
    size_t i;
    for (i = 0; i < sizeof suites / sizeof suites[0]; i++)
        if (wanted(argc, argv, suites[i].name)) suites[i].fn();
    return ng_t_summary();
}
