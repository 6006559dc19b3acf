#!/usr/bin/env bash
# scripts/fuzz.sh BUILD_DIR SECONDS - run every libFuzzer target of BUILD_DIR/fuzz for
# SECONDS each (called by `make fuzz`). Seeds: fuzz/corpus/NAME and fuzz/regress/NAME
# (read-only); what libFuzzer learns goes to BUILD_DIR/corpus/NAME; crashes, leaks and
# timeouts go to fuzz/out/NAME-*. Exit 1 when any target found something.
set -u
build=${1:-build-fuzz}
secs=${2:-60}
cd "$(dirname "$0")/.." || exit 2
export STRATA_DATA=$PWD   # presets resolve from the source tree
mkdir -p fuzz/out
found=0
for bin in "$build"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    work=$build/corpus/$name
    mkdir -p "$work"
    seeds=()
    extra=()
    [ "$name" = lua ] && extra=(lua tests/lua)   # the shipped recipes are seeds too
    for d in "fuzz/corpus/$name" "fuzz/regress/$name" "${extra[@]}"; do
        [ -d "$d" ] && seeds+=("$d")
    done
    echo "fuzz: $name for ${secs}s"
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="fuzz/out/$name-" -print_final_stats=1 "$work" "${seeds[@]}" \
        >"$build/fuzz-$name.log" 2>&1
    rc=$?
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$build/fuzz-$name.log" | sed 's/^/  /'
    if [ $rc -ne 0 ]; then
        found=1
        echo "  FOUND a problem (exit $rc): see $build/fuzz-$name.log and fuzz/out/$name-*"
    fi
done
[ $found -eq 0 ] && echo "fuzz: nothing found"
exit $found
