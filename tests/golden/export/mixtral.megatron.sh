# strata export --to megatron: Golden Mixtral 8x7B on Golden H100, 64 devices
# dp 16 x tp 2 x pp 2 x cp 1 = 64 ranks; experts: ep 8 x etp 2
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# paste after pretrain_gpt.py; Megatron takes dp from the world size (64)
# not in the plan, add your own: tokenizer (vocabulary 32000), data, optimizer, learning rate, normalization, position embedding, MoE router and load balancing
# ZeRO-2: Megatron-FSDP, which only saves fsdp_dtensor checkpoints
# not expressible: vocab_parallel false; Megatron-LM always splits the embedding and output layer over the 2 TP ranks
# not expressible: schedule gpipe; Megatron-LM runs 1F1B (interleaved with virtual stages), written as that
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
    --num-experts 8 \
    --moe-router-topk 2 \
    --moe-ffn-hidden-size 14336 \
    --tensor-model-parallel-size 2 \
    --pipeline-model-parallel-size 2 \
    --context-parallel-size 1 \
    --expert-model-parallel-size 8 \
    --expert-tensor-parallel-size 2 \
    --moe-token-dispatcher-type alltoall \
    --moe-grouped-gemm \
    --use-megatron-fsdp \
    --data-parallel-sharding-strategy optim_grads \
    --ckpt-format fsdp_dtensor \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --micro-batch-size 1 \
    --global-batch-size 64 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --bf16 \
    --attention-backend unfused
