/*
 * avx2.c — the avx2 path: AVX2 with BMI1/2 and POPCNT (Haswell and later).
 * Its loops and its table; its kernel units are nodes/<family>_kernels.c,
 * compiled with the same flags (PATH_FLAGS_avx2 in the Makefile: the one
 * place its target is defined). See kernels.h.
 */
#include "kernels.h"
#include "loops.c"

NG_PATH_TABLE(avx2);
