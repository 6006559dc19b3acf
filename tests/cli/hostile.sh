#!/usr/bin/env bash
# Hostile inputs beyond bad_inputs.sh: enormous numbers, NaN/inf in files, a 1 GB file,
# a billion layers, unreadable paths, binary garbage as a model. Each must end in bounded
# time (10 s) and, outside sanitized builds, bounded memory (512 MiB of address space),
# with a clear message and exit 2 (or 1 for a well-formed but infeasible plan).
. "$(dirname "$0")/_lib.sh"

limit() { # run "$@" under a time limit and (plain builds) an address-space cap
    case $STRATA_BUILD in
        *-san) timeout -k 2 10 "$@" ;;
        *) ( ulimit -v 524288; exec timeout -k 2 10 "$@" ) ;;
    esac
}
hst() { # like st, with the limits
    limit "$STRATA" "$@" >"$OUT" 2>"$ERR"
    RC=$?
    if [ $RC -eq 124 ] || [ $RC -eq 137 ]; then
        fail "$*: bounded time" "timed out"
    elif [ $RC -gt 2 ] || grep -Eq "$SAN_RE" "$ERR"; then
        fail "$*: no crash" "exit $RC: $(head -c 400 "$ERR")"
    fi
}

# a sparse 1 GB file: refused by size before anything reads it
truncate -s 1G "$T/huge.yaml"
hst eval "$T/huge.yaml"
expect_rc "1 GB plan file: exit 2" 2
err_has "1 GB plan file: says it is too large" "larger than"
hst eval -m "$T/huge.yaml"
expect_rc "1 GB model file: exit 2" 2

# a billion layers, in a file and as an HF-style model
cat >"$T/layers.yaml" <<'Y'
model: {hidden_size: 8192, num_hidden_layers: 1000000000, num_attention_heads: 64, vocab_size: 32000, intermediate_size: 28672}
cluster: dgx-h100
devices: 8
Y
hst eval "$T/layers.yaml"
expect_rc "10^9 layers: exit 2" 2
err_has "10^9 layers: position and limit" "layers.yaml:1:47: num_hidden_layers must be between 1 and"

# NaN and infinities where numbers belong
for v in .nan .inf -.inf 1e999; do
    printf 'model: llama3-8b\ncluster: dgx-h100\ndevices: 8\nbudget_gib: %s\n' "$v" >"$T/num.yaml"
    hst eval "$T/num.yaml"
    expect_rc "budget_gib: $v: exit 2" 2
done
printf 'name: x\ndevice: {name: H100, memory_gib: .inf, peak_tflops: {bf16: 989}, hbm_gbps: 3350}\nnode: {devices: 8, link_gbps: 450}\nnetwork: {link_gbps: 50, latency_us: 5}\n' >"$T/c.yaml"
hst eval -c "$T/c.yaml"
expect_rc "cluster memory_gib: .inf: exit 2" 2
printf 'hidden_size: .nan\nnum_hidden_layers: 2\nnum_attention_heads: 2\nvocab_size: 10\n' >"$T/m.json"
hst eval -m "$T/m.json"
expect_rc "model hidden_size: .nan: exit 2" 2

# huge but representable: every degree at its limit, and a sequence of 2^30 tokens
hst eval --seq 1073741824 --gbs 2048
case $RC in 0|1|2) pass "seq 2^30: a result or a refusal, no crash" ;; esac
hst eval -n 16777216 --tp 8 --pp 8
case $RC in 0|1) pass "16M devices: evaluated or refused with a reason" ;; *) fail "16M devices" "exit $RC" ;; esac

# binary garbage as a model or cluster file
head -c 65536 /dev/urandom >"$T/garbage.json"
hst eval -m "$T/garbage.json"
expect_rc "binary model file: exit 2" 2
hst eval -c "$T/garbage.json"
expect_rc "binary cluster file: exit 2" 2

# unreadable paths (permissions mean nothing to root, so only as a normal user)
if [ "$(id -u)" -ne 0 ]; then
    cp tests/golden/dense.yaml "$T/secret.yaml" && chmod 000 "$T/secret.yaml"
    hst eval "$T/secret.yaml"
    expect_rc "unreadable plan: exit 2" 2
    err_has "unreadable plan: says why" "Permission denied"
else
    skip "unreadable plan" "running as root"
fi
hst eval "$T/no/such/dir/plan.yaml"
expect_rc "path through a missing directory: exit 2" 2
hst eval -m /dev/zero
expect_rc "/dev/zero as a model: exit 2 in bounded time" 2
