#!/usr/bin/env bash
# `strata presets` lists every model and cluster preset name of DESIGN.md section 3 (a
# contract), each readable.
. "$(dirname "$0")/_lib.sh"

st presets
expect_rc "presets: exit 0" 0
models="gpt3-175b llama2-7b llama2-13b llama2-70b llama3-8b llama3-70b llama3-405b mistral-7b
        mixtral-8x7b mixtral-8x22b qwen2.5-72b deepseek-v3 qwen3-30b-a3b llama4-scout llama4-maverick"
clusters="dgx-a100-40g dgx-a100-80g dgx-h100 h800 h200 ascend-910b v100"
# the section a name appears in: models between "models:" and "clusters:", etc.
sed -n '/^models:/,/^clusters:/p' "$OUT" >"$T/models"
sed -n '/^clusters:/,/^themes:/p' "$OUT" >"$T/clusters"
missing=""
for m in $models; do grep -Eq "^  $m( |$)" "$T/models" || missing="$missing $m"; done
check "presets: all 12 model presets listed under models:${missing:+ (missing$missing)}" [ -z "$missing" ]
missing=""
for c in $clusters; do grep -Eq "^  $c( |$)" "$T/clusters" || missing="$missing $c"; done
check "presets: all 7 cluster presets listed under clusters:${missing:+ (missing$missing)}" [ -z "$missing" ]
check "presets: none unreadable" eval '! grep -q unreadable "$OUT"'
check "presets: DeepSeek-V3 shown with 671B params" grep -Eq '^  deepseek-v3 .* 671\.[0-9]B params' "$OUT"
