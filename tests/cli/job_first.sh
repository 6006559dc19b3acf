#!/usr/bin/env bash
# Job first (issue 20 item 1): a command line that names a job but no strategy starts from
# the best plan the search finds; strategy options keep today's meaning (the default
# strategy with those keys changed); --pin constrains the search.
. "$(dirname "$0")/_lib.sh"

"$STRATA" eval -m llama3-8b -n 8 --json >"$T/8b.json" 2>"$T/8b.err"
check "eval -m llama3-8b -n 8: a fitting plan (exit 0)" [ $? = 0 ]
check "eval -m llama3-8b -n 8: says it searched" grep -Eq "no strategy given: best of [0-9,]+ fitting plans?, found in [0-9]+ ms" "$T/8b.err"
check "eval -m llama3-8b -n 8: the plan uses the 8 devices and fits" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); s = d["strategy"]
sys.exit(not (d["memory"]["fits"] and s["dp"] * s["tp"] * s["pp"] * s["cp"] == 8))' "$T/8b.json"

"$STRATA" eval -m deepseek-v3 -c h800 -n 2048 --json >"$T/ds.json" 2>"$T/ds.err"
check "eval -m deepseek-v3 -c h800 -n 2048: fits (exit 0)" [ $? = 0 ]
check "eval -m deepseek-v3 -c h800 -n 2048: peak under the 80 GB device" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not d["memory"]["peak_gib"] < 80)' "$T/ds.json"

# the search's best is what eval prints: the same plan as search --top 1's row
"$STRATA" search -m llama3-8b -n 8 --top 1 --json >"$T/s.json" 2>/dev/null
check "eval's plan is search's best" python3 -c '
import json, sys; a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))[0]
sys.exit(a["time"]["step_s"] > b["time"]["step_s"] * (1 + 1e-9))' "$T/8b.json" "$T/s.json"

# --pin constrains the search
"$STRATA" eval -m llama3-8b -n 8 --pin tp=2 --json >"$T/pin.json" 2>/dev/null
check "eval --pin tp=2: the plan has tp 2" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["strategy"]["tp"] != 2)' "$T/pin.json"

# a strategy option: no search, the default strategy with the option changed
"$STRATA" eval -m llama3-8b -n 8 --tp 8 --pp 1 --json >"$T/tp.json" 2>"$T/tp.err"
check "eval --tp 8 --pp 1: no search" eval '! grep -q "no strategy given" "$T/tp.err"'
check "eval --tp 8 --pp 1: tp 8 as given" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["strategy"]["tp"] != 8)' "$T/tp.json"

# a plan file keeps its strategy; no options at all keep the embedded default plan
"$STRATA" eval "$ROOT/tests/golden/dense.yaml" >/dev/null 2>"$T/f.err"
check "eval PLAN.yaml: no search" eval '! grep -q "no strategy given" "$T/f.err"'
"$STRATA" eval >/dev/null 2>"$T/d.err"
check "eval (the default plan): no search" eval '! grep -q "no strategy given" "$T/d.err"'

# no plan fits: exit 1 and why
"$STRATA" eval -m llama3-405b -n 8 >/dev/null 2>"$T/big.err"
check "eval -m llama3-405b -n 8: exit 1" [ $? = 1 ]
check "eval -m llama3-405b -n 8: says nothing fits" grep -q "no plan for this job: no strategy fits" "$T/big.err"

# export: the best plan the target framework runs
"$STRATA" export -m llama3-8b -n 16 --to torchtitan >"$T/tt.toml" 2>"$T/tt.err"
check "export -m llama3-8b -n 16 --to torchtitan: exit 0" [ $? = 0 ]
check "export: says it searched" grep -q "no strategy given: best of" "$T/tt.err"
check "export: a torchtitan config" grep -q "data_parallel_shard_degree\|\[parallelism\]" "$T/tt.toml"

# the explorer opens on the best plan and says so
. "$(dirname "$0")/_tui.sh"
tui_start 100 30 -- -m deepseek-v3 -c h800 -n 2048
tcheck "explorer -m deepseek-v3 -c h800 -n 2048: says the plan was searched" wait_for "press s for the list"
check "explorer: no INVALID plan" eval '! screen | grep -q INVALID'
keys q
wait_exit
