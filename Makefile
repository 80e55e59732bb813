# noisegraph — build, test, demo, bench.
#   make          build build/noisegraph and build/libnoisegraph.a
#   make check    build and run the fast tier of the tests (seconds, for editing)
#   make test     build and run every test (SAN=1: under ASan + UBSan)
#   make demo     build the program for this CPU alone (build/demo) and render
#                 graphs/terrain.lua to terrain.png
#   make test-browser  the page of `noisegraph serve` in headless Chromium (make test runs it)
#   make docs     every picture in docs/ (docs/pictures), from the current code
#   make bench    optimised single-thread benchmark
#   make fuzz     every libFuzzer target for FUZZ_TIME seconds (clang 14)
# Missing Debian packages are installed with apt-get when run as root.

CC      ?= gcc
SAN     ?= 0
# ARM=1: the program and the tests cross-built for aarch64 into build/arm64
# (make test-arm runs them under qemu-user); see "aarch64" below.
ARM     ?= 0
space   := $(subst ,, )
ifeq ($(ARM),1)
CC      := aarch64-linux-gnu-gcc
endif
# Builds without a library: NO_VDB=1 (.vdb), NO_EXR=1 (.exr), NO_GDAL=1
# (.tif) and
# NO_GRAPHVIZ=1 (the drawing of the graph in `noisegraph serve`) leave it
# out; the format or drawing then fails with one line naming the switch
# (io/without/). An ARM build goes without all four: Debian 12's
# libopenvdb-dev, libopenexr-dev, libgdal-dev and libgraphviz-dev are not Multi-Arch:
# same, and installing their :arm64 packages removes the host's.
# make demo goes without OpenVDB too: its one unit, io/vdbgrid.cc, was a
# third of the demo's build (33 s of 97 s of CPU) for a render to .png
NO_VDB  ?= $(if $(filter 1,$(ARM) $(DEMO)),1)
# what make test-arm runs under qemu-user (see test-arm): platform, the
# bits of every basis, fractal, warp and ngmath function against x86's;
# graphs, the golden hashes of every example graph; ngmath, its accuracy;
# the kernel suites (kernels, cells, vector_noise, warp) on the neon and
# the scalar path, each checking the paths agree bit for bit. Under qemu
# (NG_QEMU=1) the suites scale their sizes down, as under the sanitizers.
ARM_SUITES ?= platform graphs ngmath kernels cells vector_noise warp
NO_EXR  ?= $(ARM)
NO_GDAL ?= $(ARM)
NO_GRAPHVIZ ?= $(ARM)
# One job per CPU unless the caller chose (make -jN).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
# Test suites run at once, one process each (run_tests --jobs): most use
# one CPU, so a run on two takes about half the time.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# objects of another compiler go to their own tree: make CC=clang test
COMPILER := $(if $(filter cc gcc,$(notdir $(CC))),,-$(notdir $(CC)))
# OpenVDB (.vdb): libopenvdb-dev brings TBB, Imath and Blosc but not the
# Boost headers its own headers include (Debian 12), hence libboost-dev;
# python3-openvdb and libopenvdb-tools read .vdb files back in the tests.
PKGS    := liblua5.4-dev libpng-dev libstb-dev libjpeg-dev \
           libopenvdb-dev libboost-dev python3-openvdb libopenvdb-tools \
           libmicrohttpd-dev libgraphviz-dev libopenexr-dev openexr \
           libjansson-dev nettle-dev libgdal-dev
# a file that proves each package is present (the pyopenvdb module's name
# carries the Python version: a pattern matching the one there is)
PKG_HDRS := /usr/include/lua5.4/lua.h /usr/include/png.h /usr/include/stb/stb_image.h /usr/include/jpeglib.h \
            /usr/include/openvdb/openvdb.h /usr/include/boost/numeric/conversion/conversion_traits.hpp \
            /usr/lib/python3/dist-packages/pyopenvdb.cpython-*.so /usr/bin/vdb_print \
            /usr/include/microhttpd.h /usr/include/graphviz/gvc.h \
            /usr/include/OpenEXR/openexr.h /usr/bin/exrheader \
            /usr/include/jansson.h /usr/include/nettle/sha2.h /usr/include/gdal/gdal.h
# ARM=1: the cross compiler, qemu-user to run what it builds, and the
# :arm64 libraries through Debian's multiarch (apt's arm64 architecture,
# added by deps when missing); no OpenVDB, OpenEXR, GDAL or Graphviz (NO_VDB).
ARM_LIBS := liblua5.4-dev libpng-dev zlib1g-dev libjpeg-dev libjansson-dev nettle-dev libmicrohttpd-dev
ifeq ($(ARM),1)
PKGS    := gcc-aarch64-linux-gnu qemu-user libstb-dev $(ARM_LIBS:%=%:arm64)
PKG_HDRS := /usr/bin/aarch64-linux-gnu-gcc /usr/bin/qemu-aarch64 /usr/include/stb/stb_image.h \
            $(addprefix /usr/lib/aarch64-linux-gnu/,liblua5.4.so libpng16.so libz.so libjpeg.so libjansson.so \
            libnettle.so libmicrohttpd.so)
endif

# Test tools only (the tiles and farm suites): GNU parallel and a local
# Slurm cluster (slurmctld, slurmd, sbatch, munge) run a tiles plan;
# gdal-bin reads the VRT mosaic back; openimageio-tools' oiiotool reads
# every layer, part and mip level of our EXR files (exr); Blender imports a multi-grid .vdb
# headless (vdb_grids); teem-apps' unu (NRRD's reference reader) reads a
# gzipped .nrrd back; ffmpeg runs the README's recipe for frames to video.
# A file that proves each, in order.
TEST_PKGS  := parallel slurmctld slurmd slurm-client munge gdal-bin blender teem-apps ffmpeg openimageio-tools
TEST_FILES := /usr/bin/sem /usr/sbin/slurmctld-wlm /usr/sbin/slurmd-wlm /usr/bin/sbatch /usr/sbin/munged \
              /usr/bin/gdal_translate /usr/bin/blender /usr/bin/teem-unu /usr/bin/ffprobe /usr/bin/oiiotool

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
# Bit-identical kernels everywhere: no contraction into FMA, no fast-math;
# no errno from libm, so sqrtf (exact in IEEE) vectorises.
FPFLAGS := -ffp-contract=off -fno-fast-math -fno-math-errno
# stb_image 2.27 adds 0 to a NULL buffer and copies 0 bytes to it for an
# empty first IDAT chunk (z->idata + ioff, memcpy in stbi__getn): undefined
# in the letter, harmless in fact, and in Debian's header, not ours. Those
# two checks are off for the unit holding it.
STB_UNIT_SAN := -fno-sanitize=pointer-overflow,nonnull-attribute
# -fPIC: every object can also go into the Python module (a shared object);
# -fno-semantic-interposition keeps calls within the library direct and
# inlinable, and the linker relaxes GOT and TLS accesses in the program, so
# the program's code is that of the default PIE build.
PICFLAGS := -fPIC -fno-semantic-interposition
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -g $(FPFLAGS) $(PICFLAGS) $(WARN)
# Layers (README "How it works"): each folder sees only the headers of the
# layers it may use; `make layers` prints who includes whom and fails on a
# wrong-way arrow, and layers.ok checks the same at link level.
#   core   the engine            nodes  node types (kernels in nodes/simd)
#   io     readers and writers   lua    the Lua host
#   serve  the preview server    cli    the noisegraph program's commands
INC_core  := -Icore
INC_simd  := -Icore -Inodes/simd
INC_nodes := -Icore -Inodes -Inodes/simd
INC_io    := -Icore -Iio -I/usr/include/stb -I/usr/include/OpenEXR -I/usr/include/gdal
INC_lua   := -Icore -Inodes -Inodes/simd -Iio -Ilua -I/usr/include/lua5.4
INC_serve := $(INC_lua) -Iserve
INC_cli   := $(INC_serve) -Icli
INC_tests := $(INC_cli) -Itests -I/usr/include/OpenEXR
# The C++ units (io/vdbgrid.cc and io/exr_dwa.cc, each behind a C
# interface): OpenVDB's headers are C++17; the same warnings (those C++
# has), the same sanitizers, -O2 (its compile time is the OpenVDB templates').
CXXFLAGS_BASE := -std=c++17 -g $(FPFLAGS) $(PICFLAGS) -Wall -Wextra -Wshadow -Wmissing-declarations -Werror
ifeq ($(ARM),1)
  BUILD  := build/arm64
  CFLAGS := $(CFLAGS_BASE) -O3
  CXXFLAGS := $(CXXFLAGS_BASE) -O2
  LDSAN  :=
else ifeq ($(SAN),1)
  BUILD  := build/san$(COMPILER)
  SANFLAGS := -O1 -fno-omit-frame-pointer \
            -fsanitize=address,undefined,float-cast-overflow \
            -fno-sanitize-recover=undefined,float-cast-overflow
  CFLAGS := $(CFLAGS_BASE) $(SANFLAGS)
  CXXFLAGS := $(CXXFLAGS_BASE) $(SANFLAGS)
  LDSAN  := -fsanitize=address,undefined,float-cast-overflow
else ifeq ($(DEMO),1)
  # make demo: the program with this CPU's own SIMD path alone (the same
  # bits as every path), -O2 and no debug information, in build/demo: a
  # newcomer's first render waits for one path's kernels, not four
  BUILD  := build/demo$(COMPILER)
  CFLAGS := $(filter-out -g,$(CFLAGS_BASE)) -O2
  CXXFLAGS := $(filter-out -g,$(CXXFLAGS_BASE)) -O2
  LDSAN  :=
else
  BUILD  := build/opt$(COMPILER)
  CFLAGS := $(CFLAGS_BASE) -O3
  CXXFLAGS := $(CXXFLAGS_BASE) -O2
  LDSAN  :=
endif
# The engine archive needs libm and pthreads alone (tests/embed/engine_only.c
# proves it); the io archive brings the file formats' libraries.
ENGINE_LIBS := -lm -lpthread
# OpenVDB and what its headers' inline code calls (TBB, Imath's half
# tables), and the C++ runtime: programs are linked by the C compiler.
VDB_LIBS := -lopenvdb -ltbb -lImath -lstdc++
# OpenEXR (.exr) through its C API, OpenEXRCore (libopenexr-dev 3.1), and
# its C++ library (Imf; Iex its exceptions) for DWAA/DWAB (io/exr_dwa.cc);
# zlib for PNG's own band-parallel deflate (io/png.c); jansson for JSON
# (io/json.c), nettle for the tiles' SHA-256 (io/sha256.c).
EXR_LIBS := -lOpenEXRCore-3_1 -lOpenEXR-3_1 -lIex-3_1 -lImath -lstdc++
# GDAL is not linked: io/geotiff.c loads it (dlopen) when a GeoTIFF is
# first written or read, by the soname of the libgdal-dev it is compiled
# against (linked, it cost every start of the program about 36 ms).
IO_LIBS  := -lpng16 -ljpeg $(if $(filter 1,$(NO_VDB)),,$(VDB_LIBS)) $(if $(filter 1,$(NO_EXR)),,$(EXR_LIBS)) \
            -lz -ljansson -lnettle
GDAL_SONAME = $(shell objdump -p "$$($(CC) -print-file-name=libgdal.so)" 2>/dev/null | awk '/SONAME/ {print $$2}')
# serve: libmicrohttpd, and Graphviz to lay out the graph in process with
# its two plugins linked in (serve/serve_api.c says why), from their folder
GV_PLUGINS := /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/graphviz
GV_LIBS := -lgvc -lcgraph -lcdt -L$(GV_PLUGINS) -lgvplugin_dot_layout -lgvplugin_core \
              -Wl,-rpath,$(GV_PLUGINS)
SERVE_LIBS := -lmicrohttpd $(if $(filter 1,$(NO_GRAPHVIZ)),,$(GV_LIBS))
LDLIBS  := -llua5.4 $(SERVE_LIBS) $(IO_LIBS) $(ENGINE_LIBS)

# The kernel sources (nodes/simd/<family>_kernels.c) and loops.c are
# compiled once per SIMD path below, never alone.
KERNEL_SRC := $(wildcard nodes/simd/*_kernels.c)
CORE_SRC := $(wildcard core/*.c)
# the other architecture's paths' units (path_<path>.c) are not built
OTHER_ARCH_PATHS := $(if $(filter 1,$(ARM)),sse2 avx2 avx512,neon)
NODES_SRC := $(filter-out $(KERNEL_SRC) nodes/simd/loops.c $(OTHER_ARCH_PATHS:%=nodes/simd/path_%.c),\
               $(wildcard nodes/*.c nodes/simd/*.c))
ENGINE_SRC := $(CORE_SRC) $(NODES_SRC)
# a format built without its library (NO_EXR, NO_VDB, NO_GDAL) is io/without/<its unit>
IO_WITHOUT := $(if $(filter 1,$(NO_EXR)),io/exr.c) $(if $(filter 1,$(NO_VDB)),io/vdb.c) \
              $(if $(filter 1,$(NO_GDAL)),io/geotiff.c)
IO_SRC := $(filter-out $(IO_WITHOUT),$(wildcard io/*.c)) $(IO_WITHOUT:io/%=io/without/%)
# the C++ units of a library left out are not built either
IO_CXX_SRC := $(filter-out $(if $(filter 1,$(NO_VDB)),io/vdbgrid.cc) $(if $(filter 1,$(NO_EXR)),io/exr_dwa.cc),\
                $(wildcard io/*.cc))
# the SIMD paths, narrowest first (NG_PATHS in nodes/simd/kernels.h); a
# demo build has the widest this CPU runs, read from /proc/cpuinfo as
# nodes/simd/kernels.c checks it at run time
HOST_PATH := $(shell f=" $$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null) "; p=sse2; \
  for w in avx2 fma bmi1 bmi2 popcnt; do case "$$f" in (*" $$w "*) ;; (*) echo $$p; exit;; esac; done; p=avx2; \
  for w in avx512f avx512bw avx512dq avx512vl; do case "$$f" in (*" $$w "*) ;; (*) echo $$p; exit;; esac; done; \
  echo avx512)
# (aarch64: scalar and neon, which every aarch64 CPU runs)
PATHS   := $(if $(filter 1,$(DEMO)),$(HOST_PATH),$(if $(filter 1,$(ARM)),scalar neon,scalar sse2 avx2 avx512))
KERNEL_OBJ = $(foreach p,$(PATHS),$(KERNEL_SRC:nodes/simd/%_kernels.c=$(BUILD)/nodes/simd/$(p)/%.o))
LUA_SRC := $(wildcard lua/*.c)
SERVE_SRC := $(wildcard serve/*.c)
CLI_SRC := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/*.c)
ifeq ($(ARM),1) # the suites make test-arm runs under qemu-user, and the helpers
TEST_SRC := $(filter-out tests/test_%.c,$(TEST_SRC)) $(ARM_SUITES:%=tests/test_%.c)
endif
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
NODES_OBJ = $(NODES_SRC:%.c=$(BUILD)/%.o) $(KERNEL_OBJ)
ENGINE_OBJ = $(CORE_OBJ) $(NODES_OBJ)
IO_OBJ := $(IO_SRC:%.c=$(BUILD)/%.o) $(IO_CXX_SRC:%.cc=$(BUILD)/%.o)
LUA_OBJ := $(LUA_SRC:%.c=$(BUILD)/%.o)
# serve's page: every file in serve/web/, embedded by a generated C file
WEB_OBJ := $(BUILD)/gen/web_files.o
SERVE_OBJ := $(SERVE_SRC:%.c=$(BUILD)/%.o) $(WEB_OBJ)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
# what the program is made of besides the two archives
PROG_OBJ = $(LUA_OBJ) $(SERVE_OBJ) $(CLI_OBJ)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
# the list of suites, generated from their NG_SUITE lines (tests/suites.sh)
SUITES_OBJ := $(BUILD)/gen/suites.o
LIB     := $(BUILD)/libnoisegraph.a
IO_LIB  := $(BUILD)/libnoisegraph_io.a
LIBS    = $(IO_LIB) $(LIB)
BIN     := $(BUILD)/noisegraph
TESTBIN := $(BUILD)/run_tests

.PHONY: all deps test-deps check test demo docs bench fuzz fuzz-deps fuzz-build fuzz-recap clean

all: deps $(BIN) $(LIB) $(IO_LIB) build/noisegraph

# build/noisegraph always points at the optimised binary the README uses.
build/noisegraph: $(BIN)
	@mkdir -p build
	@if [ "$(SAN)" = 0 ] && [ -z "$(COMPILER)" ]; then ln -sf opt/noisegraph build/noisegraph; fi

# Shell text: apt-get the Debian packages named in $$missing when root,
# otherwise name them and fail. $(1): what they are for; $(2): the make
# target that installs them.
install_missing = if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >&2 || exit 1; \
	  else \
	    echo "noisegraph: missing Debian packages$(1):$$missing (run 'sudo apt-get install$$missing' or 'make $(2)' as root)" >&2; exit 1; \
	  fi; \
	fi

deps:
	@if [ "$(ARM)" = 1 ] && [ "$$(id -u)" = 0 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then \
	  echo "adding Debian's arm64 architecture (dpkg --add-architecture arm64)"; dpkg --add-architecture arm64; fi
	@missing=""; set -- $(PKG_HDRS); for p in $(PKGS); do \
	  [ -f "$$1" ] || missing="$$missing $$p"; shift; done; \
	$(call install_missing,,deps)

test-deps:
	@missing=""; set -- $(TEST_FILES); for p in $(TEST_PKGS); do \
	  [ -e "$$1" ] || missing="$$missing $$p"; shift; done; \
	$(call install_missing, for the tests,test-deps)

# Objects also depend on the flags they were compiled with: $(BUILD)/.flags
# holds them and is rewritten only when they change (a change of -fPIC or
# -O rebuilds everything, not a stale mix).
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_TEXT := $(CC) $(CFLAGS) | $(CXXFLAGS)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = "$(FLAGS_TEXT)" ] || \
  printf '%s\n' "$(FLAGS_TEXT)" > $(FLAGS_STAMP); })

# -MMD: each object also depends on what it includes, from the .d files.
$(BUILD)/%.o: %.c $(FLAGS_STAMP) | deps
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	@$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The C++ compiler of the C compiler's family: one sanitizer runtime.
CXX_OF_CC = $(if $(filter 0,$(IS_CLANG)),g++,$(subst clang,clang++,$(CC)))
$(BUILD)/%.o: %.cc $(FLAGS_STAMP) | deps
	@mkdir -p $(dir $@)
	@echo "  CXX $<"
	@$(CXX_OF_CC) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/core/%.o: CFLAGS += $(INC_core)
$(BUILD)/nodes/%.o: CFLAGS += $(INC_nodes)
$(BUILD)/nodes/simd/%.o: CFLAGS += $(INC_simd)
$(BUILD)/io/%.o: CFLAGS += $(INC_io)
$(BUILD)/io/%.o: CXXFLAGS += $(INC_io)
$(BUILD)/io/geotiff.o: CFLAGS += $(if $(GDAL_SONAME),-DNG_GDAL_SONAME='"$(GDAL_SONAME)"')
# OpenEXR's C++ headers (and Imath's, which they include as <half.h>) as
# system headers: their own warnings (-Wshadow) are not ours
EXR_CXX_INC := -isystem /usr/include/OpenEXR -isystem /usr/include/Imath
$(BUILD)/io/exr_dwa.o: CXXFLAGS += $(EXR_CXX_INC)
ifeq ($(SAN),1)
$(BUILD)/io/image_read.o: CFLAGS += $(STB_UNIT_SAN)
endif
$(BUILD)/lua/%.o: CFLAGS += $(INC_lua)
$(BUILD)/serve/%.o: CFLAGS += $(INC_serve)
ifeq ($(NO_GRAPHVIZ),1)
$(BUILD)/serve/serve_api.o: CFLAGS += -DNG_NO_GRAPHVIZ
endif
$(BUILD)/cli/%.o: CFLAGS += $(INC_cli)
$(BUILD)/tests/%.o: CFLAGS += $(INC_tests)
ifeq ($(ARM),1) # gcc-aarch64-linux-gnu 12.2 stops with an internal error (vect_transform_reduction)
$(BUILD)/tests/%.o: CFLAGS += -fno-tree-vectorize # vectorising loops of tests/test_cells.c and test_warp.c
endif

# The folder itself is a prerequisite: a file added or removed changes it.
$(BUILD)/gen/web_files.c: serve/web $(wildcard serve/web/*) serve/embed_web.sh
	@mkdir -p $(dir $@)
	@echo "  GEN $@"
	@sh serve/embed_web.sh $(wildcard serve/web/*) > $@.tmp && mv $@.tmp $@
$(WEB_OBJ): $(BUILD)/gen/web_files.c | deps
	@echo "  CC  $<"
	@$(CC) $(CFLAGS) $(INC_serve) -c $< -o $@

# Every suite runs, or the build fails: the table of suites is made from
# the NG_SUITE line of each tests/test_*.c, and a test file without one (or
# with two) stops the build. The folder is a prerequisite: a file added or
# removed changes it.
# The list itself is a stamp too ($(BUILD)/gen/.suites, rewritten when it
# changes): make test-arm ARM_SUITES="..." builds the table of those.
SUITES_STAMP := $(BUILD)/gen/.suites
$(shell mkdir -p $(BUILD)/gen && { [ "$$(cat $(SUITES_STAMP) 2>/dev/null)" = "$(TEST_SRC)" ] || \
  printf '%s\n' "$(TEST_SRC)" > $(SUITES_STAMP); })
$(BUILD)/gen/suites.c: tests $(TEST_SRC) tests/suites.sh $(SUITES_STAMP)
	@mkdir -p $(dir $@)
	@echo "  GEN $@"
	@sh tests/suites.sh $(TEST_SRC) > $@.tmp && mv $@.tmp $@
$(SUITES_OBJ): $(BUILD)/gen/suites.c | deps
	@echo "  CC  $<"
	@$(CC) $(CFLAGS) $(INC_tests) -MMD -MP -c $< -o $@

-include $(ENGINE_OBJ:.o=.d) $(IO_OBJ:.o=.d) $(PROG_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/tests/bench/bench.d \
         $(SUITES_OBJ:.o=.d)

# SIMD paths (kernels.h): each is nodes/simd/path_<path>.c (its loops and
# table) and one unit per kernel family, nodes/simd/<family>_kernels.c, compiled with
# PATH_FLAGS_<path>, the one place its target is defined (kernels.c checks
# the CPU for the same features). The same list is NG_PATHS in kernels.h.
# The scalar path must not vectorise. -mfma: fma_f (nodes/bits.h) is the
# instruction there and libm's fmaf elsewhere, the same bits. -fno-trapping-math
# lets GCC vectorise floorf (vroundps); it changes no result (floating-point
# exceptions are never read), so the paths stay bit-identical.
IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -c clang)
ifeq ($(IS_CLANG),0)
PATH_FLAGS_scalar := -fno-tree-vectorize
else
PATH_FLAGS_scalar := -fno-vectorize -fno-slp-vectorize
endif
PATH_FLAGS_sse2   :=
PATH_FLAGS_avx2   := -mavx2 -mfma -mbmi -mbmi2 -mpopcnt -fno-trapping-math
PATH_FLAGS_avx512 := $(PATH_FLAGS_avx2) -mavx512f -mavx512bw -mavx512dq -mavx512vl -mprefer-vector-width=512
# aarch64's baseline Advanced SIMD (128-bit); FMA is always the instruction there
PATH_FLAGS_neon   := -fno-trapping-math
# Debug information for the kernels' deep inlining (variable locations,
# types) is a third of their compile time; the code is the same with line
# tables alone (-g1), which profiles and backtraces need. A demo build has none.
KERNEL_DEBUG := $(if $(filter 1,$(DEMO)),,-g1)

define PATH_RULES
$(BUILD)/nodes/simd/path_$(1).o: CFLAGS += $(PATH_FLAGS_$(1)) $(KERNEL_DEBUG)
$(BUILD)/nodes/simd/$(1)/%.o: nodes/simd/%_kernels.c $(FLAGS_STAMP) | deps
	@mkdir -p $$(dir $$@)
	@echo "  CC  $$< ($(1))"
	@$$(CC) $$(CFLAGS) $(INC_simd) $(PATH_FLAGS_$(1)) $(KERNEL_DEBUG) -DNG_PATH=$(1) -MMD -MP -c $$< -o $$@
endef
$(foreach p,$(PATHS),$(eval $(call PATH_RULES,$(p))))
$(BUILD)/nodes/simd/kernels.o: CFLAGS += -D'NG_PATHS(X)=$(foreach p,$(PATHS),X($(p)))'


# The same layering at link level: no object may need a symbol that only a
# layer above it defines (a declaration copied by hand would pass the
# include paths). tests/layers.py says which.
$(BUILD)/layers.ok: $(ENGINE_OBJ) $(IO_OBJ) $(PROG_OBJ) tests/layers.py
	@python3 tests/layers.py link $(BUILD)
	@touch $@

$(LIB): $(ENGINE_OBJ) $(BUILD)/layers.ok
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $(ENGINE_OBJ)  # afresh: no member of a deleted source lingers

$(IO_LIB): $(IO_OBJ) $(BUILD)/layers.ok
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $(IO_OBJ)

# The heaviest units first (the kernels, OpenVDB's C++ unit), so that with
# one job per core none of them is left running alone at the end.
HEAVY_OBJ = $(filter %/lattice.o,$(KERNEL_OBJ)) $(IO_CXX_SRC:%.cc=$(BUILD)/%.o) $(filter-out %/lattice.o,$(KERNEL_OBJ))
$(BIN): $(HEAVY_OBJ) $(PROG_OBJ) $(LIBS)
	@echo "  LD  $@"
	@$(CC) $(LDSAN) -o $@ $(PROG_OBJ) $(LIBS) $(LDLIBS)

$(TESTBIN): $(TEST_OBJ) $(SUITES_OBJ) $(LIBS)
	@echo "  LD  $@"
	@$(CC) $(LDSAN) -o $@ $^ $(LDLIBS)

# Who includes whom, folder by folder, from the sources; fails on an arrow
# that points up the layers or on a circle of includes.
.PHONY: layers
layers: $(BUILD)/layers.ok
	@python3 tests/layers.py include

# An embedder's program with its own stb_image must link with the library
# (whose stb_image is static), and run.
EMBED_BIN := $(BUILD)/own_stb
$(EMBED_BIN): tests/embed/own_stb.c $(LIBS)
	@echo "  LD  $@"
	@$(CC) $(CFLAGS) $(INC_tests) -I/usr/include/stb $(LDSAN) -o $@ $< $(LIBS) $(IO_LIBS) $(ENGINE_LIBS)
# A program of the engine archive alone, linked with -lm -lpthread and
# nothing else, renders into memory: the engine reads and writes no files.
ENGINE_ONLY_BIN := $(BUILD)/engine_only
$(ENGINE_ONLY_BIN): tests/embed/engine_only.c $(LIB)
	@echo "  LD  $@"
	@$(CC) $(CFLAGS) -Icore -Inodes $(LDSAN) -o $@ $< $(LIB) $(ENGINE_LIBS)

# ---- aarch64: make test-arm ------------------------------------------------
# The program and the tests cross-compiled for aarch64 (ARM=1: Debian's
# gcc-aarch64-linux-gnu and :arm64 libraries, into build/arm64; without
# OpenVDB, OpenEXR and Graphviz, see NO_VDB) and run on this machine under
# qemu-user, which executes aarch64 code with IEEE arithmetic and links
# Debian's arm64 glibc (libm included). The suites: every example graph's
# golden hash (graphs, through the aarch64 program), the kernel suites, and
# platform: the hashes recorded on x86-64 of every basis, fractal, warp and
# the libm functions used, on the scalar and neon paths (ARM_SUITES, above).
# libm's functions that round (all but the exact ones: sqrt, floor, fmod,
# fma, ldexp, ...): their bits differ between CPUs and libms (glibc's FMA
# variants; tests/test_ngmath.c), so the engine and the Lua host call
# core/ngmath.c's instead; `make test` and `make test-arm` fail, naming it,
# when an object of theirs comes to call one of these.
LIBM_INEXACT := sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh sincos \
                exp exp2 exp10 expm1 log log2 log10 log1p pow cbrt hypot erf erfc tgamma lgamma
# $(1): the objects or archives to look into
check_libm = if nm -u $(1) | grep -wE 'U ($(subst $(space),|,$(LIBM_INEXACT)))f?'; then \
	  echo "noisegraph: $(1): calls a libm function whose bits vary by CPU (above); use core/ngmath.h" >&2; exit 1; fi
ARM_BIN := build/arm64/noisegraph
# run with --tier fast: graphs checks the golden hashes on the default
# (neon) path alone, not again on the scalar path (6 min of qemu); platform
# checks both paths' bits for every basis, fractal and warp against x86's.
.PHONY: test-arm
test-arm:
	@$(MAKE) --no-print-directory ARM=1 deps
	@$(MAKE) --no-print-directory ARM=1 $(ARM_BIN) build/arm64/run_tests
	@$(call check_libm,build/arm64/libnoisegraph.a build/arm64/lua/*.o)
	@printf '#!/bin/sh\nexec qemu-aarch64 %s "$$@"\n' $(abspath $(ARM_BIN)) > build/arm64/noisegraph-qemu
	@chmod +x build/arm64/noisegraph-qemu
	NG_QEMU=1 NG_BIN=$(abspath build/arm64/noisegraph-qemu) NG_ROOT=$(CURDIR) qemu-aarch64 build/arm64/run_tests --jobs $(TEST_JOBS) --tier fast $(ARM_SUITES)

# Two tiers (NG_SUITE in tests/harness.h): check runs the fast suites, no
# root, servers, Slurm, Chromium, GDAL or network, about a minute of CPU;
# test, what CI runs, every suite of every tier, the embedding programs,
# the layers and the browser test.
check: deps $(BIN) $(TESTBIN)
	NG_BIN=$(abspath $(BIN)) NG_ROOT=$(CURDIR) $(TESTBIN) --jobs $(TEST_JOBS) --tier fast

# The bench is built (not run) by make test: it compiles with the code it
# measures (a merge once left it uncompilable, unseen). Its names are set
# here, before the rule reads them (a prerequisite list is expanded as
# the line is read: set below it, the bench was never built or relinked).
BENCH_BIN := $(BUILD)/bench
PEER_BIN := $(BUILD)/libnoise_peer
test: deps test-deps $(BIN) $(TESTBIN) $(EMBED_BIN) $(ENGINE_ONLY_BIN) $(BENCH_BIN)
	@python3 tests/layers.py include
	@$(call check_libm,$(LIB) $(LUA_OBJ))
	$(ENGINE_ONLY_BIN)
	$(EMBED_BIN)
	NG_BIN=$(abspath $(BIN)) NG_ROOT=$(CURDIR) $(TESTBIN) --jobs $(TEST_JOBS)
	@$(MAKE) --no-print-directory test-python
	@$(if $(filter 1,$(SAN)),echo "test-blender: not under SAN (Blender's own binary is not instrumented)",$(MAKE) --no-print-directory test-blender)
	@$(MAKE) --no-print-directory test-browser

# ---- the Python module: make python ----------------------------------------
# `import noisegraph` (python/ngpy.c) for Debian's /usr/bin/python3 (3.11,
# the Python of Debian's Blender 3.4), built against python3-dev into
# $(BUILD)/python, linked from the same objects as the program (all -fPIC)
# and exporting PyInit_noisegraph alone. NumPy (python3-numpy) is used at run
# time, through the buffer protocol: no NumPy headers.
PYTHON     := /usr/bin/python3
PY_PKGS    := python3-dev python3-numpy
PY_FILES   := /usr/bin/python3-config /usr/lib/python3/dist-packages/numpy/__init__.py
PY_EXT     := $(shell /usr/bin/python3-config --extension-suffix 2>/dev/null || echo .so)
PY_MOD     := $(BUILD)/python/noisegraph$(PY_EXT)
.PHONY: python python-deps test-python test-blender
python-deps:
	@missing=""; set -- $(PY_FILES); for p in $(PY_PKGS); do \
	  [ -e "$$1" ] || missing="$$missing $$p"; shift; done; \
	$(call install_missing, for the Python module,python-deps)

$(BUILD)/python/%.o: CFLAGS += $(INC_lua) $(shell /usr/bin/python3-config --includes 2>/dev/null)
$(BUILD)/python/ngpy.o: | python-deps
$(PY_MOD): $(BUILD)/python/ngpy.o $(BUILD)/lua/host.o $(BUILD)/lua/ngmodule.o $(LIBS) python/exports.map
	@echo "  LD  $@"
	@$(CXX_OF_CC) -shared $(LDSAN) -Wl,--version-script=python/exports.map -Wl,--as-needed -o $@ \
	  $(filter %.o %.a,$^) -llua5.4 $(IO_LIBS) $(ENGINE_LIBS)

python: deps $(PY_MOD)
	@echo "python: PYTHONPATH=$(abspath $(BUILD)/python) $(PYTHON) -c 'import noisegraph'"

# tests/python/test_module.py under Debian's python3 and numpy. Under SAN=1
# the interpreter is not instrumented: libasan is preloaded (it must come
# first) and leak checking is off (the interpreter keeps its own objects to
# the end); ASan and UBSan still stop at the first error in our code.
PY_SAN_ENV := $(if $(filter 1,$(SAN)),LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0 NG_SAN=1)
test-python: deps python-deps $(BIN) $(PY_MOD)
	$(PY_SAN_ENV) PYTHONPATH=$(abspath $(BUILD)/python) NG_BIN=$(abspath $(BIN)) NG_ROOT=$(CURDIR) \
	  $(PYTHON) tests/python/test_module.py

# The README's Blender example, and Blender's import of our EXR files (a
# Y channel, the layers of a multi-layer file: tests/python/blender_exr.py),
# run by Debian's blender (3.4, Python 3.11) headless. Installed when
# missing and root, as the browser's packages.
BLENDER_PKGS  := blender
BLENDER_FILES := /usr/bin/blender
test-blender: deps python-deps $(BIN) $(PY_MOD)
	@missing=""; set -- $(BLENDER_FILES); for p in $(BLENDER_PKGS); do \
	  [ -e "$$1" ] || missing="$$missing $$p"; shift; done; \
	$(call install_missing, for the Blender test,test-blender)
	PYTHONPATH=$(abspath $(BUILD)/python) NG_ROOT=$(CURDIR) \
	  blender -b --factory-startup --python-exit-code 1 --python tests/python/blender_example.py
	PYTHONPATH=$(abspath $(BUILD)/python) NG_BIN=$(abspath $(BIN)) \
	  blender -b --factory-startup --python-exit-code 1 --python tests/python/blender_exr.py

# The page of `noisegraph serve` in a real browser: tests/browser/test_page.py
# drives headless Chromium through Selenium (Debian's, run by Debian's
# python3, not another on the PATH). The packages are installed when missing
# and root; otherwise the test names them and fails: it never skips (CI is
# root, so it runs there). It leaves a 1280x800 screenshot of the page at
# SERVE_SHOT; docs/serve.png is one: make test-browser SERVE_SHOT=docs/serve.png
BROWSER_PKGS  := chromium chromium-driver python3-selenium
BROWSER_FILES := /usr/bin/chromium /usr/bin/chromedriver /usr/lib/python3/dist-packages/selenium/__init__.py
SERVE_SHOT    ?= $(BUILD)/serve.png
.PHONY: browser-deps test-browser
browser-deps:
	@missing=""; set -- $(BROWSER_FILES); for p in $(BROWSER_PKGS); do \
	  [ -e "$$1" ] || missing="$$missing $$p"; shift; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >&2 || exit 1; \
	fi

test-browser: deps browser-deps $(BIN)
	@if [ ! -x /usr/bin/python3 ]; then \
	  echo "noisegraph: the browser test needs Debian's python3 and$(BROWSER_PKGS:%= %) (make test as root installs them)" >&2; exit 1; fi
	/usr/bin/python3 tests/browser/test_page.py $(abspath $(BIN)) $(CURDIR) $(SERVE_SHOT)

# Every picture in docs/: the lines of docs/pictures (docs/render.sh), and
# the page's screenshot from the browser test. The docs suite fails when a
# committed picture is not what this target makes.
docs: deps $(BIN)
	sh docs/render.sh $(abspath $(BIN)) docs
	@$(MAKE) --no-print-directory test-browser SERVE_SHOT=$(CURDIR)/docs/serve.png

demo: deps
	@$(MAKE) --no-print-directory DEMO=1 build/demo/noisegraph
	build/demo/noisegraph render graphs/terrain.lua -o terrain.png --size 1024

# bench: never under SAN. libnoise-dev (the side-by-side peer) and time
# (/usr/bin/time -v for peak memory) are installed when missing and root;
# without them the bench runs and says which figures it could not take.
BENCH_PKGS := libnoise-dev time
BENCH_FILES := /usr/include/libnoise/noise.h /usr/bin/time

$(BENCH_BIN): $(BUILD)/tests/bench/bench.o $(filter-out $(BUILD)/cli/main.o,$(PROG_OBJ)) $(LIBS)
	@echo "  LD  $@"
	@$(CC) $(LDSAN) -o $@ $^ $(LDLIBS)

$(PEER_BIN): tests/bench/libnoise_peer.cpp tests/bench/peer.h
	@echo "  CXX $<"
	@$(CXX) -O2 -Wall -Wextra -Werror -o $@ $< -lnoise

# PEERS=DIR: FastNoise2 from the user's folder DIR/FastNoise2 (never part
# of this repository), built by its own CMake files with
# tests/bench/fastnoise2/CMakeLists.txt, once per C++ compiler: clang 14
# (the compiler FastSIMD is tuned for) into build/opt/fastnoise2 and g++
# (CMake's default c++ on Debian) into build/opt/fastnoise2-gcc, in this
# checkout's build tree (two checkouts share one DIR). The bench times both
# in the same run (fastnoise2_peer, fastnoise2_gcc_peer): the two builds
# differ by up to 1.4x. Its pinned FastSIMD comes from DIR/FastSIMD when
# that folder exists (CPM_FastSIMD_SOURCE), else CPM downloads it. Without
# PEERS the measured FastNoise2 columns are off.
PEERS ?=
# BENCH_ARGS: rows or sections for the bench (default: everything)
BENCH_ARGS ?=
PEER_DIR := $(if $(PEERS),$(abspath $(PEERS)))
# build dir : peer file : compiler, one per FastNoise2 build
FN2_BUILDS := fastnoise2:fastnoise2_peer:$(wildcard /usr/bin/clang++-14) \
  fastnoise2-gcc:fastnoise2_gcc_peer:$(wildcard /usr/bin/g++)
FN2_BINS := $(BUILD)/fastnoise2_peer $(BUILD)/fastnoise2_gcc_peer
FN2_CMAKE := -DCMAKE_BUILD_TYPE=Release -DFASTNOISE2_SOURCE=$(PEER_DIR)/FastNoise2 \
  $(if $(wildcard $(PEER_DIR)/FastSIMD/CMakeLists.txt),-DCPM_FastSIMD_SOURCE=$(PEER_DIR)/FastSIMD)
.PHONY: fastnoise2-peer
fastnoise2-peer:
	@if [ -z "$(PEER_DIR)" ] || [ ! -d "$(PEER_DIR)/FastNoise2" ]; then \
	  echo "noisegraph: PEERS='$(PEERS)': no FastNoise2 source folder in it (PEERS=DIR, DIR/FastNoise2)" >&2; exit 2; fi
	@command -v cmake >/dev/null || { echo "noisegraph: PEERS needs cmake (apt-get install cmake)" >&2; exit 2; }
	@for b in $(FN2_BUILDS); do \
	  dir=$${b%%:*}; rest=$${b#*:}; exe=$${rest%%:*}; cxx=$${rest#*:}; \
	  rm -f $(BUILD)/$$exe; \
	  if [ -z "$$cxx" ]; then echo "bench: no compiler for $$exe (clang++-14 or g++): no column"; continue; fi; \
	  echo "  CMAKE $(BUILD)/$$dir ($$cxx)"; \
	  cmake -S tests/bench/fastnoise2 -B $(BUILD)/$$dir $(FN2_CMAKE) -DCMAKE_CXX_COMPILER=$$cxx >/dev/null && \
	  cmake --build $(BUILD)/$$dir --target fastnoise2_peer && \
	  cp $(BUILD)/$$dir/fastnoise2_peer $(BUILD)/$$exe || exit 1; \
	done

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
	@if [ -n "$(PEERS)" ]; then $(MAKE) --no-print-directory fastnoise2-peer || exit 1; else rm -f $(FN2_BINS); fi
	@[ -e /usr/bin/python3-config ] && $(MAKE) --no-print-directory $(PY_MOD) || \
	  echo "bench: the Python module did not build (python3-dev): no python section" >&2
	$(BENCH_BIN) $(BENCH_ARGS)
else
bench:
	@echo "bench: SAN=$(SAN) builds are not benchmarked; run 'make bench'" >&2; exit 2
endif

# ---- fuzzing: libFuzzer targets in tests/fuzz/ (clang 14) -------------------
# The library is compiled again by clang into build/fuzz with coverage
# instrumentation and the sanitizers, which abort on the first report so
# libFuzzer sees every finding as a crash. Each target runs FUZZ_TIME seconds
# on its corpus (the seeds in tests/fuzz/corpus/T, copied to build/fuzz/corpus/T
# where the fuzzer adds what it finds); any crash, leak, timeout (FUZZ_TIMEOUT
# seconds for one input) or memory blow-up fails the rule, leaving the input
# in build/fuzz/artifacts/T/.
FUZZ_TIME    ?= 300
FUZZ_TIMEOUT ?= 25
# FUZZ_SEED=N fixes libFuzzer's random seed: with the seed corpus alone (a
# clean tree, as in CI) a run is then the first part of a known sequence, so
# a short run in CI repeats what a longer run here already passed, rather than
# meeting a new finding by chance. Unset: a new seed each run (long hunts).
FUZZ_SEED    ?=
FUZZ_CC      := clang-14
FUZZ_PKGS    := clang-14 libclang-rt-14-dev
FUZZ_FILES   := /usr/bin/clang-14 /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a
FUZZ_BUILD   := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow \
                -fno-sanitize-recover=undefined,float-cast-overflow
FUZZ_CFLAGS  := $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_CXX     := clang++-14
FUZZ_CXXFLAGS := $(CXXFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_TARGETS := script image args deflate manifest serve
# what each target links besides the library, and the longest input worth
# trying (args: past the 4096-byte value limit)
FUZZ_OBJ_script := lua/host.o lua/ngmodule.o
FUZZ_OBJ_image  :=
FUZZ_OBJ_args   := cli/args.o lua/host.o lua/ngmodule.o
FUZZ_OBJ_deflate :=
FUZZ_OBJ_manifest := cli/stitch.o cli/tiles.o cli/args.o cli/signals.o lua/host.o lua/ngmodule.o
FUZZ_OBJ_serve  := serve/serve_args.o serve/serve_wire.o serve/serve_buf.o lua/host.o lua/ngmodule.o
# seeds kept elsewhere in the tree: the example graphs are script seeds
FUZZ_SEEDS_script := $(wildcard graphs/*.lua graphs/lib/*.lua)
FUZZ_LEN_script := 8192
FUZZ_LEN_image  := 65536
FUZZ_LEN_args   := 8192
FUZZ_LEN_deflate := 4096
FUZZ_LEN_manifest := 16384
FUZZ_LEN_serve  := 8192
FUZZ_LIB     := $(FUZZ_BUILD)/libnoisegraph.a
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz-deps:
	@missing=""; \
	ls $(FUZZ_FILES) >/dev/null 2>&1 || missing=" $(FUZZ_PKGS)"; \
	$(call install_missing, for fuzzing,fuzz)

$(FUZZ_BUILD)/io/image_read.o: FUZZ_CFLAGS += $(STB_UNIT_SAN)
$(FUZZ_BUILD)/core/%.o: FUZZ_CFLAGS += $(INC_core)
$(FUZZ_BUILD)/nodes/simd/%.o: FUZZ_CFLAGS += $(INC_simd)
$(FUZZ_BUILD)/io/%.o: FUZZ_CFLAGS += $(INC_io)
$(FUZZ_BUILD)/io/geotiff.o: FUZZ_CFLAGS += $(if $(GDAL_SONAME),-DNG_GDAL_SONAME='"$(GDAL_SONAME)"')
$(FUZZ_BUILD)/io/exr_dwa.o: FUZZ_CXXFLAGS += $(EXR_CXX_INC)
$(FUZZ_BUILD)/cli/%.o: FUZZ_CFLAGS += $(INC_cli)
$(FUZZ_BUILD)/nodes/%.o: FUZZ_CFLAGS += $(INC_nodes)
$(FUZZ_BUILD)/lua/%.o: FUZZ_CFLAGS += $(INC_lua)
$(FUZZ_BUILD)/serve/%.o: FUZZ_CFLAGS += $(INC_serve)
$(FUZZ_BUILD)/tests/%.o: FUZZ_CFLAGS += $(INC_tests)
$(FUZZ_BUILD)/%.o: %.c | deps fuzz-deps
	@mkdir -p $(dir $@)
	@echo "  CC  $< (fuzz)"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/%.o: %.cc | deps fuzz-deps
	@mkdir -p $(dir $@)
	@echo "  CXX $< (fuzz)"
	@$(FUZZ_CXX) $(FUZZ_CXXFLAGS) $(INC_io) -MMD -MP -c $< -o $@

# The kernels (nodes/simd/ and the sources they include) are forced-inline,
# fully unrolled bodies: UBSan's checks on them at -O1 take clang minutes per
# unit (a path unit: 91 s, 7 s without UBSan); at -O0 with every check
# 7 s. Vectorising is of no use to the fuzzer, so they are built -O0.
FUZZ_O0 := $(wildcard nodes/simd/*.c)
$(FUZZ_O0:%.c=$(FUZZ_BUILD)/%.o): FUZZ_CFLAGS += -O0
define FUZZ_PATH_RULES
$(FUZZ_BUILD)/nodes/simd/path_$(1).o: FUZZ_CFLAGS += $(PATH_FLAGS_$(1))
$(FUZZ_BUILD)/nodes/simd/$(1)/%.o: nodes/simd/%_kernels.c | deps fuzz-deps
	@mkdir -p $$(dir $$@)
	@echo "  CC  $$< ($(1), fuzz)"
	@$$(FUZZ_CC) $$(FUZZ_CFLAGS) $(INC_simd) -O0 $(PATH_FLAGS_$(1)) -DNG_PATH=$(1) -MMD -MP -c $$< -o $$@
endef
$(foreach p,$(PATHS),$(eval $(call FUZZ_PATH_RULES,$(p))))
FUZZ_KERNEL_OBJ = $(foreach p,$(PATHS),$(KERNEL_SRC:nodes/simd/%_kernels.c=$(FUZZ_BUILD)/nodes/simd/$(p)/%.o))
# the script target copies graphs/lib/sheet.lua beside its inputs for require
$(FUZZ_BUILD)/tests/fuzz/script.o: FUZZ_CFLAGS += -DNG_FUZZ_ROOT='"$(CURDIR)"'

$(FUZZ_LIB): $(ENGINE_SRC:%.c=$(FUZZ_BUILD)/%.o) $(IO_SRC:%.c=$(FUZZ_BUILD)/%.o) $(IO_CXX_SRC:%.cc=$(FUZZ_BUILD)/%.o) $(FUZZ_KERNEL_OBJ)
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $^

.SECONDEXPANSION:
$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/%.o $(FUZZ_BUILD)/tests/fuzz/fuzz_util.o \
                     $$(addprefix $(FUZZ_BUILD)/,$$(FUZZ_OBJ_$$*)) $(FUZZ_LIB)
	@echo "  LD  $@"
	@$(FUZZ_CXX) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

-include $(wildcard $(FUZZ_BUILD)/*/*.d $(FUZZ_BUILD)/*/*/*.d $(FUZZ_BUILD)/*/*/*/*.d)

# objects of the targets are kept (not intermediate), so relinking is cheap
.SECONDARY: $(foreach t,$(FUZZ_TARGETS),$(FUZZ_BUILD)/tests/fuzz/$(t).o $(FUZZ_OBJ_$(t):%=$(FUZZ_BUILD)/%)) \
            $(FUZZ_BUILD)/tests/fuzz/fuzz_util.o

fuzz-build: deps fuzz-deps $(FUZZ_BINS)

# One target after the other (a fuzzer keeps one core busy), each run to
# its end even when an earlier one failed, so one finding does not hide
# another; the rule fails at the end if any did. Per target it prints
# libFuzzer's count of executions (stat::number_of_executed_units, the N of
# its final "Done N runs" line when the time ran out).
define fuzz_run
	@mkdir -p $(FUZZ_BUILD)/corpus/$(1) $(FUZZ_BUILD)/artifacts/$(1)
	@cp -n tests/fuzz/corpus/$(1)/* $(FUZZ_SEEDS_$(1)) $(FUZZ_BUILD)/corpus/$(1)/
	@echo "== fuzz $(1) for $(FUZZ_TIME) s"
	@if UBSAN_OPTIONS=print_stacktrace=1 $(FUZZ_BUILD)/fuzz_$(1) -max_total_time=$(FUZZ_TIME) \
	     -timeout=$(FUZZ_TIMEOUT) -max_len=$(FUZZ_LEN_$(1)) $(if $(FUZZ_SEED),-seed=$(FUZZ_SEED)) \
	     $(if $(wildcard tests/fuzz/$(1).dict),-dict=tests/fuzz/$(1).dict) \
	     -close_fd_mask=3 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$(1)/ \
	     $(FUZZ_BUILD)/corpus/$(1) >$(FUZZ_BUILD)/$(1).log 2>&1; then \
	  echo "fuzz $(1): $$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) .*/\1 runs in \2 s/p' $(FUZZ_BUILD)/$(1).log), no finding"; \
	else \
	  grep -m1 -A24 '^==[0-9]*==ERROR\|runtime error\|^==[0-9]*== ERROR\|fuzz: the host' $(FUZZ_BUILD)/$(1).log >&2; \
	  echo "fuzz $(1): FAILED after $$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_BUILD)/$(1).log) runs" \
	       "(log $(FUZZ_BUILD)/$(1).log; input: $$(sed -n 's/.*Test unit written to //p' $(FUZZ_BUILD)/$(1).log))" >&2; \
	  echo $(1) >>$(FUZZ_BUILD)/failed; \
	fi
endef

define newline


endef

fuzz: fuzz-build
	@rm -f $(FUZZ_BUILD)/failed
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_run,$(t))$(newline))
	@if [ -s $(FUZZ_BUILD)/failed ]; then $(MAKE) -s fuzz-recap; exit 1; fi

# What a finding was, last in the log where a CI summary that keeps only
# the end still shows it: per failed target the error's first lines and
# the input itself (printable, its first 1500 bytes), so a finding on a
# machine that is gone can be replayed.
fuzz-recap:
	@for t in $$(cat $(FUZZ_BUILD)/failed); do \
	  f=$$(sed -n 's/.*Test unit written to //p' $(FUZZ_BUILD)/$$t.log | head -n 1); \
	  echo "== fuzz $$t: the finding"; \
	  grep -m1 -A12 '^==[0-9]*==ERROR\|runtime error\|^==[0-9]*== ERROR\|fuzz: the host' $(FUZZ_BUILD)/$$t.log | cut -c1-160; \
	  if [ -n "$$f" ] && [ -f "$$f" ]; then \
	    echo "-- its input ($$(wc -c <"$$f") bytes; cat -v):"; head -c 1500 "$$f" | cat -v; echo; \
	  fi; \
	done >&2
	@echo "fuzz: findings in:" $$(cat $(FUZZ_BUILD)/failed) >&2

clean:
	rm -rf build
