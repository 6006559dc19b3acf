#!/usr/bin/env bash
# Regenerate docs/captures/: the explorer's views as plain text, each at the minimum size
# (80x24) and on a large terminal (200x60), made by running the real binary in a detached
# tmux session and capturing the pane (capture-pane -p) once the view shows what it should.
# The views: the A/B slots' compare view (C), the why list (W), the search table with its
# "vs cur" column and a filter (/), a candidate previewed in the panes (v), the panes with
# the per-stage memory numbers, and the sweep view (S). Run from anywhere:
#     bash scripts/captures.sh            (STRATA=path/to/strata uses that binary)
# Needs tmux. Every capture waits for its text (30 s at most) and the script fails, naming
# the view, when a view never shows it.
set -eu
# STRATA=path/to/strata uses that binary instead of building one
. "$(dirname "$0")/_binary.sh"
OUTDIR=$ROOT/docs/captures
mkdir -p "$OUTDIR"
SOCK=strata-captures-$$
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
TMP=$(mktemp -d)
trap 'tm kill-server >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

n=0
S=""
# start COLS ROWS ARGS...: a fresh session (a clean HOME: no preferences, no recovery file)
start() {
    local cols=$1 rows=$2
    shift 2
    n=$((n + 1))
    local old=$S
    S=s$n
    mkdir -p "$TMP/home$n"
    tm new-session -d -s "$S" -x "$cols" -y "$rows" -c "$TMP" \
        env -i PATH="$PATH" HOME="$TMP/home$n" XDG_CONFIG_HOME="$TMP/home$n" STRATA_DATA="$ROOT" \
        TERM=xterm-256color LANG=C.UTF-8 "$STRATA" "$@"
    # the old session goes after the new one started: a server without sessions exits
    [ -n "$old" ] && tm kill-session -t "$old" >/dev/null 2>&1
    want "Timeline"
}
# want TEXT: wait until the pane shows TEXT
want() {
    for _ in $(seq 300); do
        tm capture-pane -p -t "$S" | grep -Fq -- "$1" && return 0
        sleep 0.1
    done
    echo "captures: the view never showed '$1' (capture $n)" >&2
    tm capture-pane -p -t "$S" >&2
    exit 1
}
key() { tm send-keys -t "$S" "$@"; }
typed() { tm send-keys -t "$S" -l "$1"; }
# save NAME: the pane, once the screen has settled, as docs/captures/NAME.txt
save() {
    sleep 0.5
    tm capture-pane -p -t "$S" >"$OUTDIR/$1.txt"
    echo "docs/captures/$1.txt"
}

for size in 80x24 200x60; do
    c=${size%x*} r=${size#*x}
    # the per-stage memory pane (and, at 200x60, the why pane under the timeline): the
    # default plan, Llama-3-70B on 512 H100, tp 8 x pp 4
    start "$c" "$r"
    save "panes-$size"
    # A/B: the default plan kept in A, the search's best applied, compared part by part
    key a
    want "kept in A"
    key s
    want "vs cur"
    key Enter
    want "applied candidate #1"
    key C
    want "A against the current plan"
    save "slots-compare-$size"
    # why is it slow: the default plan's losses and placement
    start "$c" "$r"
    key W
    want "Why is it slow"
    save "why-$size"
    # the search table with the vs-cur column, filtered to two pipeline stages
    key q
    key s
    want "vs cur"
    key /
    typed "pp=2"
    key Enter
    want "/pp=2"
    save "search-filter-$size"
    # the second candidate previewed in the panes
    key j v
    want "preview of #"
    save "preview-$size"
    # the sweep view: step time against the global batch
    key Escape Escape
    want " Strategy"
    key S
    want "Sweep"
    save "sweep-$size"
done
