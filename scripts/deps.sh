#!/usr/bin/env bash
# Make sure strata's build dependencies are present.
# On Debian/Ubuntu the missing packages are installed with apt-get (through
# sudo when not root and sudo works without a password). When it cannot install
# (no root, no sudo, or sudo would ask), it says what is missing and the commands
# that get it: apt-get as root, or a prefix of your own (Spack, DEPS_PREFIX; see
# docs/install.md), and exits 1 without trying. Elsewhere only a hint is printed.
#   STRATA_NO_DEPS=1       skip the whole check
#   DEPS_PREFIX="/p ..."   the dependencies come from these prefixes (make DEPS_PREFIX=...):
#                          checked there, nothing installed
#   --dry-run or STRATA_DEPS_DRY_RUN=1   say what would be installed, install nothing
#   STRATA_DEPS_UID=N      the user id to act as (tests simulate a non-root user with it)
set -u

if [ "${STRATA_NO_DEPS:-0}" = 1 ]; then
    exit 0
fi
DRY=${STRATA_DEPS_DRY_RUN:-0}
[ "${1:-}" = --dry-run ] && DRY=1
UID_NOW=${STRATA_DEPS_UID:-$(id -u)}

# Dependencies from prefixes: each header must be in one of them.
if [ -n "${DEPS_PREFIX:-}" ]; then
    absent=()
    for h in yaml.h glpk.h lua.h curses.h; do
        found=0
        for p in $DEPS_PREFIX; do
            for d in "$p/include" "$p/include/lua5.4" "$p/include/ncursesw"; do
                [ -f "$d/$h" ] && found=1
            done
        done
        [ "$found" = 1 ] || absent+=("$h")
    done
    if [ ${#absent[@]} -ne 0 ]; then
        echo "strata: DEPS_PREFIX=\"$DEPS_PREFIX\" has no ${absent[*]} under include/;" \
             "with Spack: spack install ncurses lua@5.4 glpk libyaml, then" \
             "make DEPS_PREFIX=\"\$(spack location -i ncurses) \$(spack location -i lua) \$(spack location -i glpk) \$(spack location -i libyaml)\"" >&2
        exit 1
    fi
    exit 0
fi

PKGS=(gcc make pkg-config libyaml-dev libglpk-dev liblua5.4-dev libncurses-dev tmux)

if ! command -v dpkg >/dev/null 2>&1; then
    echo "strata: not a Debian-based system; make sure a C11 compiler, make, pkg-config," \
         "libyaml, GLPK, Lua 5.4, ncursesw (wide) and tmux are installed." >&2
    exit 0
fi

installed() {
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

missing=()
for p in "${PKGS[@]}"; do
    installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# What to do when it cannot install: say so, with the commands, and stop.
cannot() {
    echo "strata: missing build dependencies: ${missing[*]}" >&2
    echo "strata: not installing them: $1" >&2
    echo "  as root:        apt-get install -y --no-install-recommends ${missing[*]}" >&2
    echo "  without root:   spack install ncurses lua@5.4 glpk libyaml, then build with" >&2
    echo "                  make DEPS_PREFIX=\"<their prefixes>\" PREFIX=\$HOME/.local install (docs/install.md)" >&2
    echo "  or, if they are installed where this check does not look: STRATA_NO_DEPS=1 make ..." >&2
    exit 1
}

SUDO=()
if [ "$DRY" = 1 ]; then
    echo "strata: would install: ${missing[*]} (apt-get install -y --no-install-recommends ${missing[*]})" >&2
    exit 0
fi
if [ "$UID_NOW" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        cannot "not root (uid $UID_NOW) and no sudo"
    elif ! sudo -n true >/dev/null 2>&1; then
        cannot "not root (uid $UID_NOW) and sudo asks for a password (or is not allowed)"
    fi
    SUDO=(sudo -n)
fi
echo "strata: installing missing build dependencies: ${missing[*]}" >&2

export DEBIAN_FRONTEND=noninteractive
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)

if ! "${APT[@]}" install -y --no-install-recommends "${missing[@]}"; then
    echo "strata: install failed; refreshing package lists and retrying" >&2
    "${APT[@]}" update || true
    if ! "${APT[@]}" install -y --no-install-recommends "${missing[@]}"; then
        echo "strata: could not install: ${missing[*]}" >&2
        echo "  try: ${SUDO[*]}${SUDO:+ }apt-get update && ${SUDO[*]}${SUDO:+ }apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
fi

still=()
for p in "${missing[@]}"; do
    installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
    echo "strata: still missing after install: ${still[*]}" >&2
    exit 1
fi
exit 0
