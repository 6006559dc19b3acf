#!/usr/bin/env bash
# strata export: the exports launch. Each exported Megatron-LM script is run up to the point
# where it would start the framework, with stub torchrun, srun, scontrol and deepspeed
# commands on PATH that check the launcher's arguments (nodes x processes per node = the
# plan's devices) and record the framework's; the DeepSpeed and torchtitan configs' "run:"
# lines are run the same way. Then the recorded flags are checked against the model file
# and the plan (docs/usage.md, "Launching an export").
. "$(dirname "$0")/_lib.sh"

S=$T/stub
mkdir -p "$S" "$T/w"
# torchrun: its options, then the entry (a file, or -m MODULE) and the framework's arguments
cat >"$S/torchrun" <<'SH'
#!/usr/bin/env bash
nnodes= nproc= launcher=
while [ $# -gt 0 ]; do
    case $1 in
    --nnodes) nnodes=$2; shift 2 ;;
    --nproc-per-node) nproc=$2; shift 2 ;;
    --node-rank|--master-addr|--master-port|--rdzv-id|--rdzv-backend|--rdzv-endpoint)
        launcher="$launcher $1=$2"; shift 2 ;;
    -m) entry="-m $2"; shift 2; break ;;
    -*) echo "torchrun stub: unknown option $1" >&2; exit 3 ;;
    *) entry=$1; shift; break ;;
    esac
done
[ -n "$nnodes" ] && [ -n "$nproc" ] || { echo "torchrun stub: --nnodes and --nproc-per-node are required" >&2; exit 3; }
[ "$((nnodes * nproc))" -eq "$EXPECT_DEVICES" ] ||
    { echo "torchrun stub: $nnodes x $nproc is not the plan's $EXPECT_DEVICES devices" >&2; exit 3; }
{
    echo "nnodes=$nnodes nproc=$nproc entry=$entry$launcher"
    echo "CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS-unset}"
} >"$STUB_LOG.launch"
printf '%s\n' "$@" >"$STUB_LOG"
SH
# srun: one task per node on the plan's nodes, then the command it starts everywhere
cat >"$S/srun" <<'SH'
#!/usr/bin/env bash
[ "$1 $3 $4" = "--nodes --ntasks-per-node 1" ] || { echo "srun stub: unexpected '$*'" >&2; exit 3; }
echo "srun nodes=$2" >"$STUB_LOG.srun"
shift 4
exec "$@"
SH
printf '#!/usr/bin/env bash\n[ "$1 $2" = "show hostnames" ] && echo node-a001\n' >"$S/scontrol"
# deepspeed: its options, the training script and its arguments
cat >"$S/deepspeed" <<'SH'
#!/usr/bin/env bash
nodes= gpus=
while [ $# -gt 0 ]; do
    case $1 in
    --num_nodes) nodes=$2; shift 2 ;;
    --num_gpus) gpus=$2; shift 2 ;;
    --hostfile|--master_addr|--master_port) shift 2 ;;
    -*) echo "deepspeed stub: unknown option $1" >&2; exit 3 ;;
    *) break ;;
    esac
done
[ "$((nodes * gpus))" -eq "$EXPECT_DEVICES" ] ||
    { echo "deepspeed stub: $nodes x $gpus is not the plan's $EXPECT_DEVICES devices" >&2; exit 3; }
echo "nodes=$nodes gpus=$gpus script=$1" >"$STUB_LOG.launch"
shift
printf '%s\n' "$@" >"$STUB_LOG"
SH
chmod +x "$S"/*
export PATH="$S:$PATH" STUB_LOG="$T/args"
unset SLURM_JOB_ID SLURM_JOB_NODELIST LAUNCHER NNODES GPUS_PER_NODE NODE_RANK MASTER_ADDR MASTER_PORT \
    CUDA_DEVICE_MAX_CONNECTIONS 2>/dev/null

# run [VAR=VALUE...] SCRIPT [ARGS]: the exported script with the four paths set; $RUN_RC, $T/run.err
run() {
    rm -f "$STUB_LOG" "$STUB_LOG".*
    RUN_RC=0
    env MEGATRON_PATH=/opt/megatron DATA_PATH="/data/a_text /data/b_text" TOKENIZER=meta-llama/tok \
        CHECKPOINT=/ckpt/run1 "$@" >"$T/run.out" 2>"$T/run.err" || RUN_RC=$?
}
# has FLAG [VALUE]: the framework got FLAG (followed by VALUE)
has() {
    if [ $# -eq 1 ]; then
        grep -qFx -- "$1" "$STUB_LOG"
    else
        grep -A1 -Fx -- "$1" "$STUB_LOG" | sed -n 2p | grep -qFx -- "$2"
    fi
}
# flags NAME FLAG VALUE FLAG VALUE ...: one check per pair ("-" for a switch)
flags() {
    local name=$1
    shift
    while [ $# -ge 2 ]; do
        if [ "$2" = - ]; then
            check "$name: $1" has "$1"
        else
            check "$name: $1 $2" has "$1" "$2"
        fi
        shift 2
    done
}

# ---- Llama 3 70B on 512 H100s: one script, torchrun on 64 nodes ---------------------------
L70=$T/w/llama3-70b.sh
st export -m llama3-70b -c dgx-h100 -n 512 --tp 8 --pp 8 --to megatron -o "$L70"
expect_rc "export llama3-70b: exit 0" 0
check "megatron export: mode 0755 (umask 022)" [ "$(umask 022; stat -c %a "$L70")" = 755 ]
check "megatron export: the first line is #!/usr/bin/env bash" [ "$(head -n 1 "$L70")" = '#!/usr/bin/env bash' ]
check "megatron export: set -euo pipefail" grep -qx 'set -euo pipefail' "$L70"
check "megatron export: bash -n accepts it" bash -n "$L70"
check "megatron export: #SBATCH lines for 64 nodes of 8 GPUs" \
    eval 'grep -qx "#SBATCH --nodes=64" "$L70" && grep -qx "#SBATCH --gpus-per-node=8" "$L70"'
export EXPECT_DEVICES=512
run "$L70" --lr 3e-4 --train-iters 10
check "llama3-70b script: exit 0 through the stub torchrun" [ "$RUN_RC" -eq 0 ]
[ "$RUN_RC" -eq 0 ] || show "$T/run.err"
check "llama3-70b script: torchrun --nnodes 64 --nproc-per-node 8 pretrain_gpt.py, node 0 of one rendezvous" \
    grep -q "^nnodes=64 nproc=8 entry=/opt/megatron/pretrain_gpt.py --node-rank=0 --master-addr=localhost --master-port=29500$" \
    "$STUB_LOG.launch"
check "llama3-70b script: CUDA_DEVICE_MAX_CONNECTIONS=1 (tp 8)" grep -qx CUDA_DEVICE_MAX_CONNECTIONS=1 "$STUB_LOG.launch"
flags "llama3-70b script" --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 \
    --group-query-attention - --num-query-groups 8 --kv-channels 128 --swiglu - --disable-bias-linear - \
    --untie-embeddings-and-output-weights - --normalization RMSNorm --norm-epsilon 1e-05 \
    --position-embedding-type rope --rotary-base 500000 --max-position-embeddings 8192 \
    --padded-vocab-size 128256 --tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 \
    --tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/tok --save /ckpt/run1 --load /ckpt/run1
check "llama3-70b script: --data-path takes every word of DATA_PATH" \
    eval 'grep -A2 -x -- --data-path "$STUB_LOG" | tr "\n" " " | grep -qx -- "--data-path /data/a_text /data/b_text "'
check "llama3-70b script: the script's own arguments come last" \
    eval '[ "$(tail -n 4 "$STUB_LOG" | tr "\n" " ")" = "--lr 3e-4 --train-iters 10 " ]'
check "llama3-70b script: no rope scaling for Llama 3 (none in its config)" eval '! has --use-rope-scaling'

# the same script under Slurm: srun on 64 nodes starts torchrun with a c10d rendezvous
run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="node-a[001-064]" "$L70"
check "llama3-70b under Slurm: exit 0" [ "$RUN_RC" -eq 0 ]
check "llama3-70b under Slurm: srun --nodes 64" grep -qx "srun nodes=64" "$STUB_LOG.srun"
check "llama3-70b under Slurm: torchrun rendezvous at the first node" \
    grep -q "entry=/opt/megatron/pretrain_gpt.py --rdzv-id=4242 --rdzv-backend=c10d --rdzv-endpoint=node-a001:29500$" \
    "$STUB_LOG.launch"
check "llama3-70b under Slurm: the same flags" has --tensor-model-parallel-size 8
run LAUNCHER=slurm "$L70"
check "LAUNCHER=slurm outside Slurm: exit 2 with the reason" \
    eval '[ "$RUN_RC" -ne 0 ] && grep -q "runs inside a Slurm allocation" "$T/run.err" && [ ! -e "$STUB_LOG" ]'
run LAUNCHER=mpirun "$L70"
check "LAUNCHER=mpirun: exit 2 naming the choices" \
    eval '[ "$RUN_RC" -eq 2 ] && grep -q "LAUNCHER must be torchrun or slurm" "$T/run.err"'

# what the user must set, and a node count that is not the plan's
rm -f "$STUB_LOG"
RUN_RC=0
env -u MEGATRON_PATH -u CHECKPOINT DATA_PATH=/d TOKENIZER=t "$L70" >/dev/null 2>"$T/run.err" || RUN_RC=$?
check "megatron script without MEGATRON_PATH and CHECKPOINT: exit 2 naming both, framework not started" \
    eval '[ "$RUN_RC" -eq 2 ] && grep -q "set MEGATRON_PATH CHECKPOINT first" "$T/run.err" && [ ! -e "$STUB_LOG" ]'
run NNODES=2 "$L70"
check "megatron script on 2 nodes x 8: exit 2, the plan is for 512 devices" \
    eval '[ "$RUN_RC" -eq 2 ] && grep -q "the plan is for 512 devices" "$T/run.err" && [ ! -e "$STUB_LOG" ]'

# ---- one node: Llama 3 8B on 8 GPUs ----------------------------------------------------------
st export -m llama3-8b -c dgx-h100 -n 8 --tp 2 --to megatron -o "$T/w/l8.sh"
EXPECT_DEVICES=8 run "$T/w/l8.sh"
check "llama3-8b on one node: torchrun --nnodes 1 --nproc-per-node 8" \
    eval '[ "$RUN_RC" -eq 0 ] && grep -q "^nnodes=1 nproc=8 " "$STUB_LOG.launch"'
flags "llama3-8b script" --num-layers 32 --tensor-model-parallel-size 2 --rotary-base 500000

# ---- GPT-3: LayerNorm and learned positions; no TP/CP connection limit without tp ---------------
st export -m gpt3-175b -c dgx-a100-80g -n 1024 --tp 8 --pp 16 --seq 2048 --to megatron -o "$T/w/gpt3.sh"
EXPECT_DEVICES=1024 run "$T/w/gpt3.sh"
check "gpt3-175b script: exit 0" [ "$RUN_RC" -eq 0 ]
flags "gpt3-175b script" --normalization LayerNorm --norm-epsilon 1e-05 \
    --position-embedding-type learned_absolute --max-position-embeddings 2048 --num-layers 96 \
    --padded-vocab-size 50264
check "gpt3-175b script: a plain GeLU MLP and tied embeddings" \
    eval '! has --untie-embeddings-and-output-weights && ! has --swiglu'
check "gpt3-175b script: the vocabulary padding to a multiple of tp is said" \
    grep -q "vocab_size 50257 padded to 50264, a multiple of tp 8" "$T/w/gpt3.sh"

# ---- Llama 3.1 405B: Llama 3 RoPE scaling ---------------------------------------------------------
st export -m llama3-405b -c dgx-h100 -n 1024 --tp 8 --pp 16 --recompute full --to megatron -o "$T/w/l405.sh"
EXPECT_DEVICES=1024 run "$T/w/l405.sh"
flags "llama3-405b script" --use-rope-scaling - --rope-scaling-factor 8 --max-position-embeddings 131072 \
    --num-layers 126

# ---- DeepSeek-V3: MLA with YaRN, MoE, MTP ----------------------------------------------------------
st export -m deepseek-v3 -c h800 -n 2048 --tp 2 --pp 16 --ep 64 --recompute full --to megatron --approximate \
    -o "$T/w/dsv3.sh"
EXPECT_DEVICES=2048 run "$T/w/dsv3.sh"
check "deepseek-v3 script: exit 0" [ "$RUN_RC" -eq 0 ]
[ "$RUN_RC" -eq 0 ] || show "$T/run.err"
flags "deepseek-v3 script" --multi-latent-attention - --q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 \
    --qk-pos-emb-head-dim 64 --v-head-dim 128 --rope-type yarn --rotary-scaling-factor 40 --mscale-all-dim 1 \
    --normalization RMSNorm --norm-epsilon 1e-06 --num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size 2048 \
    --moe-shared-expert-intermediate-size 2048 --moe-layer-freq '([0]*3+[1]*58)' --moe-grouped-gemm - \
    --mtp-num-layers 1 --expert-model-parallel-size 64 --padded-vocab-size 129280

# ---- DeepSpeed: the config's run line ---------------------------------------------------------------
st export -m llama3-8b -c dgx-h100 -n 16 --tp 1 --zero 1 --to deepspeed --approximate -o "$T/w/ds.json"
runline=$(python3 -c 'import json,sys; print(next(c[5:] for c in json.load(open(sys.argv[1]))["_comment"] if c.startswith("run: ")))' "$T/w/ds.json")
rm -f "$STUB_LOG" "$STUB_LOG".*
RUN_RC=0
EXPECT_DEVICES=16 TRAIN_SCRIPT=train.py HOSTFILE=/etc/hosts.ds bash -euc "$runline" 2>"$T/run.err" || RUN_RC=$?
check "deepspeed run line: deepspeed --num_nodes 2 --num_gpus 8 train.py" \
    eval '[ "$RUN_RC" -eq 0 ] && grep -qx "nodes=2 gpus=8 script=train.py" "$STUB_LOG.launch"'
check "deepspeed run line: --deepspeed --deepspeed_config names the written config" \
    eval '[ "$(tr "\n" " " <"$STUB_LOG")" = "--deepspeed --deepspeed_config $T/w/ds.json " ]'

# ---- torchtitan: the config's run line -------------------------------------------------------------
st export -m llama3-8b -c dgx-h100 -n 16 --tp 2 --zero 3 --to torchtitan --approximate -o "$T/w/job.toml"
runline=$(sed -n 's/^# run: //p' "$T/w/job.toml")
rm -f "$STUB_LOG" "$STUB_LOG".*
RUN_RC=0
EXPECT_DEVICES=16 bash -euc "$runline" 2>"$T/run.err" || RUN_RC=$?
check "torchtitan run line: torchrun --nnodes 2 --nproc-per-node 8 -m torchtitan.train" \
    eval '[ "$RUN_RC" -eq 0 ] && grep -q "^nnodes=2 nproc=8 entry=-m torchtitan.train " "$STUB_LOG.launch"'
check "torchtitan run line: --job.config_file names the written config, which parses as TOML" \
    eval '[ "$(tr "\n" " " <"$STUB_LOG")" = "--job.config_file $T/w/job.toml " ] &&
          python3 -c "import sys, tomllib; tomllib.load(open(sys.argv[1], \"rb\"))" "$T/w/job.toml"'
