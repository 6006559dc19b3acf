#!/usr/bin/env bash
# Make sure strata's build dependencies are present.
# On Debian/Ubuntu the missing packages are installed with apt-get (through
# sudo when not root). Elsewhere only a hint is printed and the build goes on.
# STRATA_NO_DEPS=1 skips the whole check.
set -u

if [ "${STRATA_NO_DEPS:-0}" = 1 ]; then
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

echo "strata: installing missing build dependencies: ${missing[*]}" >&2

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "strata: not root and no sudo; please run as root:" >&2
        echo "  apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
fi

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
