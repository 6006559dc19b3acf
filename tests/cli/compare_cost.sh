#!/usr/bin/env bash
# eval A --compare B (issue 20 item 2), time and cost to train (item 3) and published
# figures beside the predictions (item 7), in the table and in JSON.
. "$(dirname "$0")/_lib.sh"
G=$ROOT/tests/golden

"$STRATA" eval "$G/dense.yaml" --compare "$G/interleaved.yaml" >"$T/cmp.txt" 2>&1
check "eval --compare: exit 0" [ $? = 0 ]
check "eval --compare: both plans named" eval 'grep -q "^A .*dense.yaml" "$T/cmp.txt" && grep -q "^B .*interleaved.yaml" "$T/cmp.txt"'
for row in compute bubble step MFU tokens/s "peak memory" activations "stage 3"; do
    check "eval --compare: row '$row'" grep -q "^  *$row " "$T/cmp.txt"
done
"$STRATA" eval "$G/dense.yaml" --compare "$G/interleaved.yaml" --json >"$T/cmp.json"
"$STRATA" eval "$G/dense.yaml" --json >"$T/a.json"
"$STRATA" eval "$G/interleaved.yaml" --json >"$T/b.json"
check "eval --compare --json: a and b are eval's objects, compare rows are b - a" python3 -c '
import json, sys
c, a, b = (json.load(open(f)) for f in sys.argv[1:4])
assert c["a"]["time"]["step_s"] == a["time"]["step_s"] and c["b"]["time"]["step_s"] == b["time"]["step_s"]
row = {r["name"]: r for r in c["compare"]}
st = row["step"]
assert abs(st["delta"] - (b["time"]["step_s"] - a["time"]["step_s"])) < 1e-6, st
pk = row["peak memory"]
assert abs(pk["b"] - b["memory"]["peak_gib"]) < 1e-6
assert row["stage 3"]["a"] is None and row["stage 3"]["b"] > 0
' "$T/cmp.json" "$T/a.json" "$T/b.json"
"$STRATA" eval "$G/dense.yaml" --compare "$T/none.yaml" >/dev/null 2>"$T/e"
check "eval --compare a missing file: exit 2" [ $? = 2 ]
"$STRATA" eval "$G/dense.yaml" --compare >/dev/null 2>"$T/e"
rc=$?
check "eval --compare without a file: exit 2 and says so" eval '[ $rc = 2 ] && grep -q "needs a plan file" "$T/e"'

# cost: 15T tokens at $2.50 per GPU-hour on 64 H100s
"$STRATA" eval -m llama3-8b -c dgx-h100 -n 64 --tp 2 --pp 1 --gbs 256 --train-tokens 15T --gpu-hour-cost 2.5 \
    --json >"$T/c.json"
check "cost: days, GPU-hours, USD and MWh from throughput, devices, price and node power" python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); c = d["cost"]; tps = d["throughput"]["tokens_per_s"]
sec = 15e12 / tps
assert abs(c["days"] - sec / 86400) < 1e-6 * c["days"], c
assert abs(c["gpu_hours"] - 64 * sec / 3600) < 1e-6 * c["gpu_hours"]
assert abs(c["usd"] - 2.5 * c["gpu_hours"]) < 1e-6 * c["usd"]
assert c["watts_per_device"] == 10200 / 8 and c["power_basis"] == "node"
assert abs(c["mwh"] - 64 * 1275 * sec / 3.6e9) < 1e-6 * c["mwh"]
t = d["throughput"]
assert abs(t["tokens_per_s_per_device"] - tps / 64) < 1e-6 * tps
' "$T/c.json"
"$STRATA" eval -m llama3-8b -c dgx-h100 -n 64 --tp 2 --pp 1 --gbs 256 --train-tokens 15T --gpu-hour-cost 2.5 >"$T/c.txt"
check "cost: the table has the run line" grep -Eq "^run of 15T tokens: [0-9.]+ days, [0-9,]+ GPU-hours, \\\$[0-9,]+ at \\\$2.5/GPU-hour, [0-9.]+ MWh" "$T/c.txt"
check "cost: the table has per-device rates" grep -Eq "^per device [0-9.]+k tokens/s, [0-9.]+ model TFLOP/s" "$T/c.txt"
"$STRATA" eval -m llama3-8b -c h800 -n 64 --tp 2 --pp 1 --gbs 256 --train-tokens 1e12 --json >"$T/h8.json"
check "cost: without a price usd is null; h800 has device power only" python3 -c '
import json, sys; c = json.load(open(sys.argv[1]))["cost"]
assert c["usd"] is None and c["power_basis"] == "device" and c["watts_per_device"] == 700' "$T/h8.json"
"$STRATA" eval --train-tokens 15X >/dev/null 2>"$T/e"
rc=$?
check "--train-tokens 15X: exit 2, says what it takes" eval '[ $rc = 2 ] && grep -q "positive token count" "$T/e"'
"$STRATA" eval --gpu-hour-cost -1 >/dev/null 2>"$T/e"
check "--gpu-hour-cost -1: exit 2" [ $? = 2 ]
printf 'model: llama3-8b\ncluster: dgx-h100\ndevices: 64\ntrain_tokens: 2T\ngpu_hour_cost: 3\nstrategy: {tp: 2, pp: 1, global_batch: 256}\n' >"$T/run.yaml"
"$STRATA" eval "$T/run.yaml" --json >"$T/run.json"
check "cost: train_tokens and gpu_hour_cost in a plan file" python3 -c '
import json, sys; c = json.load(open(sys.argv[1]))["cost"]; assert c["train_tokens"] == 2e12 and c["usd_per_gpu_hour"] == 3' "$T/run.json"

# expect: published beside predicted
case=$(ls "$ROOT"/tests/validation/public/*.yaml | head -1)
"$STRATA" eval "$case" >"$T/x.txt" 2>/dev/null
check "expect: eval shows published vs predicted" grep -q "^published vs predicted" "$T/x.txt"
check "expect: the step time row" grep -Eq "^  step time +[0-9.e+]+ +[0-9.e+]+ +[-+][0-9.]+%" "$T/x.txt"
"$STRATA" eval "$case" --json >"$T/x.json" 2>/dev/null
check "expect: JSON expect[] with published, predicted, error" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); e = {r["figure"]: r for r in d["expect"]}
st = e["step time"]; assert st["predicted"] == d["time"]["step_s"]
assert abs(st["error"] - (st["predicted"] / st["published"] - 1)) < 1e-9' "$T/x.json"
