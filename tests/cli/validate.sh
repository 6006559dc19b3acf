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

# scripts/validate_corrected.sh applies tests/validation/corrections.txt to a copy. The
# corrections open today (the NeMo Llama runs' configs) touch no case with a peak-memory
# expectation, so both memory medians agree; the NeMo 24.07 Llama 3 8B run, over budget as
# published, fits in the corrected copy; the published files stay untouched.
sum_before=$(cksum "$DIR"/zerobubble_1.5B_1F1B_m24.yaml)
scripts/validate_corrected.sh --keep "$T/corrected" "$STRATA" >"$OUT" 2>"$ERR"
RC=$?
expect_rc "validate_corrected: exit 0" 0
check "validate_corrected: reports both runs" eval '[ "$(grep -c "^peak memory:" "$OUT")" -eq 2 ]'
m1=$(grep '^peak memory:' "$OUT" | sed -n 1p | sed 's/.*median |error| \([0-9.]*\)%.*/\1/')
m2=$(grep '^peak memory:' "$OUT" | sed -n 2p | sed 's/.*median |error| \([0-9.]*\)%.*/\1/')
check "validate_corrected: no open correction touches a memory case, the two memory medians agree ($m1% = $m2%)" \
    awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(a != "" && a == b) }'
n0=$(grep -cv '^[[:space:]]*\(#\|$\)' tests/validation/corrections.txt)
check "validate_corrected: the file's $n0 corrections applied" \
    grep -q "^== with $n0 corrections from tests/validation/corrections.txt" "$OUT"
"$STRATA" eval "$DIR"/nemo2407_LLAMA3-8B_8gpu_gbs128.yaml >/dev/null 2>&1
r_pub=$?
"$STRATA" eval "$T/corrected/nemo2407_LLAMA3-8B_8gpu_gbs128.yaml" >/dev/null 2>&1
r_cor=$?
check "validate_corrected: NeMo Llama 3 8B fp8 is over budget as published (exit $r_pub), fits with NeMo's bf16 gradients (exit $r_cor)" \
    eval '[ "$r_pub" -eq 1 ] && [ "$r_cor" -eq 0 ]'
check "validate_corrected: published files unchanged" [ "$(cksum "$DIR"/zerobubble_1.5B_1F1B_m24.yaml)" = "$sum_before" ]

# --fixes applies another corrections file: undoing the Zero Bubble correction (flash on,
# no dropout) moves the memory median far from the published files' value; a missing file
# is a usage error
F=tests/fixtures/validation/revert_zerobubble.txt
scripts/validate_corrected.sh --fixes "$F" "$STRATA" >"$OUT" 2>"$ERR"
RC=$?
expect_rc "validate_corrected --fixes: exit 0" 0
m3=$(grep '^peak memory:' "$OUT" | sed -n 2p | sed 's/.*median |error| \([0-9.]*\)%.*/\1/')
check "validate_corrected --fixes: reverting the Zero Bubble lines takes the memory median from $m1% to $m3%" \
    awk -v a="$m1" -v b="$m3" 'BEGIN { exit !(a != "" && b != "" && b > 3 * a) }'
n3=$(grep -cv '^[[:space:]]*\(#\|$\)' "$F")
check "validate_corrected --fixes: only the file's $n3 lines apply" grep -q "^== with $n3 corrections from $F" "$OUT"
check "validate_corrected --fixes: names the file it applied" grep -q "corrections from $F" "$OUT"
scripts/validate_corrected.sh --fixes /nonexistent/fixes.txt "$STRATA" >"$OUT" 2>"$ERR"
RC=$?
expect_rc "validate_corrected --fixes missing file: exit 2" 2
err_has "validate_corrected --fixes missing file: names it" "/nonexistent/fixes.txt"

# a case that publishes only a throughput: the step time it implies is the same whichever
# figure is given (tokens/s of the job, MFU, HFU, or TFLOP/s per GPU with its convention)
src="$DIR/megatron_readme_h100_70B.yaml"
T=$(mktemp -d)
st eval "$src" --json
read -r step mfu hfu gbs seq dev <<EOF2
$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["throughput"]; s=d["strategy"]
print(d["time"]["step_s"], t["mfu"], t["hfu"], s["global_batch"], s["seq_length"], d["devices"])' "$OUT" 2>/dev/null)
EOF2
with_expect() { # NAME LINES...: the case with its expect block replaced
    name=$1; shift
    awk -v block="$(printf '%s\n' "$@")" '
        /^expect:/ { print; print block; skip = 1; next }
        skip && /^  / { next }
        { skip = 0; print }' "$src" | sed "s/^id: .*/id: only_$name/" >"$T/$name.yaml"
}
x=$(awk -v s="$step" 'BEGIN { printf "%.6f", s * 1.25 }')  # "measured": 25 % slower than predicted
with_expect step "  step_time_s: $x"
with_expect tokens "  tokens_per_s: $(awk -v g="$gbs" -v q="$seq" -v x="$x" 'BEGIN { printf "%.6f", g * q / x }')"
with_expect mfu "  mfu: $(awk -v m="$mfu" -v s="$step" -v x="$x" 'BEGIN { printf "%.9f", m * s / x }')"
with_expect hfu "  hfu: $(awk -v m="$hfu" -v s="$step" -v x="$x" 'BEGIN { printf "%.9f", m * s / x }')"
with_expect tflops "  tflops_per_gpu: $(awk -v m="$mfu" -v s="$step" -v x="$x" 'BEGIN { printf "%.6f", m * s / x * 989 }')" \
    "  tflops_convention: mfu"
st validate "$T" --csv
for name in step tokens mfu hfu tflops; do
    got=$(awk -F, -v id="only_$name" '$1 == id && $3 == 1 { print $5 }' "$OUT")
    check "validate: a case with only $name has a step time ($got s, want $x s)" \
        awk -v a="$got" -v b="$x" 'BEGIN { exit !(a != "" && a / b > 0.999 && a / b < 1.001) }'
done
rm -rf "$T"
