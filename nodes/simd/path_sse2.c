/*
 * sse2.c — the sse2 path: x86-64's baseline, which every x86-64 CPU runs.
 * Its loops and its table; its kernel units are nodes/<family>_kernels.c,
 * compiled with the same flags (PATH_FLAGS_sse2 in the Makefile: the one
 * place its target is defined). See kernels.h.
 */
#include "kernels.h"
#include "loops.c"

NG_PATH_TABLE(sse2);
