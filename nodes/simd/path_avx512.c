/*
 * avx512.c — the avx512 path: AVX-512 F/BW/DQ/VL at 512-bit vectors, over
 * avx2. Its loops and its table; its kernel units are
 * nodes/<family>_kernels.c, compiled with the same flags (PATH_FLAGS_avx512
 * in the Makefile: the one place its target is defined). See kernels.h.
 */
#include "kernels.h"
#include "loops.c"

NG_PATH_TABLE(avx512);
