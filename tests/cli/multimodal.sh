#!/usr/bin/env bash
# A vision encoder in front of the decoder (issue 22 item 5): the Qwen2-VL-7B preset loads and
# evaluates, the ILP moves decoder layers onto the encoder's stage, a plan file and a Lua
# model express the encoder the same way, bad encoder blocks and CP splits are refused, and
# every export refuses with its reason.
. "$(dirname "$0")/_lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
OUT=$T/out
ERR=$T/err
JOB="-m qwen2-vl-7b -c dgx-h100 -n 16 --tp 2 --pp 2 --gbs 256 --seq 4096"

st presets
out_has "multimodal: the Qwen2-VL-7B preset is listed" "qwen2-vl-7b"

# shellcheck disable=SC2086
st eval $JOB --json
expect_rc "multimodal: eval exits 0" 0
check "multimodal: 8,289,867,776 parameters over 60 layers (32 encoder + 28 decoder)" \
    python3 -c "import json,sys; d=json.load(open('$OUT')); i=d['model_info']; sys.exit(not (abs(i['params_total_b']-8.289867776)<1e-9 and i['layers']==60 and d['valid']))"
cp "$OUT" "$T/even.json"

# An even split puts 30 layers (the cheap encoder and 2 decoder layers) on stage 0; the
# ILP balances the stages by adding decoder layers to the encoder's stage
# shellcheck disable=SC2086
st ilp $JOB --json
expect_rc "multimodal: ilp exits 0" 0
check "multimodal: the ILP puts more than the encoder's 32 layers on stage 0 and beats the even split" \
    python3 -c "import json,sys; d=json.load(open('$OUT'))['ilp']; sys.exit(not (d['stages'][0]['layers']>32 and d['speedup']>1.2))"

# the same model as plan-file blocks and as a Lua model evaluates the same
cat >"$T/vlm.yaml" <<'YAML'
model:
  name: vlm-blocks
  hidden_size: 3584
  vocab_size: 152064
  hidden_act: silu
  tie_word_embeddings: false
  attention_bias: true
  num_attention_heads: 28
  num_key_value_heads: 4
  intermediate_size: 18944
  blocks:
    - {block: dense, layers: 32, hidden_size: 1280, hidden_act: gelu, num_attention_heads: 16, num_key_value_heads: 16,
       intermediate_size: 5120, image_tokens: 1024, images_per_sample: 1, projector_intermediate_size: 5120, projector_merge: 4}
    - {block: dense, layers: 28}
cluster: dgx-h100
devices: 16
strategy: {tp: 2, pp: 2, global_batch: 256, seq_length: 4096, recompute: selective}
YAML
st eval "$T/vlm.yaml" --json
expect_rc "multimodal: a plan file with an encoder block evaluates" 0
check "multimodal: the plan file's step time is the preset's" \
    python3 -c "import json,sys; a=json.load(open('$OUT'));b=json.load(open('$T/even.json')); sys.exit(a['time']['step_s']!=b['time']['step_s'])"
cat >"$T/vlm.lua" <<'LUA'
local m = strata.layers{name = "vlm-lua", hidden_size = 3584, vocab_size = 152064, hidden_act = "silu",
  tie_word_embeddings = false, attention_bias = true, num_attention_heads = 28, num_key_value_heads = 4,
  intermediate_size = 18944,
  strata.dense{layers = 32, hidden_size = 1280, hidden_act = "gelu", num_attention_heads = 16, num_key_value_heads = 16,
    intermediate_size = 5120, image_tokens = 1024, images_per_sample = 1, projector_intermediate_size = 5120,
    projector_merge = 4},
  strata.dense{layers = 28}}
local s = {tp = 2, pp = 2, global_batch = 256, seq_length = 4096}
local a = strata.eval(strata.plan{model = m, cluster = "dgx-h100", devices = 16, strategy = s})
local b = strata.eval(strata.plan{model = "qwen2-vl-7b", cluster = "dgx-h100", devices = 16, strategy = s})
print(string.format("same %s blocks %d tokens %d", tostring(a.time.step_s == b.time.step_s), #m:blocks(),
  m:blocks()[1].image_tokens))
LUA
st run "$T/vlm.lua"
expect_rc "multimodal: the Lua model runs" 0
out_has "multimodal: a Lua encoder block evaluates as the preset and reads back" "same true blocks 2 tokens 1024"

# refusals: a misspelt key, an encoder after the decoder, images CP cannot split
sed 's/image_tokens: 1024/image_token: 1024/' "$T/vlm.yaml" >"$T/typo.yaml"
st eval "$T/typo.yaml"
expect_rc "multimodal: a misspelt encoder key exits 2" 2
err_has "multimodal: the misspelt key is named with the known ones" "unknown key 'image_token'"
sed -e 's/- {block: dense, layers: 28}/- {block: dense, layers: 28}\n    - {block: dense, layers: 1, hidden_size: 1280, hidden_act: gelu, num_attention_heads: 16, intermediate_size: 5120, image_tokens: 64}/' \
    "$T/vlm.yaml" >"$T/order.yaml"
st eval "$T/order.yaml"
expect_rc "multimodal: an encoder block after the decoder exits 2" 2
err_has "multimodal: the order is the reason" "must come before the decoder"
# shellcheck disable=SC2086
st eval $JOB --cp 2 --tp 1 --pp 1
expect_rc "multimodal: cp 2 over one image per micro-batch exits 1" 1
err_has "multimodal: CP deals images out whole" "does not divide the 1 images"

# exports: refused with the reason, also the nearest (--approximate)
for fw in megatron deepspeed torchtitan; do
    # shellcheck disable=SC2086
    st export $JOB --to $fw
    expect_rc "multimodal: export --to $fw refuses (exit 1)" 1
    err_has "multimodal: export --to $fw names the vision encoder" "vision encoder"
    # shellcheck disable=SC2086
    st export $JOB --to $fw --approximate
    expect_rc "multimodal: export --to $fw --approximate refuses too" 1
done
err_has "multimodal: --approximate says there is no nearest plan" "no nearest plan"
