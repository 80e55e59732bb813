/*
 * colour.h — colours as scripts write them, for the ramp node and for the
 * Lua host (a colour string inside a list option becomes its r, g, b).
 */
#ifndef NG_COLOUR_H
#define NG_COLOUR_H

#include "noisegraph.h"

/* "#rrggbb", "#rgb" (hex digits, either case) or a name from the list in
 * ng_colour_names() into rgb, each in [0, 1]. 0, or -1 with err saying
 * what is accepted (the caller adds where). */
int ng_colour_parse(const char *s, double rgb[3], ng_error *err);
/* The names ng_colour_parse knows, comma-separated, for messages and docs. */
const char *ng_colour_names(void);

#endif
