#!/usr/bin/env bash
# tests/cli/search_export.sh - issue 18: every plan that `search --framework F` returns
# exports to F exactly as it was priced. For each model and framework the search runs with
# its inner level (the bubble ILP, whose uneven splits and per-layer recompute become part
# of the result), each result is written back as a whole plan file (every strategy key of
# its JSON, the ILP's stage_layers and recompute_layers), and `export --to F` must take it:
# exit 0, no "not expressible" line, and the plan file re-evaluated gives the step time
# the search reported for it (the export writes what was priced, not a neighbour).
. "$(dirname "$0")/_lib.sh"

# dense (GQA, large and small), MoE (Mixtral: top-2 of 8; DeepSeek-V3: MLA, 256 experts,
# MTP) and a dense model with a vocabulary of 152k (Qwen2.5)
MODELS="llama3-8b:16:8192:64 llama3-70b:64:8192:128 mixtral-8x7b:32:4096:128 qwen2.5-72b:64:4096:128 deepseek-v3:256:4096:512"

for fw in megatron torchtitan deepspeed; do
    for spec in $MODELS; do
        IFS=: read -r model n seq gbs <<<"$spec"
        st search -m "$model" -c dgx-h100 -n "$n" --seq "$seq" --gbs "$gbs" --framework "$fw" --json --top 4
        if [ "$RC" -eq 1 ] && grep -q "no plan of this model runs under" "$ERR"; then
            # a model the framework cannot train at all (torchtitan: no MTP module): the
            # search proposes nothing, and the export of the model's default plan agrees
            "$STRATA" export -m "$model" -c dgx-h100 -n "$n" --zero 3 --framework "$fw" --to "$fw" >/dev/null 2>"$T/fw.err"
            erc=$?
            check "search --framework $fw ($model): proposes nothing the framework cannot run, and says why" \
                eval '[ "$erc" -eq 1 ] && python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1])) != [])" "$OUT" &&
                    grep -q "cannot train" "$ERR" && grep -q "cannot train" "$T/fw.err"'
            continue
        fi
        if [ "$RC" -ne 0 ]; then
            fail "search --framework $fw ($model) runs" "exit $RC"
            show "$ERR"
            continue
        fi
        rm -f "$T"/plan_*.yaml
        # one plan file per result: the strategy as JSON prints it (the keys a plan takes),
        # the ILP's layout as stage_layers and its recompute ranges as recompute_layers
        python3 - "$OUT" "$T" "$model" "$n" <<'PY'
import json, sys
rows, tdir, model, n = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
# derived figures, not plan keys: the framework that priced it, cp/cp_ulysses, the
# busiest expert rank's load after redundant experts
skip = {"framework_inferred", "runs_on", "framework_issue", "cp_ring", "moe_imbalance"}
for i, r in enumerate(rows):
    s, ilp = r["strategy"], r.get("ilp", {})
    lines = ["model: " + model, "cluster: dgx-h100", "devices: " + n, "strategy:"]
    for k, v in s.items():
        if k in skip:
            continue
        lines.append("  %s: %s" % (k, json.dumps(v)))
    if ilp.get("chunk_layers"):
        lines.append("  stage_layers: %s" % json.dumps(ilp["chunk_layers"]))
    if ilp.get("recompute_ranges"):
        lines.append("  recompute_layers: {%s}" % ", ".join(
            '"%d:%d": %s' % (g["lo"], g["hi"], g["recompute"]) for g in ilp["recompute_ranges"]))
    with open("%s/plan_%d.yaml" % (tdir, i), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open("%s/plan_%d.step" % (tdir, i), "w") as f:
        f.write("%.9g\n" % r["time"]["step_s"])
PY
        np=0 bad=0
        for plan in "$T"/plan_*.yaml; do
            [ -e "$plan" ] || continue
            np=$((np + 1))
            "$STRATA" export "$plan" --to "$fw" >"$T/fw.out" 2>"$T/fw.err"
            rc=$?
            "$STRATA" eval "$plan" --json >"$T/ev.json" 2>/dev/null
            if [ "$rc" -ne 0 ] || grep -q "not expressible" "$T/fw.out" ||
                ! python3 -c 'import json,sys
got = json.load(open(sys.argv[1]))["time"]["step_s"]; want = float(open(sys.argv[2]).read())
sys.exit(abs(got - want) > 1e-6 * want)' "$T/ev.json" "${plan%.yaml}.step"; then
                bad=$((bad + 1))
                echo "    $fw $model $(basename "$plan"): export exit $rc"
                sed 's/^/    | /' "$plan" | grep -v "^    |   [a-z_]*: \(0\|1\|false\|\"fp32\"\|\"none\"\)$" | head -12
                grep "not expressible" "$T/fw.out" | head -3 | sed 's/^/    | /'
                head -3 "$T/fw.err" | sed 's/^/    | /'
            fi
        done
        check "search --framework $fw ($model, $n devices): each of its $np plans, ILP layout included, exports to $fw as priced" \
            eval '[ "$np" -ge 2 ] && [ "$bad" -eq 0 ]'
    done
done
