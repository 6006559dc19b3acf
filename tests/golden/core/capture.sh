#!/usr/bin/env bash
# tests/golden/core/capture.sh [STRATA] [OUTDIR] - the batch outputs the cost model must keep.
#
# Writes OUTDIR/{eval,ilp,search,validate}.txt: `eval --json` of every validation case and of
# every model preset on every cluster preset, `ilp --json` of every validation case with a
# pipeline, `search --json --top 5` of every model preset on two clusters, and `validate -v`
# and `--csv` of the public cases. Each command's exit status and stderr are kept too.
# The searches on 512 H800 skip the ILP level: on Llama 4 Maverick (pp 2, vpp 9) its refined
# split differed between the optimized and the sanitizer build (both reported optimal), so the
# ILP level is covered by the 128-GPU searches and ilp.txt only.
# Only wall-clock fields (solve_ms, outer_s, inner_s) and the thread count are masked; the
# searches get a long ILP time limit, so a slow machine (sanitizers) cannot change a result. tests/cli/golden_core.sh compares a fresh
# capture with tests/golden/core/*.txt byte for byte; regenerate them (OUTDIR defaults to
# tests/golden/core) only after an intended change of the model, as tests/golden/core/README
# says.
set -u
cd "$(dirname "$0")/../../.."
BIN=${1:-${STRATA:-build/strata}}
OUT=${2:-tests/golden/core}
[ -x "$BIN" ] || { echo "capture.sh: $BIN not found (run make first)" >&2; exit 2; }
mkdir -p "$OUT"
mask() { sed -E 's/("(solve_ms|outer_s|inner_s|threads)": )[0-9.e+-]+/\10/'; }
run() { # run ARGS...: one section with the command, its output, stderr and exit status
    local err rc
    err=$(mktemp)
    echo "## $*"
    "$BIN" "$@" 2>"$err" | mask
    rc=${PIPESTATUS[0]}
    sed 's/^/stderr: /' "$err"
    echo "exit: $rc"
    rm -f "$err"
}
cases=(tests/validation/public/*.yaml)
models=$(ls presets/models | sed 's/\.yaml$//')
clusters=$(ls presets/clusters | sed 's/\.yaml$//')

{
    for f in "${cases[@]}"; do run eval "$f" --json; done
    for m in $models; do
        for c in $clusters; do
            run eval -m "$m" -c "$c" -n 256 --tp 8 --pp 4 --gbs 512 --json
            run eval -m "$m" -c "$c" -n 512 --tp 4 --pp 8 --vpp 2 --schedule interleaved --zero 1 \
                --recompute full --gbs 1024 --json
        done
        run eval -m "$m" -c h800 -n 1024 --tp 2 --pp 16 --ep 8 --schedule dualpipe --precision fp8 \
            --gbs 2048 --json
        run eval -m "$m" -c dgx-h100 -n 128 --tp 1 --pp 1 --cp 4 --zero 3 --seq 32768 --gbs 64 --json
    done
} >"$OUT/eval.txt"

{
    for f in "${cases[@]}"; do
        grep -Eq '^\s*pp: *1\s*(#.*)?$' "$f" && continue
        run ilp "$f" --json
    done
} >"$OUT/ilp.txt"

{
    for m in $models; do
        run search -m "$m" -c dgx-h100 -n 128 --top 5 --time-limit 60000 --json
        run search -m "$m" -c h800 -n 512 --top 5 --no-ilp --json
    done
} >"$OUT/search.txt"

{
    run validate tests/validation/public -v
    run validate tests/validation/public --csv
} >"$OUT/validate.txt"
