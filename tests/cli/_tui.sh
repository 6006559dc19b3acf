# tests/cli/_tui.sh - helpers for the explorer tests, sourced after _lib.sh (not run).
#
# Each test script drives the real binary inside a detached tmux server of its own
# (tmux -L strata-test-PID, no config file), sends keys and reads the pane back. Nothing
# waits a fixed time: every check polls capture-pane until its text shows up or a
# timeout (TUI_TIMEOUT, default 30 s: sanitizer builds on a slow machine start slowly).
#
#   tui_start W H [ENV=VAL...] -- ARGS...   run `strata ARGS` in a W x H pane through a
#                           wrapper that records stty before/after and prints EXIT=rc
#   keys KEY...             tmux send-keys (names such as Enter, Escape, Up)
#   typed TEXT              send TEXT literally
#   screen                  the pane as text (capture-pane -p)
#   wait_for TEXT [SECS]    poll until the pane shows TEXT (fixed string); 1 on timeout
#   wait_gone TEXT [SECS]   poll until it does not
#   wait_until CMD...       poll until CMD succeeds
#   wait_exit [SECS]        poll until the wrapper printed EXIT=; sets EXIT_RC
#   tui_stop                kill the session (the server goes at exit)

if ! command -v tmux >/dev/null 2>&1; then
    skip "${0##*/}: explorer tests" "tmux is not installed"
    exit 0
fi

SOCK=strata-test-$$
TMUX_CMD=(tmux -L "$SOCK" -f /dev/null)
trap '"${TMUX_CMD[@]}" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
TUI_TIMEOUT=${TUI_TIMEOUT:-30}
EXIT_RC=""
S=""
NSESS=0
mkdir -p "$T/xdg"

cat >"$T/wrap.sh" <<'EOF'
#!/bin/sh
# run strata, then report how it ended and in what state it left the terminal
out=$1
shift
trap : INT # Ctrl-C is for strata; the wrapper must live on to report
stty -g >"$out/stty.before" 2>/dev/null
"$@" 2>"$out/stderr"
rc=$?
stty -g >"$out/stty.after" 2>/dev/null
echo "EXIT=$rc"
exec sleep 600
EOF
chmod +x "$T/wrap.sh"

tm() { "${TMUX_CMD[@]}" "$@"; }

tui_start() {
    local w=$1 h=$2
    shift 2
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    rm -f "$T/stty.before" "$T/stty.after" "$T/stderr"
    EXIT_RC=""
    # the new session starts before the old one goes: a server left without sessions
    # exits, and a new-session racing that exit fails
    local old=$S
    NSESS=$((NSESS + 1))
    S=t$NSESS
    # a clean, fixed environment: the user's config and locale must not leak in
    tm new-session -d -s "$S" -x "$w" -y "$h" -c "$PWD" \
        env -i PATH="$PATH" HOME="$T" XDG_CONFIG_HOME="$T/xdg" TERM=xterm-256color LANG=C.UTF-8 \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "${envs[@]}" \
        "$T/wrap.sh" "$T" "$STRATA" "$@"
    [ -n "$old" ] && tm kill-session -t "$old" >/dev/null 2>&1
    return 0
}

keys() { tm send-keys -t "$S" "$@"; }
typed() { tm send-keys -t "$S" -l "$1"; }
screen() { tm capture-pane -p -t "$S" 2>/dev/null; }

_poll() { # _poll want|gone TEXT SECS
    local deadline=$((SECONDS + ${3:-$TUI_TIMEOUT}))
    while [ $SECONDS -le $deadline ]; do
        if screen | grep -Fq -- "$2"; then
            [ "$1" = want ] && return 0
        else
            [ "$1" = gone ] && return 0
        fi
        sleep 0.1
    done
    return 1
}
wait_for() { _poll want "$1" "${2:-}"; }
# wait_until CMD...: poll until the command succeeds
wait_until() {
    local deadline=$((SECONDS + TUI_TIMEOUT))
    while [ $SECONDS -le $deadline ]; do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
wait_gone() { _poll gone "$1" "${2:-}"; }

wait_exit() {
    if wait_for "EXIT=" "${1:-}"; then
        EXIT_RC=$(screen | sed -n 's/^EXIT=\([0-9]*\).*/\1/p' | tail -n 1)
        return 0
    fi
    EXIT_RC=""
    return 1
}

tui_stop() { tm kill-session -t "$S" >/dev/null 2>&1; }

# tcheck NAME COMMAND...: like check, but shows the pane when it fails
tcheck() {
    local name=$1
    shift
    if "$@"; then
        pass "$name"
    else
        fail "$name" "condition failed: $*"
        screen | sed 's/^/    | /'
    fi
}

# the terminal modes after strata equal those before it
stty_restored() { [ -s "$T/stty.before" ] && cmp -s "$T/stty.before" "$T/stty.after"; }
# no sanitizer report in strata's stderr
no_sanitizer() { ! grep -Eq "$SAN_RE" "$T/stderr" 2>/dev/null; }
