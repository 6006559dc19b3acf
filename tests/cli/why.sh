#!/usr/bin/env bash
# `eval --why` (issue 20 item 4): the plan's dominant losses in words, each with the change
# the model says helps and by how much, that figure being the changed plan's own evaluation
# (checked here by evaluating the proposed strategy independently); why[] and placement[]
# in JSON; a TP group wider than a node is named as spanning nodes; pins are honoured.
. "$(dirname "$0")/_lib.sh"

st eval --tp 16 --pp 2 --why
expect_rc "eval --why: exit 0" 0
out_has "eval --why: a heading with the step" "why is it slow (step"
out_has "eval --why: tp 16 spans two nodes of 8" "tp 16 spans 2 nodes: TP all-reduce on the network is"
out_has "eval --why: the fix with its measured gain" "-> tp 8"
out_has "eval --why: the placement line" "placement (8 devices per node"
out_has "eval --why: TP across 2 nodes" "TP 16 across 2 nodes"

st eval --tp 16 --pp 2 --why --json
expect_rc "eval --why --json: exit 0" 0
cp "$OUT" "$T/why.json"
python3 - "$T/why.json" >"$T/chk" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d.get("why")
if not isinstance(w, list) or not w:
    print("no why[]"); sys.exit()
for it in w:
    for k in ("kind", "loss", "seconds", "share", "fix"):
        if k not in it:
            print("missing", k); sys.exit()
if w[0]["kind"] != "tp":
    print("first loss is", w[0]["kind"]); sys.exit()
s = w[0]["fix_strategy"]
print("FIX", s["tp"], s["pp"], s["dp"], s["micro_batch"], s["recompute"], s["schedule"], w[0]["fix_step_s"], w[0]["gain"], d["time"]["step_s"])
pl = {g["group"]: g for g in d["placement"]}
print("PL", pl["TP"]["nodes"], pl["TP"]["inside_node"], pl["DP"]["size"])
PY
if grep -q '^FIX' "$T/chk"; then
    read -r _ tp pp dp mbs rc sch fstep gain step < <(grep '^FIX' "$T/chk")
    pass "why[]: each loss has kind, loss, seconds, share, fix; the largest is tp"
    check "why[]: the fix is faster (gain < 0)" python3 -c "import sys; sys.exit(not ($gain < 0 and abs($fstep / $step - 1 - $gain) < 1e-6))"
    st eval --tp "$tp" --pp "$pp" --dp "$dp" --mbs "$mbs" --recompute "$rc" --schedule "$sch" --json
    got=$(python3 -c "import json; print(json.load(open('$OUT'))['time']['step_s'])")
    check "why[]: the fix's step is the proposed strategy's own evaluation ($got vs $fstep)" \
        python3 -c "import sys; sys.exit(abs($got - $fstep) > 1e-6 * $fstep)"
else
    fail "why[] keys" "$(cat "$T/chk")"
fi
check "placement[]: TP spans 2 nodes, DP 16" grep -q '^PL 2 False 16' "$T/chk"

# pins: a pinned tp is never the change proposed
st eval --tp 16 --pp 2 --pin tp=16 --why --json
python3 -c "
import json, sys
d = json.load(open('$OUT'))
sys.exit(any(it.get('fix_strategy', {}).get('tp', 16) != 16 for it in d['why']))" 
check "eval --why: a pinned tp stays" [ $? -eq 0 ]

# recompute: what it costs and what it saves
st eval --recompute full --why
out_has "eval --why: full recompute's cost and saving" "full recompute costs"
out_has "eval --why: what the recompute saves here" "saves"

# over budget: memory first
st eval --recompute none --tp 2 --pp 2 --why
expect_rc "eval --why over budget: exit 1" 1
check "eval --why over budget: the memory loss is first" grep -q "^  1. stage .* over the .* GiB budget" "$OUT"

# EP across nodes: DeepEP is proposed, with the dispatcher's own evaluation
cat >"$T/moe.yaml" <<'EOF2'
model: qwen3-30b-a3b
cluster: dgx-h100
devices: 32
strategy: {ep: 32, global_batch: 256, recompute: full}
EOF2
st eval "$T/moe.yaml" --why
out_has "eval --why: EP on the network" "ep 32 all-to-all on the network is"
out_has "eval --why: DeepEP proposed" "-> DeepEP dispatch (moe_dispatcher: deepep): -"
st eval "$T/moe.yaml" --framework deepspeed --zero 1 --why
check "eval --why: DeepEP not proposed under DeepSpeed, which cannot run it" \
    sh -c "grep -q 'ep 32 all-to-all on the network' '$OUT' && ! grep -q 'DeepEP dispatch' '$OUT'"

# --why is eval's alone
st search --why
expect_rc "search --why: unknown option" 2
st eval --help
out_has "eval --help lists --why" "--why"
