#!/usr/bin/env bash
# `strata run` refuses a recipe that is not a regular file (a FIFO named *.lua) at once,
# with the reason and exit 2, instead of waiting for a writer.
. "$(dirname "$0")/_lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkfifo "$T/recipe.lua" || { skip "run fifo" "mkfifo failed"; exit 0; }
start=$(date +%s)
timeout 10 "$STRATA" run "$T/recipe.lua" >"$T/out" 2>"$T/err"
RC=$?
end=$(date +%s)
check "run fifo: exit 2 (not a timeout)" [ "$RC" -eq 2 ]
check "run fifo: within 2 s" [ $((end - start)) -le 2 ]
check "run fifo: says it is not a regular file" grep -q "not a regular file" "$T/err"
