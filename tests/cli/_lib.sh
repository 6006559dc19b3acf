# tests/cli/_lib.sh - helpers sourced by the CLI test scripts (not run by itself).
#
# Every check prints one line the runner counts: "PASS name", "FAIL name: why" or
# "SKIP name: why". Scripts get STRATA (binary), ROOT (repo root) from tests/run; the
# defaults let a script run by hand from the repository root too.
#
#   st ARGS...            run "$STRATA ARGS" capturing $OUT, $ERR (files) and $RC;
#                         a crash (signal, exit > 2) or a sanitizer report is a FAIL of
#                         its own, printed with the stderr text
#   pass NAME / fail NAME WHY / skip NAME WHY
#   check NAME COND...    pass when the command COND... succeeds
#   expect_rc NAME WANT   pass when $RC is WANT (WANT may be "1|2")
#   err_has NAME TEXT     pass when stderr contains TEXT (fixed string)
#   err_re NAME REGEX     pass when stderr matches the extended REGEX
#   out_has NAME TEXT     pass when stdout contains TEXT

set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
STRATA=${STRATA:-$ROOT/build/strata}
cd "$ROOT" || exit 2

T=$(mktemp -d "${TMPDIR:-/tmp}/strata-cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
OUT=$T/stdout
ERR=$T/stderr
RC=0
SAN_RE='AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:'

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: ${2:-}"; }
skip() { echo "SKIP $1: ${2:-}"; }

# indented excerpt of a file for failure messages (not counted by the runner)
show() { head -c 1500 "$1" | sed 's/^/    | /'; }

_NRUN=0
st() {
    _NRUN=$((_NRUN + 1))
    "$STRATA" "$@" >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    if [ "$RC" -gt 2 ] || grep -Eq "$SAN_RE" "$ERR"; then
        fail "no crash or sanitizer report: strata $*" "exit $RC"
        show "$ERR"
    fi
    return 0
}

check() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name" "condition failed: $*"; fi
}

expect_rc() {
    case "|$2|" in
    *"|$RC|"*) pass "$1" ;;
    *) fail "$1" "exit $RC, want $2"; show "$ERR" ;;
    esac
}

err_has() {
    if grep -Fq -- "$2" "$ERR"; then pass "$1"; else fail "$1" "stderr lacks '$2'"; show "$ERR"; fi
}

err_re() {
    if grep -Eq -- "$2" "$ERR"; then pass "$1"; else fail "$1" "stderr does not match /$2/"; show "$ERR"; fi
}

out_has() {
    if grep -Fq -- "$2" "$OUT"; then pass "$1"; else fail "$1" "stdout lacks '$2'"; show "$OUT"; fi
}
