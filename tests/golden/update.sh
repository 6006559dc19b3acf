#!/usr/bin/env bash
# tests/golden/update.sh [STRATA]  - regenerate the expected outputs tests/golden/*.json
#
# Each tests/golden/NAME.yaml is a plan whose `strata eval NAME.yaml --json` output is kept
# in NAME.json and compared by tests/cli/golden.sh (relative tolerance 1e-6).
#
# When to run it: ONLY after an intended change of the cost model (a corrected formula, a
# new memory or time component) or of the JSON layout. Never to make a failing test pass
# without understanding why the numbers moved: read the failure diff first, check that
# every changed figure moved for the reason of your change, then regenerate, review
# `git diff tests/golden/` and say in the commit message why the numbers changed.
# Preset recalibration must not change these files: the plans carry their own model and
# cluster (with a full efficiency block).
#
# Uses $STRATA, else the first argument, else build/strata (run `make` first).
set -eu
cd "$(dirname "$0")/../.."
BIN=${1:-${STRATA:-build/strata}}
[ -x "$BIN" ] || { echo "update.sh: $BIN not found (run make first)" >&2; exit 2; }
for plan in tests/golden/*.yaml; do
    out=${plan%.yaml}.json
    rc=0
    "$BIN" eval "$plan" --json >"$out.tmp" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "update.sh: $plan: strata eval exited $rc; $out left unchanged" >&2
        rm -f "$out.tmp"
        exit 1
    fi
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out.tmp"
    mv "$out.tmp" "$out"
    echo "wrote $out"
done
