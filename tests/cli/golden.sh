#!/usr/bin/env bash
# Golden outputs: `strata eval PLAN --json` for every tests/golden/*.yaml must match the
# stored tests/golden/*.json numerically (relative tolerance 1e-6, tests/golden/compare.py).
# The plans carry inline models and clusters with full efficiency blocks, so only a change
# of the cost model itself moves these numbers; after an intended change, regenerate with
# tests/golden/update.sh and review the diff.
. "$(dirname "$0")/_lib.sh"

n=0
for plan in tests/golden/*.yaml; do
    name=$(basename "$plan" .yaml)
    want=${plan%.yaml}.json
    n=$((n + 1))
    if [ ! -f "$want" ]; then
        fail "golden $name" "$want is missing (run tests/golden/update.sh)"
        continue
    fi
    st eval "$plan" --json
    if [ "$RC" -ne 0 ]; then
        fail "golden $name" "strata eval exited $RC"
        show "$ERR"
        continue
    fi
    if diff=$(python3 tests/golden/compare.py "$want" "$OUT" 1e-6 2>&1); then
        pass "golden $name"
    else
        fail "golden $name" "eval --json differs from $want"
        printf '%s\n' "$diff" | sed 's/^/    /'
    fi
done
check "golden: at least the four cases (dense, moe, interleaved, zero3)" [ "$n" -ge 4 ]

# the comparison itself must be able to fail: perturb one number by 1e-5 relative
if [ -f tests/golden/dense.json ]; then
    python3 - tests/golden/dense.json "$T/perturbed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["time"]["step_s"] *= 1 + 1e-5
json.dump(d, open(sys.argv[2], "w"))
PY
    if python3 tests/golden/compare.py tests/golden/dense.json "$T/perturbed.json" 1e-6 >"$T/cmp" 2>&1; then
        fail "golden: compare.py detects a 1e-5 change" "it reported no difference"
    else
        check "golden: compare.py detects a 1e-5 change and names the key" grep -q '^+ .time.step_s' "$T/cmp"
    fi
fi
