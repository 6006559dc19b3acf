#!/usr/bin/env bash
# `strata search`: the table, --json (a list, best first, each element with the keys of
# `eval --json` plus "search" and "ilp"), --csv, --top, --no-ilp, --threads (the same
# ranking on any thread count), --compare, pins from --pin and from the plan file (every
# result honours them), unsatisfiable pins named, exit codes 0 / 1 / 2. The ranking report
# on the published strategies (scripts/rank_published.py) runs on two cases.
. "$(dirname "$0")/_lib.sh"

# a small job keeps this quick
JOB=(-m llama2-7b -c dgx-a100-80g -n 16 --gbs 32 --seq 4096)

st search "${JOB[@]}"
expect_rc "search: exit 0" 0
out_has "search: says how many strategies were enumerated" "strategies over"
out_has "search: says how many were checked, valid and fit" "valid"
out_has "search: times the inner level" "inner    ILP refined"
check "search: ten results by default" [ "$(grep -cE '^ +[0-9]+ +[0-9.]+ ' "$OUT")" -eq 10 ]
check "search: nothing on stderr" [ ! -s "$ERR" ]

st search "${JOB[@]}" --json --top 4
expect_rc "search --json: exit 0" 0
python3 - "$OUT" >"$T/keys" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
num = (int, float)
if not isinstance(d, list) or len(d) != 4:
    print("not a list of 4")
    sys.exit()
def get(x, path):
    for k in path.split("."):
        if not isinstance(x, dict) or k not in x:
            return KeyError
        x = x[k]
    return x
want = {
    "memory.peak_gib": num, "memory.budget_gib": num, "memory.fits": bool, "memory.stages": list,
    "time.step_s": num, "time.compute_s": num, "time.bubble_s": num, "time.comm_exposed_s": num,
    "time.tp_s": num, "time.cp_s": num, "time.ep_s": num, "time.pp_s": num, "time.dp_s": num,
    "throughput.tokens_per_s": num, "throughput.mfu": num, "throughput.hfu": num, "strategy": dict,
    "search.rank": int, "search.step_s": num, "search.peak_gib": num, "search.mfu": num,
    "search.tokens_per_s": num, "search.even_step_s": num, "search.enumerated": int,
    "search.fit": int, "search.outer_s": num, "search.inner_s": num, "ilp.status": str, "ilp.gain": num,
}
for k in ["dp", "tp", "pp", "vpp", "cp", "ep", "etp", "zero", "micro_batch", "global_batch", "seq_length"]:
    want["strategy." + k] = int
for i, r in enumerate(d):
    for path, t in want.items():
        v = get(r, path)
        if v is KeyError:
            print("result", i, "missing", path)
        elif not isinstance(v, t) or (t is num and isinstance(v, bool)):
            print("result", i, "wrong type", path, type(v).__name__)
    if r["search"]["rank"] != i + 1:
        print("rank", r["search"]["rank"], "at", i)
    if not r["memory"]["fits"] or r["search"]["peak_gib"] > r["memory"]["budget_gib"] + 1e-9:
        print("result", i, "does not fit")
steps = [r["search"]["step_s"] for r in d]
if steps != sorted(steps):
    print("not best first:", steps)
PY
if [ -s "$T/keys" ]; then fail "search --json: a list, best first, eval keys + search + ilp" "$(head -c 400 "$T/keys")"; else pass "search --json: a list, best first, eval keys + search + ilp"; fi

st search "${JOB[@]}" --csv --top 3
expect_rc "search --csv: exit 0" 0
check "search --csv: a header and three rows" [ "$(wc -l <"$OUT")" -eq 4 ]
check "search --csv: rank and eval columns" grep -q '^rank,search_step_s,.*,dp,tp,pp,' "$OUT"

st search "${JOB[@]}" --no-ilp --json --top 3
check "search --no-ilp: the ILP is skipped" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(any(r["ilp"]["status"] != "skipped" for r in d))' "$OUT"

# the same ranking on one thread and on three (timing fields aside)
strip='import json,sys
d=json.load(open(sys.argv[1]))
for r in d:
    for k in ("outer_s","inner_s","threads"): r["search"].pop(k)
    r["ilp"].pop("solve_ms", None)
print(json.dumps(d, sort_keys=True))'
st search "${JOB[@]}" --json --threads 1
python3 -c "$strip" "$OUT" >"$T/one"
st search "${JOB[@]}" --json --threads 3
python3 -c "$strip" "$OUT" >"$T/three"
check "search --threads: one and three threads rank alike" cmp -s "$T/one" "$T/three"
st search "${JOB[@]}" --json --threads 3
python3 -c "$strip" "$OUT" >"$T/again"
check "search: a second run ranks alike" cmp -s "$T/three" "$T/again"

st search "${JOB[@]}" --compare --tp 4 --pp 2
expect_rc "search --compare: exit 0" 0
out_has "search --compare: ranks the plan's strategy" "ranks #"
out_has "search --compare: says what the best gains" "tokens/s over the plan"
out_has "search --compare: splits the difference by component" "plan    candidate   difference"
check "search --compare: the components' differences add up to the step's" python3 -c '
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"  (compute|recompute|bubble|tp comm|cp comm|ep comm|pp comm|dp comm|optimizer|step) +\S+ s +\S+ s +(\S+) s$", line)
    if m: rows[m.group(1)] = float(m.group(2))
parts = sum(v for k, v in rows.items() if k != "step")
sys.exit(not ("step" in rows and len(rows) > 3 and abs(parts - rows["step"]) <= 1e-3 * max(1e-9, abs(rows["step"])) + 1e-6))' "$OUT"
out_has "search --compare: and the peak memory" "peak memory"
st search "${JOB[@]}" --compare --tp 4 --pp 2 --json --top 1
check "search --compare --json: plan_rank and gain_over_plan" python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))[0]["search"]; sys.exit(not (s["plan_rank"] > 1 and s["gain_over_plan"] > 0))' "$OUT"

# pins: every result honours them
st search "${JOB[@]}" --pin tp=2 --pin experts.ep=1 --pin 'layers[0:2].recompute=full' --pin schedule=1f1b --json
expect_rc "search pins: exit 0" 0
check "search pins: every result has tp=2 and 1f1b" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d or any(r["strategy"]["tp"] != 2 or r["strategy"]["schedule"] != "1f1b" for r in d))' "$OUT"
cat >"$T/pinned.yaml" <<'EOF'
model: llama2-7b
cluster: dgx-a100-80g
devices: 16
strategy: {global_batch: 32, seq_length: 4096}
pins: ["attention.cp=2", "attention.cp_kind=ulysses"]
EOF
st search "$T/pinned.yaml" --json --top 3
expect_rc "search plan pins: exit 0" 0
check "search plan pins: cp=2 ulysses everywhere" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d or any(r["strategy"]["cp"] != 2 or r["strategy"]["cp_kind"] != "ulysses" for r in d))' "$OUT"

# unsatisfiable pins: exit 1, the pin that breaks is named with the core's reason
st search "${JOB[@]}" -n 24 --gbs 48 --pin pp=2 --pin tp=3
expect_rc "search tp=3: exit 1" 1
err_has "search tp=3: names the pin and the core's reason" "pin 'tp=3' cannot be satisfied: tp=3 does not divide 32 attention heads"
st search "${JOB[@]}" --pin tp=3
expect_rc "search tp=3 on 16 devices: exit 1" 1
err_has "search tp=3 on 16 devices: no split of the devices" "pin 'tp=3' cannot be satisfied: no split of 16 devices"
st search "${JOB[@]}" --pin tp=8 --pin attention.tp=4
expect_rc "search conflicting pins: exit 1" 1
err_has "search conflicting pins: names the second" "pin 'attention.tp=4' cannot hold together with 'tp=8'"
st search "${JOB[@]}" --pin experts.ep=8
expect_rc "search experts on a dense model: exit 1" 1
err_has "search experts on a dense model: says so" "no experts"
st search "${JOB[@]}" --pin tp=1 --pin pp=1 --pin cp=1 --pin zero=0 --pin recompute=none --json
expect_rc "search pins that cannot fit: exit 1" 1
err_has "search pins that cannot fit: names ZeRO-0, the pin that breaks" "pin 'zero=0' cannot hold together with 'tp=1', 'pp=1', 'cp=1': no strategy fits"
check "search pins that cannot fit: --json prints an empty list" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != [])' "$OUT"
st search "${JOB[@]}" --budget 0.5
expect_rc "search nothing fits: exit 1" 1
err_has "search nothing fits: says the least memory" "no strategy fits in the 0.5 GiB budget"

# usage errors: exit 2
st search "${JOB[@]}" --pin colour=red
expect_rc "search unknown pin key: exit 2" 2
err_has "search unknown pin key: names it" "unknown key 'colour'"
st search "${JOB[@]}" --pin 'layers[0:2].stage=1' --no-ilp
expect_rc "search stage pin with --no-ilp: exit 2" 2
st search "${JOB[@]}" --threads 0
expect_rc "search --threads 0: exit 2" 2
st search "${JOB[@]}" --top 0
expect_rc "search --top 0: exit 2" 2
st search "${JOB[@]}" --bogus
expect_rc "search unknown option: exit 2" 2
st search no-such-plan.yaml
expect_rc "search missing plan: exit 2" 2
st search --help
expect_rc "search --help: exit 0" 0

# the ranking report on published strategies (two cases; docs/search.md has all)
if STRATA="$STRATA" python3 scripts/rank_published.py tests/validation/public/narayanan2021_t1_1.7B.yaml \
		tests/validation/public/llmfoundry_h100_80gb_7b_seq2048_8gpu_mbs6_gbs48.yaml >"$T/rank" 2>"$T/rankerr"; then
	pass "rank_published: runs"
else
	fail "rank_published: runs" "$(head -c 300 "$T/rankerr")"
fi
check "rank_published: one row per case with a rank" [ "$(grep -cE '^\| [A-Za-z0-9_.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9,]+ \|' "$T/rank")" -eq 2 ]

# the plan's framework carries into every candidate (torchtitan prices selective its way)
st search -m llama3-8b -c dgx-h100 -n 8 --seq 8192 --framework torchtitan --json --top 3
check "search --framework torchtitan: every result keeps framework torchtitan" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d or any(r["strategy"]["framework"] != "torchtitan" for r in d))' "$OUT"

# issue 17: strategies with identical results are one row. Llama-3-70B on 512 H100 trades
# dp for cp and micro-batch with the same figures (dp 32 cp 2 mbs 1 = dp 16 cp 4 mbs 2, both
# across nodes); the simpler shows the row, "+1 alike" counts the other
st search -m llama3-70b -n 512 --top 10
check "search alike: the table marks a merged row '+1 alike', the simpler strategy shown" \
    grep -q "dp=32 tp=2 pp=4 vpp=8 cp=2(ring) zero=2 mbs=1 sp none interleaved uneven  +1 alike" "$OUT"
check "search alike: the dp 16 cp 4 mbs 2 twin is no row of its own" \
    eval '! grep -q "dp=16 tp=2 pp=4 vpp=8 cp=4(ring) zero=2 mbs=2 sp none interleaved" "$OUT"'
out_has "search alike: a note says what +N alike means" "+N alike: N more strategies with identical results"
# JSON (outer level only, so every strategy evaluates as it is): no two results alike, ten
# rows, and each merged strategy evaluated on its own gives its row's figures
cat >"$T/near.py" <<'PY'
def near(a, b):
    """every figure of a in b, numbers within 1e-9 relative (the search's tolerance)"""
    if isinstance(a, dict):
        return all(k in b and near(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(near(p, q) for p, q in zip(a, b))
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return a == b
def figs(x):
    return {k: x[k] for k in ("memory", "time", "throughput")}
PY
st search -m llama3-70b -n 512 --top 10 --no-ilp --json
cp "$OUT" "$T/alike.json"
PYTHONPATH=$T python3 - "$T/alike.json" >"$T/alike" 2>&1 <<'PY'
import json, sys
from near import near, figs
d = json.load(open(sys.argv[1]))
print(len(d), "rows")
for i in range(len(d)):
    for j in range(i + 1, len(d)):
        if near(figs(d[i]), figs(d[j])):
            print("alike rows", i + 1, j + 1)
merged = [(r, a) for r in d for a in r["search"]["alike_strategies"]]
print(len(merged), "merged", sum(r["search"]["alike"] for r in d), "counted")
for r, a in merged:
    opt = {"micro_batch": "mbs"}
    print("args", r["search"]["rank"], " ".join("--%s %s" % (opt.get(k, k), a[k]) for k in
          ("dp", "tp", "pp", "vpp", "cp", "ep", "etp", "zero", "micro_batch", "recompute", "schedule")),
          "--sp" if a["sp"] else "--no-sp", "--cp-ulysses" if a["cp_kind"] == "ulysses" else "")
PY
check "search alike --json: ten rows, no two alike, merged strategies listed as counted" \
    eval 'grep -qx "10 rows" "$T/alike" && ! grep -q "^alike rows" "$T/alike" && grep -Eq "^([1-9][0-9]*) merged \1 counted$" "$T/alike"'
bad=0 n=0
while read -r _ rank args; do
    n=$((n + 1))
    "$STRATA" eval -m llama3-70b -n 512 $args --json >"$T/one.json" 2>/dev/null
    PYTHONPATH=$T python3 -c 'import json, sys; from near import near, figs
row = json.load(open(sys.argv[1]))[int(sys.argv[2]) - 1]
sys.exit(not near(figs(row), json.load(open(sys.argv[3]))))' "$T/alike.json" "$rank" "$T/one.json" || bad=$((bad + 1))
done < <(grep '^args' "$T/alike")
check "search alike --json: each of the $n merged strategies, evaluated alone, gives its row's figures" \
    [ "$bad" -eq 0 -a "$n" -gt 0 ]

# issue 18: search --framework F proposes only what F runs, so every plan it returns exports
# to F exactly (exit 0, no "not expressible" line); the moe preset covers experts too
for fw in megatron torchtitan deepspeed; do
    for model in llama3-8b mixtral-8x7b; do
        st search -m "$model" -c dgx-h100 -n 16 --seq 4096 --gbs 64 --framework "$fw" --no-ilp --json --top 5
        python3 - "$OUT" >"$T/fwargs" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    a = r["strategy"]
    print(" ".join("--%s %s" % (k, a[v]) for k, v in (("dp", "dp"), ("tp", "tp"), ("pp", "pp"), ("vpp", "vpp"),
          ("cp", "cp"), ("ep", "ep"), ("etp", "etp"), ("zero", "zero"), ("mbs", "micro_batch"),
          ("recompute", "recompute"), ("schedule", "schedule"), ("cp-kind", "cp_kind"))),
          "--sp" if a["sp"] else "--no-sp", "--tp-overlap" if a["tp_comm_overlap"] else "")
PY
        n=0 bad=0
        while read -r args; do
            n=$((n + 1))
            "$STRATA" export -m "$model" -c dgx-h100 -n 16 --seq 4096 --gbs 64 --framework "$fw" $args --to "$fw" \
                >"$T/fw.out" 2>"$T/fw.err" && ! grep -q "not expressible" "$T/fw.out" || {
                bad=$((bad + 1))
                echo "    $args:" && head -3 "$T/fw.err"
            }
        done <"$T/fwargs"
        check "search --framework $fw ($model): each of its $n plans exports to $fw as priced" \
            eval '[ "$n" -ge 3 ] && [ "$bad" -eq 0 ]'
    done
done
st search -m llama3-70b -n 512 --top 20 --json
check "search (framework auto): no plan the framework that prices it cannot run (no zb-v, DualPipe, GPipe under Megatron-LM)" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d or any("framework_issue" in r["strategy"] for r in d))' "$OUT"
