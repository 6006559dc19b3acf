#!/usr/bin/env bash
# strata export: golden outputs byte for byte (tests/golden/export, regenerate with
# tests/golden/export/update.sh), names and constraints of each target checked against
# the upstream names, atomic -o, exit codes.
. "$(dirname "$0")/_lib.sh"

G=tests/golden/export

# ---- golden outputs ----------------------------------------------------------------
n=0
for plan in "$G"/*.yaml; do
    name=$(basename "$plan" .yaml)
    for pair in megatron:sh deepspeed:json torchtitan:toml; do
        target=${pair%%:*}
        want=$G/$name.$target.${pair#*:}
        n=$((n + 1))
        if [ ! -f "$want" ]; then
            fail "export golden $name $target" "$want is missing (run $G/update.sh)"
            continue
        fi
        st export "$plan" --to "$target" --approximate
        if [ "$RC" -ne 0 ]; then
            fail "export golden $name $target" "strata export exited $RC"
            show "$ERR"
        elif cmp -s "$want" "$OUT"; then
            pass "export golden $name $target"
        else
            fail "export golden $name $target" "output differs from $want"
            diff -u "$want" "$OUT" | head -40 | sed 's/^/    /'
        fi
    done
done
check "export golden: at least 4 plans x 3 targets" [ "$n" -ge 12 ]

# ---- a target launches the plan as priced, or the export is refused ------------------
# Without --approximate, an export either has no "not expressible" line or is refused
# (exit 1) with the reasons, one per line, naming the framework and the feature; a plan
# priced as another framework is refused too.
for plan in "$G"/*.yaml; do
    name=$(basename "$plan" .yaml)
    for pair in megatron:sh deepspeed:json torchtitan:toml; do
        target=${pair%%:*}
        want=$G/$name.$target.${pair#*:}
        st export "$plan" --to "$target"
        if [ "$RC" -eq 0 ]; then
            check "export $name $target: written as priced, so no \"not expressible\" line" \
                eval '! grep -q "not expressible" "$OUT" && cmp -s "$OUT" "$want"'
        else
            check "export $name $target: refused (exit 1) with reasons and the way out" \
                eval '[ "$RC" -eq 1 ] && [ ! -s "$OUT" ] && grep -q "^  - $target cannot\|^  - the plan is priced as" "$ERR" &&
                      grep -q -- "--approximate" "$ERR" && grep -q "search --framework $target" "$ERR"'
            check "export $name $target: each reason the table gives is a \"not expressible\" line of the approximation, or the pricing" \
                eval '[ "$(grep -c "^  - $target cannot" "$ERR")" -eq 0 ] || grep -q "not expressible" "$want"'
        fi
    done
done
st export "$G/dense.yaml" --to torchtitan
err_has "export: a plan priced as Megatron-LM is not written for torchtitan" \
    "the plan is priced as Megatron-LM (framework: auto, which assumes it here); set framework: torchtitan"
st export "$G/dense.yaml" --to megatron
expect_rc "export: the dense plan runs on Megatron-LM as priced, exit 0" 0

# ---- the golden files are what the targets accept ------------------------------------
# Names below were read from the upstream sources (see the comments at the top of
# src/io/export_*.c); a flag or key outside these lists is a typo or an unchecked name.
# The Megatron-LM exports are scripts: run each with a torchrun on PATH that records its
# arguments, and check the flags pretrain_gpt.py would get.
mkdir -p "$T/stub"
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$@" >"$STUB_ARGS"\n' >"$T/stub/torchrun"
chmod +x "$T/stub/torchrun"
STUB_DIR=$T/stub python3 - "$G" >"$T/names" 2>&1 <<'PY'

import glob, json, os, re, shlex, subprocess, sys, tempfile, tomllib

g = sys.argv[1]
# NVIDIA/Megatron-LM megatron/training/arguments.py
MEGATRON = set("""
--num-layers --hidden-size --ffn-hidden-size --num-attention-heads --group-query-attention
--num-query-groups --kv-channels --swiglu --disable-bias-linear --add-qkv-bias
--untie-embeddings-and-output-weights --hidden-dropout --attention-dropout --num-experts
--moe-router-topk --moe-ffn-hidden-size --moe-shared-expert-intermediate-size --moe-layer-freq
--moe-grouped-gemm --moe-token-dispatcher-type --mtp-num-layers --multi-latent-attention
--q-lora-rank --kv-lora-rank --qk-head-dim --qk-pos-emb-head-dim --v-head-dim
--tensor-model-parallel-size --pipeline-model-parallel-size --num-virtual-stages-per-pipeline-rank
--decoder-first-pipeline-num-layers --decoder-last-pipeline-num-layers
--pipeline-model-parallel-layout --context-parallel-size --cp-comm-type
--expert-model-parallel-size --expert-tensor-parallel-size --sequence-parallel
--use-distributed-optimizer --use-megatron-fsdp --data-parallel-sharding-strategy --ckpt-format
--overlap-grad-reduce --overlap-param-gather --tp-comm-overlap --micro-batch-size
--global-batch-size --seq-length --max-position-embeddings --recompute-granularity
--recompute-method --recompute-num-layers --bf16 --fp16 --fp8-format --attention-backend
--normalization --norm-epsilon --position-embedding-type --rotary-base --rotary-percent
--use-rope-scaling --rope-scaling-factor --rope-type --rotary-scaling-factor --mscale
--mscale-all-dim --padded-vocab-size --tokenizer-type --tokenizer-model --data-path --save --load
--moe-expert-capacity-factor --moe-pad-expert-input-to-capacity
""".split())
# the DeepSpeed config-json documentation; deepspeed/runtime/zero/config.py;
# deepspeed/runtime/activation_checkpointing/config.py
DEEPSPEED = {"_comment", "train_batch_size", "train_micro_batch_size_per_gpu",
             "gradient_accumulation_steps", "bf16", "fp16", "zero_optimization",
             "tensor_parallel", "sequence_parallel_size", "activation_checkpointing"}
DS_SUB = {"bf16": {"enabled"}, "fp16": {"enabled", "loss_scale"},
          "zero_optimization": {"stage", "overlap_comm", "contiguous_gradients", "reduce_scatter",
                                "reduce_bucket_size", "stage3_prefetch_bucket_size",
                                "stage3_max_live_parameters", "stage3_param_persistence_threshold"},
          "tensor_parallel": {"autotp_size"},
          "activation_checkpointing": {"partition_activations", "cpu_checkpointing",
                                       "contiguous_memory_optimization",
                                       "synchronize_checkpoint_boundary"}}
# pytorch/torchtitan torchtitan/config/job_config.py (JobConfig dataclasses)
TITAN = {"model": {"converters"},
         "training": {"local_batch_size", "global_batch_size", "seq_len", "mixed_precision_param",
                      "mixed_precision_reduce", "compile"},
         "parallelism": {"data_parallel_replicate_degree", "data_parallel_shard_degree",
                         "fsdp_reshard_after_forward", "tensor_parallel_degree",
                         "enable_async_tensor_parallel", "pipeline_parallel_degree",
                         "pipeline_parallel_schedule", "pipeline_parallel_microbatch_size",
                         "pipeline_parallel_split_points", "context_parallel_degree",
                         "expert_parallel_degree"},
         "activation_checkpoint": {"mode", "selective_ac_option"},
         "float8": {"enable_fsdp_float8_all_gather", "precompute_float8_dynamic_scale_for_fsdp"}}
SCHEDULES = {"1F1B": 1, "GPipe": 1, "Interleaved1F1B": 0, "ZBVZeroBubble": 2}

def expand(layout):
    """Megatron's layout grammar: ',' is cosmetic, (x)*n and c*n repeat."""
    s = layout.replace(",", "")
    s = re.sub(r"\(([^)]+)\)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), s)
    s = re.sub(r"(.)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), s)
    return s.split("|")

bad = []
def launched_args(f):
    """The arguments the script gives pretrain_gpt.py, through a recording torchrun."""
    with tempfile.NamedTemporaryFile("r") as rec:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        env.update(PATH=os.environ["STUB_DIR"] + ":" + os.environ["PATH"], STUB_ARGS=rec.name,
                   MEGATRON_PATH="/megatron", DATA_PATH="/data/text", TOKENIZER="tok", CHECKPOINT="/ckpt")
        r = subprocess.run(["bash", f], env=env, capture_output=True, text=True)
        if r.returncode:
            bad.append(f"{f}: exited {r.returncode}: {r.stderr.strip()}")
            return []
        args = rec.read().splitlines()
    entry = "/megatron/pretrain_gpt.py"
    return args[args.index(entry) + 1:] if entry in args else []

for f in sorted(glob.glob(os.path.join(g, "*.megatron.sh"))):
    args = launched_args(f)
    flags = {a: (args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("--") else None)
             for i, a in enumerate(args) if a.startswith("--")}
    for a in flags:
        if a not in MEGATRON:
            bad.append(f"{f}: {a} is not a checked Megatron-LM flag")
    for req in ("--num-layers", "--hidden-size", "--num-attention-heads", "--max-position-embeddings"):
        if req not in flags:
            bad.append(f"{f}: Megatron-LM requires {req}")
    if flags.get("--recompute-granularity") == "selective" and "--recompute-method" in flags:
        bad.append(f"{f}: selective recompute takes no --recompute-method")
    if "--tp-comm-overlap" in flags and "--sequence-parallel" not in flags:
        bad.append(f"{f}: --tp-comm-overlap needs --sequence-parallel")
    if "--pipeline-model-parallel-layout" in flags:
        if "--num-virtual-stages-per-pipeline-rank" in flags or "--decoder-first-pipeline-num-layers" in flags:
            bad.append(f"{f}: the layout excludes the other pipeline split flags")
        stages = expand(flags["--pipeline-model-parallel-layout"])
        joined = "".join(stages)
        if len(stages) % int(flags["--pipeline-model-parallel-size"]):
            bad.append(f"{f}: layout stages not a multiple of pp")
        if not joined.startswith("E") or not joined.endswith("L") or joined.count("t") != int(flags["--num-layers"]):
            bad.append(f"{f}: layout {joined!r} does not hold E, {flags['--num-layers']} layers and L")
        if joined.count("m") != int(flags.get("--mtp-num-layers") or 0):
            bad.append(f"{f}: layout MTP count differs from --mtp-num-layers")

for f in sorted(glob.glob(os.path.join(g, "*.deepspeed.json"))):
    d = json.load(open(f))
    for k, v in d.items():
        if k not in DEEPSPEED:
            bad.append(f"{f}: {k} is not a checked DeepSpeed key")
        elif isinstance(v, dict) and not set(v) <= DS_SUB[k]:
            bad.append(f"{f}: {k} has unchecked keys {sorted(set(v) - DS_SUB[k])}")
    if not all(isinstance(c, str) for c in d["_comment"]):
        bad.append(f"{f}: _comment must be a list of strings")
    if d["train_batch_size"] % (d["train_micro_batch_size_per_gpu"] * d["gradient_accumulation_steps"]):
        bad.append(f"{f}: train_batch_size is not micro-batch x accumulation x dp")

for f in sorted(glob.glob(os.path.join(g, "*.torchtitan.toml"))):
    d = tomllib.load(open(f, "rb"))
    for sec, keys in d.items():
        if sec not in TITAN or not set(keys) <= TITAN[sec]:
            bad.append(f"{f}: [{sec}] {sorted(set(keys) - TITAN.get(sec, set()))} unchecked")
    p = d["parallelism"]
    if d["activation_checkpoint"]["mode"] not in ("none", "selective", "full"):
        bad.append(f"{f}: unknown activation_checkpoint.mode")
    if p["pipeline_parallel_degree"] > 1:
        sched = p["pipeline_parallel_schedule"]
        if sched not in SCHEDULES:
            bad.append(f"{f}: schedule {sched} unchecked")
        stages = len(p.get("pipeline_parallel_split_points", [])) + 1
        per_rank = SCHEDULES.get(sched, 0)
        if per_rank and stages != per_rank * p["pipeline_parallel_degree"]:
            bad.append(f"{f}: {stages} stages for {sched} on {p['pipeline_parallel_degree']} ranks")
        if not per_rank and stages % p["pipeline_parallel_degree"]:
            bad.append(f"{f}: {stages} stages do not spread over the ranks")
print("\n".join(bad) if bad else "ok")
PY
if [ "$(cat "$T/names")" = ok ]; then
    pass "export golden files: Megatron flags, DeepSpeed keys, torchtitan keys as upstream, constraints hold"
else
    fail "export golden files: Megatron flags, DeepSpeed keys, torchtitan keys as upstream, constraints hold" ""
    show "$T/names"
fi

# ---- the command -----------------------------------------------------------------------
st export --to megatron
expect_rc "export --to megatron of the default plan: exit 0" 0
for t in deepspeed torchtitan; do
    st export --to "$t"
    expect_rc "export --to $t of the default plan (priced as Megatron-LM): refused, exit 1" 1
    st export --to "$t" --approximate
    expect_rc "export --to $t --approximate of the default plan: exit 0" 0
done
st export "$G/dense.yaml" --to=deepspeed --approximate
check "export --to=NAME form gives the same output" cmp -s "$OUT" "$G/dense.deepspeed.json"
st export "$G/dense.yaml" --to megatron --tp 4
check "export: options override the plan (--tp 4)" grep -qx -- '    --tensor-model-parallel-size 4' "$OUT"

st export "$G/dense.yaml" --to megablocks
expect_rc "export --to unknown: exit 2" 2
err_has "export --to unknown: names the valid targets" "megatron, deepspeed, torchtitan"
st export "$G/dense.yaml"
expect_rc "export without --to: exit 2" 2
err_has "export without --to: says --to is required" "--to is required"
st export "$G/dense.yaml" --to
expect_rc "export --to without a value: exit 2" 2
st export "$G/dense.yaml" --to megatron --json
expect_rc "export --json: exit 2 (the format follows --to)" 2
st export "$G/dense.yaml" "$G/moe.yaml" --to megatron
expect_rc "export with two plans: exit 2" 2
st export "$G/dense.yaml" --to megatron --frobnicate
expect_rc "export with an unknown option: exit 2" 2
st export "$G/dense.yaml" --to megatron --tp 3
expect_rc "export of an invalid strategy (tp 3): exit 1" 1
err_has "export of an invalid strategy: gives the reason" "invalid strategy"
check "export of an invalid strategy: writes nothing" [ ! -s "$OUT" ]
st export "$G/dense.yaml" --to megatron --mbs 8 --gbs 1024 --recompute none
expect_rc "export of a plan over its memory budget: exit 1" 1
err_has "export over budget: names the stage and the excess" "over the"
check "export over budget: still writes the configuration" grep -q -- '--micro-batch-size 8' "$OUT"
st export --help
expect_rc "export --help: exit 0" 0
out_has "export --help: lists the targets" "megatron|deepspeed|torchtitan"

# ---- -o: atomic replacement ------------------------------------------------------------
D=$T/out
mkdir -p "$D"
st export "$G/dense.yaml" --to torchtitan -o "$D/job.toml" --approximate
expect_rc "export -o: exit 0" 0
check "export -o: nothing on standard output" [ ! -s "$OUT" ]
check "export -o: file equals the golden output but for the config path its run line names" \
    eval 'sed "s|--job.config_file '"'$D/job.toml'"'|--job.config_file job.toml|" "$D/job.toml" | cmp -s - "$G/dense.torchtitan.toml"'
check "export -o: the run line names the written file" grep -qF -- "--job.config_file '$D/job.toml'" "$D/job.toml"

printf 'old contents\n' >"$D/args.sh"
chmod 600 "$D/args.sh"
ln "$D/args.sh" "$D/args.hardlink"
st export "$G/dense.yaml" --to megatron --output="$D/args.sh"
expect_rc "export -o over an existing file: exit 0" 0
check "export -o over an existing file: new contents" cmp -s "$D/args.sh" "$G/dense.megatron.sh"
check "export -o replaces by rename (a hard link keeps the old inode's contents)" \
    grep -qx 'old contents' "$D/args.hardlink"
check "export -o keeps the permission bits of the replaced file, a script with x where r (600 -> 700)" \
    [ "$(stat -c %a "$D/args.sh")" = 700 ]
ln -s args.sh "$D/via-link.sh"
st export "$G/moe.yaml" --to megatron -o "$D/via-link.sh" --approximate
check "export -o through a symlink: the link stays a link" [ -L "$D/via-link.sh" ]
check "export -o through a symlink: its target is replaced" cmp -s "$D/args.sh" "$G/moe.megatron.sh"
check "export -o: no temporary files left behind" \
    [ "$(ls -A "$D" | sort | tr '\n' ' ')" = "args.hardlink args.sh job.toml via-link.sh " ]

st export "$G/dense.yaml" --to megatron -o "$T/no/such/dir/args.sh"
expect_rc "export -o into a missing directory: exit 2" 2
err_has "export -o into a missing directory: names the file" "$T/no/such/dir/args.sh"
st export "$G/dense.yaml" --to megatron -o "$D"
expect_rc "export -o naming a directory: exit 2" 2
st export "$G/dense.yaml" --to megatron --tp 3 -o "$D/args.sh"
check "export -o of an invalid strategy: the old file stays" cmp -s "$D/args.sh" "$G/moe.megatron.sh"

# An unwritable directory: the old file must survive and no temporary may appear. Root
# ignores directory permissions, so as root the command runs as nobody (setpriv).
R=$T/ro
mkdir -p "$R"
cp "$G/zero3.megatron.sh" "$R/args.sh"
chmod 555 "$R"
chmod 711 "$T"
run_as=()
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null && run_as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" = 0 ] && [ ${#run_as[@]} -eq 0 ]; then
    skip "export -o into an unwritable directory" "running as root without setpriv"
elif [ "$(id -u)" = 0 ] && ! "${run_as[@]}" test -x "$STRATA" 2>/dev/null; then
    skip "export -o into an unwritable directory" "nobody cannot run $STRATA"
else
    "${run_as[@]}" "$STRATA" export "$G/dense.yaml" --to megatron -o "$R/args.sh" >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    expect_rc "export -o into an unwritable directory: exit 2" 2
    err_has "export -o into an unwritable directory: says why" "cannot create a file"
    check "export -o into an unwritable directory: the old file is unchanged" \
        cmp -s "$R/args.sh" "$G/zero3.megatron.sh"
    check "export -o into an unwritable directory: no temporary file" [ "$(ls -A "$R")" = args.sh ]
fi
chmod 755 "$R"
chmod 700 "$T"

# the fine-grained recompute modules and the MoE capacity factor become Megatron-Core flags
st export -m mixtral-8x7b -c dgx-h100 -n 64 --tp 1 --pp 4 --ep 8 --seq 2048 --recompute selective \
    --recompute-modules moe_act,layernorm --moe-capacity-factor 1.25 --to megatron
expect_rc "export recompute modules and capacity factor: exit 0" 0
out_has "export: --recompute-modules, space-separated" "--recompute-modules layernorm moe_act"
out_has "export: the capacity factor as a padded capacity" \
    "--moe-expert-capacity-factor 1.25 --moe-pad-expert-input-to-capacity"

# the fused loss is Megatron-LM's switch; torchtitan has none and refuses the plan
st export -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --framework megatron --loss-fusion true --budget 500 --to megatron
expect_rc "export loss_fusion to megatron: exit 0" 0
out_has "export: loss_fusion writes TE's fused cross entropy" "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te"
st export -m llama3-8b -c dgx-h100 -n 8 --tp 1 --pp 1 --zero 3 --loss-fusion true --to torchtitan
expect_rc "export loss_fusion to torchtitan: refused, exit 1" 1
err_has "export loss_fusion to torchtitan: says why" "torchtitan has no fused cross-entropy kernel"
# DeepSeek-V3's fp8 caching is priced for an `auto` plan, and no framework runs it
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --precision fp8 --fp8-cache deepseek --budget 500 --json
expect_rc "eval fp8_cache deepseek (auto): exit 0" 0
out_has "eval: fp8_cache in the JSON" '"fp8_cache": "deepseek"'
st export -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --precision fp8 --fp8-cache deepseek --to megatron
expect_rc "export fp8_cache deepseek: refused, exit 1" 1
err_has "export fp8_cache deepseek: says why" "cannot cache activations as fp8_cache deepseek does"
st eval -m mixtral-8x7b -c dgx-h100 -n 8 --tp 1 --pp 1 --ep 8 --fp8-cache deepseek
expect_rc "eval fp8_cache deepseek in bf16: invalid, exit 1|2" "1|2"
err_has "eval fp8_cache deepseek in bf16: says why" "fp8_cache deepseek needs precision fp8"
# DeepEP: Megatron-LM's flex dispatcher, torchtitan's deepep backend; DeepSpeed has none
DEEPEP=(-m qwen3-30b-a3b -c dgx-h100 -n 32 --tp 1 --pp 1 --ep 32 --gbs 256 --recompute full --moe-dispatcher deepep)
st eval "${DEEPEP[@]}" --json
out_has "eval: moe_dispatcher in the JSON" '"moe_dispatcher": "deepep"'
st export "${DEEPEP[@]}" --to megatron
expect_rc "export deepep to megatron: exit 0" 0
out_has "export deepep to megatron: the flex dispatcher with DeepEP" "--moe-token-dispatcher-type flex --moe-enable-deepep"
st export "${DEEPEP[@]}" --zero 3 --framework torchtitan --to torchtitan
expect_rc "export deepep to torchtitan: exit 0" 0
out_has "export deepep to torchtitan: its deepep backend" 'expert_parallel_comm_backend = "deepep"'
st export "${DEEPEP[@]}" --framework deepspeed --to deepspeed
expect_rc "export deepep to deepspeed: refused, exit 1" 1
err_has "export deepep to deepspeed: says why" "cannot dispatch MoE tokens with DeepEP"
