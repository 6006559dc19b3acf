#!/usr/bin/env bash
# Megatron's uneven pipeline split keys and CPU offload through the command line, plan
# files, JSON and the three exporters (the default plan: Llama 3 70B, 80 layers, pp 4).
. "$(dirname "$0")/_lib.sh"

# the published layout "one layer fewer on the first and last stage": 19, 21, 21, 19
st eval --first-stage-layers 19 --last-stage-layers 19 --json
expect_rc "eval --first/last-stage-layers 19: exit 0" 0
check "split: stages hold 19 21 21 19 layers; JSON carries the keys" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); s=d["strategy"]
sys.exit(not ([x["layers"] for x in d["memory"]["stages"]] == [19, 21, 21, 19] and
 s["first_stage_layers"] == 19 and s["last_stage_layers"] == 19 and s["account_for_loss"] is False))' "$OUT"
st export --to megatron --first-stage-layers 19 --last-stage-layers 19
check "split: export --to megatron writes the two flags, nothing refused" sh -c '
grep -q -- "--decoder-first-pipeline-num-layers 19" "$1" && grep -q -- "--decoder-last-pipeline-num-layers 19" "$1" &&
! grep -q "not expressible" "$1"' _ "$OUT"
st export --to torchtitan --framework torchtitan --zero 3 --first-stage-layers 19 --last-stage-layers 19
check "split: export --to torchtitan writes the split points 19 40 61" \
    grep -q 'pipeline_parallel_split_points = \["layers.19", "layers.40", "layers.61"\]' "$OUT"
st export --to deepspeed --first-stage-layers 19 --last-stage-layers 19
expect_rc "split: export --to deepspeed refuses the counts, exit 1" 1
err_has "split: DeepSpeed's refusal names its partitioning" "deepspeed cannot give stages their own layer counts"
# with virtual stages: 18 on each end rank, 22 on the middle ones, 9 and 11 a chunk
st export --to megatron --vpp 2 --schedule interleaved --first-stage-layers 18 --last-stage-layers 18
check "split: vpp 2 exports the flags and the virtual stages" sh -c '
grep -q -- "--decoder-first-pipeline-num-layers 18" "$1" && grep -q -- "--num-virtual-stages-per-pipeline-rank 2" "$1" &&
! grep -q -- "--pipeline-model-parallel-layout" "$1"' _ "$OUT"
st eval --vpp 2 --schedule interleaved --first-stage-layers 19
expect_rc "split: 19 first-stage layers with vpp 2: invalid, exit 1" 1
err_has "split: says the vpp rule" "first_stage_layers = 19 must be divisible by vpp = 2"
# embedding and loss counted on pp 2: 82 / 2 = 41 a stage, 40 layers each
st eval --pp 2 --account-for-embedding --account-for-loss --json
check "split: account_for_embedding/loss on pp 2 gives 40 40" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(not [x["layers"] for x in d["memory"]["stages"]] == [40, 40])' "$OUT"
st export --to megatron --pp 2 --account-for-embedding --account-for-loss
check "split: the account flags are exported as Megatron's" sh -c '
grep -q -- "--account-for-embedding-in-pipeline-split" "$1" && grep -q -- "--account-for-loss-in-pipeline-split" "$1"' _ "$OUT"
st eval --account-for-embedding
expect_rc "split: 81 counted layers over pp 4: invalid, exit 1" 1
st eval --first-stage-layers 19 --account-for-loss
err_has "split: first/last with account_for_loss refused as Megatron does" "cannot be set with account_for_embedding"
st eval --first-stage-layers x
expect_rc "split: a non-number: usage error, exit 2" 2

# plan file round trip: the keys are written back
cat > "$T/split.yaml" <<'EOF'
model: llama3-70b
cluster: dgx-h100
devices: 512
strategy: {tp: 8, pp: 4, first_stage_layers: 19, last_stage_layers: 19, optimizer_offload: 0.5}
EOF
st eval "$T/split.yaml" --json
check "plan file: the keys load" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["strategy"]
sys.exit(not (s["first_stage_layers"] == 19 and s["optimizer_offload"] == 0.5))' "$OUT"

# optimizer offload: Megatron ZeRO-1 (the default plan) moves the optimizer states off
st eval --json
cp "$OUT" "$T/base.json"
st eval --optimizer-offload 1 --json
check "offload: no optimizer state on the device, weights and grads unchanged, optimizer time up" python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
sa, sb = a["memory"]["stages"][0], b["memory"]["stages"][0]
sys.exit(not (sb["optimizer_gib"] == 0 and sa["optimizer_gib"] > 0 and sb["weights_gib"] == sa["weights_gib"] and
 sb["grads_gib"] == sa["grads_gib"] and b["time"]["optimizer_s"] > a["time"]["optimizer_s"] and
 a["time"]["compute_s"] == b["time"]["compute_s"]))' "$T/base.json" "$OUT"
st export --to megatron --optimizer-offload 0.5
check "offload: export --to megatron writes the hybrid optimizer's flags" sh -c '
grep -q -- "--optimizer-cpu-offload" "$1" && grep -q -- "--optimizer-offload-fraction 0.5" "$1" &&
grep -q -- "--use-precision-aware-optimizer" "$1" && ! grep -q "not expressible" "$1"' _ "$OUT"
st eval --optimizer-offload 1 --framework megatron --zero 2
err_has "offload: Megatron refuses it beyond the distributed optimizer" "megatron cannot offload the optimizer under ZeRO-2"
st export --to deepspeed --framework deepspeed --pp 1 --tp 1 --zero 3 --recompute full --optimizer-offload 0.5
check "offload: export --to deepspeed writes offload_optimizer with the ZeRO-3 ratio" python3 -c '
import json,sys; z=json.load(open(sys.argv[1]))["zero_optimization"]
sys.exit(not (z["offload_optimizer"]["device"] == "cpu" and z["offload_optimizer"]["ratio"] == 0.5))' "$OUT"
st export --to torchtitan --framework torchtitan --zero 3 --optimizer-offload 1
check "offload: export --to torchtitan enables FSDP2's CPU offload" grep -q "enable_cpu_offload = true" "$OUT"
st eval --framework torchtitan --zero 3 --optimizer-offload 0.5
expect_rc "offload: torchtitan refuses a fraction, exit 1" 1
err_has "offload: says torchtitan offloads all or nothing" "torchtitan cannot offload a fraction"
st eval --optimizer-offload 2
expect_rc "offload: a fraction above 1: usage error, exit 2" 2
err_has "offload: says the range" "optimizer_offload must be a fraction from 0 to 1"

# activation offload: Megatron without pp or recompute
st eval -m llama3-8b -c dgx-a100-80g -n 8 --tp 1 --pp 1 --recompute none --framework megatron --gbs 64 \
    --activation-offload 16 --json
check "act offload: JSON time.host_s inside comm_exposed_s" python3 -c '
import json,sys; t=json.load(open(sys.argv[1]))["time"]
parts = t["tp_s"] + t["cp_s"] + t["ep_s"] + t["pp_s"] + t["dp_s"] + t["host_s"]
sys.exit(not (t["host_s"] > 0 and abs(parts - t["comm_exposed_s"]) < 1e-9 * t["step_s"]))' "$OUT"
st export --to megatron -m llama3-8b -c dgx-a100-80g -n 8 --tp 1 --pp 1 --recompute none --gbs 64 --activation-offload 16
check "act offload: exported as --cpu-offloading-num-layers" grep -q -- "--cpu-offloading-num-layers 16" "$OUT"
st eval --framework megatron --activation-offload 4
err_has "act offload: Megatron refuses it with pipelining" "megatron cannot offload activations"

# Lua: the same keys in strata.plan{} and the overrides of strata.eval
cat > "$T/split.lua" <<'EOF2'
local plan = strata.plan{model = "llama3-70b", cluster = "dgx-h100", devices = 512,
  strategy = {tp = 8, pp = 4, first_stage_layers = 19, last_stage_layers = 19}}
local r = strata.eval(plan, {optimizer_offload = 1})
print(r.memory.stages[1].layers, r.memory.stages[2].layers, r.memory.stages[1].optimizer_gib,
  r.strategy.first_stage_layers)
EOF2
st run "$T/split.lua"
check "lua: split keys in strata.plan{}, offload in the eval overrides" grep -Eq '^19[[:space:]]+21[[:space:]]+0(\.0)?[[:space:]]+19$' "$OUT"
