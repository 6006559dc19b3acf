#!/usr/bin/env bash
# The explorer starts on the default plan in an 80x24 terminal with every pane, draws
# UTF-8 blocks or ASCII by locale, colours or none (NO_COLOR, --no-color), and q gives
# the terminal back as it was.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

tui_start 80 24 --
if tcheck "start: the explorer draws at 80x24" wait_for "Timeline"; then
    s=$(screen)
    for pane in " strata " "Llama-3-70B" "DGX H100" " Strategy" " Allocated GiB" " Step " " Timeline 1f1b" "MFU" "HFU" "tok/s"; do
        check "start: shows '$pane'" grep -Fq -- "$pane" <<<"$s"
    done
    check "start: 24 rows used, message line at the bottom" eval 'screen | tail -n 1 | grep -Fq "? help"'
    check "start: every knob row but the last (80x24 has 16 rows for 17 knobs)" eval 'for k in devices dp tp pp vpp cp ep etp zero "micro batch" "global batch" "seq length" sp recompute schedule precision; do grep -Fq "  $k " <<<"$s" || exit 1; done'
    check "start: the knob list says one more row below, the budget is in the memory title" eval 'grep -Fq "↓1" <<<"$s" && grep -Fq "budget 75.7" <<<"$s"'
    check "start: UTF-8 blocks in a UTF-8 locale" grep -Fq "█" <<<"$s"
    check "start: timeline draws F and B blocks and idle time" grep -Eq ' s0  F+(·)+B' <<<"$s"
    tcheck "start: colours on a 256-colour terminal" eval 'tm capture-pane -p -e -t "$S" | grep -Eq $'"'"'\e\[[0-9;]*(38;5|48;5|3[0-7]|4[0-7])'"'"
fi
keys q
tcheck "q: exits" wait_exit
check "q: exit status 0" [ "$EXIT_RC" = 0 ]
check "q: terminal modes restored (stty)" stty_restored
check "q: the explorer's screen is gone (alternate screen left)" eval '! screen | grep -Fq "Strategy"'
check "q: cursor visible again" [ "$(tm display -p -t "$S" '#{cursor_flag}')" = 1 ]
check "q: no sanitizer report" no_sanitizer

# NO_COLOR and --no-color: attributes only, no colour escapes
no_colour_escapes() { ! tm capture-pane -p -e -t "$S" | grep -Eq $'\e\\[[0-9;]*(38;5|48;5|3[0-7]m|4[0-7]m|3[0-7];|4[0-7];)'; }
tui_start 80 24 NO_COLOR=1 --
tcheck "NO_COLOR=1: starts" wait_for "Timeline"
tcheck "NO_COLOR=1: no colour escapes" no_colour_escapes
check "NO_COLOR=1: still highlights (reverse/bold)" eval 'tm capture-pane -p -e -t "$S" | grep -Eq $'"'"'\e\[[0-9;]*(1|7)m'"'"
keys q
wait_exit
tui_start 80 24 -- --no-color
tcheck "--no-color: starts" wait_for "Timeline"
tcheck "--no-color: no colour escapes" no_colour_escapes
keys q
wait_exit

# smaller palettes: 8 colours (xterm) and 16 (xterm-16color) use basic colours only; a
# terminal without colour (vt100) gets attributes only
tui_start 80 24 TERM=xterm --
tcheck "TERM=xterm (8 colours): starts" wait_for "Timeline"
check "TERM=xterm: basic colours, no 256-colour escapes" eval 'tm capture-pane -p -e -t "$S" | grep -Eq $'"'"'\e\[[0-9;]*(3[0-7]|4[0-7])m'"'"' && ! tm capture-pane -p -e -t "$S" | grep -Eq $'"'"'(38|48);5;'"'"
keys q
wait_exit
if command -v tic >/dev/null 2>&1; then
    # a 16-colour xterm entry (ncurses-term is not always installed): compiled here
    mkdir -p "$T/terminfo"
    printf '%s\n' 'xterm-16color|xterm with 16 colours (strata test),' \
        '  colors#16, pairs#256, use=xterm,' \
        '  setaf=\E[%?%p1%{8}%<%t%p1%{30}%+%e%p1%{82}%+%;%dm,' \
        '  setab=\E[%?%p1%{8}%<%t%p1%{40}%+%e%p1%{92}%+%;%dm,' >"$T/xterm-16color.src"
    TERMINFO="$T/terminfo" tic -x "$T/xterm-16color.src" 2>/dev/null
    tui_start 80 24 TERM=xterm-16color TERMINFO="$T/terminfo" --
    tcheck "TERM=xterm-16color: starts" wait_for "Timeline"
    check "TERM=xterm-16color: bright colours, no 256-colour escapes" eval 'tm capture-pane -p -e -t "$S" | grep -Eq $'"'"'\e\[[0-9;]*(9[0-7]|10[0-7])m'"'"' && ! tm capture-pane -p -e -t "$S" | grep -Eq $'"'"'(38|48);5;'"'"
    keys q
    wait_exit
else
    skip "TERM=xterm-16color" "tic (ncurses-bin) is not installed"
fi
tui_start 80 24 TERM=vt100 --
tcheck "TERM=vt100 (no colour): starts" wait_for "Timeline"
tcheck "TERM=vt100: no colour escapes" no_colour_escapes
keys q
wait_exit
check "TERM=vt100: exit 0, terminal restored" eval '[ "$EXIT_RC" = 0 ] && stty_restored'

# ASCII fallback when the locale is not UTF-8
tui_start 80 24 LANG=C LC_ALL=C --
tcheck "LANG=C: starts" wait_for "Timeline"
s=$(screen)
check "LANG=C: ASCII bars and markers" eval 'grep -Eq "s0  P+G+" <<<"$s" && ! grep -q "█" <<<"$s"'
check "LANG=C: ASCII separators" grep -Fq " strata | default plan | Llama-3-70B" <<<"$s"
keys q
wait_exit
tui_start 80 24 -- --ascii
tcheck "--ascii: ASCII glyphs in a UTF-8 locale" wait_for " strata | "
keys q
wait_exit

# a plan from options, as `eval` takes them
tui_start 100 30 -- -m mixtral-8x7b -n 64 --tp 2 --pp 4 --ep 8 --gbs 256 --seq 4096
tcheck "options: -m mixtral-8x7b ... opens that job" wait_for "Mixtral"
check "options: 64 devices in the header" eval 'screen | grep -Fq "64×"'
check "options: ep 8" eval 'screen | grep -Eq "^   ep +8"'
check "options: 30 rows show all 17 knobs, devices first, no scroll marker" eval 's=$(screen); grep -Eq "^.  devices +64" <<<"$s" && grep -Fq "budget GiB" <<<"$s" && ! grep -Fq "↓1" <<<"$s"'
keys q
wait_exit
check "options: exit 0" [ "$EXIT_RC" = 0 ]
