#!/usr/bin/env bash
# scripts/alloc_sim.py (the caching-allocator replay behind the DLPerf note in
# docs/accuracy.md): the allocator's best fit, split and merge on hand-computed figures,
# the replay's invariants on a published case, and its exit codes.
. "$(dirname "$0")/_lib.sh"
S=scripts/alloc_sim.py
P=tests/validation/public

# 100 MiB freed, then two 50 MiB requests: both carved from the cached block (no new
# segment); freed again they merge, so 100 MiB fits again; 5 MiB opens a 20 MiB segment
# and 1000 bytes a 2 MiB small-pool segment: 100 + 20 + 2 = 122 MiB reserved.
got=$(python3 - <<'PY'
import sys
sys.path.insert(0, 'scripts')
import alloc_sim as m
a = m.CachingAllocator(); MB = 1 << 20
x = a.malloc(100 * MB); a.release(x)
y = a.malloc(50 * MB); z = a.malloc(50 * MB); r1 = a.reserved // MB
a.release(y); a.release(z); a.malloc(100 * MB); r2 = a.reserved // MB
a.malloc(5 * MB); a.malloc(1000)
print(r1, r2, a.reserved // MB, a.allocated)
PY
)
check "allocator: split, merge, segment sizes (100 100 122 MiB)" [ "$got" = "100 100 122 $((100 * 1048576 + 5 * 1048576 + 1024))" ]

if python3 -c 'import yaml' 2>/dev/null; then
    out=$(python3 $S $P/dlperf_v100_DP_8x1x1_16_1536x16.yaml $P/dlperf_v100_2D_4x8x1_32_2304x24.yaml)
    rc=$?
    check "replay: exit 0" [ "$rc" -eq 0 ]
    check "replay: reserved never below allocated" awk 'NR > 1 && $3 < $2 { exit 1 }' <<<"$out"
    lag=$(python3 $S --nccl-lag 16 $P/dlperf_v100_DP_8x1x1_16_1536x16.yaml $P/dlperf_v100_2D_4x8x1_32_2304x24.yaml)
    check "--nccl-lag leaves a run without TP as it is" [ "$(sed -n 2p <<<"$out")" = "$(sed -n 2p <<<"$lag")" ]
    check "--nccl-lag raises the reserve of a TP 8 run" awk -v a="$(sed -n 3p <<<"$out" | awk '{print $3}')" \
        -v b="$(sed -n 3p <<<"$lag" | awk '{print $3}')" 'BEGIN { exit !(b > a) }'
else
    skip "replay" "python3 has no yaml module"
fi

python3 $S no/such/case.yaml >/dev/null 2>&1
check "missing case file: exit 2" [ $? -eq 2 ]
python3 $S --no-such-option >/dev/null 2>&1
check "unknown option: exit 2" [ $? -eq 2 ]
