#!/usr/bin/env bash
# The explorer's background work: `i` (bubble ILP: progress, the refined plan in the panes,
# keep or discard), `s` (search: table, Enter applies), `e` (export: the same file as
# `strata export`), `L` / `:lua` (a recipe's plan becomes current; errors give file:line),
# Esc cancelling a long run, and quit or SIGTERM while a worker runs.
#
# ILP and search runs take milliseconds, too quick to see their progress or to cancel
# them. The test hook STRATA_TEST_JOB_DELAY_MS=N (src/tui/job.h) makes every background
# job wait N ms, cancellably, before it starts its work.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

strata_pid() { pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n 1; }
knob() { screen | sed -n "s/.*[ *●]$1  *\([^ |│]*\)[|│].*/\1/p" | head -n 1; }
# layers per stage as the memory pane shows them ("20 21 20 19"), empty when not shown
layers() { screen | sed -n 's/.* s[0-9]\+ .*│ *\([0-9]\+\)L .*/\1/p' | tr '\n' ' ' | sed 's/ $//'; }
lastline() { screen | sed '/^$/d' | tail -n 1; }

mkdir -p "$T/out"
cd "$T/out" || exit 2

# ---- i: progress, result, keep ------------------------------------------------------------
tui_start 80 24 STRATA_TEST_JOB_DELAY_MS=1500 --
tcheck "ilp: started" wait_for "Timeline"
check "ilp: the even split shows no layer column" [ -z "$(layers)" ]
rc0=$(knob recompute)
keys i
tcheck "i: progress on the message line while it runs" wait_for "ILP running"
check "i: the progress line says Esc cancels" eval 'screen | grep -Fq "Esc cancels"'
keys l
tcheck "i: keys that change the plan wait while it runs" wait_for "busy: the ILP is running"
keys j
tcheck "i: moving between knobs still works" wait_until eval 'screen | grep -Eq "▸ +tp "'
tcheck "i: the result: optimal, speedup over the even split" wait_for "ILP optimal, 1."
check "i: how to keep or discard it" eval 'screen | grep -Fq "Enter/y keeps, n/Esc discards"'
check "i: memory pane titled as the ILP plan, with layers per stage" eval 'screen | grep -Fq "ILP allocated GiB" && [ -n "$(layers)" ]'
check "i: time pane: the idle split and the even split" eval 'screen | grep -Fq "prep idle" && screen | grep -Eq "ILP step .* even .* [0-9.]+x"'
trial=$(layers)
sum=0
for l in $trial; do sum=$((sum + l)); done
check "i: the stages hold all 80 layers ($trial)" [ "$sum" = 80 ]
keys Enter
tcheck "Enter: keeps the ILP plan" wait_for "kept the ILP plan"
check "Enter: the memory pane keeps the refined layers ($(layers))" [ "$(layers)" = "$trial" ]
check "Enter: the recompute knob follows the ILP ($rc0 -> $(knob recompute))" [ "$(knob recompute)" != "$rc0" ]
typed ":w $T/out/ilp.yaml"
keys Enter
tcheck ":w after keeping: saved" wait_for "saved $T/out/ilp.yaml"
check "the saved plan carries the stage split" grep -Eq '^ *stage_layers:|stage_layers' "$T/out/ilp.yaml"

# ---- e: export, compared with strata export ----------------------------------------------
keys e
tcheck "e: asks for the target" wait_for "export for (m)egatron"
keys m
tcheck "e m: offers the default file name" wait_for "export megatron to: plan-ilp.megatron.sh"
keys Enter
tcheck "e m Enter: exported" wait_for "exported plan-ilp.megatron.sh for megatron"
st export "$T/out/ilp.yaml" --to megatron -o "$T/out/cli.megatron.sh"
expect_rc "strata export of the saved plan: exit 0" 0
check "e writes what strata export writes (uneven split included)" cmp -s "$T/out/plan-ilp.megatron.sh" "$T/out/cli.megatron.sh"
# an uneven ILP split is exported as Megatron's first/last stage layers (or its layout); an
# even one (the default plan's optimum trades selective recompute for none) as no such flag
if [ "$(echo $trial | tr ' ' '\n' | sort -u | wc -l)" -gt 1 ]; then
    check "the export has the ILP's first/last stage layers ($trial)" grep -Eq -- '--decoder-(first|last)-pipeline-num-layers|--pipeline-model-parallel-layout' "$T/out/plan-ilp.megatron.sh"
else
    check "the export of the ILP's even split ($trial) has no uneven-split flag" eval '! grep -Eq -- "--decoder-(first|last)-pipeline-num-layers|--pipeline-model-parallel-layout" "$T/out/plan-ilp.megatron.sh"'
fi
typed ":export torchtitan $T/out/tt.toml"
keys Enter
tcheck ":export torchtitan of a plan priced as Megatron-LM: refused" wait_for "not exported (:export! torchtitan"
typed ":export! torchtitan $T/out/tt.toml"
keys Enter
tcheck ":export! torchtitan FILE: exported" wait_for "exported $T/out/tt.toml"
st export "$T/out/ilp.yaml" --to torchtitan -o "$T/out/cli.toml" --approximate
check ":export! torchtitan = strata export --to torchtitan --approximate (the run line names each file)" \
    eval 'sed "s|'"'$T/out/tt.toml'"'|FILE|" "$T/out/tt.toml" | cmp -s - <(sed "s|'"'$T/out/cli.toml'"'|FILE|" "$T/out/cli.toml")'

# ---- undo, discard ----------------------------------------------------------------------
keys u
tcheck "u: back to the even split" wait_until eval '[ -z "$(layers)" ]'
keys i
tcheck "i again: a result" wait_for "ILP optimal"
keys n
tcheck "n: discarded" wait_for "ILP plan discarded"
check "n: the even split again" [ -z "$(layers)" ]

# ---- Esc cancels a long run ----------------------------------------------------------------
tui_start 80 24 STRATA_TEST_JOB_DELAY_MS=60000 --
wait_for "Timeline"
keys i
tcheck "long ILP: running" wait_for "ILP running"
sleep 0.3
t0=$SECONDS
keys Escape
tcheck "Esc: the ILP is cancelled" wait_for "ILP cancelled"
check "Esc: cancelled within 2 s" [ $((SECONDS - t0)) -le 2 ]
check "Esc: the plan is unchanged" [ -z "$(layers)" ]
keys s
tcheck "long search: progress" wait_for "search running"
keys Escape
tcheck "Esc: the search is cancelled" wait_for "search cancelled"
keys i
wait_for "ILP running"
t0=$SECONDS
keys q
tcheck "q while the ILP runs: strata ends" wait_exit
check "q while running: exit 0 within 2 s, terminal restored" eval '[ "$EXIT_RC" = 0 ] && [ $((SECONDS - t0)) -le 2 ] && stty_restored'
check "q while running: no sanitizer report" no_sanitizer

tui_start 80 24 STRATA_TEST_JOB_DELAY_MS=60000 --
wait_for "Timeline"
keys s
wait_for "search running"
kill -TERM "$(strata_pid)" 2>/dev/null
tcheck "SIGTERM while the search runs: strata ends" wait_exit
check "SIGTERM while running: exit 143, terminal restored" eval '[ "$EXIT_RC" = 143 ] && stty_restored'
check "SIGTERM while running: cursor visible, screen gone" eval '[ "$(tm display -p -t "$S" "#{cursor_flag}")" = 1 ] && ! screen | grep -Fq Strategy'
check "SIGTERM while running: no sanitizer report" no_sanitizer

# ---- s: the candidates table, Enter applies ------------------------------------------------
tui_start 80 24 --
wait_for "Timeline"
tp0=$(knob tp)
keys s
tcheck "s: the candidates table" wait_for " Search "
check "s: columns strategy, alloc (GiB allocated), step, MFU, ILP, vs cur (80 columns: no tok/s)" eval 'screen | grep -Eq "strategy +alloc +step +MFU +ILP +vs cur"'
check "s: 80 columns: no strategy is cut (short words: v, m, intl)" eval '! screen | sed -n "3,12p" | grep -Eq " (m|mb|mbs|i|in|int|inte|inter|interl|1f|1f1|zb|zb-|zb-h|dual|dualp) +[0-9]+\.[0-9] "'
check "s: the rate of the outer level" eval 'screen | grep -Eq "strategies \([0-9.]+[kMG]?/s\)"'
# a row: the rank, ! when unvalidated, +N when strategies with identical results are merged
check "s: candidates ranked, the first one selected" eval 'screen | grep -Eq "▸ +1[! ][+0-9 ]{2} dp" && screen | grep -Eq "^ +2[! ][+0-9 ]{2} dp"'
check "s: under the list, the selected candidate against the plan, part by part, and its marks" \
    eval 'screen | grep -Eq "^ #1 vs the plan: step [0-9.]+ s" && screen | grep -Eq "^ compute [-+]" && screen | grep -Eq "^ (! unvalidated: |validated regimes)"'
keys j
tcheck "j: the second row selected" wait_until eval 'screen | grep -Eq "▸ +2[! ][+0-9 ]{2} dp" && screen | grep -Eq "^ #2 vs the plan: "'
keys k Enter
tcheck "Enter: candidate #1 applied" wait_for "applied candidate #1"
check "Enter: the knobs changed (tp $tp0 -> $(knob tp))" [ "$(knob tp)" != "$tp0" ]
keys u
tcheck "u: the candidate undone" wait_until eval '[ "$(knob tp)" = "$tp0" ]'
# pins are kept: pin tp, search, apply
keys g j j p
wait_for "pinned tp=8"
keys s
wait_for " Search "
check "s with tp pinned: the title names the pin, every row has tp8" eval 'screen | grep -Fq "pins kept: tp=8" && ! screen | grep -E "^.? +[0-9]+[! ][+0-9 ]{2} dp" | grep -v " tp8 " | grep -q .'
keys Enter
tcheck "Enter with a pin: applied" wait_for "applied candidate #1"
check "the pinned tp stays 8" eval '[ "$(knob tp)" = 8 ] && screen | grep -Eq "● tp +8"'

# ---- L and :lua ------------------------------------------------------------------------------
tui_start 80 24 --
wait_for "Timeline"
keys L
tcheck "L: the recipes of lua/" wait_for "Choose a Lua recipe"
check "L: lists vlm with its summary" eval 'screen | grep -Eq "vlm +a vision-language model"'
keys G k Enter
tcheck "L vlm: its plan is now the current one" wait_for "its plan is now the current one"
check "L vlm: the header shows the recipe's model" eval 'screen | head -n 1 | grep -Fq "vlm-8b-vitl"'
keys u
tcheck "u: the recipe's plan undone" wait_for "Llama-3-70B"
printf 'local x = 1\nlocal function f()\n  error("boom in the recipe")\nend\nf()\n' >"$T/out/bad.lua"
typed ":lua $T/out/bad.lua"
keys Enter
tcheck "a failing recipe: file:line on the message line" wait_for "bad.lua:3: boom in the recipe"
check "a failing recipe: the explorer is unharmed" eval 'screen | grep -Fq "Timeline" && screen | head -n 1 | grep -Fq "Llama-3-70B"'
keys O
tcheck "O: the traceback" wait_for "stack traceback"
keys Escape
printf 'while true do end\n' >"$T/out/loop.lua"
typed ":lua $T/out/loop.lua"
keys Enter
tcheck "an endless loop: stopped by the sandbox's budget" wait_for "instruction budget"
check "after the runaway script: the explorer still answers" eval 'keys j; wait_for "Timeline"'
keys q q
tcheck "lua: q q exits (the plan was changed)" wait_exit
check "lua: exit 0, terminal restored, no sanitizer report" eval '[ "$EXIT_RC" = 0 ] && stty_restored && no_sanitizer'
