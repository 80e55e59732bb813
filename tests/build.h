/*
 * build.h — terse graph building for the C test suites, through the public
 * API only (what an embedder would write). Each helper aborts the test run
 * with a message if the graph refuses the node, since a fixture that fails
 * to build would make every later check meaningless.
 */
#ifndef NG_TEST_BUILD_H
#define NG_TEST_BUILD_H

#include "noisegraph.h"
#include "types.h"

/* noise of a shorthand type ("perlin", ...) with element_size and seed */
int t_noise(ng_graph *g, const char *type, double size, int seed);
/* the same with output = "vector" */
int t_vnoise(ng_graph *g, const char *type, double size, int seed);
/* binary math node ("add", "mul", ...) */
int t_bin(ng_graph *g, const char *type, int a, int b);
int t_const(ng_graph *g, double v);
int t_warp(ng_graph *g, int source, int by, double amount);
int t_fbm(ng_graph *g, int source, double octaves, double lacunarity, double roughness);
/* a node begun from a type name (or shorthand), for tests that set options by hand */
ng_node *t_begin(ng_graph *g, const char *type);
int t_finish(ng_graph *g, ng_node *n);
int t_set(ng_node *n, const char *param, double v);
void t_opts(ng_render_opts *o, int w, int h);
/* render root into a new buffer (w * h * channels floats); NULL on failure */
float *t_render(const ng_graph *g, int root, const ng_render_opts *o);

#endif
