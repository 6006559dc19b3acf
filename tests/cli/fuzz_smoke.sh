#!/usr/bin/env bash
# Replay every fuzz target over its seed corpus, its past crashes (fuzz/regress/NAME) and
# 1000 deterministic mutants of each (200 for Lua scripts; fuzz/replay.c). Under `make test SANITIZE=1` the
# targets carry ASan/UBSan, so an out-of-bounds read or an overflow is a failure here.
. "$(dirname "$0")/_lib.sh"
export STRATA_DATA=$ROOT
found=0
for bin in "$STRATA_BUILD"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    found=1
    name=${bin##*/fuzz_}
    dirs=()
    extra=()
    [ "$name" = lua ] && extra=("$ROOT/lua" "$ROOT/tests/lua")   # the recipes are seeds too
    for d in "$ROOT/fuzz/corpus/$name" "$ROOT/fuzz/regress/$name" "${extra[@]}"; do
        [ -d "$d" ] && dirs+=("$d")
    done
    if [ ${#dirs[@]} -eq 0 ]; then
        echo "FAIL fuzz $name: no seed corpus in fuzz/corpus/$name"
        continue
    fi
    m=1000
    [ "$name" = lua ] && m=200   # each Lua run builds a whole sandboxed state
    out=$("$bin" -m $m "${dirs[@]}" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^PASS '; then
        printf '%s\n' "$out" | grep '^PASS '
    else
        echo "FAIL fuzz $name (exit $rc)"
        printf '%s\n' "$out" | tail -20
    fi
done
[ $found -eq 1 ] || echo "FAIL fuzz: no fuzz targets built in $STRATA_BUILD/fuzz"
