/* cell_scalar.c — the cell kernels compiled for the scalar path (see kernels.h). */
#include "path_scalar.h"
#include "../cell_kernels.c"
#include "target_end.h"
