/* noise_avx512.c — the noise kernels compiled for the avx512 path (see kernels.h). */
#include "path_avx512.h"
#include "../noise_kernels.c"
#include "target_end.h"
