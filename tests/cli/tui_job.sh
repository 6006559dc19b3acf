#!/usr/bin/env bash
# Issue 20 in the explorer: deltas on the message line after a change (item 2), the step
# pane's per-device rates and run cost (item 3), published figures beside the predictions
# (item 7), strata.current() tuning the plan on screen (item 8), and the A/B slots.
. "$(dirname "$0")/_lib.sh"
G=$ROOT/tests/golden

# batch: strata run --plan FILE gives the recipe its plan
"$STRATA" run --plan "$G/dense.yaml" lua/max_micro_batch.lua >"$T/mm.txt" 2>&1
check "run --plan: max_micro_batch tunes the plan given" grep -q "^plan Golden Llama 8B on 16 x GOLDEN-A100-80GB" "$T/mm.txt"
printf 'print(strata.current() == nil and "none" or "plan")\n' >"$T/cur.lua"
check "run without --plan: strata.current() is nil" eval '"$STRATA" run "$T/cur.lua" | grep -qx none'
"$STRATA" run --plan "$T/missing.yaml" "$T/cur.lua" >/dev/null 2>&1
check "run --plan a missing file: exit 2" [ $? = 2 ]

. "$(dirname "$0")/_tui.sh"
tui_start 100 30 -- "$G/dense.yaml" -c dgx-a100-80g --train-tokens 1T --gpu-hour-cost 2
tcheck "explorer: starts" wait_for "Timeline"
check "step pane: per-device tokens/s and model TFLOP/s" eval 'screen | grep -Eq "per device [0-9.]+k? tok/s . [0-9.]+ TFLOP/s"'
check "step pane: days, GPU-hours, cost and energy of the run" eval 'screen | grep -Eq "run [0-9.]+ days . [0-9.]+[kM]? GPU-h . \\\$[0-9.]+[kMB]? . [0-9.]+ MWh"'
keys j l
tcheck "a change: the message line gives step, MFU and peak deltas" wait_for "pt, peak"
check "a change: deltas are signed" eval 'screen | tail -n 1 | grep -Eq "step [-+][0-9.]+% \\([0-9.]+ m?s\\), MFU [-+][0-9.]+ pt, peak [-+][0-9.]+ GiB"'
keys q
wait_exit

# the plan on screen is what the recipe tunes: micro batch 1 -> the largest that fits
tui_start 100 30 -- "$G/dense.yaml"
tcheck "lua: explorer starts" wait_for "Timeline"
keys :
typed "lua lua/max_micro_batch.lua"
keys Enter
tcheck "lua max_micro_batch: its plan becomes the current one" wait_for "its plan is now the current one"
check "lua max_micro_batch: still the plan's model and 16 devices" eval 'screen | grep -q "Golden Llama 8B" && screen | grep -Fq "16×"'
check "lua max_micro_batch: the micro batch grew" eval '! screen | grep -Eq "micro batch +1│"'
keys q
keys n 2>/dev/null
wait_exit

# expect: published figures beside the predictions
case=$(ls "$ROOT"/tests/validation/public/dlperf_v100_2D_4x8x1_32_2304x24.yaml)
tui_start 100 30 -- "$case"
tcheck "expect: explorer starts" wait_for "Timeline"
check "expect: the step pane shows the published step time beside the model's" eval 'screen | grep -Eq "step time +[0-9.]+ s published . model [-+][0-9.]+%"'
keys q
wait_exit

# A/B slots: keep a plan, change the current one, compare component by component
tui_start 100 40 -- "$G/dense.yaml"
tcheck "slots: explorer starts" wait_for "Timeline"
keys C
tcheck "slots: C with nothing kept says how to keep one" wait_for "a keeps the current plan in A"
keys a
tcheck "slots: a keeps the plan in A" wait_for "devices, dp 4 tp 2 pp 2"
keys j l
wait_for "pt, peak"
keys C
tcheck "slots: C shows A against the current plan" wait_for "A against the current plan"
check "slots: the time parts, step and memory per stage side by side" eval 's=$(screen); for r in compute step MFU "peak memory" activations "stage 1"; do grep -Eq "^ *$r +[0-9]" <<<"$s" || exit 1; done'
check "slots: both columns and the difference" eval 'screen | grep -Eq "^ +A +B +B - A +B / A" && screen | grep -q "B = current on 16"'
keys q
keys q q
wait_exit

# the search table's "vs cur" column: each candidate's tokens/s against the plan on screen
tui_start 120 30 -- "$G/dense.yaml"
tcheck "vs cur: explorer starts" wait_for "Timeline"
keys s
tcheck "vs cur: the search table has the column" wait_for "vs cur"
check "vs cur: 120 columns: tok/s too" eval 'screen | grep -Eq "step +MFU +tok/s +ILP +vs cur"'
check "vs cur: the best candidate is at least as fast as the plan (+N%)" eval 'screen | grep -E "^.  1" | grep -Eq "\+[0-9]+%$"'
keys Escape q
wait_exit
