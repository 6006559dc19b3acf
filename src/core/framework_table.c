/* framework_table.c - what each framework runs and how: the one table (framework.h) that
 * the checks (framework.c) and the cost model read.
 *
 * Sources, per framework (what each flag or key below stands for):
 * - Megatron-LM: megatron/training/arguments.py and the Megatron-Core user guide.
 *   Pipelines: 1F1B and interleaved 1F1B (--num-virtual-stages-per-pipeline-rank); the
 *   zero-bubble schedules live in the Zero Bubble authors' fork (sail-sg) and DualPipe in
 *   DeepSeek's own trainer. Data parallelism: DDP (ZeRO-0), the distributed optimizer
 *   (ZeRO-1), Megatron-FSDP --data-parallel-sharding-strategy optim_grads (ZeRO-2) and
 *   optim_grads_params (ZeRO-3). --cp-comm-type p2p (ring) or a2a (Ulysses), sequence
 *   length divisible by 2 x cp; --recompute-granularity selective (--recompute-modules) or
 *   full, per layer only as --recompute-method block (the first N layers of every stage);
 *   uneven stages as --decoder-first/last-pipeline-num-layers (the plan's
 *   first/last_stage_layers; with virtual stages every chunk of a rank alike),
 *   --account-for-embedding/loss-in-pipeline-split or --pipeline-model-parallel-layout;
 *   --tp-comm-overlap needs --sequence-parallel; fp16 is refused with expert parallelism; the embedding and output layer are always split
 *   over TP; one dense and one MoE layer shape per model (the flags describe one each).
 *   Loss: the vocab-parallel cross entropy keeps bf16 logits and one fp32 copy;
 *   --cross-entropy-loss-fusion --cross-entropy-fusion-impl te (plan key loss_fusion)
 *   keeps only the bf16 logits, overwritten with their gradient. fp8 activations: TE's
 *   saved fp8 GEMM inputs, in every --fp8-recipe; DeepSeek-V3's own caching (plan key
 *   fp8_cache deepseek) is not among Megatron's options. MoE dispatch: the alltoall
 *   token dispatcher, or DeepEP through --moe-token-dispatcher-type flex --moe-enable-deepep
 *   (Megatron-Core 0.12, megatron/core/transformer/moe/token_dispatcher.py MoEFlexTokenDispatcher).
 *   Optimizer: --use-precision-aware-optimizer (megatron/core/optimizer/optimizer_config.py)
 *   stores Adam's moments in fp32, fp16, bf16 or fp8 (--exp-avg-dtype, --exp-avg-sq-dtype),
 *   main grads in fp32 or bf16, main params in fp32 or fp16, through Transformer Engine's
 *   FusedAdam, and asserts the distributed optimizer; fp32 masters of bf16 weights are then
 *   kept as 16-bit remainders (store_param_remainders, default on).
 * - torchtitan: torchtitan/config/job_config.py and torch.distributed.pipelining.
 *   Schedules GPipe, 1F1B, Interleaved1F1B and ZBVZeroBubble (DualPipeV is another
 *   schedule, and InterleavedZeroBubble needs several stages per rank); FSDP2 shards
 *   parameters (reshard after forward: ZeRO-3; never: ZeRO-2) and its DDP is one-
 *   dimensional (ZeRO-0 with data parallelism only), there is no ZeRO-1; context
 *   parallelism is ring attention; TP always shards the sequence and the embedding;
 *   expert parallelism borrows data and context ranks (cp <= ep <= dp x cp, ep | dp x cp)
 *   with expert TP equal to TP; no MTP module, no fp16 parameters, the model's own
 *   attention kernel (SDPA); activation checkpointing is one mode for every layer, and
 *   its `selective` is per-op; pipeline split points must differ (no empty stage); any
 *   uneven split is written as split points (pipeline_parallel_split_points, or
 *   module_fqns_per_model_part in recent releases).
 *   Loss: cross_entropy(pred.float(), labels), which keeps log_softmax's fp32 output too.
 *   Optimizer: torch.optim AdamW over FSDP2's fp32 sharded parameters, whose state takes
 *   their dtype: no low-precision moments or master weights.
 * - DeepSpeed: the config-json documentation, deepspeed/runtime/pipe and
 *   deepspeed/runtime/zero. The pipeline engine runs one 1F1B-style schedule, without
 *   interleaving, partitions by method (not counts), and takes ZeRO-0/1 only; AutoTP
 *   training takes ZeRO 0-2 and shards linear layers only (no sequence parallelism, no
 *   overlap); sequence parallelism is Ulysses; no expert TP; no fp8 switch in the config;
 *   activation checkpointing is whole modules, per the model code.
 *   Loss and attention come from the model code (PyTorch's cross entropy, SDPA).
 *   Optimizer: recent releases add bf16_optimizer_states and bf16_master_weights_and_grads
 *   (bf16 masters, which the --main-params-dtype choices fp32/fp16 do not name); strata
 *   prices and exports DeepSpeed with fp32 states only. */
#include "core/framework.h"

#define BIT(x) (1u << (x))
/* Megatron-LM: --fp8-format, --fp8-recipe mxfp8, --fp4-format e2m1 --fp4-recipe nvfp4 (arguments.py) */
#define ALL_PREC (BIT(PREC_BF16) | BIT(PREC_FP16) | BIT(PREC_FP8) | BIT(PREC_MXFP8) | BIT(PREC_FP4))
#define OPT_G (BIT(ODT_FP32) | BIT(ODT_BF16))   /* --main-grads-dtype choices */
#define OPT_P (BIT(ODT_FP32) | BIT(ODT_FP16))   /* --main-params-dtype choices */
#define ALL_RC (BIT(RC_NONE) | BIT(RC_SELECTIVE) | BIT(RC_FULL))

const fw_caps fw_table[FW_COUNT] = {
	[FW_MEGATRON] = {
		.key = "megatron", .name = "Megatron-LM",
		.sched = BIT(SCHED_1F1B) | BIT(SCHED_INTERLEAVED),
		.zero = 0xf, .zero_pp = 0xf, .zero_tp = 0xf,
		/* USP: --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes (TE >= 1.12) */
		.cp_kinds = BIT(CP_RING) | BIT(CP_ULYSSES) | BIT(CP_USP), .recompute = ALL_RC, .precision = ALL_PREC,
		.vpp = true, .uneven = true, .empty_stage = true, .rc_block = true, .rc_modules = true, .sp_off = true, .sp_on = true,
		.tp_overlap = true, .etp = true, .unfused_attention = true, .mtp = true, .mixed_layers = false,
		.logit_bytes = 6.0, .sdpa_attention = false, .per_op_sac = false, .tp_bwd_serial = false,
		/* --cross-entropy-loss-fusion --cross-entropy-fusion-impl te: Transformer Engine's
		 * parallel_cross_entropy (transformer_engine/pytorch/cross_entropy.py) computes the
		 * gradient in forward into the bf16 logits themselves and saves only them: 2 bytes.
		 * (The `native` impl, megatron/core/fusions/fused_cross_entropy.py, still makes and
		 * saves the fp32 copy, as the unfused loss does.) */
		.fused_logit_bytes = 2.0, .fused_loss_why = "",
		.fp8_cache = BIT(FP8C_NONE), .deepep = true,
		/* --scatter-gather-tensors-in-pipeline, on by default (Narayanan et al. 2021, sec. 4.1) */
		.pp_scatter = true,
		/* DistributedDataParallelConfig.bucket_size: max(40M, 1M x dp) parameters */
		.dp_bucket = 4e7, .dp_bucket_rank = 1e6,
		.fp8_saved_inputs = true, /* Transformer Engine's fp8 Linear */
		.fsdp_pp_unsharded = false,
		.zero3_unit = FW_Z3_LAYER,   /* Megatron-FSDP: fsdp_unit_modules = transformer layers */
		.expert_launches = true,     /* TEGroupedMLP: TE GroupedLinear, a cuBLAS GEMM per expert */
		/* --use-precision-aware-optimizer: TE's FusedAdam, with the distributed optimizer */
		.opt_remainders = true, .opt_dtypes = {0xf, 0xf, OPT_G, OPT_P}, .opt_zero = BIT(1),
		.opt_why = " (--use-precision-aware-optimizer takes the distributed optimizer)",
		/* --optimizer-cpu-offload --optimizer-offload-fraction f: HybridDeviceOptimizer
		 * (megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py), built without the
		 * moment dtypes, fp32 main params (param_update_in_fp32); fp32 main grads copied
		 * down, bf16 params copied up; --overlap-cpu-optimizer-d2h-h2d pipelines the copies
		 * and the CPU steps per parameter. It asserts --use-precision-aware-optimizer, so the
		 * distributed optimizer (ZeRO-1); Megatron-FSDP refuses it */
		.offload_zero = BIT(1), .offload_partial = BIT(1), .offload_fp32 = true, .offload_grads = false,
		.offload_keep = 0, .offload_down = 4, .offload_up = 2, .offload_per_mb = false,
		.offload_overlap = FW_OVL_PIPELINED,
		.offload_why = " (--optimizer-cpu-offload takes --use-precision-aware-optimizer, hence the distributed "
			"optimizer; Megatron-FSDP refuses it)",
		.act_offload = true, /* --cpu-offloading-num-layers (TE's cpu_offload) */
	},
	[FW_TORCHTITAN] = {
		.key = "torchtitan", .name = "torchtitan",
		.sched = BIT(SCHED_GPIPE) | BIT(SCHED_1F1B) | BIT(SCHED_INTERLEAVED) | BIT(SCHED_ZBV),
		.zero = BIT(0) | BIT(2) | BIT(3), .zero_pp = BIT(2) | BIT(3), .zero_tp = BIT(2) | BIT(3),
		.cp_kinds = BIT(CP_RING), .recompute = ALL_RC,
		.precision = BIT(PREC_BF16) | BIT(PREC_FP8) | BIT(PREC_MXFP8), /* model.converters float8 | mx */
		.vpp = true, .uneven = true, .empty_stage = false, .rc_block = false, .rc_modules = false, .sp_off = false, .sp_on = true,
		.tp_overlap = true, .etp = true, .unfused_attention = false, .mtp = false, .mixed_layers = true,
		.logit_bytes = 10.0, .sdpa_attention = true, .per_op_sac = true, .tp_bwd_serial = true,
		.fused_logit_bytes = 0, .fused_loss_why = " (its loss is cross_entropy(pred.float(), labels))",
		.fp8_cache = BIT(FP8C_NONE), .deepep = true /* parallelism.expert_parallel_comm_backend "deepep" */,
		.pp_scatter = false, /* torch.distributed.pipelining sends each rank's local tensor */
		.dp_bucket = 0, .dp_bucket_rank = 0, /* FSDP2 reduces one transformer block at a time */
		.fp8_saved_inputs = false, /* torchao's Float8Linear saves the 16-bit input */
		.fsdp_pp_unsharded = true, /* FSDP2 + torch.distributed.pipelining */
		.zero3_unit = FW_Z3_LAYER,   /* fully_shard per TransformerBlock */
		.expert_launches = false,    /* GroupedExperts: one torch._grouped_mm per matrix */
		.opt_remainders = false, .opt_dtypes = {1, 1, 1, 1}, .opt_zero = 0,
		.opt_why = " (torch.optim's AdamW keeps its state in the fp32 dtype of FSDP2's sharded parameters)",
		/* training.enable_cpu_offload: FSDP2's CPUOffloadPolicy, all or nothing, keeps the
		 * sharded fp32 parameters, gradients and optimizer states on the host
		 * (torchtitan/distributed/fsdp.py); each all-gather copies the shard up, each
		 * reduce-scatter the fp32 gradient shard down (torch/distributed/fsdp/_fully_shard) */
		.offload_zero = BIT(2) | BIT(3), .offload_partial = 0, .offload_fp32 = true, .offload_grads = true,
		.offload_keep = 0, .offload_down = 4, .offload_up = 4, .offload_per_mb = true,
		.offload_overlap = FW_OVL_SERIAL,
		.offload_why = " (CPUOffloadPolicy is FSDP2's: ZeRO-2 or 3)",
		.act_offload = false,
	},
	[FW_DEEPSPEED] = {
		.key = "deepspeed", .name = "DeepSpeed",
		.sched = BIT(SCHED_1F1B) | BIT(SCHED_INTERLEAVED),
		.zero = 0xf, .zero_pp = BIT(0) | BIT(1), .zero_tp = BIT(0) | BIT(1) | BIT(2),
		.cp_kinds = BIT(CP_ULYSSES), .recompute = BIT(RC_NONE) | BIT(RC_FULL),
		.precision = BIT(PREC_BF16) | BIT(PREC_FP16),
		.vpp = false, .uneven = false, .empty_stage = false, .rc_block = false, .rc_modules = false, .sp_off = true, .sp_on = false,
		.tp_overlap = false, .etp = false, .unfused_attention = true, .mtp = true, .mixed_layers = true,
		.logit_bytes = 10.0, .sdpa_attention = true, .per_op_sac = false, .tp_bwd_serial = true,
		.fused_logit_bytes = 0, .fused_loss_why = " (the loss is the model code's; a Liger-style kernel is no DeepSpeed "
			"config key)",
		.fp8_cache = BIT(FP8C_NONE), .deepep = false,
		/* PipelineEngine partitions activations over the model-parallel group
		 * (is_pipe_partitioned, PartitionedTensor) and gathers them after the receive */
		.pp_scatter = true,
		.dp_bucket = 5e8, .dp_bucket_rank = 0, /* zero_optimization.reduce_bucket_size default */
		.fp8_saved_inputs = false, .fsdp_pp_unsharded = false,
		.zero3_unit = FW_Z3_MODULE,  /* PartitionedParameterCoordinator, per submodule */
		.expert_launches = true,     /* deepspeed/moe/experts.py loops over its experts */
		.opt_remainders = false, .opt_dtypes = {1, 1, 1, 1}, .opt_zero = 0,
		.opt_why = " (strata prices DeepSpeed's ZeRO optimizers with fp32 states; its bf16_optimizer_states and "
			"bf16_master_weights_and_grads switches are not modelled)",
		/* zero_optimization.offload_optimizer {device: cpu} (ZeRO-Offload, Ren et al.,
		 * USENIX ATC 2021, arXiv 2101.06840): fp32 master, Adam moments and gradient
		 * partition on the host, DeepSpeedCPUAdam there; 16-bit gradients copied down
		 * during backward, 16-bit parameters up after the step (sec. 4.1); ZeRO 1-3, a
		 * fraction (`ratio`, ZeRO++ Twin-Flow) with ZeRO-3 only
		 * (deepspeed/runtime/zero/offload_config.py); ZeRO-3 keeps its 16-bit shard */
		.offload_zero = BIT(1) | BIT(2) | BIT(3), .offload_partial = BIT(3), .offload_fp32 = true,
		.offload_grads = true, .offload_keep = 2, .offload_down = 2, .offload_up = 2, .offload_per_mb = false,
		.offload_overlap = FW_OVL_GRADS,
		.offload_why = " (offload_optimizer runs with ZeRO 1 to 3)",
		.act_offload = false, /* cpu_checkpointing moves checkpoints of full recompute only */
	},
};
