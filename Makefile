# noisegraph — build, test, demo, bench.
#   make          build build/noisegraph and build/libnoisegraph.a
#   make test     build and run every test (SAN=1: under ASan + UBSan)
#   make demo     render graphs/terrain.lua to terrain.png
#   make bench    optimised single-thread benchmark
# Missing Debian packages are installed with apt-get when run as root.

CC      ?= gcc
SAN     ?= 0
# One job per CPU unless the caller chose (make -jN).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
# objects of another compiler go to their own tree: make CC=clang test
COMPILER := $(if $(filter cc gcc,$(notdir $(CC))),,-$(notdir $(CC)))
PKGS    := liblua5.4-dev libpng-dev libstb-dev
# header that proves each package is present
PKG_HDRS := /usr/include/lua5.4/lua.h /usr/include/png.h /usr/include/stb/stb_image.h

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
# Bit-identical kernels everywhere: no contraction into FMA, no fast-math;
# no errno from libm, so sqrtf (exact in IEEE) vectorises.
FPFLAGS := -ffp-contract=off -fno-fast-math -fno-math-errno
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -g $(FPFLAGS) $(WARN) -Icore -Inodes \
               -I/usr/include/lua5.4 -I/usr/include/stb
ifeq ($(SAN),1)
  BUILD  := build/san$(COMPILER)
  CFLAGS := $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer \
            -fsanitize=address,undefined,float-cast-overflow \
            -fno-sanitize-recover=undefined,float-cast-overflow
  LDSAN  := -fsanitize=address,undefined,float-cast-overflow
else
  BUILD  := build/opt$(COMPILER)
  CFLAGS := $(CFLAGS_BASE) -O3
  LDSAN  :=
endif
LDLIBS  := -llua5.4 -lpng16 -lm -lpthread

# The kernel sources (nodes/<family>_kernels.c) and loops.c are compiled
# once per SIMD path below, never alone.
KERNEL_SRC := $(wildcard nodes/*_kernels.c)
LIB_SRC := $(wildcard core/*.c) $(filter-out $(KERNEL_SRC) nodes/loops.c,$(wildcard nodes/*.c)) \
           $(wildcard nodes/simd/*.c)
# the SIMD paths, narrowest first (NG_PATHS in nodes/kernels.h)
PATHS   := scalar sse2 avx2 avx512
KERNEL_OBJ = $(foreach p,$(PATHS),$(KERNEL_SRC:nodes/%_kernels.c=$(BUILD)/nodes/simd/$(p)/%.o))
CLI_SRC := $(wildcard lua/*.c)
TEST_SRC := $(wildcard tests/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(KERNEL_OBJ)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
LIB     := $(BUILD)/libnoisegraph.a
BIN     := $(BUILD)/noisegraph
TESTBIN := $(BUILD)/run_tests

.PHONY: all deps test demo bench clean

all: deps $(BIN) $(LIB) build/noisegraph

# build/noisegraph always points at the optimised binary the README uses.
build/noisegraph: $(BIN)
	@mkdir -p build
	@if [ "$(SAN)" = 0 ] && [ -z "$(COMPILER)" ]; then ln -sf opt/noisegraph build/noisegraph; fi

deps:
	@missing=""; set -- $(PKG_HDRS); for p in $(PKGS); do \
	  [ -f "$$1" ] || missing="$$missing $$p"; shift; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >&2 || exit 1; \
	  else \
	    echo "noisegraph: missing Debian packages:$$missing (run 'sudo apt-get install$$missing' or 'make deps' as root)" >&2; exit 1; \
	  fi; \
	fi

# -MMD: each object also depends on what it includes, from the .d files.
$(BUILD)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	@$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/tests/bench/bench.d

# SIMD paths (kernels.h): each is nodes/simd/<path>.c (its loops and table)
# and one unit per kernel family, nodes/<family>_kernels.c, compiled with
# PATH_FLAGS_<path>, the one place its target is defined (kernels.c checks
# the CPU for the same features). The same list is NG_PATHS in kernels.h.
# The scalar path must not vectorise.
IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -c clang)
ifeq ($(IS_CLANG),0)
PATH_FLAGS_scalar := -fno-tree-vectorize
else
PATH_FLAGS_scalar := -fno-vectorize -fno-slp-vectorize
endif
PATH_FLAGS_sse2   :=
PATH_FLAGS_avx2   := -mavx2 -mbmi -mbmi2 -mpopcnt
PATH_FLAGS_avx512 := $(PATH_FLAGS_avx2) -mavx512f -mavx512bw -mavx512dq -mavx512vl -mprefer-vector-width=512
# Tracking variable locations through the kernels' deep inlining is more
# than half of their compile time (gcc); the code is the same without it
# and line tables stay, for profiles and backtraces.
ifeq ($(IS_CLANG),0)
KERNEL_DEBUG := -fno-var-tracking-assignments
endif

define PATH_RULES
$(BUILD)/nodes/simd/$(1).o: CFLAGS += $(PATH_FLAGS_$(1)) $(KERNEL_DEBUG)
$(BUILD)/nodes/simd/$(1)/%.o: nodes/%_kernels.c | deps
	@mkdir -p $$(dir $$@)
	@echo "  CC  $$< ($(1))"
	@$$(CC) $$(CFLAGS) $(PATH_FLAGS_$(1)) $(KERNEL_DEBUG) -DNG_PATH=$(1) -MMD -MP -c $$< -o $$@
endef
$(foreach p,$(PATHS),$(eval $(call PATH_RULES,$(p))))

$(LIB): $(LIB_OBJ)
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $^  # afresh: no member of a deleted source lingers

$(BIN): $(CLI_OBJ) $(LIB)
	@echo "  LD  $@"
	@$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(TESTBIN): $(TEST_OBJ) $(LIB)
	@echo "  LD  $@"
	@$(CC) $(LDSAN) -o $@ $(TEST_OBJ) $(LIB) $(LDLIBS)

test: deps $(BIN) $(TESTBIN)
	NG_BIN=$(abspath $(BIN)) NG_ROOT=$(CURDIR) $(TESTBIN)

demo: all
	$(BIN) render graphs/terrain.lua -o terrain.png --size 1024

# bench: never under SAN. libnoise-dev (the side-by-side peer) and time
# (/usr/bin/time -v for peak memory) are installed when missing and root;
# without them the bench runs and says which figures it could not take.
BENCH_PKGS := libnoise-dev time
BENCH_FILES := /usr/include/libnoise/noise.h /usr/bin/time
BENCH_BIN := $(BUILD)/bench
PEER_BIN := $(BUILD)/libnoise_peer

$(BENCH_BIN): $(BUILD)/tests/bench/bench.o $(filter-out $(BUILD)/lua/main.o,$(CLI_OBJ)) $(LIB)
	@echo "  LD  $@"
	@$(CC) $(LDSAN) -o $@ $^ $(LDLIBS)

$(PEER_BIN): tests/bench/libnoise_peer.cpp
	@echo "  CXX $<"
	@$(CXX) -O2 -Wall -Wextra -Werror -o $@ $< -lnoise

ifeq ($(SAN),0)
bench: deps $(BIN) $(BENCH_BIN)
	@missing=""; set -- $(BENCH_FILES); for p in $(BENCH_PKGS); do \
	  [ -e "$$1" ] || missing="$$missing $$p"; shift; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >&2 || \
	      echo "bench: could not install$$missing; running without them" >&2; \
	  else \
	    echo "bench: missing Debian packages:$$missing (not root); running without them" >&2; \
	  fi; \
	fi
	@if [ -f /usr/include/libnoise/noise.h ]; then \
	  $(MAKE) --no-print-directory $(PEER_BIN) || { rm -f $(PEER_BIN); echo "bench: the libnoise peer did not build" >&2; }; \
	else rm -f $(PEER_BIN); fi
	$(BENCH_BIN)
else
bench:
	@echo "bench: SAN=$(SAN) builds are not benchmarked; run 'make bench'" >&2; exit 2
endif

clean:
	rm -rf build
