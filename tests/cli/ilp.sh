#!/usr/bin/env bash
# `strata ilp`: table, --json with the eval keys and the ilp.* contract keys of DESIGN.md
# section 3, exit codes (0 plan, 1 infeasible or invalid, 2 usage/file), the infeasible
# message, pins and the time limit.
. "$(dirname "$0")/_lib.sh"

st ilp
expect_rc "ilp default: exit 0" 0
out_has "ilp default: says it is optimal" "optimal in"
out_has "ilp default: compares with the even split" "speedup"
out_has "ilp default: splits the idle time" "preparation"
check "ilp default: nothing on stderr" [ ! -s "$ERR" ]

st ilp --json
expect_rc "ilp --json: exit 0" 0
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
want = {"memory.peak_gib": num, "memory.stages": list, "time.step_s": num, "time.bubble_s": num,
        "throughput.mfu": num, "strategy.pp": int, "ilp.status": str, "ilp.solve_ms": num,
        "ilp.stages": list, "ilp.step_s": num, "ilp.bubble.preparation_s": num,
        "ilp.bubble.imbalance_s": num, "ilp.bubble.recompute_s": num, "ilp.speedup": num}
for path, t in want.items():
    v = get(path)
    if v is KeyError:
        print("missing", path)
    elif not isinstance(v, t) or (t is num and isinstance(v, bool)):
        print("wrong type", path, type(v).__name__)
i = d["ilp"]
if i["status"] != "optimal":
    print("status", i["status"])
if len(i["stages"]) != d["strategy"]["pp"]:
    print("ilp.stages has", len(i["stages"]), "entries")
if sum(s["layers"] for s in i["stages"]) != d["model_info"]["layers"]:
    print("ilp.stages layers do not add up to the model's")
for s in i["stages"]:
    for k in ["stage", "layers", "recompute", "memory_gib", "fwd_s", "bwd_s"]:
        if k not in s:
            print("ilp.stages[] lacks", k)
    if s["memory_gib"] > d["memory"]["budget_gib"] + 1e-9:
        print("stage", s["stage"], "over budget")
b = i["bubble"]
idle = b["preparation_s"] + b["imbalance_s"] + b["recompute_s"]
if abs(idle - (i["makespan_s"] - b["useful_s"])) > 1e-9 * i["makespan_s"]:
    print("bubble split does not add up")
if i["step_s"] > d["time"]["step_s"] * (1 + 1e-9) and d["memory"]["fits"]:
    print("ilp slower than the even split that fits")
PY
if [ -s "$T/keys" ]; then fail "ilp --json: contract keys and values" "$(head -c 400 "$T/keys")"; else pass "ilp --json: contract keys and values"; fi

st ilp --budget 8
expect_rc "ilp infeasible budget: exit 1" 1
err_re "ilp infeasible: names the stage and how far over" "stage [0-9]+ cannot fit even with full recomputation: it needs [0-9.]+ GiB, [0-9.]+ GiB over"
st ilp --budget 8 --json
expect_rc "ilp infeasible --json: exit 1" 1
check "ilp infeasible --json: status infeasible" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["ilp"]["status"] != "infeasible")' "$OUT" 2>/dev/null

st ilp --pin 'layers[0:2].recompute=full' --pin 'layers[78:80].stage=3' --json
expect_rc "ilp pins: exit 0" 0
check "ilp pins: pinned layers recompute on stage 0" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["ilp"]["stages"][0]["recompute"]["full"] < 2)' "$OUT" 2>/dev/null
st ilp --pin 'layers[0:80].stage=0'
expect_rc "ilp impossible pins: exit 1" 1
err_has "ilp impossible pins: blames the pins" "pins"
st ilp --pin 'layers[0:2].colour=red'
expect_rc "ilp malformed pin: exit 2" 2
st ilp --pin 'stages[9].layers=3'
expect_rc "ilp pin beyond pp: exit 1" 1
err_has "ilp pin beyond pp: names the pin" "stages[9]"

st ilp --time-limit 0
expect_rc "ilp --time-limit 0: usage error" 2
st ilp --time-limit
expect_rc "ilp --time-limit without value: usage error" 2
st ilp --time-limit 5000 -m llama3-405b -n 2048 --pp 16 --vpp 2 --schedule interleaved --gbs 2048
expect_rc "ilp llama3-405b pp16 vpp2: exit 0" 0
out_has "ilp llama3-405b pp16 vpp2: optimal" "optimal in"
st ilp --tp 7
expect_rc "ilp invalid strategy: exit 1" 1
st ilp no-such-plan.yaml
expect_rc "ilp missing plan file: exit 2" 2
st ilp --csv
expect_rc "ilp --csv: usage error" 2
st ilp --help
expect_rc "ilp --help: exit 0" 0
st --help
out_has "strata --help lists ilp" "strata ilp"

# a framework that partitions stages itself has nothing for the ILP to balance: an error that
# says so, timed from the call (not from the clock's epoch)
st ilp --framework deepspeed --no-sp --recompute full --zero 1 --json
check "ilp --framework deepspeed: refused with the reason, solve_ms from the call" python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["ilp"]
sys.exit(not (i["status"] == "error" and "deepspeed cannot give pipeline stages" in i["message"] and 0 <= i["solve_ms"] < 60000))' "$OUT"
