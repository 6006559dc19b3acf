#!/usr/bin/env bash
# The 2025-26 cluster presets (issue 22 items 1-2): each loads and evaluates, an uncalibrated
# family says so in text, JSON and search rows, precisions a part lacks are refused, a bad
# scale-up domain is a file error, and the placement puts TP 16 on NVLink in an NVL72 but
# across the network on a DGX H100.
. "$(dirname "$0")/_lib.sh"

for c in dgx-b200 gb200-nvl72 gb300-nvl72 h20 mi300x mi325x cloudmatrix-384; do
    st eval -m llama3-70b -c "$c" -n 512 --tp 8 --pp 4 --gbs 512 --seq 4096
    expect_rc "hardware: $c evaluates llama3-70b on 512 devices" 0
done
st presets
missing=""
for c in dgx-b200 gb200-nvl72 gb300-nvl72 h20 mi300x mi325x cloudmatrix-384; do
    grep -Eq "^  $c( |$)" "$OUT" || missing="$missing $c"
done
check "hardware: presets lists the new clusters${missing:+ (missing$missing)}" [ -z "$missing" ]

st eval -m llama3-70b -c gb200-nvl72 -n 512 --tp 8 --pp 4 --gbs 512 --seq 4096
out_has "hardware: eval text marks gb200-nvl72 an uncalibrated family" "uncalibrated family: efficiency constants derived from H100"
st eval -m llama3-70b -c dgx-h100 -n 512 --tp 8 --pp 4 --gbs 512 --seq 4096
check "hardware: a calibrated family carries no mark" eval '! grep -q uncalibrated "$OUT"'
st eval -m llama3-70b -c mi300x -n 512 --tp 8 --pp 4 --gbs 512 --seq 4096 --json
check "hardware: JSON names the family mi300x borrows from" grep -q '"uncalibrated_family": "H100"' "$OUT"
st search -m llama3-8b -c mi300x -n 64 --gbs 256 --seq 4096 --top 3
expect_rc "hardware: search on mi300x exits 0" 0
out_has "hardware: search rows on mi300x are marked" "[unvalidated: uncalibrated family]"

# precisions: fp4 and mxfp8 on Blackwell only
st eval -m llama3-8b -c dgx-h100 -n 64 --precision fp4
expect_rc "hardware: fp4 on an H100 is refused (exit 1)" 1
err_has "hardware: the refusal names fp4 and the device" "fp4 is not supported by H100-SXM5-80GB"
st eval -m llama3-8b -c mi300x -n 64 --precision mxfp8
expect_rc "hardware: mxfp8 on an MI300X is refused (exit 1)" 1
st eval -m llama3-8b -c dgx-b200 -n 64 --precision mxfp8
expect_rc "hardware: mxfp8 on a B200 evaluates" 0
st export -m llama3-8b -c dgx-b200 -n 64 --precision fp4 --to megatron
check "hardware: the Megatron export writes NVFP4's flags" grep -q -- "--fp4-format e2m1 --fp4-recipe nvfp4" "$OUT"
st export -m llama3-8b -c dgx-b200 -n 64 --precision mxfp8 --to megatron
check "hardware: the Megatron export writes the MXFP8 recipe" grep -q -- "--fp8-recipe mxfp8" "$OUT"

# the domain in a cluster file, and its errors
cat >"$T/nvl.yaml" <<'Y'
name: tiny NVL
device: {name: X1, memory_gib: 80, peak_tflops: {bf16: 1000, fp16: 1000, fp8: 2000}, hbm_gbps: 3000}
node: {devices: 8, link_gbps: 450}
domain: {devices: 4, link_gbps: 450}
network: {link_gbps: 50, latency_us: 5}
Y
st eval -m llama3-8b -c "$T/nvl.yaml" -n 64
expect_rc "hardware: a domain smaller than a node is a file error (exit 2)" 2
err_re "hardware: the error says domain.devices and points at the file" "nvl.yaml:[0-9]+:[0-9]+: .*domain.devices \(4\) must be at least node.devices \(8\)"
sed -i 's/rail_optimized: true/rail_optimized: maybe/; s/^network:.*/network: {link_gbps: 50, latency_us: 5, rail_optimized: maybe}/; s/domain: {devices: 4/domain: {devices: 16/' "$T/nvl.yaml"
st eval -m llama3-8b -c "$T/nvl.yaml" -n 64
expect_rc "hardware: rail_optimized must be a boolean (exit 2)" 2

# TP 16: NVLink in an NVL72, the network on a DGX H100 (tp_s: the NVL72's is smaller even
# though its GPUs are faster at everything else)
st eval -m llama3-70b -c gb200-nvl72 -n 512 --tp 16 --pp 4 --gbs 512 --seq 4096 --json
cp "$OUT" "$T/nvl.json"
st eval -m llama3-70b -c dgx-h100 -n 512 --tp 16 --pp 4 --gbs 512 --seq 4096 --json
cp "$OUT" "$T/h100.json"
check "hardware: TP 16 costs less exposed TP time on NVL72 than on DGX H100" python3 - "$T/nvl.json" "$T/h100.json" <<'P'
import json, sys
a, b = (json.load(open(f))["time"]["tp_s"] for f in sys.argv[1:3])
sys.exit(0 if 0 < a < b else 1)
P
# (every cluster preset, domains included, round-trips inline: test_plan_write)

# Lua sees the domain and the mark
cat >"$T/hw.lua" <<'L'
local c = strata.preset("gb200-nvl72", "cluster")
local h = strata.preset("dgx-h100", "cluster")
print(c.node_devices, c.domain_devices, c.domain_gbps, c.uncalibrated_family, h.domain_devices, tostring(h.uncalibrated_family))
L
st run "$T/hw.lua"
check "hardware: Lua reads node 4, domain 72 x 900 GB/s, H100-derived; dgx-h100's domain is its 8-GPU node" \
    grep -Eq '^4\s+72\s+900(\.0)?\s+H100\s+8\s+nil$' "$OUT"
