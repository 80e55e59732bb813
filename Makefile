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
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -g $(FPFLAGS) $(WARN)
# Layers (DESIGN.md section 2): each directory sees only the headers of the
# layers below it, so core/ cannot include nodes/ or Lua, nor nodes/ Lua.
INC_core  := -Icore -I/usr/include/stb
INC_nodes := -Icore -Inodes
INC_lua   := -Icore -Inodes -I/usr/include/lua5.4
INC_tests := -Icore -Inodes -I/usr/include/lua5.4
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

CORE_SRC := $(wildcard core/*.c)
NODES_SRC := $(wildcard nodes/*.c) $(wildcard nodes/simd/*.c)
LIB_SRC := $(CORE_SRC) $(NODES_SRC)
CLI_SRC := $(wildcard lua/*.c)
TEST_SRC := $(wildcard tests/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
NODES_OBJ := $(NODES_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
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

# -MMD: each object also depends on what it includes (the SIMD units
# include nodes/noise_kernels.c, cell_kernels.c, loops.c), from the .d files.
$(BUILD)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	@$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/core/%.o: CFLAGS += $(INC_core)
$(BUILD)/nodes/%.o: CFLAGS += $(INC_nodes)
$(BUILD)/lua/%.o: CFLAGS += $(INC_lua)
$(BUILD)/tests/%.o: CFLAGS += $(INC_tests)

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/tests/bench/bench.d

# SIMD paths (nodes/simd/): the scalar one must not vectorise; clang takes
# the AVX-512 vector width from a flag (gcc from the target pragma).
IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -c clang)
ifeq ($(IS_CLANG),0)
$(BUILD)/nodes/simd/%_scalar.o: CFLAGS += -fno-tree-vectorize
else
$(BUILD)/nodes/simd/%_scalar.o: CFLAGS += -fno-vectorize -fno-slp-vectorize
$(BUILD)/nodes/simd/%_avx512.o: CFLAGS += -mprefer-vector-width=512
endif

# The same layering at link level: no core/ object may need a symbol that
# nodes/ defines (a declaration copied by hand would pass the include paths).
$(BUILD)/layers.ok: $(LIB_OBJ)
	@nm -u $(CORE_OBJ) | awk 'NF == 2 {print $$2}' | sort -u > $@.undef
	@nm -g --defined-only $(NODES_OBJ) | awk 'NF == 3 {print $$3}' | sort -u > $@.def
	@if comm -12 $@.undef $@.def | grep .; then \
	  echo "noisegraph: core/ uses the symbols above from nodes/; core must not depend on nodes" >&2; \
	  rm -f $@.undef $@.def; exit 1; fi
	@rm -f $@.undef $@.def
	@touch $@

$(LIB): $(LIB_OBJ) $(BUILD)/layers.ok
	@echo "  AR  $@"
	@ar rcs $@ $(LIB_OBJ)

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
