/*
 * scalar.c — the scalar path: no vector code (the Makefile turns the
 * vectoriser off), the reference every other path must match. Its loops and
 * its table; its kernel units are nodes/<family>_kernels.c, compiled with
 * the same flags (PATH_FLAGS_scalar in the Makefile: the one place its
 * target is defined). See kernels.h.
 */
#include "kernels.h"
#include "loops.c"

NG_PATH_TABLE(scalar);
