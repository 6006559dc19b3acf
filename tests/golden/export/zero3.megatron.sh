# strata export --to megatron: Golden Llama 8B on Golden A100, 32 devices
# dp 8 x tp 2 x pp 1 x cp 2 = 32 ranks
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# paste after pretrain_gpt.py; Megatron takes dp from the world size (32)
# not in the plan, add your own: tokenizer (vocabulary 128256), data, optimizer, learning rate, normalization, position embedding
# ZeRO-3: Megatron-FSDP, which only saves fsdp_dtensor checkpoints
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
    --pipeline-model-parallel-size 1 \
    --context-parallel-size 2 \
    --cp-comm-type a2a \
    --sequence-parallel \
    --use-megatron-fsdp \
    --data-parallel-sharding-strategy optim_grads_params \
    --ckpt-format fsdp_dtensor \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --micro-batch-size 2 \
    --global-batch-size 64 \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --recompute-granularity full \
    --recompute-method uniform \
    --recompute-num-layers 1 \
    --fp16 \
    --attention-backend flash
