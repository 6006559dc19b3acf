# strata export --to megatron: Golden Llama 70B on Golden H100, 512 devices
# dp 16 x tp 8 x pp 4 x cp 1 = 512 ranks
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# paste after pretrain_gpt.py; Megatron takes dp from the world size (512)
# tp or cp > 1: Megatron needs CUDA_DEVICE_MAX_CONNECTIONS=1 in the environment (before Blackwell)
# not in the plan, add your own: tokenizer (vocabulary 128256), data, optimizer, learning rate, normalization, position embedding
    --num-layers 80 \
    --hidden-size 8192 \
    --ffn-hidden-size 28672 \
    --num-attention-heads 64 \
    --group-query-attention \
    --num-query-groups 8 \
    --swiglu \
    --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --hidden-dropout 0 \
    --attention-dropout 0 \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 4 \
    --context-parallel-size 1 \
    --sequence-parallel \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --tp-comm-overlap \
    --micro-batch-size 1 \
    --global-batch-size 512 \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --recompute-granularity selective \
    --bf16 \
    --attention-backend flash
