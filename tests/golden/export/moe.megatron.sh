# strata export --to megatron: Golden DeepSeek V3 on Golden H800, 512 devices
# dp 32 x tp 2 x pp 8 x cp 1 = 512 ranks; experts: ep 64 x etp 1
# names checked against NVIDIA/Megatron-LM megatron/training/arguments.py
# paste after pretrain_gpt.py; Megatron takes dp from the world size (512)
# tp or cp > 1: Megatron needs CUDA_DEVICE_MAX_CONNECTIONS=1 in the environment (before Blackwell)
# not in the plan, add your own: tokenizer (vocabulary 129280), data, optimizer, learning rate, normalization, position embedding, MoE router and load balancing
# not expressible: schedule dualpipe; Megatron-LM runs 1F1B (interleaved with virtual stages), written as that
    --num-layers 61 \
    --hidden-size 7168 \
    --ffn-hidden-size 18432 \
    --num-attention-heads 128 \
    --multi-latent-attention \
    --q-lora-rank 1536 \
    --kv-lora-rank 512 \
    --qk-head-dim 128 \
    --qk-pos-emb-head-dim 64 \
    --v-head-dim 128 \
    --swiglu \
    --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --hidden-dropout 0 \
    --attention-dropout 0 \
    --num-experts 256 \
    --moe-router-topk 8 \
    --moe-ffn-hidden-size 2048 \
    --moe-shared-expert-intermediate-size 2048 \
    --moe-layer-freq '([0]*3+[1]*58)' \
    --mtp-num-layers 1 \
    --tensor-model-parallel-size 2 \
    --pipeline-model-parallel-size 8 \
    --decoder-first-pipeline-num-layers 7 \
    --decoder-last-pipeline-num-layers 6 \
    --context-parallel-size 1 \
    --expert-model-parallel-size 64 \
    --expert-tensor-parallel-size 1 \
    --moe-token-dispatcher-type alltoall \
    --moe-grouped-gemm \
    --sequence-parallel \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --micro-batch-size 1 \
    --global-batch-size 2048 \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --recompute-granularity full \
    --recompute-method uniform \
    --recompute-num-layers 1 \
    --bf16 \
    --fp8-format hybrid \
    --attention-backend flash
