#!/usr/bin/env bash
# `strata eval` on the embedded default plan: table, --json (every contract key of
# DESIGN.md section 3) and --csv.
. "$(dirname "$0")/_lib.sh"

st eval
expect_rc "eval default: exit 0" 0
out_has "eval default: table shows MFU" "MFU"
out_has "eval default: table shows the step time" "step time"
check "eval default: nothing on stderr" [ ! -s "$ERR" ]

# `strata` with no command is the explorer: without a terminal it refuses and points to
# eval (tests/cli/tui_term.sh has the rest)
st
check "strata without a command and no terminal: exit 2, points to strata eval" \
    eval '[ "$RC" -eq 2 ] && grep -Fq "strata eval" "$ERR" && [ ! -s "$OUT" ]'

st eval --json
expect_rc "eval --json: exit 0" 0
if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$OUT" 2>"$T/pyerr"; then
    pass "eval --json: output parses as JSON"
else
    fail "eval --json: output parses as JSON" "$(head -c 300 "$T/pyerr")"
fi
# every key of the contract with the right type; prints one line per missing/mistyped key
python3 - "$OUT" >"$T/keys" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
num = (int, float)
def get(path):
    x = d
    for k in path.split("."):
        if not isinstance(x, dict) or k not in x:
            return KeyError
        x = x[k]
    return x
want = {
    "memory.peak_gib": num, "memory.budget_gib": num, "memory.fits": bool,
    "memory.stages": list, "time.step_s": num, "time.compute_s": num, "time.bubble_s": num,
    "time.comm_exposed_s": num, "time.tp_s": num, "time.cp_s": num, "time.ep_s": num,
    "time.pp_s": num, "time.dp_s": num, "throughput.tokens_per_s": num,
    "throughput.mfu": num, "throughput.hfu": num, "strategy": dict,
}
for k in ["dp", "tp", "pp", "vpp", "cp", "ep", "etp", "zero", "micro_batch", "global_batch", "seq_length"]:
    want["strategy." + k] = int
for k in ["recompute", "schedule", "precision"]:
    want["strategy." + k] = str
want["strategy.sp"] = bool
for path, t in want.items():
    v = get(path)
    if v is KeyError:
        print("missing", path)
    elif not isinstance(v, t) or (t is num and isinstance(v, bool)):
        print("wrong type", path, type(v).__name__)
stages = get("memory.stages")
if isinstance(stages, list):
    if len(stages) != d["strategy"]["pp"]:
        print("memory.stages has", len(stages), "entries, pp is", d["strategy"]["pp"])
    for i, s in enumerate(stages):
        for k in ["stage", "weights_gib", "grads_gib", "optimizer_gib", "activations_gib",
                  "buffers_gib", "total_gib"]:
            if k not in s or not isinstance(s[k], num) or isinstance(s[k], bool):
                print("missing or non-numeric memory.stages[%d].%s" % (i, k))
        if s.get("stage") != i:
            print("memory.stages[%d].stage is %r" % (i, s.get("stage")))
        parts = sum(s.get(k, 0) for k in ["weights_gib", "grads_gib", "optimizer_gib",
                                           "activations_gib", "buffers_gib"])
        if abs(parts - s.get("total_gib", 0)) > 1e-6 * max(1, parts):
            print("memory.stages[%d]: components sum to %g, total_gib %g" % (i, parts, s.get("total_gib")))
PY
if [ -s "$T/keys" ]; then
    fail "eval --json: every contract key present with its type" "$(tr '\n' ';' <"$T/keys" | head -c 600)"
else
    pass "eval --json: every contract key present with its type"
fi
# the numbers agree with each other
python3 - "$OUT" >"$T/rel" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, m, s, th = d["time"], d["memory"], d["strategy"], d["throughput"]
def near(a, b, what):
    if abs(a - b) > 1e-6 * max(abs(a), abs(b)):
        print(what, a, b)
near(t["comm_exposed_s"], t["tp_s"] + t["cp_s"] + t["ep_s"] + t["pp_s"] + t["dp_s"], "comm_exposed != sum of kinds")
near(th["tokens_per_s"], s["global_batch"] * s["seq_length"] / t["step_s"], "tokens/s != gbs*seq/step")
near(m["peak_gib"], max(x["total_gib"] for x in m["stages"]), "peak != max stage total")
if not (0 < th["mfu"] <= th["hfu"] < 1):
    print("mfu/hfu out of range", th["mfu"], th["hfu"])
if m["fits"] != (m["peak_gib"] <= m["budget_gib"]):
    print("fits inconsistent with peak and budget")
PY
if [ -s "$T/rel" ]; then
    fail "eval --json: totals consistent (comm sum, tokens/s, peak, fits, 0 < mfu <= hfu < 1)" "$(tr '\n' ';' <"$T/rel")"
else
    pass "eval --json: totals consistent (comm sum, tokens/s, peak, fits, 0 < mfu <= hfu < 1)"
fi

st eval --csv
expect_rc "eval --csv: exit 0" 0
python3 - "$OUT" >"$T/csv" 2>&1 <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) != 2:
    print("want a header and one row, got %d lines" % len(rows))
else:
    h, r = rows
    if len(h) != len(r):
        print("header has %d fields, row %d" % (len(h), len(r)))
    for k in ["step_s", "peak_gib", "mfu", "tokens_per_s", "tp", "pp", "dp"]:
        if k not in h:
            print("header lacks", k)
    row = dict(zip(h, r))
    try:
        if float(row["step_s"]) <= 0:
            print("step_s not positive")
    except (KeyError, ValueError) as e:
        print("step_s unreadable", e)
PY
if [ -s "$T/csv" ]; then
    fail "eval --csv: a header and one row of the same width" "$(tr '\n' ';' <"$T/csv")"
else
    pass "eval --csv: a header and one row of the same width"
fi

# options override the plan; dp is re-derived from the devices
st eval -n 512 --tp 4 --pp 2 --json
check "eval --tp 4 --pp 2: exit 0, dp re-derived as 512/8 = 64" \
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["strategy"]; sys.exit(not (s["tp"]==4 and s["pp"]==2 and s["dp"]==64))' "$OUT"
st eval --devices=512 --tp=4 --pp=2 --json
check "eval --tp=4 form: same as --tp 4" \
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["strategy"]; sys.exit(not (s["tp"]==4 and s["dp"]==64))' "$OUT"
# a plan file given explicitly
st eval tests/golden/dense.yaml --csv
expect_rc "eval PLAN --csv: exit 0" 0
st --version
check "strata --version: exit 0, prints a version" eval '[ "$RC" -eq 0 ] && grep -q "^strata [0-9]" "$OUT"'
st --help
check "strata --help: exit 0, shows usage and exit status" eval '[ "$RC" -eq 0 ] && grep -q "usage" "$OUT" && grep -q "exit status" "$OUT"'

# the framework: torchtitan's semantics of selective recompute and TP; bad names name the choices
st eval -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --zero 3 --gbs 8 --seq 8192 --recompute selective --framework megatron --json
cp "$OUT" "$T/meg.json"
st eval -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --zero 3 --gbs 8 --seq 8192 --recompute selective --json
cp "$OUT" "$T/auto.json"
st eval -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --zero 3 --gbs 8 --seq 8192 --recompute selective --framework torchtitan --json
expect_rc "eval --framework torchtitan: exit 0" 0
check "eval --framework torchtitan: JSON strategy.framework, less memory and more recompute than Megatron's selective" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
sys.exit(not (a["strategy"]["framework"]=="megatron" and b["strategy"]["framework"]=="torchtitan" and
 b["memory"]["peak_gib"] < a["memory"]["peak_gib"] and
 b["time"]["step_s"] > a["time"]["step_s"]))' "$T/meg.json" "$OUT"
# auto (the default): ZeRO-3 is FSDP, priced as torchtitan; ZeRO-1 as Megatron-LM
check "eval framework auto: ZeRO-3 is priced exactly as torchtitan, and the JSON says it was inferred" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
sys.exit(not (a["strategy"]["framework"]=="torchtitan" and a["strategy"]["framework_inferred"] is True and
 b["strategy"]["framework_inferred"] is False and a["memory"]["peak_gib"]==b["memory"]["peak_gib"] and
 a["time"]["step_s"]==b["time"]["step_s"]))' "$T/auto.json" "$OUT"
st eval -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --zero 1 --gbs 8 --seq 8192 --recompute selective --json
check "eval framework auto: ZeRO-1 is priced as megatron" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); sys.exit(a["strategy"]["framework"]!="megatron")' "$OUT"
st eval -m llama3-8b -c dgx-h100 -n 8 --tp 2 --pp 1 --zero 3 --framework torchtitan
out_has "eval --framework torchtitan: the table names the framework" "framework=torchtitan"
st eval -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --zero 3 --gbs 8
out_has "eval framework auto: the table names the implied framework and why" "framework=torchtitan (ZeRO-3)"
# --recompute-modules: Megatron-Core's fine-grained selective recomputation
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --seq 4096 --gbs 8 --recompute selective --json
cp "$OUT" "$T/sel.json"
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --seq 4096 --gbs 8 --recompute selective \
    --recompute-modules moe_act,layernorm --json
check "eval --recompute-modules: JSON lists the modules; less memory, more recompute than core_attn alone" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
sys.exit(not (a["strategy"]["recompute_modules"]==["core_attn"] and
 b["strategy"]["recompute_modules"]==["layernorm","moe_act"] and
 b["memory"]["peak_gib"] < a["memory"]["peak_gib"]))' "$T/sel.json" "$OUT"
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --seq 4096 --gbs 8 --recompute selective \
    --recompute-modules moe,core_attn
out_has "eval --recompute-modules: the table names them" "recompute=selective(core_attn,moe)"
st eval --recompute-modules core_attn,attn_core
expect_rc "eval --recompute-modules with a wrong name: usage error, exit 2" 2
err_has "eval --recompute-modules with a wrong name: names it and the choices" "'attn_core' is not a module (core_attn"
printf 'model: mixtral-8x7b\ncluster: dgx-h100\ndevices: 8\nstrategy: {tp: 1, pp: 1, ep: 8, recompute: selective,\n  recompute_modules: [moe_act, layernorm]}\n' >"$T/mods.yaml"
st eval "$T/mods.yaml" --seq 4096 --gbs 8 --json
check "plan file recompute_modules as a YAML list: the same result as the command line" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); sys.exit(a["strategy"]["recompute_modules"]!=["layernorm","moe_act"])' "$OUT"
# --moe-capacity-factor: the busiest expert rank's load over the mean
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --seq 4096 --gbs 8 --json
cp "$OUT" "$T/cf1.json"
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --seq 4096 --gbs 8 --moe-capacity-factor 1.5 --json
check "eval --moe-capacity-factor: JSON carries it; more memory and time than balanced" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
sys.exit(not (a["strategy"]["moe_capacity_factor"]==1 and b["strategy"]["moe_capacity_factor"]==1.5 and
 b["memory"]["peak_gib"] > a["memory"]["peak_gib"] and b["time"]["step_s"] > a["time"]["step_s"]))' "$T/cf1.json" "$OUT"
for bad in 0 -1 17 x; do
    st eval --moe-capacity-factor "$bad"
    expect_rc "eval --moe-capacity-factor $bad: usage error, exit 2" 2
done
err_has "eval --moe-capacity-factor x: says what it must be" "moe_capacity_factor must be a number above 0"
# the precision-aware optimizer: bf16 moments under ZeRO-1 (default plan: dp 16) save
# (4 + 4 + 4 - 2 - 2 - 2)/16 = 6/16 B per parameter of the stage's optimizer states
st eval --json
cp "$OUT" "$T/opt32.json"
st eval --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16 --json
check "eval --exp-avg-dtype bf16: JSON carries the dtypes; optimizer states halve (12/D -> 6/D), the step is faster" \
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
sa, sb = a["memory"]["stages"][0], b["memory"]["stages"][0]
sys.exit(not (a["strategy"]["exp_avg_dtype"]=="fp32" and b["strategy"]["exp_avg_dtype"]=="bf16" and
 b["strategy"]["main_params_dtype"]=="fp32" and abs(sb["optimizer_gib"] / sa["optimizer_gib"] - 0.5) < 1e-9 and
 sb["weights_gib"]==sa["weights_gib"] and sb["grads_gib"]==sa["grads_gib"] and
 b["time"]["optimizer_s"] < a["time"]["optimizer_s"]))' "$T/opt32.json" "$OUT"
st eval --main-params-dtype bf16
expect_rc "eval --main-params-dtype bf16: usage error, exit 2" 2
err_has "eval --main-params-dtype bf16: names Megatron's choices" "main_params_dtype must be one of fp32, fp16"
st eval --framework megatron --zero 2 --exp-avg-dtype bf16
expect_rc "eval --framework megatron --zero 2 with bf16 moments: invalid, exit 1" 1
err_has "eval: the precision-aware optimizer needs Megatron's distributed optimizer" \
    "megatron cannot run the precision-aware optimizer with ZeRO-2"
st eval --framework torchtitan --zero 3 --exp-avg-dtype bf16
err_has "eval --framework torchtitan with bf16 moments: refused with the reason" \
    "torchtitan cannot run exp_avg_dtype bf16"
st export --to megatron --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16 --main-grads-dtype bf16
check "export --to megatron writes the precision-aware optimizer's flags" \
    sh -c 'grep -q -- "--use-precision-aware-optimizer" "$1" && grep -q -- "--exp-avg-sq-dtype bf16" "$1" &&
grep -q -- "--grad-reduce-in-bf16" "$1" && ! grep -q "not expressible" "$1"' _ "$OUT"
st eval --framework nemo
expect_rc "eval --framework nemo: usage error, exit 2" 2
err_has "eval --framework nemo: names the choices" "auto, megatron, torchtitan, deepspeed"
# a plan that names its framework is one it runs: the rule names the framework and the feature
st eval --framework deepspeed
expect_rc "eval --framework deepspeed of the default plan: invalid, exit 1" 1
err_has "eval --framework deepspeed: the failing rule names the framework and the feature" \
    "deepspeed cannot run sequence parallelism inside tensor parallelism"
st eval --framework megatron --schedule zb-v
err_has "eval --framework megatron --schedule zb-v: refused with what Megatron-LM runs" \
    "megatron cannot run schedule zb-v (it runs 1f1b, interleaved)"
st eval --schedule zb-v
expect_rc "eval framework auto --schedule zb-v: priced (auto names no framework), exit 0" 0

# issue 17: no "dp comm" at dp = 1. One replica syncs no gradients over dp: dense plans show
# no dp part (ZeRO 0-3 alike); what remains is the cp ranks' sync ("dp-cp comm") or the
# experts' own data-parallel group (tp 8 over ep 2: "edp comm"), named so in JSON too
for z in 0 1 2 3; do
    st eval -m llama3-8b -n 8 --tp 8 --pp 1 --dp 1 --zero $z --budget 1000
    check "dp 1, zero $z, dense: no dp comm row" eval '[ "$RC" -eq 0 ] && ! grep -q "dp comm" "$OUT"'
    st eval -m llama3-8b -n 8 --tp 8 --pp 1 --dp 1 --zero $z --budget 1000 --json
    check "dp 1, zero $z, dense: JSON dp_s 0, dp_group dp" python3 -c \
        'import json,sys; t=json.load(open(sys.argv[1]))["time"]; sys.exit(not (t["dp_s"] == 0 and t["dp_group"] == "dp"))' "$OUT"
done
st eval -m mixtral-8x7b -n 16 --tp 8 --pp 2 --dp 1 --ep 2 --etp 1 --zero 1 --budget 1000
check "dp 1, MoE with expert dp 4: an edp comm row, no dp comm row" \
    eval 'grep -q "^  edp comm " "$OUT" && ! grep -q "^  dp comm" "$OUT"'
st eval -m mixtral-8x7b -n 16 --tp 8 --pp 2 --dp 1 --ep 2 --etp 1 --zero 1 --budget 1000 --json
check "dp 1, MoE with expert dp 4: JSON dp_s > 0 over dp_group edp" python3 -c \
    'import json,sys; t=json.load(open(sys.argv[1]))["time"]; sys.exit(not (t["dp_s"] > 0 and t["dp_group"] == "edp"))' "$OUT"
st eval -m mixtral-8x7b -n 16 --tp 2 --pp 8 --dp 1 --ep 2 --etp 1 --zero 1 --budget 1000 --json
check "dp 1, MoE with expert dp 1: JSON dp_s 0" python3 -c \
    'import json,sys; t=json.load(open(sys.argv[1]))["time"]; sys.exit(not (t["dp_s"] == 0))' "$OUT"
st eval -m llama3-8b -n 16 --tp 8 --pp 1 --cp 2 --dp 1 --zero 1 --budget 1000
check "dp 1, cp 2: a dp-cp comm row, no dp comm row" \
    eval 'grep -q "^  dp-cp comm " "$OUT" && ! grep -q "^  dp comm" "$OUT"'
st eval -m llama3-8b -n 16 --tp 8 --pp 1 --dp 2 --zero 1 --budget 1000 --json
check "dp 2: JSON dp_group dp" python3 -c \
    'import json,sys; t=json.load(open(sys.argv[1]))["time"]; sys.exit(not (t["dp_s"] > 0 and t["dp_group"] == "dp"))' "$OUT"
