# strata export --to megatron: Golden Llama 8B on Golden A100, 64 devices
# dp 4 x tp 2 x pp 4 x cp 2 = 64 ranks
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# paste after pretrain_gpt.py; Megatron takes dp from the world size (64)
# tp or cp > 1: Megatron needs CUDA_DEVICE_MAX_CONNECTIONS=1 in the environment (before Blackwell)
# not in the plan, add your own: tokenizer (vocabulary 128256), data, optimizer, learning rate, normalization, position embedding
    --num-layers 32 \
    --hidden-size 4096 \
    --ffn-hidden-size 14336 \
    --num-attention-heads 32 \
    --group-query-attention \
    --num-query-groups 8 \
    --swiglu \
    --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --hidden-dropout 0 \
    --attention-dropout 0 \
    --tensor-model-parallel-size 2 \
    --pipeline-model-parallel-size 4 \
    --pipeline-model-parallel-layout 'E,t*3|(t*4|)*2,t*5|(t*4|)*3,t*4,L' \
    --context-parallel-size 2 \
    --cp-comm-type p2p \
    --sequence-parallel \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --micro-batch-size 1 \
    --global-batch-size 32 \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --recompute-granularity full \
    --recompute-method block \
    --recompute-num-layers 1 \
    --bf16 \
    --attention-backend flash
