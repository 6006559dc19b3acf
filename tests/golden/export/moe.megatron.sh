#!/usr/bin/env bash
#SBATCH --job-name=strata-megatron
#SBATCH --nodes=64
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
# strata export --to megatron: Golden DeepSeek V3 on Golden H800, 512 devices
# dp 32 x tp 2 x pp 8 x cp 1 = 512 ranks; experts: ep 64 x etp 1
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# Megatron takes dp from the world size (512)
# not in the plan, add your own as arguments of this script: optimizer, learning rate and schedule, iterations, MoE router and load balancing
# not expressible: schedule dualpipe; Megatron-LM runs 1F1B (interleaved with virtual stages), written as that
#
# Start (strata docs/usage.md, "Launching an export"):
#   one node, or each node by hand: MEGATRON_PATH=... DATA_PATH=... TOKENIZER=... CHECKPOINT=... ./THIS_SCRIPT [more pretrain_gpt.py flags]
#     on 64 nodes: NODE_RANK=0..63 and MASTER_ADDR=<node 0's address> on each
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

NNODES=${NNODES:-64}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
NODE_RANK=${NODE_RANK:-0}
MASTER_PORT=${MASTER_PORT:-29500}
if [ "$((NNODES * GPUS_PER_NODE))" -ne 512 ]; then
    echo "$0: NNODES x GPUS_PER_NODE is $((NNODES * GPUS_PER_NODE)); the plan is for 512 devices (strata export -n N for another count)" >&2
    exit 2
fi
read -r -a DATA <<<"$DATA_PATH"

# tp or cp > 1: Megatron-LM asserts CUDA_DEVICE_MAX_CONNECTIONS=1 before Blackwell, so that
# TP/CP communication is issued ahead of the computation that waits for it
export CUDA_DEVICE_MAX_CONNECTIONS=1

MODEL_ARGS=(
    --num-layers 61
    --hidden-size 7168
    --ffn-hidden-size 18432
    --num-attention-heads 128
    --multi-latent-attention
    --q-lora-rank 1536
    --kv-lora-rank 512
    --qk-head-dim 128
    --qk-pos-emb-head-dim 64
    --v-head-dim 128
    --swiglu
    --disable-bias-linear
    --untie-embeddings-and-output-weights
    --hidden-dropout 0
    --attention-dropout 0
    --num-experts 256
    --moe-router-topk 8
    --moe-ffn-hidden-size 2048
    --moe-shared-expert-intermediate-size 2048
    --moe-layer-freq '([0]*3+[1]*58)'
    --mtp-num-layers 1
)
NORM_ARGS=(
    --normalization RMSNorm
    --norm-epsilon 1e-06
)
EMBEDDING_ARGS=(
    --position-embedding-type rope
    --rotary-base 10000
    --rope-type yarn
    --rotary-scaling-factor 40
    --mscale 1
    --mscale-all-dim 1
    --max-position-embeddings 163840
    --padded-vocab-size 129280
)
PARALLEL_ARGS=(
    --tensor-model-parallel-size 2
    --pipeline-model-parallel-size 8
    --decoder-first-pipeline-num-layers 7
    --decoder-last-pipeline-num-layers 6
    --context-parallel-size 1
    --expert-model-parallel-size 64
    --expert-tensor-parallel-size 1
    --moe-token-dispatcher-type alltoall
    --moe-grouped-gemm
    --sequence-parallel
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)
BATCH_ARGS=(
    --micro-batch-size 1
    --global-batch-size 2048
    --seq-length 4096
)
RECOMPUTE_ARGS=(
    --recompute-granularity full
    --recompute-method uniform
    --recompute-num-layers 1
)
PRECISION_ARGS=(
    --bf16
    --fp8-format hybrid
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
