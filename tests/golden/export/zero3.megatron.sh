#!/usr/bin/env bash
#SBATCH --job-name=strata-megatron
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
# strata export --to megatron: Golden Llama 8B on Golden A100, 32 devices
# dp 8 x tp 2 x pp 1 x cp 2 = 32 ranks
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# Megatron takes dp from the world size (32)
# not in the plan, add your own as arguments of this script: optimizer, learning rate and schedule, iterations
# normalization: not in the model file (rms_norm_eps or layer_norm_eps); written as strata prices it, RMSNorm with Megatron's epsilon
# position embedding: not in the model file (rope_theta or position_embedding_type); Megatron's default learned_absolute applies unless you pass --position-embedding-type rope
# ZeRO-3: Megatron-FSDP, which only saves fsdp_dtensor checkpoints
#
# Start (strata docs/usage.md, "Launching an export"):
#   one node, or each node by hand: MEGATRON_PATH=... DATA_PATH=... TOKENIZER=... CHECKPOINT=... ./THIS_SCRIPT [more pretrain_gpt.py flags]
#     on 4 nodes: NODE_RANK=0..3 and MASTER_ADDR=<node 0's address> on each
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

NNODES=${NNODES:-4}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
NODE_RANK=${NODE_RANK:-0}
MASTER_PORT=${MASTER_PORT:-29500}
if [ "$((NNODES * GPUS_PER_NODE))" -ne 32 ]; then
    echo "$0: NNODES x GPUS_PER_NODE is $((NNODES * GPUS_PER_NODE)); the plan is for 32 devices (strata export -n N for another count)" >&2
    exit 2
fi
read -r -a DATA <<<"$DATA_PATH"

# Megatron-FSDP asserts that CUDA_DEVICE_MAX_CONNECTIONS is not 1
unset CUDA_DEVICE_MAX_CONNECTIONS

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
)
EMBEDDING_ARGS=(
    --max-position-embeddings 8192
    --padded-vocab-size 128256
)
PARALLEL_ARGS=(
    --tensor-model-parallel-size 2
    --pipeline-model-parallel-size 1
    --context-parallel-size 2
    --cp-comm-type a2a
    --sequence-parallel
    --use-megatron-fsdp
    --data-parallel-sharding-strategy optim_grads_params
    --ckpt-format fsdp_dtensor
    --overlap-grad-reduce
    --overlap-param-gather
)
BATCH_ARGS=(
    --micro-batch-size 2
    --global-batch-size 64
    --seq-length 8192
)
RECOMPUTE_ARGS=(
    --recompute-granularity full
    --recompute-method uniform
    --recompute-num-layers 1
)
PRECISION_ARGS=(
    --fp16
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
