#!/usr/bin/env bash
# Installable where the users are: a login node without root (docs/install.md).
#  - dependencies from a prefix the user names: a fake prefix holding symlinks to the
#    system's headers and libraries, laid out as Spack lays them out (lua.h in include/,
#    liblua.so rather than Debian's liblua5.4.so), so the build only succeeds through it;
#    pkg-config disabled; the binary carries the prefix's rpath;
#  - `make PREFIX=$HOME/.local install` with a sudo on PATH that fails the test if called;
#  - `make static`: only libc-level libraries stay dynamic, and the unpacked tarball runs
#    from another directory with its presets, themes and recipes;
#  - scripts/deps.sh in a fake environment (a non-root uid, no sudo or a sudo that asks, a
#    missing package): it says what it would install and the commands, and does not try;
#  - the Spack recipe is valid Python whose dependencies are ncurses, lua@5.4, glpk, libyaml.
. "$(dirname "$0")/_lib.sh"

case ${STRATA_BUILD:-} in *-san) skip "install_user" "a separate build; not under the sanitizers"; exit 0 ;; esac
LIBDIR=$(dirname "$(cc -print-file-name=libyaml.so)")
if [ ! -f /usr/include/lua5.4/lua.h ] || [ ! -e "$LIBDIR/liblua5.4.so" ]; then
    skip "install_user" "needs Debian's Lua 5.4 layout to build the fake prefix"
    exit 0
fi

# ---- a fake prefix ---------------------------------------------------------------------------
P=$T/prefix
mkdir -p "$P/include" "$P/lib"
for h in /usr/include/lua5.4/*.h /usr/include/yaml.h /usr/include/glpk.h /usr/include/curses.h \
         /usr/include/ncurses_dll.h /usr/include/unctrl.h; do
    [ -e "$h" ] && ln -s "$h" "$P/include/"
done
ln -s "$LIBDIR/liblua5.4.so" "$P/lib/liblua.so"
[ -e "$LIBDIR/liblua5.4.a" ] && ln -s "$LIBDIR/liblua5.4.a" "$P/lib/liblua.a"
for l in yaml glpk ncursesw tinfo; do
    ln -s "$LIBDIR/lib$l.so" "$P/lib/"
    [ -e "$LIBDIR/lib$l.a" ] && ln -s "$LIBDIR/lib$l.a" "$P/lib/"
done

# a sudo that must never run
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "sudo was called: $*" >>"%s"\nexit 1\n' "$T/sudo.log" >"$T/bin/sudo"
chmod +x "$T/bin/sudo"

B=$T/build
H=$T/home/.local
MK=(make -s --no-print-directory -j2 BUILD="$B" DEPS_PREFIX="$P" PKG_CONFIG=false PREFIX="$H" LTO=
    CFLAGS="-O1 -Wall -Wextra -Werror")
if PATH="$T/bin:$PATH" "${MK[@]}" "$B/strata" >"$T/build.log" 2>&1; then
    pass "make DEPS_PREFIX=<fake prefix> PKG_CONFIG=false: builds from the prefix (lua.h, liblua.so only there)"
else
    fail "make DEPS_PREFIX=<fake prefix>" "$(tail -5 "$T/build.log")"
    exit 0
fi
check "DEPS_PREFIX: the binary's runpath is the prefix's lib" \
    eval 'readelf -d "$B/strata" | grep -E "R(UN)?PATH" | grep -qF "$P/lib"'
check "DEPS_PREFIX: Lua resolved through the prefix's -llua" eval 'ldd "$B/strata" | grep -q liblua5.4'

# ---- make PREFIX=$HOME/.local install, no root --------------------------------------------------
if PATH="$T/bin:$PATH" STRATA_NO_DEPS=1 "${MK[@]}" install >"$T/install.log" 2>&1; then
    pass "make PREFIX=\$HOME/.local install: succeeds"
else
    fail "make PREFIX=\$HOME/.local install" "$(tail -5 "$T/install.log")"
fi
check "install into \$HOME: sudo never called" [ ! -e "$T/sudo.log" ]
check "install into \$HOME: binary, presets and man page under the prefix" \
    eval '[ -x "$H/bin/strata" ] && [ -f "$H/share/strata/presets/models/llama3-70b.yaml" ] && [ -f "$H/share/man/man1/strata.1" ]'
mkdir -p "$T/elsewhere"
(cd "$T/elsewhere" && env -u STRATA_DATA HOME="$T/home" XDG_CONFIG_HOME= "$H/bin/strata" eval -m llama3-8b -c dgx-h100 \
    -n 8 --tp 8 --pp 1 --gbs 8 --json) >"$OUT" 2>"$ERR"
RC=$?
expect_rc "installed into \$HOME: evaluates a preset plan from another directory" 0

# ---- make static --------------------------------------------------------------------------------
if "${MK[@]}" static >"$T/static.log" 2>&1; then
    pass "make static: succeeds"
else
    fail "make static" "$(tail -5 "$T/static.log")"
    exit 0
fi
S=$B/static/strata/bin/strata
check "make static: yaml, glpk, lua and ncurses are not dynamic" \
    eval '! ldd "$S" | grep -E "libyaml|libglpk|liblua|libncurses|libtinfo|libgmp|libamd"'
check "make static: libc stays dynamic" eval 'ldd "$S" | grep -q "libc\.so"'
mkdir -p "$T/login"
tar -C "$T/login" -xzf "$B/strata-static.tar.gz"
(cd / && env -u STRATA_DATA HOME="$T/login" XDG_CONFIG_HOME= "$T/login/strata/bin/strata" eval -m llama3-70b \
    -c dgx-h100 -n 64 --tp 8 --pp 8) >"$OUT" 2>"$ERR"
RC=$?
expect_rc "static tarball unpacked elsewhere: evaluates a preset plan" 0
(cd / && env -u STRATA_DATA HOME="$T/login" XDG_CONFIG_HOME= "$T/login/strata/bin/strata" presets) >"$OUT" 2>"$ERR"
out_has "static tarball: lists its presets" "deepseek-v3"
out_has "static tarball: lists its themes" "dark"
(cd / && env -u STRATA_DATA HOME="$T/login" XDG_CONFIG_HOME= "$T/login/strata/bin/strata" run \
    "$T/login/strata/share/strata/lua/zero_levels.lua") >"$OUT" 2>"$ERR"
RC=$?
expect_rc "static tarball: runs a shipped recipe" 0

# ---- scripts/deps.sh without root -----------------------------------------------------------------
F=$T/fakebin
mkdir -p "$F"
for c in grep id cat; do ln -s "$(command -v "$c")" "$F/$c"; done
# dpkg: every package installed but libglpk-dev
printf '#!/bin/sh\n[ "$2" = libglpk-dev ] && exit 1\necho "Status: install ok installed"\n' >"$F/dpkg"
chmod +x "$F/dpkg"
BASH_BIN=$(command -v bash)
deps() { env -i PATH="$1" STRATA_DEPS_UID=1000 "${@:2}" "$BASH_BIN" scripts/deps.sh >"$OUT" 2>"$ERR"; RC=$?; }
deps "$F"
expect_rc "deps.sh, uid 1000, no sudo, libglpk-dev missing: exit 1" 1
err_has "deps.sh without root: names what is missing" "missing build dependencies: libglpk-dev"
err_has "deps.sh without root: says why it does not install" "not root (uid 1000) and no sudo"
err_has "deps.sh without root: the command for root" "apt-get install -y --no-install-recommends libglpk-dev"
err_has "deps.sh without root: the way without root" "spack install ncurses lua@5.4 glpk libyaml"
# a sudo that would ask for a password
printf '#!/bin/sh\n[ "$1" = -n ] && { echo "sudo: a password is required" >&2; exit 1; }\necho "sudo ran: $*" >>"%s"\n' \
    "$T/sudo2.log" >"$F/sudo"
chmod +x "$F/sudo"
deps "$F"
expect_rc "deps.sh with a sudo that asks: exit 1, nothing run" 1
err_has "deps.sh with a sudo that asks: says so" "sudo asks for a password"
check "deps.sh with a sudo that asks: sudo only probed with -n" [ ! -e "$T/sudo2.log" ]
deps "$F" STRATA_DEPS_DRY_RUN=1
expect_rc "deps.sh --dry-run: exit 0" 0
err_has "deps.sh --dry-run: what it would install" "would install: libglpk-dev"
deps "$F" DEPS_PREFIX="$P"
expect_rc "deps.sh with DEPS_PREFIX holding the headers: exit 0, no apt-get" 0
mkdir -p "$T/empty"
deps "$F" DEPS_PREFIX="$T/empty"
expect_rc "deps.sh with an empty DEPS_PREFIX: exit 1" 1
err_has "deps.sh with an empty DEPS_PREFIX: names the missing headers" "has no yaml.h glpk.h lua.h curses.h"

# ---- the Spack recipe ----------------------------------------------------------------------------
check "packaging/spack/package.py: valid Python (py_compile)" \
    python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
    packaging/spack/package.py "$T/package.pyc"
# its directives, run against a stand-in for spack.package
mkdir -p "$T/py/spack"
cat >"$T/py/spack/package.py" <<'PY'
DEPS, VERSIONS = [], []
class MakefilePackage: pass
def version(v, **kw): VERSIONS.append(v)
def depends_on(spec, **kw): DEPS.append((spec, kw.get("type")))
def maintainers(*a): pass
def make(*a): pass
def run_after(*a): return lambda f: f
def on_package_attributes(**kw): return lambda f: f
class Executable:
    def __init__(self, p): pass
__all__ = ["MakefilePackage", "version", "depends_on", "maintainers", "make", "run_after",
           "on_package_attributes", "Executable"]
PY
touch "$T/py/spack/__init__.py"
check "spack recipe: a MakefilePackage depending on ncurses, lua@5.4, glpk and libyaml at run time" \
    env PYTHONPATH="$T/py" python3 -c '
import runpy, sys
import spack.package as sp
ns = runpy.run_path(sys.argv[1])
link = {s.split("+")[0] for s, t in sp.DEPS if t is None}
assert {"ncurses", "lua@5.4", "glpk", "libyaml"} <= link, link
assert issubclass(ns["Strata"], sp.MakefilePackage) and sp.VERSIONS
' packaging/spack/package.py
