#!/usr/bin/env bash
#SBATCH --job-name=strata-megatron
#SBATCH --nodes=8
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
# strata export --to megatron: Golden Llama 8B on Golden A100, 64 devices
# dp 4 x tp 2 x pp 4 x cp 2 = 64 ranks
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# Megatron takes dp from the world size (64)
# not in the plan, add your own as arguments of this script: optimizer, learning rate and schedule, iterations
#
# Start (strata docs/usage.md, "Launching an export"):
#   one node, or each node by hand: MEGATRON_PATH=... DATA_PATH=... TOKENIZER=... CHECKPOINT=... ./THIS_SCRIPT [more pretrain_gpt.py flags]
#     on 8 nodes: NODE_RANK=0..7 and MASTER_ADDR=<node 0's address> on each
#   Slurm: sbatch THIS_SCRIPT, or LAUNCHER=slurm ./THIS_SCRIPT in an allocation: srun starts torchrun once per node
set -euo pipefail

missing=""
for v in MEGATRON_PATH DATA_PATH TOKENIZER CHECKPOINT; do
    [ -n "${!v:-}" ] || missing="$missing $v"
done
if [ -n "$missing" ]; then
    echo "$0: set$missing first. MEGATRON_PATH: a Megatron-LM checkout (pretrain_gpt.py); DATA_PATH: the preprocessed dataset prefix (or 'weight prefix ...' blends); TOKENIZER: a Hugging Face tokenizer name or directory; CHECKPOINT: the directory to save to and resume from" >&2
    exit 2
fi

NNODES=${NNODES:-8}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
NODE_RANK=${NODE_RANK:-0}
MASTER_PORT=${MASTER_PORT:-29500}
if [ "$((NNODES * GPUS_PER_NODE))" -ne 64 ]; then
    echo "$0: NNODES x GPUS_PER_NODE is $((NNODES * GPUS_PER_NODE)); the plan is for 64 devices (strata export -n N for another count)" >&2
    exit 2
fi
read -r -a DATA <<<"$DATA_PATH"

# tp or cp > 1: Megatron-LM asserts CUDA_DEVICE_MAX_CONNECTIONS=1 before Blackwell, so that
# TP/CP communication is issued ahead of the computation that waits for it
export CUDA_DEVICE_MAX_CONNECTIONS=1

MODEL_ARGS=(
    --num-layers 32
    --hidden-size 4096
    --ffn-hidden-size 14336
    --num-attention-heads 32
    --group-query-attention
    --num-query-groups 8
    --kv-channels 128
    --swiglu
    --disable-bias-linear
    --untie-embeddings-and-output-weights
    --hidden-dropout 0
    --attention-dropout 0
)
NORM_ARGS=(
    --normalization RMSNorm
    --norm-epsilon 1e-05
)
EMBEDDING_ARGS=(
    --position-embedding-type rope
    --rotary-base 500000
    --use-rope-scaling
    --rope-scaling-factor 8
    --max-position-embeddings 131072
    --padded-vocab-size 128256
)
PARALLEL_ARGS=(
    --tensor-model-parallel-size 2
    --pipeline-model-parallel-size 4
    --pipeline-model-parallel-layout 'E,t*3|(t*4|)*2,t*5|(t*4|)*3,t*4,L'
    --context-parallel-size 2
    --cp-comm-type p2p
    --sequence-parallel
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)
BATCH_ARGS=(
    --micro-batch-size 1
    --global-batch-size 32
    --seq-length 8192
)
RECOMPUTE_ARGS=(
    --recompute-granularity full
    --recompute-method block
    --recompute-num-layers 1
)
PRECISION_ARGS=(
    --bf16
    --attention-backend flash
)
DATA_ARGS=(
    --data-path "${DATA[@]}"
    --tokenizer-type HuggingFaceTokenizer
    --tokenizer-model "$TOKENIZER"
    --save "$CHECKPOINT"
    --load "$CHECKPOINT"
)
ARGS=("${MODEL_ARGS[@]}" "${NORM_ARGS[@]}" "${EMBEDDING_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${BATCH_ARGS[@]}" "${RECOMPUTE_ARGS[@]}" "${PRECISION_ARGS[@]}" "${DATA_ARGS[@]}")

LAUNCHER=${LAUNCHER:-$([ -n "${SLURM_JOB_ID:-}" ] && echo slurm || echo torchrun)}
case "$LAUNCHER" in
torchrun)
    exec torchrun --nnodes "$NNODES" --nproc-per-node "$GPUS_PER_NODE" --node-rank "$NODE_RANK" \
        --master-addr "${MASTER_ADDR:-localhost}" --master-port "$MASTER_PORT" \
        "$MEGATRON_PATH/pretrain_gpt.py" "${ARGS[@]}" "$@"
    ;;
slurm)
    : "${SLURM_JOB_ID:?LAUNCHER=slurm runs inside a Slurm allocation (sbatch or salloc)}"
    MASTER_ADDR=${MASTER_ADDR:-$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)}
    exec srun --nodes "$NNODES" --ntasks-per-node 1 \
        torchrun --nnodes "$NNODES" --nproc-per-node "$GPUS_PER_NODE" --rdzv-id "$SLURM_JOB_ID" \
        --rdzv-backend c10d --rdzv-endpoint "$MASTER_ADDR:$MASTER_PORT" \
        "$MEGATRON_PATH/pretrain_gpt.py" "${ARGS[@]}" "$@"
    ;;
*)
    echo "$0: LAUNCHER must be torchrun or slurm (got '$LAUNCHER')" >&2
    exit 2
    ;;
esac
