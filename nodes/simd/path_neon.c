/*
 * neon.c — the neon path: aarch64's Advanced SIMD (128-bit), which every
 * aarch64 CPU runs, as sse2 is x86-64's. Its loops and its table; its
 * kernel units are nodes/<family>_kernels.c, compiled with the same flags
 * (PATH_FLAGS_neon in the Makefile: the one place its target is defined).
 * See kernels.h. Only an aarch64 build (make ARM=1) compiles it.
 */
#include "kernels.h"
#include "loops.c"

NG_PATH_TABLE(neon);
