#!/usr/bin/env bash
# The cost model's batch outputs, kept whole: `eval --json` (every validation case, every
# model preset on every cluster preset), `ilp --json`, `search --json` and `validate` must
# print exactly what tests/golden/core/*.txt holds (tests/golden/core/capture.sh writes
# both). A refactor of the core keeps them byte for byte; an intended change of the model
# regenerates them (tests/golden/core/README).
. "$(dirname "$0")/_lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
tests/golden/core/capture.sh "$STRATA" "$T" 2>"$T/capture.err"
rc=$?
check "golden core: capture.sh exits 0" [ "$rc" -eq 0 ]
for f in eval ilp search validate; do
    want=tests/golden/core/$f.txt
    n=$(grep -c '^## ' "$want" 2>/dev/null || echo 0)
    if cmp -s "$want" "$T/$f.txt"; then
        pass "golden core: $f ($n commands) prints exactly $want"
    else
        fail "golden core: $f ($n commands) prints exactly $want" "first differences:"
        diff "$want" "$T/$f.txt" | head -n 20 | sed 's/^/    /'
    fi
done
