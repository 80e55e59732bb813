/* noise_avx2.c — the noise kernels compiled for the avx2 path (see kernels.h). */
#include "path_avx2.h"
#include "../noise_kernels.c"
#include "target_end.h"
