#!/usr/bin/env bash
# `strata search --write FILE` and `--export FILE` (issue 20 item 5): the winner is written
# as a plan file that evaluates to the search's #1 (its uneven split included) and as the
# target's launch config; an existing file is replaced only with --force; the target comes
# from --to, --framework or the file's extension.
. "$(dirname "$0")/_lib.sh"

JOB=(-m llama2-7b -c dgx-a100-80g -n 16 --gbs 32 --seq 4096 --top 3)
st search "${JOB[@]}" --framework megatron --json
cp "$OUT" "$T/s.json"
st search "${JOB[@]}" --framework megatron --write "$T/best.yaml" --export "$T/run.sh"
expect_rc "search --write --export: exit 0" 0
err_has "search --write: says where" "wrote the best plan to $T/best.yaml"
err_has "search --export: target from --framework" "wrote the best plan for Megatron-LM to $T/run.sh"
check "search --export: the Megatron script is executable" [ -x "$T/run.sh" ]
check "search --export: the script holds Megatron flags" grep -q -- "--tensor-model-parallel-size" "$T/run.sh"
st eval "$T/best.yaml" --json
python3 - "$T/s.json" "$OUT" >"$T/chk" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))[0]; e = json.load(open(sys.argv[2]))
ok = abs(s["search"]["step_s"] - e["time"]["step_s"]) <= 1e-9 * e["time"]["step_s"]
cl = s["ilp"].get("chunk_layers")
print("OK" if ok else "BAD", s["search"]["step_s"], e["time"]["step_s"], cl)
PY
check "search --write: the plan file evaluates to the search's #1" grep -q '^OK' "$T/chk"
if grep -q '\[' "$T/chk"; then
    check "search --write: the winner's uneven split is in the file" grep -q "stage_layers" "$T/best.yaml"
fi

cp "$T/best.yaml" "$T/keep.yaml"
st search "${JOB[@]}" --pp 2 --pin pp=2 --write "$T/best.yaml"
expect_rc "search --write onto an existing file: exit 2" 2
err_has "search --write: refuses without --force" "exists; --force replaces it"
check "search --write: the existing file is untouched" cmp -s "$T/best.yaml" "$T/keep.yaml"
st search "${JOB[@]}" --pin pp=2 --write "$T/best.yaml" --force
expect_rc "search --write --force: exit 0" 0
check "search --write --force: replaced (pp 2 pinned)" grep -q "pp: 2" "$T/best.yaml"

st search "${JOB[@]}" --framework torchtitan --zero 3 --export "$T/job.toml"
expect_rc "search --export FILE.toml: exit 0" 0
check "search --export .toml: a torchtitan TOML" grep -q "^\[parallelism\]" "$T/job.toml"
st search "${JOB[@]}" --export "$T/job.txt"
expect_rc "search --export without a target: exit 2" 2
err_has "search --export: asks for --to" "name the target with --to"
st search "${JOB[@]}" --export "$T/x.sh" --to nonsense
expect_rc "search --to unknown: exit 2" 2
st search "${JOB[@]}" --write
expect_rc "search --write without a file: exit 2" 2

# a winner with an uneven split (the ILP's layers per stage) keeps it in the file
UJOB=(-m llama3-70b -n 64 --gbs 128 --seq 8192 --pin pp=8 --top 1)
st search "${UJOB[@]}" --json
cp "$OUT" "$T/u.json"
st search "${UJOB[@]}" --write "$T/uneven.yaml"
expect_rc "search --write (uneven winner): exit 0" 0
check "search --write: the winner's uneven split is in the file" grep -q "stage_layers: \[" "$T/uneven.yaml"
st eval "$T/uneven.yaml" --json
python3 - "$T/u.json" "$OUT" >"$T/chk" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))[0]; e = json.load(open(sys.argv[2]))
print("OK" if s["ilp"].get("chunk_layers") and abs(s["search"]["step_s"] - e["time"]["step_s"]) <= 1e-9 * e["time"]["step_s"] else "BAD")
PY
check "search --write: the uneven plan file evaluates to the search's #1" grep -q '^OK' "$T/chk"
