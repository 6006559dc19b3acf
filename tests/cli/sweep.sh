#!/usr/bin/env bash
# `strata sweep KNOB=a..b` (issue 20 item 6): each point is the plan evaluated with the knob
# at that value (checked against eval at two points), text with a chart, CSV, JSON;
# ranges double (a..b), add (a..b+s) or list (a,b,c); bad specs exit 2.
. "$(dirname "$0")/_lib.sh"

JOB=(-m llama3-8b -c dgx-h100 -n 16 --tp 2 --pp 2 --gbs 64 --seq 4096)
st sweep gbs=32..256 "${JOB[@]}"
expect_rc "sweep gbs: exit 0" 0
out_has "sweep: the knob and its range" "global_batch from 32 to 256"
check "sweep gbs=32..256: four points (32 64 128 256)" [ "$(grep -cE '^ +(32|64|128|256) +4 ' "$OUT")" -eq 4 ]
check "sweep: a bar chart column" grep -q '#\{10,\}' "$OUT"

st sweep gbs=32..256 "${JOB[@]}" --json
cp "$OUT" "$T/sw.json"
st eval "${JOB[@]}" --gbs 128 --json
python3 - "$T/sw.json" "$OUT" >"$T/chk" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
p = {q["value"]: q for q in s["points"]}
ok = s["knob"] == "global_batch" and abs(p[128]["step_s"] - e["time"]["step_s"]) < 1e-9 * e["time"]["step_s"] \
    and abs(p[128]["peak_gib"] - e["memory"]["peak_gib"]) < 1e-6 and p[32]["step_s"] < p[256]["step_s"]
print("OK" if ok else "BAD", p[128], e["time"]["step_s"])
PY
check "sweep --json: the gbs=128 point is eval --gbs 128's step and peak" grep -q '^OK' "$T/chk"

st sweep devices=8..64 "${JOB[@]}" --csv
expect_rc "sweep devices --csv: exit 0" 0
check "sweep --csv: header and 4 rows" [ "$(wc -l <"$OUT")" -eq 5 ]
check "sweep devices: dp follows (64 devices: dp 16)" grep -q '^devices,64,1,1,16,' "$OUT"
cp "$OUT" "$T/dev.csv"
st eval "${JOB[@]}" -n 64 --json
step64=$(python3 -c "import json; print('%.6g' % json.load(open('$OUT'))['time']['step_s'])")
check "sweep devices=64 equals eval -n 64 ($step64)" grep -q "^devices,64,1,1,16,$step64," "$T/dev.csv"

st sweep mbs=1..4+1 "${JOB[@]}" --csv
check "sweep a..b+s adds: mbs 1,2,3,4" [ "$(cut -d, -f2 "$OUT" | tail -n +2 | tr '\n' ' ')" = "1 2 3 4 " ]
check "sweep: mbs 3 does not divide 32 micro-batch rows: invalid with a reason" grep -q '^micro_batch,3,0,' "$OUT"

st sweep seq=2048,8192 "${JOB[@]}" --metric mfu
expect_rc "sweep a list with --metric mfu: exit 0" 0
out_has "sweep --metric: named in the header" "bars: mfu"

st sweep "${JOB[@]}"
expect_rc "sweep without a spec: exit 2" 2
st sweep tp=1..8 "${JOB[@]}"
expect_rc "sweep of an unknown knob: exit 2" 2
st sweep gbs=64..8 "${JOB[@]}"
expect_rc "sweep with b < a: exit 2" 2
err_has "sweep bad range: says how to write one" "a..b doubles"
st sweep gbs=1..4 "${JOB[@]}" --metric speed
expect_rc "sweep --metric unknown: exit 2" 2
st sweep gbs=3 "${JOB[@]}"
expect_rc "sweep with no valid point: exit 1" 1
st sweep --help
out_has "sweep --help: usage" "usage: strata sweep KNOB=a..b"
