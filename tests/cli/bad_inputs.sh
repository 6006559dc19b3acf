#!/usr/bin/env bash
# Bad inputs: each gets the documented exit code (DESIGN.md section 2: 1 = well-formed but
# invalid or infeasible, 2 = usage or file error with file:line:col for YAML) and a message
# on stderr that states the key fact; never a crash (st() fails any exit > 2, any signal
# and any sanitizer report). Fixtures live in tests/fixtures/bad/.
. "$(dirname "$0")/_lib.sh"
B=tests/fixtures/bad

# ---- file and format errors: exit 2 ----------------------------------------------------
st eval $B/malformed.yaml
expect_rc "malformed YAML: exit 2" 2
err_re "malformed YAML: message has file:line:col" "malformed\.yaml:5:[0-9]+: "

st eval $B/misspelt-key.yaml
expect_rc "misspelt strategy key: exit 2" 2
err_has "misspelt strategy key: named with line and column" "misspelt-key.yaml:7:3: "
err_has "misspelt strategy key: names 'tpp'" "'tpp'"

st eval $B/unknown-preset.yaml
expect_rc "unknown model preset in a plan: exit 2" 2
err_has "unknown model preset in a plan: named, at 1:8" "unknown-preset.yaml:1:8: unknown model preset 'llama-9-9000b'"
st eval -m no-such-model
expect_rc "unknown model preset -m: exit 2" 2
err_has "unknown model preset -m: named" "unknown model preset 'no-such-model'"
st eval -c no-such-cluster
expect_rc "unknown cluster preset -c: exit 2" 2
err_has "unknown cluster preset -c: named" "unknown cluster preset 'no-such-cluster'"

st eval $B/no-devices.yaml
expect_rc "plan without devices: exit 2" 2
err_has "plan without devices: says so" "missing 'devices'"

st eval tests/fixtures/bad/does-not-exist.yaml
expect_rc "nonexistent file: exit 2" 2
err_has "nonexistent file: names the file" "does-not-exist.yaml"
err_has "nonexistent file: says why" "No such file"
st eval -m tests/fixtures/bad/no-model.json
expect_rc "nonexistent model file: exit 2" 2
err_has "nonexistent model file: names the file" "no-model.json"

st eval $B/garbage.bin
expect_rc "binary garbage: exit 2" 2
err_re "binary garbage: message names the file and position" "garbage\.bin:[0-9]+:[0-9]+: "

st eval tests/fixtures
expect_rc "a directory as the plan: exit 2" 2
err_has "a directory as the plan: says so" "Is a directory"
st eval /dev/null
expect_rc "/dev/null as the plan: exit 2" 2

st eval $B/empty.yaml
expect_rc "empty file: exit 2" 2
err_has "empty file: says a plan must be a mapping" "empty.yaml: a plan must be a mapping"

st eval $B/deep-block.yaml
expect_rc "200 levels of block nesting: exit 2" 2
err_re "200 levels of block nesting: nesting limit with position" "deep-block\.yaml:[0-9]+:[0-9]+: nesting deeper than"
st eval $B/deep-flow.yaml
expect_rc "200 levels of flow nesting: exit 2" 2
err_re "200 levels of flow nesting: nesting limit with position" "deep-flow\.yaml:1:[0-9]+: nesting deeper than"

# ---- usage errors: exit 2 -----------------------------------------------------------------
st eval --frobnicate
expect_rc "unknown option: exit 2" 2
err_has "unknown option: named" "unknown option '--frobnicate'"
st eval --tp
expect_rc "option without its value: exit 2" 2
err_has "option without its value: says so" "--tp needs a value"
st eval --json --csv
expect_rc "--json with --csv: exit 2" 2
st eval tests/golden/dense.yaml tests/golden/moe.yaml
expect_rc "two plan files: exit 2" 2
st presets extra
expect_rc "presets with an argument: exit 2" 2
st validate
expect_rc "validate without files: exit 2" 2
err_has "validate without files: usage" "usage: strata validate"

# ---- degrees given on the command line: a value outside the option's domain is a usage
# error (exit 2, args.c passes plan_set failures as 2) ----------------------------------------
st eval --tp 0
expect_rc "--tp 0: exit 2" 2
err_has "--tp 0: says tp must be at least 1" "tp must be between 1"
st eval --pp -1
expect_rc "--pp -1: exit 2" 2
err_has "--pp -1: names pp" "pp must be between 1"
st eval --tp 2.5
expect_rc "--tp 2.5: exit 2" 2
err_has "--tp 2.5: says tp must be an integer" "tp must be an integer"
st eval --tp 4611686018427387904
expect_rc "--tp 2^62: exit 2" 2
err_has "--tp 2^62: says the range" "tp must be between 1 and"
st eval --gbs 99999999999999999999999
expect_rc "--gbs beyond 64 bits: exit 2" 2
err_has "--gbs beyond 64 bits: names global_batch" "global_batch must be between"
st eval --zero 4
expect_rc "--zero 4: exit 2" 2
err_has "--zero 4: names zero" "zero must be between 0 and 3"
st eval --budget nan
expect_rc "--budget nan: exit 2" 2
err_has "--budget nan: says budget must be a positive number" "budget must be a positive number"
st eval --budget=-5
expect_rc "--budget=-5: exit 2" 2
st eval --recompute partial
expect_rc "--recompute partial: exit 2" 2
err_has "--recompute partial: lists the choices" "none, selective, full"
st eval -n 0
expect_rc "-n 0: exit 2" 2
err_has "-n 0: names devices" "devices must be between 1"

# ---- the same values in a plan file: rejected with file:line:col; the loader returns 1
# (plan.c treats a strategy value as content, not format). Either class is accepted here;
# the position and the message are pinned. --------------------------------------------------
st eval $B/tp-zero.yaml
expect_rc "plan tp: 0: exit 2" "2"
err_has "plan tp: 0: position and range" "tp-zero.yaml:4:16: strategy: tp must be between 1"
st eval $B/tp-negative.yaml
expect_rc "plan pp: -2: exit 2" "2"
err_has "plan pp: -2: position and range" "tp-negative.yaml:4:16: strategy: pp must be between 1"
st eval $B/tp-fraction.yaml
expect_rc "plan tp: 2.5: exit 2" "2"
err_has "plan tp: 2.5: position, 'must be an integer'" "tp-fraction.yaml:4:16: strategy: tp must be an integer (got '2.5')"
st eval $B/tp-huge.yaml
expect_rc "plan tp: 2^62: exit 2" "2"
err_has "plan tp: 2^62: position and range" "tp-huge.yaml:4:16: strategy: tp must be between 1 and"
st eval $B/budget-nan.yaml
expect_rc "plan budget_gib: .nan: exit 2" "2"
err_has "plan budget_gib: .nan: position and key" "budget-nan.yaml:4:13: budget_gib"

# ---- well-formed but invalid: exit 1, the message names the failing rule -----------------
st eval $B/product.yaml
expect_rc "degrees not multiplying to devices: exit 1" 1
err_has "degrees not multiplying to devices: names the product" "dp*tp*pp*cp = 2*2*2*1 = 8 does not equal 16 devices"
st eval -n 512 --dp 3 --tp 8 --pp 4
expect_rc "--dp 3 on 512 devices: exit 1" 1
err_has "--dp 3 on 512 devices: names the product" "= 96 does not equal 512 devices"
st eval -n 512 --tp 3 --pp 4
expect_rc "--tp 3 (dp derived): exit 1" 1
err_has "--tp 3 (dp derived): names tp*pp*cp and the devices" "tp*pp*cp = 12 does not divide 512 devices"
st eval $B/heads-tp.yaml
expect_rc "heads not divisible by tp: exit 1" 1
err_has "heads not divisible by tp: says so" "tp=3 does not divide 32 attention heads"
st eval $B/experts-ep.yaml
expect_rc "experts not divisible by ep: exit 1" 1
err_has "experts not divisible by ep: says so" "ep=3 does not divide 8 experts"
st eval $B/gbs-dp.yaml
expect_rc "global batch not divisible by dp*mbs: exit 1" 1
err_has "global batch not divisible by dp*mbs: says so" "global_batch=100 is not divisible by dp*micro_batch = 8*2 = 16"
st eval -m llama3-8b -n 8 --tp 1 --pp 1 --gbs 8 --ep 2
expect_rc "ep on a dense model: exit 1" 1
err_has "ep on a dense model: says so" "no experts"
st eval -n 64 --tp 8 --pp 4 --dp 2 --vpp 2 --schedule interleaved --gbs 6
expect_rc "interleaved with micro-batches not divisible by pp: exit 1" 1
err_has "interleaved with micro-batches not divisible by pp: says so" "divisible by pp=4"
st eval -m llama3-8b -c dgx-a100-80g -n 8 --tp 1 --pp 1 --gbs 8 --precision fp8
expect_rc "fp8 on A100: exit 1" 1
err_has "fp8 on A100: says the device has no fp8" "fp8 is not supported"
st eval --json -n 512 --dp 3 --tp 8 --pp 4
expect_rc "invalid with --json: exit 1" 1
check "invalid with --json: stdout is JSON with valid=false and the error" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["valid"] is False and "does not equal" in d["error"]))' "$OUT"
# dp that cannot be derived (tp*pp*cp does not divide the devices) is an invalid strategy
# like any other: eval --json and ilp --json print the object with valid=false, dp 0 and
# the rule, exit 1 (they used to print nothing on stdout)
for cmd in eval ilp; do
    st $cmd --json -n 512 --tp 3 --pp 4
    expect_rc "$cmd --json --tp 3 (dp not derivable): exit 1" 1
    check "$cmd --json --tp 3 (dp not derivable): stdout is JSON with valid=false, dp 0 and the rule" \
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["valid"] is False and d["strategy"]["dp"] == 0 and d["error"] == "tp*pp*cp = 12 does not divide 512 devices"))' "$OUT"
    err_has "$cmd --json --tp 3 (dp not derivable): the rule on stderr" "tp*pp*cp = 12 does not divide 512 devices"
done
st eval --json $B/batch-overflow.yaml
expect_rc "derived global batch overflowing int, --json: exit 1" 1
check "derived global batch overflowing int, --json: valid=false names global_batch" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["valid"] is False and "global_batch would default" in d["error"]))' "$OUT"

# derived global batch too large for an int: rejected (1 or 2), not undefined behaviour
st eval $B/batch-overflow.yaml
expect_rc "derived global batch overflowing int: exit 1" "1"
err_has "derived global batch overflowing int: message names global_batch" "global_batch"

# every bad fixture through `validate`: file errors reported per file, exit 2, no crash
st validate $B
expect_rc "validate over the bad fixtures: exit 2" 2
err_has "validate over the bad fixtures: names a failing file with its position" "malformed.yaml:5:"

# ---- infeasible: the whole result on stdout, exit 1, stderr names the stage and excess --
st eval $B/no-fit.yaml
expect_rc "stage over budget: exit 1" 1
out_has "stage over budget: the table is printed" "MFU"
out_has "stage over budget: the table marks it" "DOES NOT FIT"
err_re "stage over budget: stderr names the stage and the excess" "stage 0 needs [0-9.]+ GiB, over the [0-9.]+ GiB budget by [0-9.]+ GiB"
st eval $B/no-fit.yaml --json
expect_rc "stage over budget --json: exit 1" 1
check "stage over budget --json: full result with memory.fits false" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["memory"]; sys.exit(not (m["fits"] is False and m["peak_gib"] > m["budget_gib"] and d["time"]["step_s"] > 0))' "$OUT"
st eval --budget 10
expect_rc "--budget 10 on the default plan: exit 1" 1
err_re "--budget 10: excess is peak - 10 GiB" "over the 10\.00 GiB budget by [0-9.]+ GiB"
