/* cell_avx512.c — the cell kernels compiled for the avx512 path (see kernels.h). */
#include "path_avx512.h"
#include "../cell_kernels.c"
#include "target_end.h"
