/* suites.h — every test suite; one file each. */
#ifndef NG_SUITES_H
#define NG_SUITES_H

void suite_kernels(void);
void suite_cell_kernels(void);
void suite_png(void);
void suite_exr(void);
void suite_encode(void);
void suite_files(void);
void suite_core(void);
void suite_render(void);
void suite_cli(void);
void suite_graphs(void);
void suite_fractal(void);
void suite_nodes(void);
void suite_sandbox(void);
void suite_image_input(void);
void suite_readme(void);
void suite_hostile_cli(void);
void suite_fuzz_regress(void);
void suite_descriptors(void);
void suite_volume(void);
void suite_cloudshape(void);
void suite_preview(void);
void suite_vdb(void);
void suite_volfiles(void);
void suite_colour(void);
void suite_review12(void);
void suite_unified(void);
void suite_anim(void);
void suite_friction(void);
void suite_deriv(void);
void suite_vecnoise(void);
void suite_vecwalk(void);
void suite_pool(void);
void suite_speed(void);
void suite_review14(void);
void suite_overhead(void);
void suite_gradk(void);
void suite_serve(void);
void suite_tiles(void);
void suite_farm(void);
void suite_octscale(void);
void suite_hillshade(void);
void suite_dker(void);

#endif
