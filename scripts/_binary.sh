# scripts/_binary.sh - sourced (not run) by the scripts that drive the real explorer
# (screenshots.sh, captures.sh): sets ROOT (the source tree, also the working directory)
# and STRATA (the binary: $STRATA when set, else build/strata, built first).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
STRATA=${STRATA:-}
if [ -z "$STRATA" ]; then
    make -s all
    STRATA=$ROOT/build/strata
fi
