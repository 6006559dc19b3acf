/* export_deepspeed.c - a plan as a DeepSpeed JSON config.
 *
 * Keys are those of the DeepSpeed configuration JSON documentation (docs/config-json)
 * and of the code that reads them: train_batch_size, train_micro_batch_size_per_gpu,
 * gradient_accumulation_steps, bf16/fp16.enabled, zero_optimization.{stage, overlap_comm,
 * contiguous_gradients, reduce_scatter, and for stage 3 the bucket and live-parameter
 * sizes strata prices (core/framework.h FW_DS_*: DeepSpeed's defaults, written out so a
 * launcher's "auto" cannot change the gather granularity)} (deepspeed/runtime/zero/config.py),
 * activation_checkpointing.* (deepspeed/runtime/activation_checkpointing/config.py),
 * tensor_parallel.autotp_size (AutoTP training, ZeRO stages 0-2 only) and
 * sequence_parallel_size (Ulysses sequence parallelism). The pipeline, expert layers and
 * attention kernels are built by the model code, so those parts of a plan become lines
 * of the "_comment" array, which DeepSpeed does not read. */
#include "io/export_int.h"
#include "core/framework.h"
#include "io/json.h"

#include <stdlib.h>

/* Notes for what the JSON cannot carry; sets *autotp and *ulysses to the keys it can. */
static void limits(export_notes *ns, const export_facts *x, int *autotp, int *ulysses)
{
	const strategy_t *s = x->s;
	*autotp = s->tp > 1 && s->zero <= 2;
	*ulysses = s->cp > 1 && strat_cp_mode(s) == CP_ULYSSES;
	if (s->tp > 1 && !*autotp)
		export_note(ns, "not expressible: tp %d with ZeRO-3; DeepSpeed's AutoTP training takes ZeRO stages 0-2 "
				"only (tensor_parallel left out)", s->tp);
	if (*autotp && s->sp)
		export_note(ns, "not expressible: sequence parallelism inside TP; AutoTP shards the linear layers only");
	if (s->tp > 1 && s->tp_overlap)
		export_note(ns, "not expressible: tp_comm_overlap");
	if (s->tp > 1 && !s->vocab_parallel)
		export_note(ns, "not expressible: vocab_parallel false; AutoTP decides itself which layers it splits");
	if (s->pp > 1) {
		export_note(ns, "in the model code: pp %d; build the model as deepspeed.pipe.PipelineModule"
				"(..., num_stages=%d)", s->pp, s->pp);
		if (s->zero >= 2)
			export_note(ns, "not expressible: ZeRO-%d with pp %d; DeepSpeed's pipeline engine refuses ZeRO-2 "
					"and ZeRO-3", s->zero, s->pp);
		if (s->vpp > 1)
			export_note(ns, "not expressible: %d virtual stages per rank (interleaving)", s->vpp);
		if (s->schedule != SCHED_1F1B && s->schedule != SCHED_INTERLEAVED)
			export_note(ns, "not expressible: schedule %s; DeepSpeed's pipeline engine has one 1F1B-style "
					"schedule", strat_schedule_name(s->schedule));
		if (!x->even)
			export_note(ns, "not expressible: uneven stage layers; PipelineModule partitions by a method "
					"(uniform, parameters, type:...), not by counts");
	}
	if (s->cp > 1 && !*ulysses)
		export_note(ns, "not expressible: %s context parallelism cp %d; DeepSpeed offers Ulysses "
				"(all-to-all) sequence parallelism only", strat_cp_mode(s) == CP_USP ? "USP (Ulysses x ring)" : "ring",
				s->cp);
	if (*ulysses)
		export_note(ns, "sequence_parallel_size needs DeepSpeed's Ulysses layer (ALST) in the model code");
	if (*ulysses && strat_ulysses_kv_short(s, x->m))
		export_note(ns, "not expressible: Ulysses degree %d over %d key/value heads per TP rank; DeepSpeed's "
				"all-to-all scatters them as they are", s->cp, strat_ulysses_kv_short(s, x->m));
	if (x->moe) {
		export_note(ns, "in the model code: ep %d, the ep_size of deepspeed.moe.layer.MoE", s->ep);
		if (s->etp > 1)
			export_note(ns, "not expressible: etp %d (tensor parallelism inside experts)", s->etp);
	}
	if (s->precision == PREC_FP8)
		export_note(ns, "not expressible: fp8; the JSON has no fp8 switch (Transformer Engine in the model "
				"code), bf16 written");
	if (x->rc_mode == RC_SELECTIVE)
		export_note(ns, "not expressible: selective recompute; DeepSpeed checkpoints whole modules");
	if (x->rc_mode < 0) {
		char r[EXPORT_LINE / 2];
		export_ranges_text(x, r, sizeof r);
		export_note(ns, "not expressible: per-layer recompute (%s); the model code chooses which layers it "
				"checkpoints", r);
	}
	if (x->rc_mode == RC_FULL)
		export_note(ns, "the model code switches checkpointing on (deepspeed.checkpointing.checkpoint or "
				"gradient_checkpointing_enable()); activation_checkpointing configures it");
	export_opt_fp32_only(ns, s, "strata writes DeepSpeed's optimizer with fp32 states (bf16_optimizer_states "
			"is not modelled)");
	if (s->opt_offload > 0 && s->zero == 0)
		export_note(ns, "not expressible: optimizer offload with ZeRO-0; offload_optimizer runs with ZeRO 1 to 3");
	else if (s->opt_offload > 0 && s->opt_offload < 1 && s->zero < 3)
		export_note(ns, "not expressible: optimizer_offload %g with ZeRO-%d; offload_optimizer.ratio is ZeRO-3's, "
				"all of it written", s->opt_offload, s->zero);
	if (s->act_offload > 0)
		export_note(ns, "not expressible: activation_offload %d; cpu_checkpointing moves the checkpoints of full "
				"recomputation only", s->act_offload);
	export_kernel_notes(ns, s, FW_DEEPSPEED);
	export_note(ns, "model shape and attention kernel (flash_attention %s) come from the model code",
			s->flash ? "true" : "false");
}

int export_deepspeed(FILE *f, const export_facts *x)
{
	const strategy_t *s = x->s;
	export_notes *ns = calloc(1, sizeof *ns);
	if (!ns)
		return -1;
	int autotp, ulysses;
	export_header(ns, x, "deepspeed", "the DeepSpeed config-json documentation and deepspeed/runtime");
	limits(ns, x, &autotp, &ulysses);
	export_run_deepspeed(ns, x);

	json_w w;
	json_init(&w, f, 1);
	json_obj_begin(&w, NULL);
	json_arr_begin(&w, "_comment");
	for (int i = 0; i < ns->n; i++)
		json_str(&w, NULL, ns->text[i]);
	json_arr_end(&w);
	/* train_batch_size = micro-batch x accumulation x data-parallel ranks */
	json_int(&w, "train_batch_size", s->global_batch);
	json_int(&w, "train_micro_batch_size_per_gpu", s->micro_batch);
	json_int(&w, "gradient_accumulation_steps", x->mb);
	json_obj_begin(&w, s->precision == PREC_FP16 ? "fp16" : "bf16");
	json_bool(&w, "enabled", 1);
	if (s->precision == PREC_FP16)
		json_int(&w, "loss_scale", 0); /* 0 = dynamic loss scaling */
	json_obj_end(&w);
	json_obj_begin(&w, "zero_optimization");
	json_int(&w, "stage", s->zero);
	if (s->zero > 0) {
		json_bool(&w, "overlap_comm", 1);
		json_bool(&w, "contiguous_gradients", 1);
		json_bool(&w, "reduce_scatter", 1);
	}
	if (s->zero == 3) {
		json_int(&w, "reduce_bucket_size", (long long)FW_DS_REDUCE_BUCKET);
		json_int(&w, "stage3_prefetch_bucket_size", (long long)FW_DS_PREFETCH);
		json_int(&w, "stage3_max_live_parameters", (long long)FW_DS_LIVE);
		json_int(&w, "stage3_param_persistence_threshold", (long long)FW_DS_PERSIST);
	}
	if (s->opt_offload > 0 && s->zero > 0) {
		/* ZeRO-Offload (deepspeed/runtime/zero/offload_config.py); ratio: ZeRO-3 only */
		json_obj_begin(&w, "offload_optimizer");
		json_str(&w, "device", "cpu");
		json_bool(&w, "pin_memory", 1);
		if (s->zero == 3 && s->opt_offload < 1)
			json_num(&w, "ratio", s->opt_offload);
		json_obj_end(&w);
	}
	json_obj_end(&w);
	if (autotp) {
		json_obj_begin(&w, "tensor_parallel");
		json_int(&w, "autotp_size", s->tp);
		json_obj_end(&w);
	}
	if (ulysses)
		json_int(&w, "sequence_parallel_size", s->cp);
	if (x->rc_mode == RC_FULL) {
		json_obj_begin(&w, "activation_checkpointing");
		json_bool(&w, "partition_activations", 0);
		json_bool(&w, "cpu_checkpointing", 0);
		json_bool(&w, "contiguous_memory_optimization", 0);
		json_bool(&w, "synchronize_checkpoint_boundary", 0);
		json_obj_end(&w);
	}
	json_obj_end(&w);
	json_end(&w);
	free(ns);
	return json_failed(&w) ? -1 : 0;
}
