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
/* a warp whose amount is the node `amount`, with its octave options; mode NULL: the default */
int t_warp_node(ng_graph *g, int source, int by, int amount, double octaves, double lac, double rough,
                const char *mode);
int t_fbm(ng_graph *g, int source, double octaves, double lacunarity, double roughness);
/* a vector of the nodes x, y and z (z < 0: two channels) */
int t_vector(ng_graph *g, int x, int y, int z);
/* a node begun from a type name (or shorthand), for tests that set options by hand */
ng_node *t_begin(ng_graph *g, const char *type);
int t_finish(ng_graph *g, ng_node *n);
int t_set(ng_node *n, const char *param, double v);
void t_opts(ng_render_opts *o, int w, int h);
/* render root into a new buffer (w * h * channels floats); NULL on failure */
float *t_render(const ng_graph *g, int root, const ng_render_opts *o);

/* Like the above, but a refusal is a test failure (ng_t_fail), not the end
 * of the run: for tests whose subject is the node being built. */
void t_in(ng_graph *g, ng_node *n, const char *name, int src);
void t_choose(ng_node *n, const char *param, const char *v);
void t_vec(ng_node *n, const char *param, double a, double b, double c);
/* a node of type begun with src as its "source" input */
ng_node *t_on(ng_graph *g, const char *type, int src);
int t_finish_ok(ng_graph *g, ng_node *n);
/* root at n world points (dims coordinates: x, y, z arrays) into a new
 * buffer of n * NG_MAX_CHANNELS floats; NULL (and a test failure) if it fails */
float *t_points(const ng_graph *g, int root, int dims, int n, const double *x, const double *y, const double *z);

#endif
