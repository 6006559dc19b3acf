#!/usr/bin/env bash
# The explorer and the terminal: live resize to below the minimum and back, SIGTERM,
# SIGHUP and Ctrl-C leave the terminal as it was and report how strata ended, and
# terminals it cannot drive (TERM=dumb, no tty) are refused with a pointer to `eval`.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

strata_pid() { pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n 1; }

tui_start 80 24 --
tcheck "resize: started at 80x24" wait_for "Timeline"
tm resize-window -t "$S" -x 60 -y 20
tcheck "resize to 60x20: 'terminal too small' screen" wait_for "Terminal too small"
check "resize to 60x20: says what it needs" eval 'screen | grep -Fq "needs 80x24, this is 60x20"'
tm resize-window -t "$S" -x 80 -y 24
tcheck "resize back to 80x24: panes again" wait_for "Timeline"
# at 140 columns the bars widen: the memory rows end further right
budget_col() { screen | grep -m 1 ' s1  ' | sed 's/ *$//' | LC_ALL=C.UTF-8 wc -m; }
narrow=$(budget_col)
tm resize-window -t "$S" -x 140 -y 45
tcheck "resize to 140x45: adapts (memory rows reach further right)" wait_until eval '[ "$(budget_col)" -gt "$((narrow + 40))" ]'
tm resize-window -t "$S" -x 80 -y 24
wait_until eval '[ "$(budget_col)" = "$narrow" ]'

pid=$(strata_pid)
check "SIGTERM: found strata's pid" [ -n "$pid" ]
kill -TERM "$pid" 2>/dev/null
tcheck "SIGTERM: strata ends" wait_exit
check "SIGTERM: exit status 143 (128 + 15)" [ "$EXIT_RC" = 143 ]
check "SIGTERM: terminal modes restored" stty_restored
check "SIGTERM: the explorer's screen is gone" eval '! screen | grep -Fq "Strategy"'
check "SIGTERM: cursor visible" [ "$(tm display -p -t "$S" '#{cursor_flag}')" = 1 ]
check "SIGTERM: says so on stderr" grep -Fq "stopped by signal 15; terminal restored" "$T/stderr"
check "SIGTERM: no sanitizer report" no_sanitizer

tui_start 80 24 --
wait_for "Timeline"
kill -HUP "$(strata_pid)" 2>/dev/null
tcheck "SIGHUP: strata ends" wait_exit
check "SIGHUP: exit status 129, terminal restored" eval '[ "$EXIT_RC" = 129 ] && stty_restored'

tui_start 80 24 --
wait_for "Timeline"
keys C-c
tcheck "Ctrl-C: strata ends" wait_exit
check "Ctrl-C: exit status 130, terminal restored" eval '[ "$EXIT_RC" = 130 ] && stty_restored'

# an error inside the explorer (a bad file to open) is a message, not an exit
tui_start 80 24 --
wait_for "Timeline"
keys :
typed "e /dev/null"
keys Enter
tcheck "opening a bad file: message, explorer stays" wait_for "/dev/null"
check "explorer still up" eval 'screen | grep -Fq "Timeline"'
keys q
wait_exit
check "after an error: exit 0, terminal restored" eval '[ "$EXIT_RC" = 0 ] && stty_restored'

# terminals the explorer refuses
tui_start 80 24 TERM=dumb --
tcheck "TERM=dumb: refused" wait_exit
check "TERM=dumb: exit status 2" [ "$EXIT_RC" = 2 ]
check "TERM=dumb: says why and points to strata eval" eval 'grep -Fq "TERM=dumb" "$T/stderr" && grep -Fq "strata eval" "$T/stderr"'
check "TERM=dumb: terminal untouched" stty_restored

st </dev/null
expect_rc "no terminal (stdin/stdout not a tty): exit 2" 2
err_has "no terminal: points to strata eval" "strata eval"
err_has "no terminal: says why" "not a terminal"
check "no terminal: nothing on stdout" [ ! -s "$OUT" ]
st nonexistent-plan.yaml
expect_rc "no terminal with a plan: still refused (2)" 2
