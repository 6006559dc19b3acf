/* export_torchtitan.c - a plan as a torchtitan TOML job config.
 *
 * Sections and keys are those of the JobConfig dataclasses in pytorch/torchtitan
 * torchtitan/config/job_config.py (checked at commit 000204a4, the TOML-file era):
 * [training] local_batch_size, global_batch_size, seq_len, mixed_precision_param,
 * mixed_precision_reduce, compile; [parallelism] data_parallel_replicate_degree,
 * data_parallel_shard_degree, fsdp_reshard_after_forward, tensor_parallel_degree,
 * enable_async_tensor_parallel, pipeline_parallel_degree, pipeline_parallel_schedule,
 * pipeline_parallel_microbatch_size, pipeline_parallel_split_points,
 * context_parallel_degree, expert_parallel_degree, expert_parallel_comm_backend (DeepEP,
 * torchtitan/distributed/deepep, later than that commit); [activation_checkpoint] mode,
 * selective_ac_option; [model] converters; [float8]. Schedule names are those of
 * torch.distributed.pipelining (1F1B, Interleaved1F1B, GPipe, ZBVZeroBubble). Newer
 * torchtitan configures runs in Python, with the same field names in ParallelismConfig
 * and TrainingConfig. */
#include "io/export_int.h"

#include <stdlib.h>

/* Data parallelism as FSDP2 (sharded) or DDP (replicated), with notes where ZeRO has
 * no exact counterpart. Sets *shard, *replicate and the reshard policy (NULL: unset). */
static void data_parallel(export_notes *ns, const export_facts *x, int *shard, int *replicate,
		const char **reshard)
{
	const strategy_t *s = x->s;
	int only_dp = s->tp == 1 && s->pp == 1 && s->cp == 1 && s->ep == 1;
	*shard = s->dp;
	*replicate = 1;
	*reshard = NULL;
	if (s->dp == 1)
		return;
	if (s->zero == 0 && only_dp) {
		*shard = 1;
		*replicate = s->dp; /* plain DDP */
		return;
	}
	if (s->zero <= 1)
		export_note(ns, "not expressible: ZeRO-%d%s; torchtitan shards with FSDP2 (parameters and gradients "
				"too), written as FSDP2 that keeps parameters gathered (reshard never)", s->zero,
				s->zero == 0 ? " with tp, pp, cp or ep (its DDP is one-dimensional)" : "");
	else if (s->zero == 2)
		export_note(ns, "ZeRO-2 written as FSDP2 with parameters kept gathered from forward to backward "
				"(reshard never)");
	*reshard = s->zero == 3 ? "always" : "never";
}

static const char *schedule_name(export_notes *ns, const strategy_t *s)
{
	switch (s->schedule) {
	case SCHED_GPIPE: return "GPipe";
	case SCHED_1F1B: return "1F1B";
	case SCHED_INTERLEAVED: return "Interleaved1F1B";
	case SCHED_ZBV: return "ZBVZeroBubble";
	case SCHED_DUALPIPE:
		export_note(ns, "not expressible: schedule dualpipe (PyTorch has DualPipeV, a V-shaped variant with "
				"other memory use); written as 1F1B");
		return "1F1B";
	default:
		export_note(ns, "not expressible: schedule %s; PyTorch's zero-bubble schedules need several stages per "
				"rank (InterleavedZeroBubble, ZBVZeroBubble); written as 1F1B", strat_schedule_name(s->schedule));
		return "1F1B";
	}
}

/* Expert parallelism as torchtitan's "dp2ep": experts spread over data-parallel and
 * context ranks, expert TP equal to TP, cp <= ep <= dp_shard * cp. 0 when impossible. */
static int expert_degree(export_notes *ns, const export_facts *x, int shard)
{
	const strategy_t *s = x->s;
	if (!x->moe || s->ep == 1)
		return x->moe ? 1 : 0;
	long long span = (long long)shard * s->cp;
	if ((s->etp == s->tp || s->tp == 1) && s->ep >= s->cp && s->ep <= span && span % s->ep == 0)
		return s->ep;
	export_note(ns, "not expressible: ep %d with etp %d; torchtitan takes expert ranks from data and context "
			"ranks (cp %d <= ep <= dp_shard x cp = %lld) with expert TP equal to TP; written without expert "
			"parallelism", s->ep, s->etp, s->cp, span);
	return 1;
}

int export_torchtitan(FILE *f, const export_facts *x)
{
	const strategy_t *s = x->s;
	export_notes *ns = calloc(1, sizeof *ns);
	if (!ns)
		return -1;
	export_header(ns, x, "torchtitan", "pytorch/torchtitan torchtitan/config/job_config.py");
	export_note(ns, "[model] name and flavor: pick torchtitan's model for this shape (not written)");

	int shard, replicate, ep;
	const char *reshard;
	data_parallel(ns, x, &shard, &replicate, &reshard);
	ep = expert_degree(ns, x, shard);
	const char *sched = s->pp > 1 ? schedule_name(ns, s) : NULL;
	int async_tp = s->tp > 1 && s->tp_overlap;
	if (async_tp)
		export_note(ns, "async tensor parallelism only works under torch.compile (compile = true written)");
	if (s->tp > 1 && !s->sp)
		export_note(ns, "not expressible: sp false; torchtitan's tensor parallelism always shards the sequence");
	if (s->tp > 1 && !s->vocab_parallel)
		export_note(ns, "not expressible: vocab_parallel false; torchtitan always splits the embedding and "
				"output layer over TP");
	if (s->cp > 1 && strat_cp_mode(s) != CP_RING)
		export_note(ns, "not expressible: %s context parallelism; torchtitan's is ring attention",
				strat_cp_mode(s) == CP_USP ? "USP (Ulysses x ring)" : "Ulysses");
	if (x->m->mtp_layers > 0)
		export_note(ns, "not expressible: %d MTP module(s); not part of torchtitan's training models",
				x->m->mtp_layers);
	if (s->precision == PREC_FP16)
		export_note(ns, "not expressible: fp16; mixed_precision_param takes bfloat16 or float32, bfloat16 "
				"written");
	if (!s->flash)
		export_note(ns, "not expressible: flash_attention false; the model picks its attention kernel");
	export_run_torchtitan(ns, x);
	export_opt_fp32_only(ns, s, "torch.optim's AdamW keeps its state in the dtype of FSDP2's fp32 shards");
	/* training.enable_cpu_offload: FSDP2's CPUOffloadPolicy, parameters, gradients and
	 * optimizer states all on the host (torchtitan/config/configs.py) */
	int offload = s->opt_offload > 0 && s->zero >= 2 && (long long)s->dp * s->cp > 1;
	if (s->opt_offload > 0 && !offload)
		export_note(ns, "not expressible: optimizer offload without FSDP sharding (ZeRO-%d, dp x cp = %lld); "
				"enable_cpu_offload is FSDP2's CPUOffloadPolicy", s->zero, (long long)s->dp * s->cp);
	else if (offload && s->opt_offload < 1)
		export_note(ns, "not expressible: optimizer_offload %g; enable_cpu_offload moves all of the sharded "
				"states, all of it written", s->opt_offload);
	if (s->act_offload > 0)
		export_note(ns, "not expressible: activation_offload %d; torchtitan has no activation offload",
				s->act_offload);
	export_kernel_notes(ns, s, FW_TORCHTITAN);
	int split_ok = 1;
	for (int c = 0; c < x->nstages; c++)
		split_ok &= x->stage_layers[c] > 0;
	if (s->pp > 1 && !split_ok)
		export_note(ns, "not expressible: a pipeline stage without layers (split points must differ); split "
				"left to torchtitan");
	int mode = x->rc_mode;
	if (mode < 0) {
		char r[EXPORT_LINE / 2];
		export_ranges_text(x, r, sizeof r);
		export_note(ns, "not expressible: per-layer recompute (%s); written: the plan's default, %s", r,
				strat_recompute_name(s->recompute));
		mode = s->recompute;
	}
	if (mode == RC_SELECTIVE && strat_framework(s) != FW_TORCHTITAN)
		export_note(ns, "selective: torchtitan's per-op policy keeps every other matmul output and "
				"recomputes the rest, less memory and more recompute than the plan's Megatron selective; "
				"evaluate with framework: torchtitan for its cost");

	export_notes_print(f, ns, "# ");
	if (s->precision == PREC_FP8)
		fprintf(f, "\n[model]\nconverters = [\"float8\"]\n");
	else if (s->precision == PREC_MXFP8) /* torchao's MX linear, mxfp8 recipe */
		fprintf(f, "\n[model]\nconverters = [\"mx\"]\n");
	/* with pp, one step feeds all micro-batches through the pipeline; without, the
	 * trainer accumulates gradients up to global_batch_size */
	fprintf(f, "\n[training]\nlocal_batch_size = %d\nglobal_batch_size = %d\nseq_len = %d\n",
			s->pp > 1 ? s->micro_batch * x->mb : s->micro_batch, s->global_batch, s->seq);
	fprintf(f, "mixed_precision_param = \"bfloat16\"\nmixed_precision_reduce = \"float32\"\n");
	if (async_tp)
		fprintf(f, "compile = true\n");
	if (offload)
		fprintf(f, "enable_cpu_offload = true\n");

	fprintf(f, "\n[parallelism]\ndata_parallel_replicate_degree = %d\ndata_parallel_shard_degree = %d\n",
			replicate, shard);
	if (reshard)
		fprintf(f, "fsdp_reshard_after_forward = \"%s\"\n", reshard);
	fprintf(f, "tensor_parallel_degree = %d\n", s->tp);
	if (async_tp)
		fprintf(f, "enable_async_tensor_parallel = true\n");
	fprintf(f, "pipeline_parallel_degree = %d\n", s->pp);
	if (sched) {
		fprintf(f, "pipeline_parallel_schedule = \"%s\"\n", sched);
		fprintf(f, "pipeline_parallel_microbatch_size = %d\n", s->micro_batch);
		if (split_ok) {
			fprintf(f, "pipeline_parallel_split_points = [");
			for (int c = 1, lo = 0; c < x->nstages; c++) {
				lo += x->stage_layers[c - 1];
				fprintf(f, "%s\"layers.%d\"", c > 1 ? ", " : "", lo);
			}
			fprintf(f, "]\n");
		}
	}
	fprintf(f, "context_parallel_degree = %d\n", s->cp);
	if (ep)
		fprintf(f, "expert_parallel_degree = %d\n", ep);
	/* torchtitan/distributed/deepep: the DeepEP backend of its expert parallelism */
	if (ep && s->moe_disp == MOED_DEEPEP)
		fprintf(f, "expert_parallel_comm_backend = \"deepep\"\n");

	fprintf(f, "\n[activation_checkpoint]\nmode = \"%s\"\n", strat_recompute_name(mode));
	if (mode == RC_SELECTIVE)
		fprintf(f, "selective_ac_option = \"op\"\n");
	if (s->precision == PREC_FP8 && shard > 1)
		fprintf(f, "\n[float8]\nenable_fsdp_float8_all_gather = true\nprecompute_float8_dynamic_scale_for_fsdp = true\n");
	free(ns);
	return ferror(f) ? -1 : 0;
}
