#!/usr/bin/env bash
# A short memcheck run inside `make test`: the evaluated default plan, its JSON, a
# malformed file and the core's unit tests must show no memory error and no definitely or
# indirectly lost block. The full sweep is `make check-valgrind`. Skipped without
# valgrind or on a sanitized build (ASan and valgrind do not mix).
. "$(dirname "$0")/_lib.sh"
if ! command -v valgrind >/dev/null 2>&1; then
    skip "valgrind smoke" "valgrind is not installed (apt-get install valgrind)"; exit 0
fi
case $STRATA_BUILD in *-san) skip "valgrind smoke" "sanitized build"; exit 0 ;; esac
vg() { # name, command...
    local name=$1; shift
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --show-leak-kinds=definite,indirect "$@" >"$T/vg.out" 2>&1
    local rc=$?
    if [ $rc -eq 99 ] || grep -q '^==[0-9]*== ' "$T/vg.out"; then
        fail "valgrind $name" "$(grep '^==' "$T/vg.out" | head -5)"
    else
        pass "valgrind $name"
    fi
}
vg "eval default" "$STRATA" eval
vg "eval --json" "$STRATA" eval --json
vg "malformed yaml" "$STRATA" eval tests/fixtures/bad/malformed.yaml
[ -x "$STRATA_BUILD/tests/test_evaluate" ] && vg "test_evaluate" "$STRATA_BUILD/tests/test_evaluate"
