#!/usr/bin/env bash
# scripts/valgrind.sh BUILD_DIR - every unit test and typical strata commands under
# valgrind's memcheck; any error or definitely/indirectly lost block fails
# (`make check-valgrind`). Prints PASS/FAIL lines and the usual summary.
set -u
build=${1:-build}
cd "$(dirname "$0")/.." || exit 2
command -v valgrind >/dev/null 2>&1 || { echo "check-valgrind needs valgrind (Debian: apt-get install valgrind)" >&2; exit 2; }
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect)
pass=0 fail=0
check() { # name, command...
    local name=$1; shift
    if "${VG[@]}" "$@" >/tmp/strata-vg.$$ 2>&1 || [ $? -ne 99 ]; then
        if grep -q '^==[0-9]*== ' /tmp/strata-vg.$$; then
            echo "FAIL valgrind $name"; sed -n '/^==[0-9]*== /p' /tmp/strata-vg.$$ | head -30; fail=$((fail + 1))
        else
            echo "PASS valgrind $name"; pass=$((pass + 1))
        fi
    else
        echo "FAIL valgrind $name"; grep '^==' /tmp/strata-vg.$$ | head -30; fail=$((fail + 1))
    fi
}
for t in "$build"/tests/test_*; do
    [ -x "$t" ] && check "${t##*/}" "$t"
done
S=$build/strata
check "eval default" "$S" eval
check "eval json" "$S" eval --json
check "eval moe" "$S" eval -m deepseek-v3 -c h800 -n 2048 --tp 1 --pp 16 --ep 64 --schedule dualpipe
check "presets" "$S" presets
check "validate" "$S" validate tests/validation/public
check "bad yaml" "$S" eval tests/fixtures/bad/malformed.yaml
rm -f /tmp/strata-vg.$$
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
