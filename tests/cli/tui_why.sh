#!/usr/bin/env bash
# The explorer's views of issue 20 items 4-6: W (why is it slow, placement) at 80x24 and
# the why pane at 200x60, per-stage numbers in the memory pane and taller timeline lanes
# when there is room, S (the sweep view: knob, metric, Enter applies), and the search
# table's sort (o/O), filter (/), merge (=) and preview (v) before Enter applies.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

knob() { screen | sed -n "s/.*[ *●]$1  *\([^ |│]*\)[|│].*/\1/p" | head -n 1; }

# ---- 80x24: W, S ----------------------------------------------------------------------------
tui_start 80 24 -- --tp 16 --pp 2
wait_for "Timeline"
check "80x24: no why pane (it has no room)" eval '! screen | grep -Fq "Why is it slow"'
keys W
tcheck "W: the why view" wait_for "Why is it slow"
check "W: tp 16 spans 2 nodes, with the change and its measured gain" \
    eval 'screen | grep -Fq "tp 16 spans 2 nodes: TP all-reduce on the network" && screen | grep -Eq -- "-> tp 8.*: -[0-9]+ % step"'
check "W: the placement of each group" eval 'screen | grep -Fq "TP 16 across 2 nodes" && screen | grep -Fq "PP 2 across"'
keys q
wait_gone "Why is it slow"
gbs0=$(knob "global batch")
keys S
tcheck "S: the sweep view" wait_for "Sweep · step against global_batch"
check "S: the current value marked on the x axis" eval "screen | grep -Fq '*$gbs0'"
keys m
tcheck "m: the next metric (mfu)" wait_for "Sweep · mfu against global_batch"
keys Tab
tcheck "Tab: the next knob (seq_length)" wait_for "mfu against seq_length"
keys BTab l
tcheck "l: the next point is selected" wait_for "gbs = $((gbs0 * 2)):"
keys Enter
tcheck "Enter: the point applied" wait_for "global_batch = $((gbs0 * 2)) from the sweep"
check "the knob shows the new global batch" eval "[ \"\$(knob 'global batch')\" = $((gbs0 * 2)) ]"
keys u
tcheck "u: undone" wait_until eval "[ \"\$(knob 'global batch')\" = $gbs0 ]"

# ---- the search table ------------------------------------------------------------------------
keys s
tcheck "s: the table" wait_for " Search "
check "s: more than 20 rows: G goes to a row past 20" eval 'keys G; sleep 0.3; screen | grep -Eq "▸ *([2-9][0-9]|1[0-9][0-9]|200)[! ]"'
keys g o o
tcheck "o o: sorted by alloc, marked" wait_for "alloc▲"
screen | grep -E "^.? *[0-9]+[! ][+0-9> ]{2} dp" | sed -E 's/.* ([0-9]+\.[0-9]) +[0-9.]+ m?s .*/\1/' >"$T/allocs"
check "o: the alloc column ascends ($(head -n 1 "$T/allocs") first)" eval '[ "$(wc -l <"$T/allocs")" -ge 10 ] && sort -c -n "$T/allocs"' 
keys O
tcheck "O: reversed" wait_for "alloc▼"
keys /
typed "pp=2 tp<=8"
keys Enter
tcheck "/: the filter applied, the count shown" wait_for "/pp=2 tp<=8"
check "/: every row has pp2 and tp at most 8" eval '! screen | grep -E "^.? +[0-9]+[! ][+0-9> ]{2} dp" | grep -vE " tp[1248] pp2 " | grep -q .'
keys / C-u
typed "tq=1"
keys Enter
tcheck "/: a bad filter is named" wait_for "unknown key"
keys Escape =
tcheck "=: rows with equal figures folded" wait_for "=merged"
keys v
tcheck "v: the preview in the panes" wait_for "preview of #"
check "v: the panes show the candidate (pp 2)" eval '[ "$(knob pp)" = 2 ]'
keys Escape
tcheck "Esc: back to the table" wait_for " Search "
keys Escape
tcheck "Esc: the plan as it was (pp 2, tp 16)" wait_until eval '[ "$(knob tp)" = 16 ]'
keys s
wait_for " Search "
keys v
wait_for "preview of #"
keys Enter
tcheck "Enter in the preview: applied" wait_for "applied candidate #1"

# ---- 200x60: the why pane, per-stage numbers, tall lanes --------------------------------------
tui_start 200 60 -- -m llama3-70b -n 64 --tp 16 --pp 4 --gbs 128
wait_for "Timeline"
tcheck "200x60: the why pane" wait_for " Why is it slow"
tcheck "200x60: the first loss and its fix on the next line" \
    wait_until eval 'screen | grep -Fq "1. tp 16 spans 2 nodes" && screen | grep -Eq "^ +-> tp 8, dp twice as wide: -[0-9]+ % step"'
check "200x60: the placement line" eval 'screen | grep -Fq "placement, 8 per node: TP 16 across 2 nodes"'
check "200x60: per-stage numbers in the memory pane" \
    eval 'screen | grep -Eq "s0 .* 20 layers +4\.0 in flight +W +[0-9.]+ G +[0-9.]+ O +[0-9.]+ A +[0-9.]+"'
check "200x60: timeline lanes three rows tall" eval '[ "$(screen | grep -A3 "^ Timeline" | grep -cE "^ {4,}[FB·]")" -ge 2 ]'
keys l
tcheck "a key re-evaluates: the why pane follows (dp 2)" wait_for "DP 2 "
keys q q
wait_exit
check "exit 0, terminal restored" eval '[ "$EXIT_RC" = 0 ] && stty_restored && no_sanitizer'
