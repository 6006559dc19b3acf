# strata — build (GNU make)
#
# Layout and conventions
#   Include path     -Isrc for everything: sources write #include "core/model.h",
#                    "io/json.h", ...  Unit tests also get -Itests/unit.
#   Library          every src/**/*.c except src/main.c  -> $(BUILD)/libstrata.a
#   Binary           src/main.c + library                -> $(BUILD)/strata
#   Unit tests       tests/unit/test_NAME.c              -> $(BUILD)/tests/test_NAME
#                    (other tests/unit/*.c are helpers linked into every test)
#   CLI tests        tests/cli/*.sh, run by tests/run with STRATA=<abs path of
#                    the binary>, ROOT=<repo root>, STRATA_BUILD=<abs build dir>,
#                    cwd = repo root
#   Benchmark        bench/*.c + library                 -> $(BUILD)/bench
#   Objects          $(BUILD)/obj/<source path>.o  (+ .d dependency files)
#   BUILD            build, or build-san with SANITIZE=1
#   Compile-time     -DSTRATA_DATADIR="$(PREFIX)/share/strata" (installed data)
#
# Targets: all (default), deps, run, test, bench, static, check-sanitize, check-invariants, install,
#          uninstall, clean.   Knobs: V=1 (show commands), SANITIZE=1, LTO= (off),
#          CFLAGS, LDFLAGS, CPPFLAGS, PREFIX, DESTDIR, DEPS_PREFIX, STRATA_NO_DEPS=1, ARGS
#          (arguments for `make run`).

.DEFAULT_GOAL := all
SHELL := /bin/sh

CC         ?= cc
AR         ?= ar
PKG_CONFIG ?= pkg-config
INSTALL    ?= install

# ---- flags ----------------------------------------------------------------
# The language level and POSIX feature macro are always applied; CFLAGS holds
# the overridable part (optimisation, debug info, warnings).
CSTD   := -std=c11 -D_POSIX_C_SOURCE=200809L
CFLAGS ?= -O2 -g -Wall -Wextra -Werror -Wpedantic

ifeq ($(FUZZER),1)
# `make fuzz`: clang with libFuzzer coverage and the sanitizers on every object
BUILD    ?= build-fuzz
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -O1
else ifeq ($(SANITIZE),1)
BUILD    ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -O1
else
BUILD    ?= build
SANFLAGS :=
endif

# Link-time optimisation in the normal build with GCC: the cost model is split into small
# modules (src/core/cost) whose helpers run once per layer kind and stage, and LTO inlines
# them across files (make bench: about 10 % more evaluations per second). LTO= turns it off;
# the sanitizer and fuzz builds never use it. It needs gcc-ar to index the archive. Objects
# are fat (machine code too), so only the binary and the benchmark link with LTO and the
# test programs link as fast as without.
ifeq ($(FUZZER)$(SANITIZE)$(origin LTO),undefined)
LTO := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && command -v gcc-ar >/dev/null 2>&1 && echo -flto=auto)
endif
ifneq ($(strip $(LTO)),)
AR := gcc-ar
endif

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/strata
MANDIR  ?= $(PREFIX)/share/man

# Dependencies from prefixes the user names, for a login node without root (Spack, a
# hand-built tree; docs/install.md): DEPS_PREFIX="/p1 /p2 ..." puts each p/include (and
# p/include/lua5.4, p/include/ncursesw where they exist) on the include path, p/lib and
# p/lib64 on the library path with an rpath, and their pkgconfig directories first in
# PKG_CONFIG_PATH.
DEPS_PREFIX ?=
empty :=
space := $(empty) $(empty)
DEPS_DIRS     = $(foreach p,$(DEPS_PREFIX),$(wildcard $(p)/lib $(p)/lib64))
DEPS_CPPFLAGS = $(foreach p,$(DEPS_PREFIX),-I$(p)/include $(addprefix -I,$(wildcard $(p)/include/lua5.4 $(p)/include/ncursesw)))
DEPS_LDFLAGS  = $(foreach d,$(DEPS_DIRS),-L$(d) -Wl,-rpath,$(d))
DEPS_PCPATH  := $(subst $(space),:,$(strip $(foreach p,$(DEPS_PREFIX),$(p)/lib/pkgconfig $(p)/lib64/pkgconfig $(p)/share/pkgconfig)))
PKGC          = $(if $(DEPS_PCPATH),PKG_CONFIG_PATH='$(DEPS_PCPATH)'$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} )$(PKG_CONFIG)
# first existing file among the prefixes' library directories: $(call deps_has,liblua.so liblua.a)
deps_has      = $(firstword $(foreach d,$(DEPS_DIRS),$(wildcard $(addprefix $(d)/,$(1)))))

# External libraries. pkg-config when it knows the package, else the Debian names (or,
# with DEPS_PREFIX, the names the prefixes hold: Spack's Lua is liblua with lua.h in
# include/). GLPK ships no .pc file.
YAML_CFLAGS   := $(shell $(PKGC) --cflags yaml-0.1 2>/dev/null)
YAML_LIBS     := $(shell $(PKGC) --libs yaml-0.1 2>/dev/null || echo -lyaml)
LUA_PC        := $(shell for p in lua5.4 lua-5.4 lua54; do $(PKGC) --exists $$p 2>/dev/null && echo $$p && exit 0; done; \
                   $(PKGC) --exists 'lua >= 5.4' 'lua < 5.5' 2>/dev/null && echo lua)
LUA_CFLAGS    := $(if $(LUA_PC),$(shell $(PKGC) --cflags $(LUA_PC)),$(if $(DEPS_PREFIX),,-I/usr/include/lua5.4))
LUA_LIBS      := $(if $(LUA_PC),$(shell $(PKGC) --libs $(LUA_PC)),$(if $(call deps_has,liblua5.4.so liblua5.4.a),-llua5.4,$(if $(call deps_has,liblua.so liblua.a),-llua,-llua5.4)))
# (without a .pc file, the feature macros Debian's ncursesw.pc gives, which the tree relies on)
CURSES_CFLAGS := $(shell $(PKGC) --cflags ncursesw 2>/dev/null || echo -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600)
CURSES_LIBS   := $(shell $(PKGC) --libs ncursesw 2>/dev/null || echo -lncursesw)
GLPK_LIBS     := -lglpk

ALL_CPPFLAGS = -Isrc $(DEPS_CPPFLAGS) $(YAML_CFLAGS) $(LUA_CFLAGS) $(CURSES_CFLAGS) \
               -DSTRATA_DATADIR='"$(DATADIR)"' $(CPPFLAGS)
ALL_CFLAGS   = $(CSTD) $(CFLAGS) $(if $(strip $(LTO)),$(LTO) -ffat-lto-objects) $(SANFLAGS) -MMD -MP
ALL_LDFLAGS  = $(SANFLAGS) $(DEPS_LDFLAGS) $(LDFLAGS)
LIBS         = $(YAML_LIBS) $(GLPK_LIBS) $(LUA_LIBS) $(CURSES_LIBS) -lm -lpthread

# ---- quiet output -----------------------------------------------------------
ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %s %s\n' $(1) $(2)
endif

# ---- sources ----------------------------------------------------------------
OBJDIR := $(BUILD)/obj
obj     = $(patsubst %.c,$(OBJDIR)/%.o,$(1))

MAIN_SRC   := src/main.c
LIB_SRCS   := $(filter-out $(MAIN_SRC),$(sort $(shell find src -type f -name '*.c' 2>/dev/null)))
TEST_SRCS  := $(sort $(wildcard tests/unit/test_*.c))
THELP_SRCS := $(filter-out $(TEST_SRCS),$(sort $(wildcard tests/unit/*.c)))
BENCH_SRCS := $(sort $(wildcard bench/*.c))
FUZZ_SRCS  := $(sort $(wildcard fuzz/fuzz_*.c))

LIB_OBJS   := $(call obj,$(LIB_SRCS))
MAIN_OBJ   := $(call obj,$(MAIN_SRC))
TEST_OBJS  := $(call obj,$(TEST_SRCS))
THELP_OBJS := $(call obj,$(THELP_SRCS))
BENCH_OBJS := $(call obj,$(BENCH_SRCS))
FUZZ_OBJS  := $(call obj,$(FUZZ_SRCS))
REPLAY_OBJ := $(call obj,fuzz/replay.c)

LIB        := $(BUILD)/libstrata.a
STRATA     := $(BUILD)/strata
TEST_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
BENCH_BIN  := $(if $(BENCH_SRCS),$(BUILD)/bench)
FUZZ_BINS  := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

# Stamp files whose contents change only when their text does:
#  .libobjs  the archive's member list (a removed or renamed source must not
#            leave a stale member behind that still satisfies symbols);
#  .cflags   the compile command (changed flags or PREFIX rebuild everything).
OBJLIST   := $(BUILD)/.libobjs
FLAGSFILE := $(BUILD)/.cflags
OBJLIST_TEXT   = $(LIB_OBJS)
FLAGSFILE_TEXT = $(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit
sq    = $(subst ','\'',$(1))
stamp = mkdir -p $(BUILD) && printf '%s\n' '$(call sq,$(2))' | cmp -s - $(1) \
        || printf '%s\n' '$(call sq,$(2))' > $(1)
ifeq ($(filter clean uninstall deps,$(MAKECMDGOALS)),)
$(shell $(call stamp,$(OBJLIST),$(OBJLIST_TEXT)))
$(shell $(call stamp,$(FLAGSFILE),$(FLAGSFILE_TEXT)))
endif

# Environment for sanitized test runs.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

.PHONY: static all deps run test bench check-sanitize check-invariants check-valgrind accuracy fuzz build-fuzz-bins install uninstall clean build-all
.DELETE_ON_ERROR:

# ---- targets ------------------------------------------------------------------
all: $(STRATA)
	@:

# Everything that `make test` needs, built in one (parallel-safe) make.
# Test binaries whose source is gone are removed so tests/run can't run them.
build-all: $(STRATA) $(TEST_BINS) $(BENCH_BIN) $(FUZZ_BINS)
	@for f in $(BUILD)/tests/test_*; do \
	  case " $(TEST_BINS) " in *" $$f "*) ;; *) rm -f "$$f" ;; esac; \
	done

deps:
	$(Q)DEPS_PREFIX='$(DEPS_PREFIX)' bash scripts/deps.sh

# deps first, then a fresh make (so pkg-config sees what deps installed).
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)exec $(STRATA) $(ARGS)

test: deps
	$(Q)$(MAKE) --no-print-directory build-all
	$(Q)$(if $(filter 1,$(SANITIZE)),$(SAN_ENV)) bash tests/run $(BUILD)

check-sanitize:
	$(Q)$(MAKE) --no-print-directory test SANITIZE=1

# The accuracy report (docs/accuracy.md): the shipped constants against the published runs
# (in sample), then each source predicted by constants refitted without it (held out, the
# figure users get); python3 for the refits, about a minute and a half on two cores.
accuracy: $(STRATA)
	$(Q)echo "== in sample: the shipped constants (strata validate tests/validation/public)"
	$(Q)$(STRATA) validate tests/validation/public
	$(Q)echo "== held out: leave one source out (scripts/calibrate.py --holdout)"
	$(Q)STRATA=$(abspath $(STRATA)) python3 scripts/calibrate.py --holdout

# The cost model's invariants over millions of random strategies (make test runs a bounded
# sample of the same harness): INVARIANT_SAMPLES per (model, cluster) preset pair.
INVARIANT_SAMPLES ?= 100000
check-invariants: $(BUILD)/tests/test_invariants
	$(Q)STRATA_INVARIANT_SAMPLES=$(INVARIANT_SAMPLES) $(BUILD)/tests/test_invariants

# Unit tests and the binary under valgrind (no leak may come from the core).
check-valgrind: build-all
	$(Q)bash scripts/valgrind.sh $(BUILD)

# Fuzz every target for FUZZ_SECONDS (default 60) each with libFuzzer; needs clang.
# New crashes land in fuzz/out/; once fixed, copy them to fuzz/regress/NAME/ so `make
# test` replays them forever.
FUZZ_SECONDS ?= 60
fuzz:
	$(Q)command -v clang >/dev/null 2>&1 || { echo "make fuzz needs clang with libFuzzer (Debian: apt-get install clang)" >&2; exit 2; }
	$(Q)$(MAKE) --no-print-directory FUZZER=1 CC=clang build-fuzz-bins
	$(Q)bash scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

build-fuzz-bins: $(FUZZ_BINS)
	@:

bench: $(BENCH_BIN)
ifeq ($(BENCH_SRCS),)
	@echo "bench: no bench/*.c sources yet"
else
	$(Q)$(if $(filter 1,$(SANITIZE)),$(SAN_ENV)) $(BENCH_BIN)
endif

# ---- build rules ------------------------------------------------------------------
$(OBJLIST) $(FLAGSFILE):
	@$(call stamp,$@,$($(if $(filter $(OBJLIST),$@),OBJLIST_TEXT,FLAGSFILE_TEXT)))

$(OBJDIR)/%.o: %.c $(FLAGSFILE)
	$(call say,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(TEST_OBJS) $(THELP_OBJS): ALL_CPPFLAGS += -Itests/unit

$(LIB): $(LIB_OBJS) $(OBJLIST)
	$(call say,AR,$@)
	@rm -f $@
	$(Q)$(AR) rcs $@ $(LIB_OBJS)

$(STRATA): $(MAIN_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(LTO) -o $@ $(MAIN_OBJ) $(LIB) $(LIBS)

$(TEST_BINS): $(BUILD)/tests/%: $(OBJDIR)/tests/unit/%.o $(THELP_OBJS) $(LIB)
	$(call say,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(THELP_OBJS) $(LIB) $(LIBS)

$(BUILD)/bench: $(BENCH_OBJS) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(LTO) -o $@ $(BENCH_OBJS) $(LIB) $(LIBS)

# Fuzz targets: with FUZZER=1 (clang, `make fuzz`) they link libFuzzer's main; otherwise
# fuzz/replay.c, which replays the seed corpus and past crashes plus mutants in `make test`.
ifeq ($(FUZZER),1)
$(FUZZ_BINS): $(BUILD)/fuzz/%: $(OBJDIR)/fuzz/%.o $(LIB)
	$(call say,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(LIBS)
else
$(FUZZ_BINS): $(BUILD)/fuzz/%: $(OBJDIR)/fuzz/%.o $(REPLAY_OBJ) $(LIB)
	$(call say,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(REPLAY_OBJ) $(LIB) $(LIBS)
endif

-include $(patsubst %.o,%.d,$(LIB_OBJS) $(MAIN_OBJ) $(TEST_OBJS) $(THELP_OBJS) $(BENCH_OBJS) $(FUZZ_OBJS) $(REPLAY_OBJ))

# ---- a mostly static binary for a login node (docs/install.md) -----------------------
# `make static`: $(BUILD)/static/strata/bin/strata with libyaml, GLPK and what it links (the
# SuiteSparse AMD/COLAMD, GMP, zlib), Lua and ncurses taken from their .a files wherever the
# system (or DEPS_PREFIX) has them, and libc and anything without a .a (Debian ships no
# libltdl.a) dynamic; beside it share/strata with the presets, themes and recipes, which the
# binary finds relative to itself (bin/../share/strata); and $(BUILD)/strata-static.tar.gz of
# the directory, to copy to a login node and unpack anywhere. STATIC_LIBNAMES overrides the
# list (another GLPK build may need other libraries: `readelf -d libglpk.so | grep NEEDED`).
STATIC_DIR      := $(BUILD)/static/strata
STATIC_LIBNAMES ?= yaml glpk colamd amd suitesparseconfig gmp z ltdl \
                   $(patsubst -l%,%,$(filter -llua%,$(LUA_LIBS))) ncursesw tinfo
static_lib       = $(shell sh scripts/static_lib.sh '$(CC)' $(1) $(DEPS_DIRS))
STATIC_LIBS      = $(foreach l,$(STATIC_LIBNAMES),$(call static_lib,$(l))) -lm -ldl -lpthread

static: $(MAIN_OBJ) $(LIB)
	$(call say,LD,$(STATIC_DIR)/bin/strata)
	$(Q)mkdir -p $(STATIC_DIR)/bin $(STATIC_DIR)/share/strata
	$(Q)$(CC) $(ALL_LDFLAGS) $(LTO) -o $(STATIC_DIR)/bin/strata $(MAIN_OBJ) $(LIB) $(STATIC_LIBS)
	$(Q)for d in $(DATA_DIRS); do rm -rf "$(STATIC_DIR)/share/strata/$$d"; cp -R "$$d" "$(STATIC_DIR)/share/strata/$$d"; done
	$(Q)$(if $(MAN1),cp $(MAN1) $(STATIC_DIR)/share/strata/strata.1)
	$(Q)tar -C $(BUILD)/static -czf $(BUILD)/strata-static.tar.gz strata
	@echo "static: $(STATIC_DIR)/bin/strata (dynamic: $$(ldd $(STATIC_DIR)/bin/strata 2>/dev/null | awk '/=>/ {print $$1}' | tr '\n' ' '))"
	@echo "static: $(BUILD)/strata-static.tar.gz: unpack anywhere and run strata/bin/strata"

# ---- install ------------------------------------------------------------------
MAN1 := $(firstword $(wildcard man/strata.1 doc/strata.1 docs/strata.1))
MAN7 := $(firstword $(wildcard man/strata-lua.7 doc/strata-lua.7 docs/strata-lua.7))
DATA_DIRS := $(wildcard presets themes lua)

install: $(STRATA)
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(STRATA) $(DESTDIR)$(BINDIR)/strata
	$(Q)set -e; for d in $(DATA_DIRS); do \
	  echo "installing $$d/ -> $(DESTDIR)$(DATADIR)/$$d"; \
	  $(INSTALL) -d "$(DESTDIR)$(DATADIR)/$$d"; \
	  cp -R "$$d/." "$(DESTDIR)$(DATADIR)/$$d/"; \
	  chmod -R u+rwX,go+rX,go-w "$(DESTDIR)$(DATADIR)/$$d"; \
	done
ifneq ($(MAN1),)
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/strata.1
endif
ifneq ($(MAN7),)
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/strata-lua.7
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/strata
	rm -rf $(DESTDIR)$(DATADIR)
	rm -f $(DESTDIR)$(MANDIR)/man1/strata.1 $(DESTDIR)$(MANDIR)/man7/strata-lua.7

clean:
	rm -rf build build-san
