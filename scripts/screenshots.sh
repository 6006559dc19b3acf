#!/usr/bin/env bash
# Regenerate screenshots/: run the real explorer in a detached tmux session of a fixed
# size, capture the pane as text (NAME.txt) and with its colours (rendered to NAME.png by
# scripts/ansi2png.c, a maintainer tool built here with FreeType and zlib; it is not part
# of strata and not built by make). Run from anywhere:
#     bash scripts/screenshots.sh
# Needs tmux; the PNGs also need a C compiler, pkg-config, libfreetype-dev, zlib1g-dev and
# fonts-dejavu-core, and are skipped (text captures only) when those are missing.
set -eu
# STRATA=path/to/strata uses that binary instead of building one
. "$(dirname "$0")/_binary.sh"
mkdir -p build screenshots
PNG=0
if pkg-config --exists freetype2 zlib 2>/dev/null &&
    cc -O2 -o build/ansi2png scripts/ansi2png.c $(pkg-config --cflags --libs freetype2 zlib); then
    PNG=1
else
    echo "screenshots: FreeType/zlib not found, writing text captures only" >&2
fi

SOCK=strata-shots-$$
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1 || true' EXIT
TMP=$(mktemp -d)
trap 'tm kill-server >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

# shot NAME COLS ROWS "KEYS" ARGS...: start strata, wait for the panes, send KEYS, capture
n=0
shot() {
    local name=$1 cols=$2 rows=$3 keys=$4
    shift 4
    n=$((n + 1))
    tm new-session -d -s "s$n" -x "$cols" -y "$rows" -c "$ROOT" \
        env -i PATH="$PATH" HOME="$TMP" XDG_CONFIG_HOME="$TMP" STRATA_DATA="$ROOT" TERM=xterm-256color \
        LANG=C.UTF-8 "$STRATA" "$@"
    for _ in $(seq 100); do
        tm capture-pane -p -t "s$n" | grep -q Timeline && break
        sleep 0.1
    done
    if [ -n "$keys" ]; then
        # split into key names, but no globbing: "?" would match a one-letter file name
        set -f
        # shellcheck disable=SC2086
        tm send-keys -t "s$n" $keys
        set +f
        sleep 0.5
    fi
    tm capture-pane -p -t "s$n" >"screenshots/$name.txt"
    tm capture-pane -p -e -N -t "s$n" >"$TMP/$name.ansi" # -N: keep trailing blanks (and their colour)
    [ "$PNG" = 1 ] && build/ansi2png "$TMP/$name.ansi" "screenshots/$name.png" "$cols" "$rows"
    # sessions stay until the end: killing the last one stops the server under the next
    echo "screenshots/$name.txt, screenshots/$name.png"
}

# a dense model: the embedded default plan (Llama-3-70B, 512 H100), tp stepped up once
shot default-80x24 80 24 "j"
# an MoE model with a stage over its memory budget
shot moe-over-budget-100x30 100 30 "" \
    -m mixtral-8x22b -n 128 --tp 4 --pp 4 --ep 8 --gbs 256 --seq 8192 --recompute selective --budget 70
# the pipeline timeline of an interleaved schedule on a large terminal
shot timeline-140x40 140 40 "" --pp 8 --vpp 2 --schedule interleaved --gbs 512
# the help screen, generated from the key table
shot help-80x24 80 24 "?"
