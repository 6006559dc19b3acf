#!/usr/bin/env bash
# Saving and loading plans from the explorer: `w` asks for a name on the default plan,
# writes atomically (no temporary file left), `strata eval` loads the file and agrees with
# the same strategy given as options; the saved plan reopens in the explorer; `:w FILE`,
# pins in the file, `o` to open, and a failed save that says why.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

mkdir -p "$T/plans"
tui_start 80 24 --
tcheck "save: started" wait_for "Timeline"
keys j l
wait_for "tp 8 → 16"
keys w
tcheck "w on the default plan: asks for a file name" wait_for "save plan as: plan.yaml"
keys C-u
typed "$T/plans/saved.yaml"
keys Enter
tcheck "w: saved" wait_for "saved $T/plans/saved.yaml"
check "w: the file exists" [ -s "$T/plans/saved.yaml" ]
check "w: no temporary file left beside it" [ "$(ls -A "$T/plans")" = "saved.yaml" ]
check "w: the header no longer says [+]" eval '! screen | head -n 1 | grep -Fq "[+]"'

st eval "$T/plans/saved.yaml" --json
expect_rc "eval of the saved plan: exit 0" 0
cp "$OUT" "$T/saved.json"
st eval --tp 16 --json
check "eval of the saved plan = eval --tp 16 (same JSON)" cmp -s "$OUT" "$T/saved.json"

# pin, then :w with no name writes back to the same file
keys p
wait_for "pinned"
typed ":w"
keys Enter
tcheck ":w: saved to the plan's file" wait_for "saved $T/plans/saved.yaml"
check ":w: the pin is in the file" grep -Fq '"tp=16"' "$T/plans/saved.yaml"
typed ":w $T/plans/other.yaml"
keys Enter
tcheck ":w FILE: saved" wait_for "saved $T/plans/other.yaml"
typed ":w /nonexistent-dir/x.yaml"
keys Enter
tcheck ":w into a missing directory: not saved, says why" wait_for "not saved: /nonexistent-dir/x.yaml"
keys q
tcheck "save: q exits" wait_exit
check "save: exit 0" [ "$EXIT_RC" = 0 ]

# reopen the saved plan in the explorer
tui_start 80 24 -- "$T/plans/saved.yaml"
tcheck "reopen: the header names the file" wait_for "saved.yaml"
check "reopen: tp 16 with its pin" eval 'screen | grep -Eq "● tp +16"'
check "reopen: dp 8" eval 'screen | grep -Eq " dp +8"'
keys o
tcheck "o: asks for a plan" wait_for "open plan:"
typed "tests/golden/moe.yaml"
keys Enter
tcheck "o: opens it" wait_for "opened tests/golden/moe.yaml"
check "o: the job changed" eval 'screen | head -n 1 | grep -Fq "Golden Mixtral"'
keys o
typed "no/such/plan.yaml"
keys Enter
tcheck "o with a missing file: the error names it" wait_for "no/such/plan.yaml"
keys q
wait_exit
check "reopen: exit 0" [ "$EXIT_RC" = 0 ]
check "save: no sanitizer report" no_sanitizer
