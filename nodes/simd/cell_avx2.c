/* cell_avx2.c — the cell kernels compiled for the avx2 path (see kernels.h). */
#include "path_avx2.h"
#include "../cell_kernels.c"
#include "target_end.h"
