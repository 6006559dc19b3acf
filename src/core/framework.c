/* framework.c - the check of a plan against a framework's table (framework_table.c has the
 * table and the sources of each entry): what the framework cannot run, as sentences. */
#include "core/framework.h"
#include "core/why.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BIT(x) (1u << (x))

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
	int cpm = strat_cp_mode(s);
	if (s->cp > 1 && !(f->cp_kinds & BIT(cpm)))
		n = add(o, n, "%s cannot run %s context parallelism%s", f->key, strat_cp_kind_name(cpm),
				cpm == CP_USP ? " (Ulysses groups inside a ring)" : "");
	if (strat_ulysses_kv_short(s, m) && !f->ulysses_kv_repeat)
		n = add(o, n, "%s cannot run Ulysses degree %d over %d key/value heads per TP rank (they must divide by it)",
				f->key, strat_cp_ulysses(s), strat_ulysses_kv_short(s, m));
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
	if (s->moe_disp == MOED_DEEPEP && !f->deepep)
		n = add(o, n, "%s cannot dispatch MoE tokens with DeepEP (moe_dispatcher deepep: Megatron-Core's flex "
				"dispatcher or torchtitan's deepep backend; %s sends one all-to-all copy per token and expert)",
				f->key, f->key);
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

/* The plan's rules; whole 0 leaves its layout out (even split, one mode), -1 also replicas. */
static int plan_rules(int fw, const strategy_t *s, const model_t *m, fw_issues *out, int whole)
{
	if (out)
		out->n = 0;
	if (fw <= FW_AUTO || fw >= FW_COUNT)
		return 0;
	const fw_caps *f = &fw_table[fw];
	fw_layout lay;
	layout_light(s, m, &lay, whole > 0);
	int n = check_parallel(f, s, m, out, 0);
	if (whole >= 0 && s->moe_redundant > 0 && !f->redundant_experts)
		n = add(out, n, "%s cannot host redundant experts (moe_redundant_experts %d): %s", f->key,
				s->moe_redundant, FW_NO_REDUNDANT);
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
	static const char *const enc[FW_COUNT] = {"", "megatron: pretrain_gpt.py has no vision encoder, and "
		"examples/multimodal/train.py names its encoder (--vision-model-type clip, siglip, internvit, radio), "
		"not its shape", "torchtitan builds models from its own registry, not from shapes: no vision encoder",
		"deepspeed (Megatron-DeepSpeed's pretrain_gpt.py) has no vision encoder"};
	if (model_has_encoder(m))
		n = add(out, n, "%s", enc[fw]);
	else if (!f->mixed_layers && fw_mixed_layers(m))
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
	/* the search's path: no layout; replicas are the job's opt-in (search_space.c) */
	return s->framework != FW_AUTO ? 0 : plan_rules(strat_framework(s), s, m, out, -1);
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
