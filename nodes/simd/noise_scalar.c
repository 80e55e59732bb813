/* noise_scalar.c — the noise kernels compiled for the scalar path (see kernels.h). */
#include "path_scalar.h"
#include "../noise_kernels.c"
#include "target_end.h"
