/* framework.c - the frameworks' tables and the check of a plan against one.
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
 *   fp8_cache deepseek) is not among Megatron's options.
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
#include "core/why.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BIT(x) (1u << (x))
#define ALL_PREC (BIT(PREC_BF16) | BIT(PREC_FP16) | BIT(PREC_FP8))
#define OPT_G (BIT(ODT_FP32) | BIT(ODT_BF16))   /* --main-grads-dtype choices */
#define OPT_P (BIT(ODT_FP32) | BIT(ODT_FP16))   /* --main-params-dtype choices */
#define ALL_RC (BIT(RC_NONE) | BIT(RC_SELECTIVE) | BIT(RC_FULL))

const fw_caps fw_table[FW_COUNT] = {
	[FW_MEGATRON] = {
		.key = "megatron", .name = "Megatron-LM",
		.sched = BIT(SCHED_1F1B) | BIT(SCHED_INTERLEAVED),
		.zero = 0xf, .zero_pp = 0xf, .zero_tp = 0xf,
		.cp_kinds = BIT(CP_RING) | BIT(CP_ULYSSES), .recompute = ALL_RC, .precision = ALL_PREC,
		.vpp = true, .uneven = true, .empty_stage = true, .rc_block = true, .rc_modules = true, .sp_off = true, .sp_on = true,
		.tp_overlap = true, .etp = true, .unfused_attention = true, .mtp = true, .mixed_layers = false,
		.logit_bytes = 6.0, .sdpa_attention = false, .per_op_sac = false, .tp_bwd_serial = false,
		/* --cross-entropy-loss-fusion --cross-entropy-fusion-impl te: Transformer Engine's
		 * parallel_cross_entropy (transformer_engine/pytorch/cross_entropy.py) computes the
		 * gradient in forward into the bf16 logits themselves and saves only them: 2 bytes.
		 * (The `native` impl, megatron/core/fusions/fused_cross_entropy.py, still makes and
		 * saves the fp32 copy, as the unfused loss does.) */
		.fused_logit_bytes = 2.0, .fused_loss_why = "",
		.fp8_cache = BIT(FP8C_NONE),
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
		.cp_kinds = BIT(CP_RING), .recompute = ALL_RC, .precision = BIT(PREC_BF16) | BIT(PREC_FP8),
		.vpp = true, .uneven = true, .empty_stage = false, .rc_block = false, .rc_modules = false, .sp_off = false, .sp_on = true,
		.tp_overlap = true, .etp = true, .unfused_attention = false, .mtp = false, .mixed_layers = true,
		.logit_bytes = 10.0, .sdpa_attention = true, .per_op_sac = true, .tp_bwd_serial = true,
		.fused_logit_bytes = 0, .fused_loss_why = " (its loss is cross_entropy(pred.float(), labels))",
		.fp8_cache = BIT(FP8C_NONE),
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
		.fp8_cache = BIT(FP8C_NONE),
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

/* Append a reason; returns the count so far. With no list, only counts. */
static int add(fw_issues *o, int n, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static int add(fw_issues *o, int n, const char *fmt, ...)
{
	if (o && n < FW_MAX_ISSUES) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(o->text[n], FW_WHY, fmt, ap);
		va_end(ap);
		o->n = n + 1;
	}
	return n + 1;
}

/* The schedules of mask as a list, into buf; o NULL: no message is wanted (the search's
 * yes/no check), so nothing is formatted. */
static const char *sched_list(const fw_issues *o, unsigned mask, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	if (!o)
		return buf;
	for (int i = 0; i < SCHED_COUNT && used < len; i++)
		if (mask & BIT(i))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", strat_schedule_name(i));
	return buf;
}

/* The parallel degrees: schedule, virtual stages, ZeRO, TP/SP, CP, experts. */
static int check_parallel(const fw_caps *f, const strategy_t *s, const model_t *m, fw_issues *o, int n)
{
	char b[80];
	if (s->pp > 1 && !(f->sched & BIT(s->schedule)))
		n = add(o, n, "%s cannot run schedule %s (it runs %s)", f->key, strat_schedule_name(s->schedule),
				sched_list(o, f->sched, b, sizeof b));
	if (s->vpp > 1 && !f->vpp)
		n = add(o, n, "%s cannot run %d virtual stages per rank (no interleaving)", f->key, s->vpp);
	int zpp = s->pp > 1 && !(f->zero_pp & BIT(s->zero)), ztp = s->tp > 1 && !(f->zero_tp & BIT(s->zero));
	if (!(f->zero & BIT(s->zero)))
		n = add(o, n, "%s cannot run ZeRO-%d", f->key, s->zero);
	else if (zpp || ztp)
		n = add(o, n, "%s cannot run ZeRO-%d with %s parallelism", f->key, s->zero, zpp ? "pipeline" : "tensor");
	if (s->tp > 1 && !s->sp && !f->sp_off)
		n = add(o, n, "%s cannot run tensor parallelism without sequence parallelism", f->key);
	if (s->tp > 1 && s->sp && !f->sp_on)
		n = add(o, n, "%s cannot run sequence parallelism inside tensor parallelism", f->key);
	if (s->tp > 1 && s->tp_overlap && (!f->tp_overlap || !s->sp))
		n = add(o, n, "%s cannot overlap TP communication%s", f->key,
				f->tp_overlap ? " without sequence parallelism" : "");
	if (s->tp > 1 && !s->vocab_parallel)
		n = add(o, n, "%s cannot keep the embedding and output layer whole under TP (vocab_parallel false)",
				f->key);
	if (s->cp > 1 && !(f->cp_kinds & BIT(s->cp_kind)))
		n = add(o, n, "%s cannot run %s context parallelism", f->key, strat_cp_kind_name(s->cp_kind));
	if (s->etp > 1 && !f->etp && model_max_experts(m) > 0)
		n = add(o, n, "%s cannot run expert tensor parallelism (etp %d)", f->key, s->etp);
	return n;
}

/* Recompute, precision, attention kernel and the model's shape. */
static int check_kernels(const fw_caps *f, const strategy_t *s, const fw_layout *lay, fw_issues *o, int n)
{
	if (!(f->precision & BIT(s->precision)))
		n = add(o, n, "%s cannot train in %s", f->key, strat_precision_name(s->precision));
	if (lay->rc_mode >= 0 && !(f->recompute & BIT(lay->rc_mode)))
		n = add(o, n, "%s cannot run %s recomputation", f->key, strat_recompute_name(lay->rc_mode));
	if (lay->rc_mode < 0 && !(f->rc_block && lay->rc_block > 0 && s->schedule != SCHED_ZBV))
		n = add(o, n, "%s cannot recompute layer by layer as the plan does%s", f->key,
				f->rc_block ? " (only the first N layers of every stage, fully)" : "");
	if (s->rc_modules && s->rc_modules != RCM_CORE_ATTN && !f->rc_modules &&
			(lay->rc_mode == RC_SELECTIVE || (lay->rc_mode < 0 && s->recompute == RC_SELECTIVE)))
		n = add(o, n, "%s cannot choose the modules selective recomputation covers (recompute_modules "
				"is Megatron-Core's)", f->key);
	if (s->loss_fusion && !(f->fused_logit_bytes > 0))
		n = add(o, n, "%s has no fused cross-entropy kernel to switch on (loss_fusion)%s", f->key, f->fused_loss_why);
	if (s->fp8_cache >= FP8C_COUNT || !(f->fp8_cache & BIT(s->fp8_cache)))
		n = add(o, n, "%s cannot cache activations as fp8_cache %s does (the E5M6 attention-output cache and "
				"fp8 SwiGLU inputs of DeepSeek-V3 are its own trainer's; --fp8-recipe blockwise keeps TE's "
				"saved inputs)", f->key, strat_fp8_cache_name(s->fp8_cache));
	if (!s->flash && !f->unfused_attention)
		n = add(o, n, "%s cannot choose unfused attention (the model picks its kernel)", f->key);
	if (s->pp > 1 && !lay->even && !f->uneven)
		n = add(o, n, "%s cannot give stages their own layer counts (it partitions by method)", f->key);
	if (s->pp > 1 && lay->empty && !f->empty_stage)
		n = add(o, n, "%s cannot run a pipeline stage without layers", f->key);
	return n;
}

/* The optimizer tensors' dtypes (Megatron's precision-aware optimizer). */
static int check_optimizer(const fw_caps *f, const strategy_t *s, fw_issues *o, int n)
{
	for (int k = 0; k < OPT_KEYS; k++)
		if (s->opt_dt[k] >= ODT_COUNT || !(f->opt_dtypes[k] >> s->opt_dt[k] & 1))
			n = add(o, n, "%s cannot run %s %s%s", f->key, strat_opt_key(k),
					strat_opt_dtype_name(s->opt_dt[k]), f->opt_why);
	if (f->opt_zero && strat_opt_lowp(s) && !(f->opt_zero & BIT(s->zero)))
		n = add(o, n, "%s cannot run the precision-aware optimizer with ZeRO-%d (only with its distributed "
				"optimizer, ZeRO-1)", f->key, s->zero);
	return n;
}

/* CPU offload of the optimizer and of activations. */
static int check_offload(const fw_caps *f, const strategy_t *s, fw_issues *o, int n)
{
	if (s->opt_offload > 0 && !(f->offload_zero & BIT(s->zero)))
		n = add(o, n, "%s cannot offload the optimizer under ZeRO-%d%s", f->key, s->zero, f->offload_why);
	else if (s->opt_offload > 0 && s->opt_offload < 1 && !(f->offload_partial & BIT(s->zero)))
		n = add(o, n, "%s cannot offload a fraction (%g) of the optimizer under ZeRO-%d (all of it or none)",
				f->key, s->opt_offload, s->zero);
	if (s->opt_offload > 0 && f->offload_fp32 && strat_opt_lowp(s))
		n = add(o, n, "%s cannot offload an optimizer with other than fp32 states (its host optimizer keeps "
				"fp32 moments and masters)", f->key);
	if (s->act_offload > 0 && !f->act_offload)
		n = add(o, n, "%s cannot offload activations to the host (activation_offload)", f->key);
	return n;
}

/* The rules of one framework that the tables do not say. */
static int check_special(int fw, const strategy_t *s, const model_t *m, fw_issues *o, int n)
{
	int moe = model_max_experts(m) > 0;
	if (fw == FW_MEGATRON) {
		if (s->cp > 1 && s->seq % (2 * s->cp))
			n = add(o, n, "megatron cannot run seq_length %d with cp %d (it must divide by 2 x cp)", s->seq,
					s->cp);
		if (moe && s->ep > 1 && s->precision == PREC_FP16)
			n = add(o, n, "megatron cannot run fp16 with expert parallelism");
		/* core/transformer/transformer_config.py: CPU offloading of activations refuses
		 * pipeline parallelism and activation recomputation */
		if (s->act_offload > 0 && (s->pp > 1 || s->recompute != RC_NONE || s->nranges > 0))
			n = add(o, n, "megatron cannot offload activations (--cpu-offloading-num-layers) with %s",
					s->pp > 1 ? "pipeline parallelism" : "activation recomputation");
	} else if (fw == FW_TORCHTITAN) {
		int only_dp = s->tp == 1 && s->pp == 1 && s->cp == 1 && s->ep == 1;
		if (s->dp > 1 && s->zero == 0 && !only_dp)
			n = add(o, n, "torchtitan cannot run ZeRO-0 with tp, pp, cp or ep (its DDP is one-dimensional)");
		long long span = (long long)s->dp * s->cp;
		if (s->opt_offload > 0 && s->zero >= 2 && span == 1)
			n = add(o, n, "torchtitan cannot offload the optimizer without FSDP sharding (dp x cp = 1)");
		if (moe && s->ep > 1 && !((s->etp == s->tp || s->tp == 1) && s->ep >= s->cp && s->ep <= span &&
				span % s->ep == 0))
			n = add(o, n, "torchtitan cannot run ep %d with etp %d (experts take data and context ranks: "
					"cp %d <= ep <= dp x cp = %lld, expert TP equal to TP)", s->ep, s->etp, s->cp, span);
	}
	return n;
}

/* Layers per stage in model order. Megatron and torchtitan both number interleaved chunks
 * chunk-major (chunk v of stage r is model stage v*pp + r), as strata does; zb-v gives
 * each rank two chunks in a V, the down chunk (model stage r, the larger half) and the up
 * chunk (model stage 2*pp-1-r). */
static void layout_stages(const strategy_t *s, const model_t *m, fw_layout *o)
{
	int lo, n;
	if (s->schedule == SCHED_ZBV && s->vpp == 1) {
		o->nstages = 2 * s->pp;
		for (int r = 0; r < s->pp; r++) {
			strat_chunk_span(s, m->layers, 0, r, &lo, &n);
			o->stage_layers[r] = n - n / 2;
			o->stage_layers[2 * s->pp - 1 - r] = n / 2;
		}
	} else {
		o->nstages = s->pp * s->vpp;
		for (int c = 0; c < o->nstages; c++) {
			strat_chunk_span(s, m->layers, c / s->pp, c % s->pp, &lo, &n);
			o->stage_layers[c] = n;
		}
	}
	o->even = 1; /* the default split is the frameworks' own (e.g. DeepSpeed's "uniform") */
	o->empty = o->stage_layers[0] == 0;
	for (int c = 1; c < o->nstages; c++) {
		o->even &= !strat_explicit_split(s) || o->stage_layers[c] == o->stage_layers[0];
		o->empty |= o->stage_layers[c] == 0;
	}
}

/* One recompute mode for all layers, or Megatron's "block" pattern: full recompute of
 * the first k layers of every stage (all of a stage shorter than k), none elsewhere. */
static void layout_recompute(const strategy_t *s, const model_t *m, fw_layout *o)
{
	o->rc_mode = strat_layer_recompute(s, 0);
	for (int l = 1; l < m->layers && o->rc_mode >= 0; l++)
		if (strat_layer_recompute(s, l) != o->rc_mode)
			o->rc_mode = -1;
	o->rc_block = 0;
	if (o->rc_mode >= 0)
		return;
	int k = -1, longest_full = 0, lo = 0;
	for (int c = 0; c < o->nstages; c++) {
		int n = o->stage_layers[c], full = 0;
		while (full < n && strat_layer_recompute(s, lo + full) == RC_FULL)
			full++;
		for (int l = full; l < n; l++)
			if (strat_layer_recompute(s, lo + l) != RC_NONE)
				return;
		if (full < n) {
			if (k >= 0 && k != full)
				return;
			k = full;
		} else if (n > longest_full) {
			longest_full = n; /* a wholly recomputed stage needs k >= its size */
		}
		lo += n;
	}
	if (k > 0 && longest_full <= k)
		o->rc_block = k;
}

void fw_layout_of(const strategy_t *s, const model_t *m, fw_layout *out)
{
	layout_stages(s, m, out);
	if (s->nranges == 0) { /* no per-layer override: the plan's mode everywhere */
		out->rc_mode = s->recompute;
		out->rc_block = 0;
		return;
	}
	layout_recompute(s, m, out);
}

int fw_mixed_layers(const model_t *m)
{
	/* the first kind of each family (dense, MoE) used by a main layer; another used kind
	 * of the same family that differs from it is a second shape */
	int first[2] = {-1, -1};
	for (int k = 0; k < m->nkinds; k++) {
		const layer_kind *t = &m->kind[k];
		if (t->mtp || !model_kind_used(m, k))
			continue;
		int fam = t->experts > 0;
		if (first[fam] < 0)
			first[fam] = k;
		else if (!model_kind_equal(&m->kind[first[fam]], t))
			return FW_MIXED_SHAPES | (model_uniform(m) ? 0 : FW_MIXED_WIDTHS);
	}
	return model_uniform(m) ? 0 : FW_MIXED_WIDTHS;
}

/* The plan's layout, computed only when the plan has explicit stage counts or per-layer
 * recompute (the search's candidates have neither: this stays cheap on its path). */
static void layout_light(const strategy_t *s, const model_t *m, fw_layout *lay, int whole)
{
	if (whole && (strat_explicit_split(s) || s->nranges > 0)) {
		fw_layout_of(s, m, lay);
		return;
	}
	lay->nstages = 0;
	lay->even = 1;
	lay->empty = m->layers < s->pp * s->vpp;
	lay->rc_mode = s->recompute;
	lay->rc_block = 0;
}

/* The plan's rules; whole = 0 leaves its layout out (even split, the plan's one mode). */
static int plan_rules(int fw, const strategy_t *s, const model_t *m, fw_issues *out, int whole)
{
	if (out)
		out->n = 0;
	if (fw <= FW_AUTO || fw >= FW_COUNT)
		return 0;
	const fw_caps *f = &fw_table[fw];
	fw_layout lay;
	layout_light(s, m, &lay, whole);
	int n = check_parallel(f, s, m, out, 0);
	n = check_kernels(f, s, &lay, out, n);
	n = check_optimizer(f, s, out, n);
	n = check_offload(f, s, out, n);
	return check_special(fw, s, m, out, n);
}

int fw_check_plan(int fw, const strategy_t *s, const model_t *m, fw_issues *out)
{
	return plan_rules(fw, s, m, out, 1);
}

int fw_check_model(int fw, const model_t *m, fw_issues *out, int n)
{
	if (fw <= FW_AUTO || fw >= FW_COUNT)
		return n;
	const fw_caps *f = &fw_table[fw];
	if (m->mtp_layers > 0 && !f->mtp)
		n = add(out, n, "%s cannot train the %d MTP module(s)", f->key, m->mtp_layers);
	if (!f->mixed_layers && fw_mixed_layers(m))
		n = add(out, n, "%s cannot describe layers of several shapes or widths with its flags", f->key);
	return n;
}

int fw_check(int fw, const strategy_t *s, const model_t *m, fw_issues *out)
{
	return fw_check_model(fw, m, out, fw_check_plan(fw, s, m, out));
}

int fw_validate(const strategy_t *s, const model_t *m, char *why, size_t n)
{
	if (s->framework == FW_AUTO)
		return 0;
	fw_issues is;
	if (!fw_check_plan(s->framework, s, m, &is))
		return 0;
	return why_set(why, n, "%s", is.text[0]);
}

int fw_search_check(const strategy_t *s, const model_t *m, fw_issues *out)
{
	/* on the search's path: no copy of the strategy, no layout */
	return s->framework != FW_AUTO ? 0 : plan_rules(strat_framework(s), s, m, out, 0);
}

void fw_runners(const strategy_t *s, const model_t *m, char *buf, size_t n)
{
	size_t used = 0;
	buf[0] = 0;
	for (int fw = FW_AUTO + 1; fw < FW_COUNT && used < n; fw++)
		if (!fw_check(fw, s, m, NULL))
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", fw_table[fw].key);
	if (!used)
		snprintf(buf, n, "none");
}

const char *fw_auto_reason(const strategy_t *s)
{
	return s->zero == 3 ? "ZeRO-3 is FSDP's, torchtitan's data parallelism"
		: "ZeRO-0 to 2 with Megatron-LM's kernels, the default";
}
