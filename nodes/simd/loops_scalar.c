/* loops_scalar.c — the loops kernels compiled for the scalar path (see kernels.h). */
#include "path_scalar.h"
#include "../loops.c"
#include "target_end.h"
