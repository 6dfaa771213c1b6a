# synctrace — build, install, test, demo, bench.
#
#   make            lib/<fam>/libsynctrace.so for every MPI family installed (mpich, openmpi) and
#                   lib/libsynctrace.so -> the default family's; bin/synctrace, bin/synctrace-run,
#                   bin/synctrace-bench (-> bin/synctrace-bench-<fam>, one per family). `make
#                   MPI_FAMILIES=mpich` builds one family only.
#   make deps       installs the missing Debian packages that building and running need
#   make check      those and what the tests add (ViTE, Xvfb, Chromium, ...), builds, runs every test
#   make unit       runs the unit tests only (tests/unit/test_*.c; a few minutes)
#   make demo       installs what building and running need, builds, traces the bundled hybrid example
#                   (MPI=openmpi: under Open MPI)
#   make bench      those and what the benchmarks add (EZTrace, Chromium); recording cost, traced vs
#                   untraced latency, sync and CLC reports
#   make install PREFIX=/opt/synctrace

PREFIX   ?= /usr/local
# O=DIR puts every build product under DIR (DIR/build, DIR/lib, DIR/bin); default: the source tree.
O        ?= .
BUILD    := $(O)/build
GEN      := $(BUILD)/gen
# The one version: archives' VERSION property (-DST_VERSION), synctrace-bench, synctrace-run, install.
VERSION  := 0.1.0

CC       := gcc
PYTHON   := python3

# ---- MPI families ---------------------------------------------------------------------
# Every family is named by its own compiler and launcher, never by Debian's alternatives (the plain
# mpicc/mpiexec). MPI_FAMILIES: the installed ones (whose compiler runs), unless given.
KNOWN_FAMILIES := mpich openmpi
MPICC_mpich    := mpicc.mpich
MPICC_openmpi  := mpicc.openmpi
MPIRUN_mpich   := mpiexec.mpich
MPIRUN_openmpi := mpirun.openmpi
ifndef MPI_FAMILIES
MPI_FAMILIES := $(foreach f,$(KNOWN_FAMILIES),$(if $(shell command -v $(MPICC_$(f)) 2>/dev/null),$(f)))
endif
$(foreach f,$(filter-out $(KNOWN_FAMILIES),$(MPI_FAMILIES)),$(error MPI_FAMILIES: unknown family '$(f)' (known: $(KNOWN_FAMILIES))))
# per family: the include dir of its mpi.h, and its link flags (for the CLI's MPI part)
$(foreach f,$(MPI_FAMILIES),$(eval MPI_INC_$(f) := $$(shell $$(MPICC_$(f)) -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-I//p' | head -n1)))
$(foreach f,$(MPI_FAMILIES),$(eval MPI_LINK_$(f) := $$(shell $$(MPICC_$(f)) -show 2>/dev/null | tr ' ' '\n' | grep -E '^-(L|l)')))
# the family of lib/libsynctrace.so, the CLI's MPI part and synctrace-bench: mpich when installed
MPI_DEFAULT := $(firstword $(filter mpich,$(MPI_FAMILIES)) $(MPI_FAMILIES))
NO_MPI_GOALS := deps deps-check deps-bench check demo bench clean
ifeq ($(MPI_DEFAULT),)
ifneq ($(filter-out $(NO_MPI_GOALS),$(or $(MAKECMDGOALS),all)),)
$(error no MPI family found: neither $(MPICC_mpich) nor $(MPICC_openmpi) runs (make deps installs both; or set MPI_FAMILIES))
endif
endif
CLANG_RES:= $(shell clang -print-resource-dir 2>/dev/null)
LLVM_OMP := $(shell readlink -f "$$(clang -print-file-name=libomp.so.5)" 2>/dev/null)

WARN     := -Wall -Wextra -Werror
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      ?= -O2 -g
CFLAGS_COMMON := $(CSTD) $(WARN) $(OPT) -I$(GEN) -Iinclude
LIB_CFLAGS := $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -pthread
CLI_CFLAGS := $(CFLAGS_COMMON) -pthread

LIB_DIRS := util config model clock record exchange relations otf2 clc analysis omp mpi
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c))
# generated per family: $(GEN)/<fam>/NAME.c, compiled to $(BUILD)/lib-<fam>/gen/NAME.o; LIB_GEN for
# every family, LIB_GEN_<fam> for one family only
LIB_GEN  := mpi_wrappers
# Fortran bindings that call PMPI_* (all of Open MPI's, MPICH's mpi_f08 ones without a choice
# buffer): those libraries also have Fortran entry points (gen_fortran.py)
LIB_GEN_openmpi := mpi_fortran
LIB_GEN_mpich := mpi_fortran
# The CLI shares the MPI-free modules; files named *_mpi.c and the mpi/ and omp/ dirs stay in the library.
CLI_DIRS := util config model clock exchange relations otf2 clc analysis cli
CLI_SRC  := $(filter-out %_mpi.c,$(foreach d,$(CLI_DIRS),$(wildcard src/$(d)/*.c)))
CLI_OBJ  := $(patsubst %.c,$(BUILD)/cli/%.o,$(CLI_SRC))
# ... except the MPI part of `mpiexec -n N synctrace analyze`: a plugin per MPI family (below).
CLI_MPI_SRC := src/exchange/polite_mpi.c src/exchange/exchange_mpi.c src/analysis/parallel_mpi.c src/cli/analyze_mpi.c
GEN_HDR  := $(GEN)/mpi_regions.def $(GEN)/mpi_calls.def $(GEN)/mpi_unfilterable.def $(GEN)/omp-tools.h
LIBS_FAM := $(foreach f,$(MPI_FAMILIES),$(O)/lib/$(f)/libsynctrace.so)

LIB_LIBS := -lotf2 -lhwloc -lunwind -lm -lpthread -ldl
CLI_LIBS := -lotf2 -lm -lpthread -ldl

.PHONY: all deps deps-check deps-bench check demo bench install clean unit
all: $(LIBS_FAM) $(O)/lib/libsynctrace.so $(O)/bin/synctrace $(O)/bin/synctrace-run $(O)/bin/synctrace-bench \
     $(O)/lib/gomp/libgomp.so.1

# Idempotent: install only what is missing (about 0.1 s when nothing is). The tests and the
# benchmarks add their own packages to the build's (scripts/install-deps.sh --for).
deps:
	@bash scripts/install-deps.sh --for build

deps-check:
	@bash scripts/install-deps.sh --for check

deps-bench:
	@bash scripts/install-deps.sh --for bench

# ---- generated wrappers -----------------------------------------------------------
# One run writes the shared region and call tables (the union over the families) and each family's
# wrappers and ST_HAVE_ list (grouped targets: -j runs it once). $(GEN)/families names the families
# and their mpi.h: rewritten only when that changes, so a different MPI_FAMILIES regenerates.
GEN_OUT := $(GEN)/mpi_regions.def $(GEN)/mpi_calls.def $(GEN)/mpi_unfilterable.def \
           $(foreach f,$(MPI_FAMILIES),$(GEN)/$(f)/mpi_wrappers.c $(GEN)/$(f)/mpi_have.h) \
           $(foreach f,$(MPI_FAMILIES),$(LIB_GEN_$(f):%=$(GEN)/$(f)/%.c))
GEN_MPI_H := $(foreach f,$(MPI_FAMILIES),$(f)=$(MPI_INC_$(f))/mpi.h)
$(GEN_OUT) &: wrappers/mpi_functions.tbl scripts/gen_wrappers.py scripts/gen_fortran.py $(GEN)/families
	$(PYTHON) scripts/gen_wrappers.py --table wrappers/mpi_functions.tbl $(addprefix --mpi-h ,$(GEN_MPI_H)) --out $(GEN)

$(GEN)/families: FORCE
	@mkdir -p $(GEN)
	@echo '$(GEN_MPI_H)' | cmp -s - $@ || echo '$(GEN_MPI_H)' > $@

.PHONY: FORCE
FORCE:

$(GEN)/omp-tools.h:
	@mkdir -p $(GEN)
	@test -f "$(CLANG_RES)/include/omp-tools.h" || { echo "omp-tools.h not found under clang's resource dir '$(CLANG_RES)'; run scripts/install-deps.sh" >&2; exit 1; }
	cp "$(CLANG_RES)/include/omp-tools.h" $@

# ---- library, one per MPI family --------------------------------------------------------
# Family F: the same sources compiled with F's compiler into $(BUILD)/lib-F/, with -DST_MPI_FAMILY
# and F's mpi_have.h on the include path; linked to F's MPI library.
# Generated code names the source files it uses from the source root (mpi/st_mpi.h).
define FAMILY_LIB
LIB_OBJ_$(1) := $$(patsubst %.c,$$(BUILD)/lib-$(1)/%.o,$$(LIB_SRC)) $$(patsubst %,$$(BUILD)/lib-$(1)/gen/%.o,$$(LIB_GEN) $$(LIB_GEN_$(1)))
FAM_CFLAGS_$(1) := $$(LIB_CFLAGS) -I$$(GEN)/$(1) -DST_MPI_FAMILY='"$(1)"'

$$(BUILD)/lib-$(1)/gen/%.o: $$(GEN)/$(1)/%.c $$(GEN_HDR) $$(GEN)/$(1)/mpi_have.h
	@mkdir -p $$(dir $$@)
	$$(MPICC_$(1)) $$(FAM_CFLAGS_$(1)) -Isrc -MMD -MP -c $$< -o $$@

$$(BUILD)/lib-$(1)/%.o: %.c $$(GEN_HDR) $$(GEN)/$(1)/mpi_have.h
	@mkdir -p $$(dir $$@)
	$$(MPICC_$(1)) $$(FAM_CFLAGS_$(1)) -MMD -MP -c $$< -o $$@

# The file that writes VERSION into every archive has the Makefile's value (rebuilt when it changes).
$$(BUILD)/lib-$(1)/src/mpi/collect.o: FAM_CFLAGS_$(1) += -DST_VERSION='"$$(VERSION)"'
$$(BUILD)/lib-$(1)/src/mpi/collect.o: Makefile

$$(O)/lib/$(1)/libsynctrace.so: $$(LIB_OBJ_$(1))
	@mkdir -p $$(dir $$@)
	$$(MPICC_$(1)) -shared -o $$@ $$^ $$(LIB_LIBS) -Wl,-soname,libsynctrace.so
endef
$(foreach f,$(MPI_FAMILIES),$(eval $(call FAMILY_LIB,$(f))))

# lib/libsynctrace.so: the default family's library, so that existing paths keep working
$(O)/lib/libsynctrace.so: $(O)/lib/$(MPI_DEFAULT)/libsynctrace.so
	ln -sfn $(MPI_DEFAULT)/libsynctrace.so $@

# ---- command-line tools -------------------------------------------------------------
$(BUILD)/cli/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -MMD -MP -c $< -o $@

# bin/synctrace links no MPI library. It exports its st_* functions to the plugins, which take the
# analysis from it (why: src/cli/analyze_plugin.c).
$(O)/bin/synctrace: $(CLI_OBJ)
	@mkdir -p $(O)/bin
	$(CC) -o $@ $^ $(CLI_LIBS) -Wl,--export-dynamic-symbol='st_*'

# The MPI part of `mpiexec -n N synctrace analyze`, per MPI family F: $(O)/lib/F/$(CLI_MPI_PLUGIN), beside
# F's libsynctrace.so, loaded by bin/synctrace only under F's launcher (src/cli/analyze_plugin.c). Compiled
# and linked with $(CC) plus F's mpi.h, mpi_have.h and link flags, so that CC="gcc -fsanitize=..."
# instruments it too.
CLI_MPI_PLUGIN := synctrace-analyze-mpi.so
CLI_PLUGINS := $(foreach f,$(MPI_FAMILIES),$(O)/lib/$(f)/$(CLI_MPI_PLUGIN))
all: $(CLI_PLUGINS)

define CLI_MPI_FAMILY
$$(BUILD)/climpi-$(1)/%.o: %.c $$(GEN_HDR) $$(GEN)/$(1)/mpi_have.h
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CLI_CFLAGS) -fPIC -I$$(MPI_INC_$(1)) -I$$(GEN)/$(1) -MMD -MP -c $$< -o $$@

$$(O)/lib/$(1)/$$(CLI_MPI_PLUGIN): $$(patsubst %.c,$$(BUILD)/climpi-$(1)/%.o,$$(CLI_MPI_SRC))
	@mkdir -p $$(dir $$@)
	$$(CC) -shared -o $$@ $$^ $$(MPI_LINK_$(1))
endef
$(foreach f,$(MPI_FAMILIES),$(eval $(call CLI_MPI_FAMILY,$(f))))

# The plugins' file name, for bin/synctrace to find them (rebuilt when it changes).
$(BUILD)/cli/src/cli/analyze_plugin.o: CLI_CFLAGS += -DST_CLI_MPI_PLUGIN='"$(CLI_MPI_PLUGIN)"'
$(BUILD)/cli/src/cli/analyze_plugin.o: Makefile

# The HTML report's page (src/cli/html/: page, style, script) embedded as C strings (report_html.h).
HTML_SRC := src/cli/html/report.html src/cli/html/report.css src/cli/html/report.js
$(GEN)/report_page.c: $(HTML_SRC) scripts/embed_html.py
	@mkdir -p $(GEN)
	$(PYTHON) scripts/embed_html.py $(HTML_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/cli/gen/report_page.o: $(GEN)/report_page.c
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

$(O)/bin/synctrace: $(BUILD)/cli/gen/report_page.o

# synctrace-bench: an MPI program that preloads the library for its clock (src/bench/bench.h);
# it shares the configuration parser (SYNCTRACE_SYNC in effect, size and number syntax) with the CLI.
# One per MPI family: bin/synctrace-bench-<fam>, compiled with that family's compiler into
# $(BUILD)/bench-<fam>/, preloads lib/<fam>/libsynctrace.so (BENCH_LIB); bin/synctrace-bench is the
# default family's (a symlink, as lib/libsynctrace.so).
BENCH_SRC := $(wildcard src/bench/*.c)
BENCH_USE := $(addprefix $(BUILD)/cli/src/,config/config.o util/archive_dir.o util/fileio.o util/json.o util/log.o)
BENCHES_FAM := $(foreach f,$(MPI_FAMILIES),$(O)/bin/synctrace-bench-$(f))
all: $(BENCHES_FAM)

define FAMILY_BENCH
$$(BUILD)/bench-$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(MPICC_$(1)) $$(CFLAGS_COMMON) -DBENCH_VERSION='"$$(VERSION)"' -DBENCH_LIB='"$(1)/libsynctrace.so"' -MMD -MP -c $$< -o $$@

$$(O)/bin/synctrace-bench-$(1): $$(patsubst %.c,$$(BUILD)/bench-$(1)/%.o,$$(BENCH_SRC)) $$(BENCH_USE)
	@mkdir -p $$(dir $$@)
	$$(MPICC_$(1)) -o $$@ $$^ -lm
endef
$(foreach f,$(MPI_FAMILIES),$(eval $(call FAMILY_BENCH,$(f))))

$(O)/bin/synctrace-bench: $(O)/bin/synctrace-bench-$(MPI_DEFAULT)
	ln -sfn synctrace-bench-$(MPI_DEFAULT) $@

$(O)/bin/synctrace-run: scripts/synctrace-run.in Makefile
	@mkdir -p $(O)/bin
	sed -e 's|@LIBDIR@||' -e 's|@GOMPDIR@||' -e 's|@VERSION@|$(VERSION)|' $< > $@
	chmod +x $@

# gcc-built OpenMP programs run on LLVM's GOMP-compatible libomp through this directory (synctrace-run).
$(O)/lib/gomp/libgomp.so.1:
	@test -f "$(LLVM_OMP)" || { echo "LLVM libomp.so.5 not found; run scripts/install-deps.sh" >&2; exit 1; }
	@mkdir -p $(dir $@)
	ln -sfn $(LLVM_OMP) $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- install --------------------------------------------------------------------------
install: all
	O=$(O) bash scripts/install.sh "$(PREFIX)" "$(VERSION)"

# ---- tests, demo, bench ---------------------------------------------------------------
# the build on every core (make check is often run without -j, as CI does)
check: deps-check
	$(MAKE) -j$$(nproc) all
	O=$(O) bash tests/run-tests.sh

unit: $(GEN_HDR)
	O=$(O) bash tests/run-tests.sh unit/

# make demo MPI=openmpi: the demo under Open MPI (default: MPICH when installed; scripts/demo.sh)
demo: deps
	$(MAKE) all
	O=$(O) DEMO_MPI=$(MPI) bash scripts/demo.sh

bench: deps-bench
	$(MAKE) all
	O=$(O) bash tests/bench/run-bench.sh

clean:
	rm -rf $(BUILD) $(O)/lib $(O)/bin
