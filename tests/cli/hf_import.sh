#!/usr/bin/env bash
# Hugging Face import: the real config.json files of nine models (tests/fixtures/hf, origin
# in SOURCES.md there) load through `strata eval -m FILE` and give the published parameter
# totals in `--json` model_info.params_total_b.
. "$(dirname "$0")/_lib.sh"

F=tests/fixtures/hf

# params_total_b of `strata eval -m FILE --json` (exit 1 is fine: big models do not fit
# on 8 devices, and eval prints the whole result anyway)
params() {
    st eval -m "$1" -c dgx-h100 -n 8 --tp 8 --pp 1 --json
    case $RC in 0 | 1) ;; *) echo "exit $RC" && return ;; esac
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["model_info"]["params_total_b"])' "$OUT" \
        2>/dev/null || echo "no model_info.params_total_b"
}

# within REL of WANT (billions)
near() {
    python3 -c 'import sys; g, w, r = map(float, sys.argv[1:]); sys.exit(abs(g - w) > r * w)' "$1" "$2" "$3" 2>/dev/null
}

# published totals: Meta's Llama 3 model card (8.03B), Mistral's Mixtral announcement
# (46.7B), Qwen's Qwen2.5-72B model card (72.7B), DeepSeek-V3 technical report (671B main
# model; README_WEIGHTS.md: the MTP module adds 11.5B unique parameters), Qwen's
# Qwen3-30B-A3B model card (30.5B), Meta's Llama 4 announcement (109B and 400B less the
# 0.87B vision tower that the text_config model leaves out, counted in
# presets/models/llama4-scout.yaml), the Gemma 3 report's Table 1 for Gemma 3 27B (1,416M
# embedding + 25,600M non-embedding, the vision encoder apart) and the gpt-oss model card's
# Table 1 (116.83B)
for spec in "llama3-8b 8.03 LlamaForCausalLM" "mixtral-8x7b 46.7 MixtralForCausalLM" \
    "qwen2.5-72b 72.7 Qwen2ForCausalLM" "deepseek-v3 682.5 DeepseekV3ForCausalLM" \
    "qwen3-30b-a3b 30.5 Qwen3MoeForCausalLM" "llama4-scout 108.13 Llama4ForConditionalGeneration" \
    "llama4-maverick 399.13 Llama4ForConditionalGeneration" "gemma3-27b 27.016 Gemma3ForConditionalGeneration" \
    "gpt-oss-120b 116.83 GptOssForCausalLM"; do
    set -- $spec
    file=$F/$1.json
    check "hf $1: the fixture is the published config.json ($3)" grep -q "\"$3\"" "$file"
    got=$(params "$file")
    if near "$got" "$2" 0.005; then
        pass "hf $1: params_total_b $got within 0.5% of the published $2"
    else
        fail "hf $1: params_total_b within 0.5% of the published $2" "got $got"
        show "$ERR"
    fi
done

# DeepSeek-V3's 671B is the main model: the same file without its MTP module
python3 - "$F/deepseek-v3.json" "$T/deepseek-v3-main.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["num_nextn_predict_layers"] = 0
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
got=$(params "$T/deepseek-v3-main.json")
if near "$got" 671 0.005; then
    pass "hf deepseek-v3 without MTP: params_total_b $got within 0.5% of the published 671"
else
    fail "hf deepseek-v3 without MTP: params_total_b within 0.5% of the published 671" "got $got"
    show "$ERR"
fi
