#!/usr/bin/env bash
# USP (cp_ulysses: Ulysses groups inside a ring) and redundant experts
# (moe_redundant_experts, EPLB) through the command line, plan files, JSON, the text
# report, the search and the three exporters.
. "$(dirname "$0")/_lib.sh"

J="-m llama3-70b -c dgx-h100 -n 256 --tp 4 --pp 4 --cp 8 --seq 65536 --recompute full"

# ---- USP --------------------------------------------------------------------------------
st eval $J --cp-ulysses 2 --json
expect_rc "usp: eval --cp-ulysses 2: exit 0" 0
check "usp: JSON carries cp_ulysses 2 and cp_ring 4" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["strategy"]
sys.exit(not (s["cp_ulysses"] == 2 and s["cp_ring"] == 4 and s["cp_kind"] == "ring"))' "$OUT"
st eval $J --cp-ulysses 2
out_has "usp: the text report names the split" "cp=8(usp: ulysses 2 x ring 4)"
st eval $J --cp-ulysses 3
expect_rc "usp: cp_ulysses 3 with cp 8: invalid, exit 1" 1
err_has "usp: says it must divide cp" "cp_ulysses=3 must divide cp=8"
st eval $J --cp-ulysses 2 --cp-kind ulysses
expect_rc "usp: cp_kind ulysses with a split: invalid, exit 1" 1
st export $J --cp-ulysses 2 --to megatron
expect_rc "usp: export --to megatron: exit 0" 0
check "usp: Megatron gets a2a+p2p and the hierarchical sizes 2 4" sh -c '
grep -q -- "--cp-comm-type a2a+p2p" "$1" && grep -q -- "--hierarchical-context-parallel-sizes 2 4" "$1" &&
! grep -q "not expressible" "$1"' _ "$OUT"
st export $J --cp-ulysses 2 --to torchtitan
expect_rc "usp: export --to torchtitan refuses, exit 1" 1
err_has "usp: torchtitan's reason" "torchtitan cannot run usp context parallelism"
st export $J --cp-ulysses 2 --to deepspeed
expect_rc "usp: export --to deepspeed refuses, exit 1" 1
err_has "usp: DeepSpeed's reason" "deepspeed cannot run usp context parallelism"
# tp 8 leaves one KV head per rank: Ulysses 2 repeats it, which TE's a2a does not
st export -m llama3-70b -c dgx-h100 -n 256 --tp 8 --pp 4 --cp 8 --seq 65536 --recompute full --cp-ulysses 2 --to megatron
expect_rc "usp: repeated KV heads: export --to megatron refuses, exit 1" 1
err_has "usp: the KV-head reason" "key/value heads per TP rank"
# a plan file round trip: save keeps the key
printf 'model: llama3-70b\ncluster: dgx-h100\ndevices: 256\nstrategy: {tp: 4, pp: 4, cp: 8, cp_ulysses: 4, seq_length: 65536, recompute: full}\n' >"$T/usp.yaml"
st eval "$T/usp.yaml" --json
check "usp: plan key cp_ulysses 4" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["strategy"]; sys.exit(not (s["cp_ulysses"] == 4 and s["cp_ring"] == 2))' "$OUT"
# the search tries the splits: with cp pinned to 8 and tp to 4, its results name USP ones
st search $J --pin cp=8 --pin tp=4 --pin pp=4 --no-ilp --top 20 --json
expect_rc "usp: search with cp pinned: exit 0" 0
check "usp: the search explores Ulysses degrees 1, 2, 4 and 8" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
us=set()
for it in d:
    us.add(it["strategy"]["cp_ulysses"])
    for a in it["search"]["alike_strategies"]:
        us.add(a.get("cp_ulysses"))
sys.exit(not (len(us & {1, 2, 4, 8}) >= 2))' "$OUT"

# ---- redundant experts ---------------------------------------------------------------
M="-m mixtral-8x7b -c dgx-h100 -n 64 --tp 1 --pp 1 --ep 4 --zero 1 --moe-capacity-factor 1.5 --budget 400"
st eval $M --json
cp "$OUT" "$T/r0.json"
st eval $M --moe-redundant-experts 2 --json
expect_rc "eplb: eval --moe-redundant-experts 2: exit 0" 0
check "eplb: JSON: imbalance 1 + 0.5 x 2/4 = 1.25, more weights, the same optimizer states, a shorter step" python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
s=b["strategy"]; ma=a["memory"]["stages"][0]; mb=b["memory"]["stages"][0]
sys.exit(not (s["moe_redundant_experts"] == 2 and abs(s["moe_imbalance"] - 1.25) < 1e-12 and
 mb["weights_gib"] > ma["weights_gib"] and abs(mb["optimizer_gib"] - ma["optimizer_gib"]) < 1e-9 and
 b["time"]["ep_s"] < a["time"]["ep_s"]))' "$T/r0.json" "$OUT"
st eval $M --moe-redundant-experts 2
out_has "eplb: the text report names the key" "moe_redundant_experts=2"
st eval $M --moe-redundant-experts 7
expect_rc "eplb: 7 replicas over 8 experts at ep 4: invalid, exit 1" 1
err_has "eplb: says the bound" "exceeds the 6 experts"
st eval $M --ep 1 --moe-redundant-experts 1
expect_rc "eplb: without ep: invalid, exit 1" 1
st eval $M --moe-redundant-experts 1 --framework megatron
expect_rc "eplb: a named framework refuses, exit 1" 1
err_has "eplb: Megatron's reason" "megatron cannot host redundant experts"
st export $M --moe-redundant-experts 1 --to megatron
expect_rc "eplb: export --to megatron refuses, exit 1" 1
err_has "eplb: export names the fork flag" "moe-num-redundant-experts-per-rank"
st export $M --moe-redundant-experts 1 --to megatron --approximate
check "eplb: --approximate writes a not-expressible line" grep -q "not expressible: moe_redundant_experts 1" "$OUT"
# a search job that sets the key opts in: the search weighs EP against replicas (Qwen3-30B-A3B,
# 128 experts, cf 2: its best plans put 8 replicas on ep 32 ranks); without the key, none
Q="-m qwen3-30b-a3b -c dgx-h100 -n 64 --moe-capacity-factor 2 --no-ilp --top 10 --threads 1 --json"
st search $Q --moe-redundant-experts 8
expect_rc "eplb: search with replicas opted in: exit 0" 0
check "eplb: the search proposes replicas and more than one EP degree" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
rs=set(it["strategy"].get("moe_redundant_experts", 0) for it in d); eps=set(it["strategy"]["ep"] for it in d)
sys.exit(not (max(rs) > 0 and len(eps) >= 2))' "$OUT"
st search $Q
check "eplb: without the key the search proposes no replicas" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(not all(it["strategy"].get("moe_redundant_experts", 0) == 0 for it in d))' "$OUT"
