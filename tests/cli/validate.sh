#!/usr/bin/env bash
# `strata validate tests/validation/public`: the accuracy report over the public validation
# cases runs and has the step-time and peak-memory summary lines with a median error.
# SKIPs while tests/validation/public is not in the tree.
. "$(dirname "$0")/_lib.sh"

DIR=tests/validation/public
if [ ! -d "$DIR" ]; then
    skip "validate public" "$DIR does not exist"
    exit 0
fi
st validate "$DIR"
expect_rc "validate public: exit 0" 0
check "validate public: 'step time:' line with a median" \
    grep -Eq '^step time: [0-9]+ cases, median \|error\| [0-9.]+%' "$OUT"
check "validate public: 'peak memory:' line with a median" \
    grep -Eq '^peak memory: [0-9]+ cases, median \|error\| [0-9.]+%' "$OUT"
ncases=$(ls "$DIR"/*.yaml 2>/dev/null | wc -l)
check "validate public: every case evaluated ($ncases)" grep -q "^validated $ncases cases" "$OUT"
check "validate public: no case fails to load" [ ! -s "$ERR" ]

# a single file works too; a missing one is a file error
first=$(ls "$DIR"/*.yaml | head -n 1)
st validate "$first"
check "validate one file: exit 0, one case" eval '[ "$RC" -eq 0 ] && grep -q "^validated 1 cases" "$OUT"'
st validate tests/validation/no-such-dir
expect_rc "validate missing dir: exit 2" 2
err_has "validate missing dir: names it" "no-such-dir"

# scripts/validate_corrected.sh applies tests/validation/corrections.txt to a copy: the
# published files stay untouched and the corrected Zero Bubble runs use unfused attention
# with dropout, which changes their predicted peak memory
sum_before=$(cksum "$DIR"/zerobubble_1.5B_1F1B_m24.yaml)
scripts/validate_corrected.sh "$STRATA" >"$OUT" 2>"$ERR"
RC=$?
expect_rc "validate_corrected: exit 0" 0
check "validate_corrected: reports both runs" eval '[ "$(grep -c "^peak memory:" "$OUT")" -eq 2 ]'
m1=$(grep '^peak memory:' "$OUT" | sed -n 1p | sed 's/.*median |error| \([0-9.]*\)%.*/\1/')
m2=$(grep '^peak memory:' "$OUT" | sed -n 2p | sed 's/.*median |error| \([0-9.]*\)%.*/\1/')
check "validate_corrected: the corrections change the memory median ($m1% -> $m2%)" \
    awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(a != "" && b != "" && a != b) }'
check "validate_corrected: published files unchanged" [ "$(cksum "$DIR"/zerobubble_1.5B_1F1B_m24.yaml)" = "$sum_before" ]
