/* loops_avx2.c — the loops kernels compiled for the avx2 path (see kernels.h). */
#define NG_SIMD_SUFFIX _avx2
#define NG_SIMD_TARGET "avx2,bmi,bmi2,popcnt"
#include "rename.h"
#include "../loops.c"
#include "target_end.h"
