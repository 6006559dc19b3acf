#!/usr/bin/env bash
# A model-zoo case set in the explorer with :set, as a Megatron-LM run with DeepSeek-style
# fine-grained recomputation, bf16 Adam moments and the fused loss, saved with :w and
# exported to Megatron-LM: the export is exact (no "not expressible" line) and carries the
# flags of what was set; DeepSeek-V3's fp8 caching is refused in bf16 with the reason.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

case_file=tests/validation/public/moezoo_mixtral_8x22b_h100_128gpu_dropless.yaml
tui_start 100 30 -- "$case_file"
tcheck "zoo: the case opens in the explorer" wait_for "Timeline"
typed ":set framework=megatron zero=1 recompute=selective recompute_modules=core_attn,moe_act,layernorm"
keys Enter
typed ":set exp_avg_dtype=bf16 exp_avg_sq_dtype=bf16 loss_fusion=true"
keys Enter
typed ":set fp8_cache=deepseek"
keys Enter
tcheck ":set fp8_cache=deepseek in bf16: the core's reason" wait_for "fp8_cache deepseek needs precision fp8"
keys u
tcheck "u: valid again" wait_gone "INVALID"
typed ":w $T/zoo.yaml"
keys Enter
tcheck ":w: saved" wait_for "saved $T/zoo.yaml"
tui_stop
# what :set took, read from the saved plan (the message line that names each change is
# replaced by the next command's, so the screen is no place to look for it)
check "zoo: :set takes the keys (the saved plan names megatron and the bf16 moments)" \
    eval 'grep -q "framework: *\"\?megatron" "$T/zoo.yaml" && grep -q "exp_avg_dtype: *\"\?bf16" "$T/zoo.yaml"'

st export "$T/zoo.yaml" --to megatron
expect_rc "zoo: the saved plan exports to megatron, exit 0" 0
check "zoo: no \"not expressible\" line" eval '! grep -q "not expressible" "$OUT"'
out_has "zoo: fine-grained recompute modules" "--recompute-modules core_attn layernorm moe_act"
out_has "zoo: bf16 first moment" "--exp-avg-dtype bf16"
out_has "zoo: bf16 second moment" "--exp-avg-sq-dtype bf16"
out_has "zoo: the fused loss" "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te"
