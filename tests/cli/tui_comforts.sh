#!/usr/bin/env bash
# The explorer's comforts (issue 21, items 5 and 6), through the real binary in tmux:
# ":" history (Up) and Tab completion (commands, keys, themes, file paths); type to filter
# in the pickers; `y` copies the strategy through OSC 52 (tmux with set-clipboard on takes
# it into its paste buffer); the theme and the timeline zoom are remembered in
# $XDG_CONFIG_HOME/strata/config.yaml, and a malformed config is a warning, not a failed
# start; the help scrolls with a position marker and ends with a glossary of every knob and
# pane; the ASCII memory letters differ from the timeline's (F B W).
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

last_line() { screen | grep -v '^$' | tail -n 1; }

tui_start 80 24 --
tcheck "comforts: started" wait_for "Timeline"

# --- ":" history
typed ":set tp=4"
keys Enter
wait_for "tp 8 → 4"
typed ":"
keys Up
tcheck ": then Up: the last command line again" wait_for ":set tp=4"
keys Escape
typed ":set zero=2"
keys Enter
wait_for "zero 1 → 2"
typed ":"
keys Up Up
tcheck "Up twice: the one before" wait_for ":set tp=4"
keys Down
tcheck "Down: the newer one" wait_for ":set zero=2"
keys Escape

# --- Tab completion
typed ":mess"
keys Tab
tcheck "Tab completes a command" wait_for ":messages"
keys Escape
typed ":set sched"
keys Tab
tcheck "Tab completes a key with its =" wait_for ":set schedule="
keys Escape
typed ":theme li"
keys Tab
tcheck "Tab completes a theme" wait_for ":theme light"
keys Escape
typed ":e tests/golden/moe.y"
keys Tab
tcheck "Tab completes a file path" wait_for ":e tests/golden/moe.yaml"
keys Escape
typed ":e tests/gold"
keys Tab
tcheck "Tab completes a directory with its /" wait_for ":e tests/golden/"
keys Escape
typed ":set e"
wait_until eval 'last_line | grep -q ":set e"'
keys Tab
wait_until eval 'last_line | grep -Eq ":set e[a-z_]*"'
keys Tab
tcheck "Tab on several matches: the common prefix, then Tab steps through them" \
    wait_until eval 'last_line | grep -Eq ":set e[a-z_]+="'
keys Escape

# --- type to filter in the pickers
keys m
tcheck "m: the model picker says it filters" wait_for "type to filter"
typed "mixtral"
tcheck "typing filters the list" wait_for "/mixtral ("
check "the filtered list has only matches" eval '! screen | sed -n "2,\$p" | grep -v "^\$" | grep -viq mixtral'
keys Enter
tcheck "Enter picks the match" wait_for "Mixtral"
keys c
wait_for "Choose a cluster"
typed "/"
typed "zzzz"
tcheck "a filter with no match says so" wait_for "nothing contains 'zzzz'"
keys Escape
tcheck "Esc clears the filter" wait_for "type to filter"
keys Escape
wait_for "Timeline"

# --- OSC 52 copy
tm set -s set-clipboard on
keys y
tcheck "y: says what it copied" wait_for "copied the strategy"
check "y: the strategy reached the terminal's clipboard (tmux's buffer)" \
    wait_until eval 'tm show-buffer 2>/dev/null | grep -q "tp=4 .*zero=2"'

# --- remembered preferences
keys t
wait_for "theme "
check "t: the theme is written to the config" grep -q '^theme: "' "$T/xdg/strata/config.yaml"
theme=$(sed -n 's/^theme: "\(.*\)"/\1/p' "$T/xdg/strata/config.yaml")
keys z
wait_for "timeline: the whole step"
check "z: the zoom is written to the config" grep -q '^zoom: true' "$T/xdg/strata/config.yaml"
check "config: no temporary file left" [ "$(ls -A "$T/xdg/strata")" = config.yaml ]
typed ":q!"
keys Enter
wait_exit

tui_start 80 24 --
wait_for "Timeline"
tcheck "restart: the remembered zoom" wait_for "micro-batches ·"
check "restart: whole step shown (no (z) hint)" eval '! screen | grep -Fq "micro-batches (z)"'
keys q
wait_exit
tui_start 200 30 --
wait_for "Timeline"
keys D
tcheck "restart: the remembered theme ($theme)" wait_for "theme $theme"
keys q
wait_exit
tui_start 200 30 -- --theme dark
wait_for "Timeline"
keys D
tcheck "--theme wins over the remembered theme" wait_for "theme dark"
keys q
wait_exit

printf 'theme: [unclosed\n' >"$T/xdg/strata/config.yaml"
tui_start 80 24 --
tcheck "malformed config: starts anyway" wait_for "Timeline"
tcheck "malformed config: a warning" wait_for "config ignored"
keys q
wait_exit
check "malformed config: exit 0" [ "$EXIT_RC" = 0 ]
printf 'colour: red\n' >"$T/xdg/strata/config.yaml"
tui_start 80 24 --
tcheck "unknown config key: a warning naming it" wait_for "unknown key 'colour'"
keys q
wait_exit
rm -f "$T/xdg/strata/config.yaml"

# --- the help: position marker, scrolling, glossary
tui_start 80 24 NO_COLOR=1 -- --ascii
wait_for "Timeline"
keys "?"
tcheck "?: a position marker" wait_for "lines 1-23 of"
tcheck "?: at the top" wait_for "(top)"
keys Space
tcheck "Space: a page down" wait_for "lines 22-"
keys G
tcheck "G: the end" wait_for "(end)"
tcheck "the glossary explains the panes" wait_for "glossary: panes"
tcheck "the glossary explains the timeline letters" wait_for "F forward, B backward, W weight gradients"
keys g
for _ in $(seq 29); do keys j; done
tcheck "the glossary explains the knobs" wait_for "glossary: knobs"
tcheck "a knob's meaning" wait_for "tensor parallel: each layer's matrices"
keys q
wait_for "Timeline"

# --- ASCII: distinct letters for distinct things
tcheck "ASCII memory legend: P params ... C comm" wait_for "P params G grads"
mem=$(screen | grep -o '| s0  [^|]*' | head -n 1)
check "ASCII memory bars use P G O A C, not the timeline's B or W" eval '[[ "$mem" == *P* ]] && [[ "$mem" != *B* ]] && [[ "$mem" != *W* ]]'
keys q
wait_exit
check "comforts: no sanitizer report" no_sanitizer
