#!/usr/bin/env bash
# Keys in the explorer: stepping tp re-plans (memory and time change at once), a typed
# invalid value shows the core's reason and keeps the last valid result, pin, undo, the
# help screen lists every key of the key table, the debug line, pickers, themes.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

# the memory bar of stage 0 (the first " s0 " row), the step time, a knob's value
stage0() { screen | grep -o ' s0  .*' | head -n 1; }
steptime() { screen | grep -Eo 'Step [0-9.]+ m?s' | head -n 1; }
knob() { screen | sed -n "s/.*[ *●]$1  *\([^ |│]*\)[|│].*/\1/p" | head -n 1; }

tui_start 80 24 --
tcheck "keys: started" wait_for "Timeline"
mem0=$(stage0)
time0=$(steptime)
keys j l
tcheck "l on tp: tp 8 -> 16" wait_for "tp 8 → 16"
mem1=$(stage0)
time1=$(steptime)
check "l on tp: the knob shows 16 and dp 8" eval '[ "$(knob tp)" = 16 ] && [ "$(knob dp)" = 8 ]'
check "l on tp: stage 0 memory changed ($mem0 -> $mem1)" [ "$mem0" != "$mem1" ]
check "l on tp: step time changed ($time0 -> $time1)" [ "$time0" != "$time1" ]
keys u
tcheck "u: undone" wait_for "undone"
check "u: memory back to the start" [ "$(stage0)" = "$mem0" ]
check "u: tp back to 8" [ "$(knob tp)" = 8 ]

# a typed value the core rejects: reason on the message line, last valid result kept
keys G k k k k k k
typed "2"
keys Enter
tcheck "typed gbs=2: the core's reason" wait_for "invalid: global_batch=2 is not divisible by dp*micro_batch"
check "typed gbs=2: knobs marked invalid" eval 'screen | grep -Fq "Strategy INVALID"'
check "typed gbs=2: panes keep the last valid result" eval 'screen | grep -Fq "(last valid)" && [ "$(stage0)" = "$mem0" ]'
keys u
tcheck "u after invalid: valid again" wait_gone "INVALID"

# :set through the command line, an invalid one, and the pin
typed ":set tp=6"
keys Enter
tcheck ":set tp=6: reason from the core" wait_for "invalid: dp*tp*pp*cp"
keys u
wait_gone "INVALID"
# :set framework: the header names a non-default framework, and drops it again on undo
typed ":set framework=torchtitan"
keys Enter
tcheck ":set framework=torchtitan: the header says torchtitan" wait_for "torchtitan"
keys u
tcheck "u: back to the default framework, the header drops it" wait_gone "torchtitan"
keys g j j p
tcheck "p: pins tp" wait_for "pinned tp=8"
check "p: pin marker on the tp row" eval 'screen | grep -Fq "● tp "'
keys l
tcheck "l on a pinned knob: refused" wait_for "tp is pinned"
keys p
tcheck "p again: unpinned" wait_for "unpinned tp=8"

# help: every key of the table (names taken from src/tui/keys.c)
keys "?"
tcheck "?: help screen" wait_for "strata keys"
help=$(screen)
# more bindings than rows at 80x24: scroll to the end and read that page too
for _ in $(seq 20); do keys j; done
tcheck "?: j scrolls to the commands of the help" wait_for "search table: j/k move"
help="$help
$(screen)"
missing=""
while IFS= read -r names; do
    grep -Fq -- "$names" <<<"$help" || missing="$missing [$names]"
done < <(sed -n 's/.*, "\([^"]*\)", ACT_[A-Z]*, ".*/\1/p' "$ROOT/src/tui/keys.c")
n=$(sed -n 's/.*, "\([^"]*\)", ACT_[A-Z]*, ".*/\1/p' "$ROOT/src/tui/keys.c" | wc -l)
check "?: lists all $n keys of the key table${missing:+ (missing$missing)}" [ -z "$missing" ] && [ "$n" -ge 15 ]
# the key table of docs/usage.md too: every single key of the table, as `key`
missing=""
while IFS= read -r names; do
    IFS=',' read -ra ks <<<"$names"
    for k in "${ks[@]}"; do
        k=${k# }
        grep -Fq -- "\`$k\`" "$ROOT/docs/usage.md" || missing="$missing [$k]"
    done
done < <(sed -n 's/.*, "\([^"]*\)", ACT_[A-Z]*, ".*/\1/p' "$ROOT/src/tui/keys.c")
check "docs/usage.md lists every key of the table${missing:+ (missing$missing)}" [ -z "$missing" ]
keys Escape
tcheck "help closes" wait_for " Strategy"

# debug line with the frame timer
keys D
tcheck "D: debug line with the frame timer" wait_for "median"
keys j D
tcheck "D again: gone" wait_gone "median"

# model picker and themes
keys m
tcheck "m: model presets" wait_for "Choose a model"
check "m: lists presets" eval 'screen | grep -Fq "mixtral-8x7b" && screen | grep -Fq "deepseek-v3"'
keys g Enter
tcheck "m, g, Enter: picks deepseek-v3" wait_for "DeepSeek-V3"
keys c
tcheck "c: cluster presets" wait_for "Choose a cluster"
keys Escape
wait_for " Strategy"
keys t
tcheck "t: next theme" wait_for "theme "

keys q
tcheck "q with unsaved changes: asks first" wait_for "unsaved changes"
keys q
tcheck "q twice: exits" wait_exit
check "q twice: exit 0" [ "$EXIT_RC" = 0 ]
check "keys: terminal restored" stty_restored
check "keys: no sanitizer report" no_sanitizer
