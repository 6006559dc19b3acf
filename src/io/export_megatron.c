/* export_megatron.c - a plan as a Megatron-LM launch script: a bash script (frame in
 * export_launch.c) whose bash arrays hold pretrain_gpt.py's flags, one group per kind of
 * choice (the table `groups` below: a new strategy key adds its flags to its group's
 * function, a new kind of key a row), started by torchrun or srun.
 *
 * Flag names and their constraints are those of NVIDIA/Megatron-LM
 * megatron/training/arguments.py (checked at commit 000c4ac2): --tensor-model-parallel-size,
 * --pipeline-model-parallel-size, --num-virtual-stages-per-pipeline-rank (the form that
 * also works with uneven stages; --num-layers-per-virtual-pipeline-stage does not),
 * --decoder-first/last-pipeline-num-layers, --pipeline-model-parallel-layout (grammar of
 * megatron/core/transformer/pipeline_parallel_layer_layout.py: stages split by '|',
 * E embedding, t layer, m MTP, L loss, x*n repeats), --context-parallel-size,
 * --cp-comm-type p2p|a2a, --expert-model-parallel-size, --expert-tensor-parallel-size,
 * --sequence-parallel, --use-distributed-optimizer, --use-megatron-fsdp with
 * --data-parallel-sharding-strategy, --recompute-granularity/-method/-num-layers,
 * --fp8-format, --attention-backend, --tp-comm-overlap, --cross-entropy-loss-fusion,
 * --cross-entropy-fusion-impl, and the model-shape flags.
 * Checked again at commit d98e8a64 (2026-08): --normalization and --norm-epsilon (TransformerConfig
 * normalization, layernorm_epsilon), --position-embedding-type rope|learned_absolute,
 * --rotary-base (an int), --rotary-percent, --use-rope-scaling with --rope-scaling-factor
 * (Llama 3.x), MLA's --rope-type rope|yarn with --rotary-scaling-factor, --mscale and
 * --mscale-all-dim, --padded-vocab-size (TokenizerConfig; the embedding's rows, divisible by
 * tp), --tokenizer-type HuggingFaceTokenizer --tokenizer-model, --data-path, --save, --load;
 * CUDA_DEVICE_MAX_CONNECTIONS=1 is asserted with tp or cp > 1 before Blackwell, and must not
 * be 1 under Megatron-FSDP. */
#include "io/export_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 128
#define MAX_GROUPS 8
#define STAGE_STR 48

typedef struct {
	int n, failed;
	char *a[MAX_ARGS];
	int ngroups, group_end[MAX_GROUPS]; /* a[] index where each group ends */
	export_notes notes;
	char stage[EXPORT_MAX_STAGES][STAGE_STR];
} work;

/* Append one argument line (flag and value). */
static void add(work *w, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void add(work *w, const char *fmt, ...)
{
	if (w->n >= MAX_ARGS) {
		w->failed = 1;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!s) {
		w->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	w->a[w->n++] = s;
}

/* "c" or "c*n" (n > 0) appended to b with a comma before it when b is not empty. */
static void run(char *b, size_t len, char c, int n)
{
	size_t used = strlen(b);
	if (n <= 0 || used >= len)
		return;
	if (n == 1)
		snprintf(b + used, len - used, "%s%c", used ? "," : "", c);
	else
		snprintf(b + used, len - used, "%s%c*%d", used ? "," : "", c, n);
}

/* --pipeline-model-parallel-layout value for stage layer counts cnt[0..nst): embedding
 * on the first stage, MTP modules and loss on the last; runs of equal middle stages are
 * folded into "(...|)*n". NULL when out of memory. */
static char *layout(work *w, const int *cnt, int nst, int mtp)
{
	for (int c = 0; c < nst; c++) {
		w->stage[c][0] = 0;
		run(w->stage[c], STAGE_STR, 'E', c == 0);
		run(w->stage[c], STAGE_STR, 't', cnt[c]);
		run(w->stage[c], STAGE_STR, 'm', c == nst - 1 ? mtp : 0);
		run(w->stage[c], STAGE_STR, 'L', c == nst - 1);
	}
	size_t len = (size_t)nst * (STAGE_STR + 16) + 16, used = 0;
	char *b = malloc(len);
	if (!b)
		return NULL;
	b[0] = 0;
	int c = 0;
	while (c < nst - 1) {
		int j = c;
		while (j + 1 < nst - 1 && !strcmp(w->stage[j + 1], w->stage[c]))
			j++;
		if (j > c) /* the comma only separates the repeat from what follows */
			used += (size_t)snprintf(b + used, len - used, "(%s|)*%d,", w->stage[c], j - c + 1);
		else
			used += (size_t)snprintf(b + used, len - used, "%s|", w->stage[c]);
		c = j + 1;
	}
	snprintf(b + used, len - used, "%s", w->stage[nst - 1]);
	return b;
}

/* --moe-layer-freq pattern such as "([0]*3+[1]*58)": 1 marks an MoE layer. */
static char *moe_pattern(const export_facts *x)
{
	const model_t *m = x->m;
	size_t len = (size_t)m->layers * 16 + 8, used = 0;
	char *b = malloc(len);
	if (!b)
		return NULL;
	used += (size_t)snprintf(b, len, "(");
	for (int l = 0; l < m->layers;) {
		int moe = m->kind[model_layer_kind(m, l)].experts > 0, n = 0;
		while (l < m->layers && (m->kind[model_layer_kind(m, l)].experts > 0) == moe) {
			l++;
			n++;
		}
		used += (size_t)snprintf(b + used, len - used, "%s[%d]*%d", used > 1 ? "+" : "", moe, n);
	}
	snprintf(b + used, len - used, ")");
	return b;
}

static void model_flags(work *w, const export_facts *x)
{
	const model_t *m = x->m;
	const layer_kind *a = x->attn;
	int ffn = x->dense ? x->dense->ffn : m->kind[0].ffn;
	if (ffn <= 0 && x->moe)
		ffn = x->moe->expert_ffn;
	add(w, "--num-layers %d", m->layers);
	add(w, "--hidden-size %d", m->hidden);
	add(w, "--ffn-hidden-size %d", ffn);
	add(w, "--num-attention-heads %d", a->heads);
	if (a->attn == ATTN_MLA) {
		add(w, "--multi-latent-attention");
		if (a->q_lora > 0)
			add(w, "--q-lora-rank %d", a->q_lora);
		add(w, "--kv-lora-rank %d", a->kv_lora);
		add(w, "--qk-head-dim %d", a->qk_nope);
		add(w, "--qk-pos-emb-head-dim %d", a->qk_rope);
		add(w, "--v-head-dim %d", a->v_head);
	} else {
		if (a->kv_heads != a->heads) {
			add(w, "--group-query-attention");
			add(w, "--num-query-groups %d", a->kv_heads);
		}
		add(w, "--kv-channels %d", a->head_dim);
	}
	if (m->gated)
		add(w, "--swiglu");
	else
		export_note(&w->notes, "plain two-matrix MLP: Megatron's default GeLU (add --squared-relu for relu2)");
	/* Megatron adds biases unless told not to; Hugging Face models mostly have none */
	if (!m->biases) {
		add(w, "--disable-bias-linear");
		if (m->qkv_bias)
			add(w, "--add-qkv-bias");
	}
	if (!m->tied)
		add(w, "--untie-embeddings-and-output-weights");
	/* Megatron's dropout defaults are 0.1, the config's are usually 0 */
	add(w, "--hidden-dropout %g", m->hidden_dropout);
	add(w, "--attention-dropout %g", m->attention_dropout);
	if (x->moe) {
		const layer_kind *e = x->moe;
		add(w, "--num-experts %d", e->experts);
		add(w, "--moe-router-topk %d", e->topk);
		add(w, "--moe-ffn-hidden-size %d", e->expert_ffn);
		if (e->shared > 0)
			add(w, "--moe-shared-expert-intermediate-size %d", e->shared * e->expert_ffn);
		if (x->s->moe_cf > 0 && x->s->moe_cf != 1.0)
			/* the plan's factor as a padded capacity; for dropless routing's imbalance
			 * leave both flags out */
			add(w, "--moe-expert-capacity-factor %g --moe-pad-expert-input-to-capacity", x->s->moe_cf);
		if (x->moe_layers < m->layers) {
			char *pat = moe_pattern(x);
			if (pat)
				add(w, "--moe-layer-freq '%s'", pat);
			else
				w->failed = 1;
			free(pat);
		}
	}
	if (m->mtp_layers > 0)
		add(w, "--mtp-num-layers %d", m->mtp_layers);
	if (x->odd_kinds)
		export_note(&w->notes, "not expressible: layers of several dense or MoE shapes; the flags describe the first of each");
	if (x->odd_width)
		export_note(&w->notes, "not expressible: layers with their own hidden size or MLP type (a vision encoder); "
				"the flags give the model's hidden size and MLP type to every layer");
}

/* CPU offload: the optimizer's (--optimizer-cpu-offload, which asserts
 * --use-precision-aware-optimizer; --overlap-cpu-optimizer-d2h-h2d pipelines the copies
 * and the host steps, as priced) and the activations' (--cpu-offloading-num-layers,
 * core/model_parallel_config.py; arguments.py turns cpu_offloading on with it). */
static void offload_flags(work *w, const strategy_t *s)
{
	if (s->opt_offload > 0) {
		add(w, "--use-precision-aware-optimizer");
		add(w, "--optimizer-cpu-offload");
		add(w, "--optimizer-offload-fraction %g", s->opt_offload);
		add(w, "--overlap-cpu-optimizer-d2h-h2d");
		if (s->zero != 1)
			export_note(&w->notes, "not expressible: optimizer offload with ZeRO-%d; Megatron-LM offloads the "
					"distributed optimizer's states (ZeRO-1) only", s->zero);
		if (strat_opt_lowp(s))
			export_note(&w->notes, "not expressible: optimizer offload with non-fp32 optimizer dtypes; the hybrid "
					"device optimizer keeps fp32 states");
	}
	if (s->act_offload > 0) {
		add(w, "--cpu-offloading-num-layers %d", s->act_offload);
		if (s->pp > 1 || s->recompute != RC_NONE || s->nranges > 0)
			export_note(&w->notes, "not expressible: activation offload with %s; Megatron-LM refuses it",
					s->pp > 1 ? "pipeline parallelism" : "activation recomputation");
	}
}

/* The precision-aware optimizer (megatron/core/optimizer/optimizer_config.py): TE's FusedAdam
 * stores each tensor in its dtype; it asserts the distributed optimizer, and bf16 main grads
 * need the grad buffer in bf16 (--accumulate-allreduce-grads-in-fp32, the bf16 default,
 * requires fp32 main grads). */
static void optimizer_flags(work *w, const strategy_t *s)
{
	offload_flags(w, s);
	if (!strat_opt_lowp(s))
		return;
	if (s->opt_offload == 0)
		add(w, "--use-precision-aware-optimizer");
	for (int k = 0; k < OPT_KEYS; k++)
		if (s->opt_dt[k] != ODT_FP32) {
			char flag[32];
			snprintf(flag, sizeof flag, "%s", strat_opt_key(k));
			for (char *c = flag; *c; c++)
				*c = *c == '_' ? '-' : *c;
			add(w, "--%s %s", flag, strat_opt_dtype_name(s->opt_dt[k]));
		}
	if (s->opt_dt[OPT_MAIN_GRADS] == ODT_BF16)
		add(w, "--grad-reduce-in-bf16");
	if (s->zero != 1)
		export_note(&w->notes, "not expressible: the precision-aware optimizer with ZeRO-%d; Megatron-LM runs it "
				"with the distributed optimizer (ZeRO-1) only", s->zero);
}

/* The plan's split keys as Megatron's own flags (megatron/training/arguments.py). */
static void split_key_flags(work *w, const strategy_t *s)
{
	if (s->first_layers > 0)
		add(w, "--decoder-first-pipeline-num-layers %d", s->first_layers);
	if (s->last_layers > 0)
		add(w, "--decoder-last-pipeline-num-layers %d", s->last_layers);
	if (s->acct_embed)
		add(w, "--account-for-embedding-in-pipeline-split");
	if (s->acct_loss)
		add(w, "--account-for-loss-in-pipeline-split");
	if (s->vpp > 1)
		add(w, "--num-virtual-stages-per-pipeline-rank %d", s->vpp);
}

/* Counts per model stage (cnt, nst = pp*vpp, chunk-major) that Megatron's first/last flags
 * lay out: every rank's chunks alike, the middle ranks alike (transformer_block.py
 * get_num_layers_to_build). Writes the flags and returns 1, else 0. */
static int first_last_flags(work *w, const strategy_t *s, const int *cnt, int nst)
{
	int p = s->pp, v = nst / p, rank[STRAT_MAX_CHUNKS];
	if (p < 2)
		return 0;
	for (int r = 0; r < p; r++) {
		rank[r] = 0;
		for (int c = 0; c < v; c++) {
			if (cnt[c * p + r] != cnt[r])
				return 0;
			rank[r] += cnt[c * p + r];
		}
	}
	for (int r = 2; r < p - 1; r++)
		if (rank[r] != rank[1])
			return 0;
	int mid = p > 2 ? rank[1] : -1;
	if (rank[0] != mid)
		add(w, "--decoder-first-pipeline-num-layers %d", rank[0]);
	if (rank[p - 1] != mid)
		add(w, "--decoder-last-pipeline-num-layers %d", rank[p - 1]);
	if (v > 1)
		add(w, "--num-virtual-stages-per-pipeline-rank %d", v);
	return 1;
}

/* Pipeline split: the plan's split keys as they are; nothing when even; first/last stage
 * sizes when only those differ (also with virtual stages, every chunk of a rank alike);
 * else the explicit layout (which also carries the virtual stages). */
static void pipeline_flags(work *w, const export_facts *x)
{
	const strategy_t *s = x->s;
	if (strat_split_keys(s) && !(s->schedule == SCHED_ZBV && s->vpp == 1)) {
		split_key_flags(w, s);
		return;
	}
	int cnt[EXPORT_MAX_STAGES], nst = x->nstages;
	memcpy(cnt, x->stage_layers, sizeof cnt);
	if (s->schedule == SCHED_ZBV && s->vpp == 1) {
		/* no V schedule in Megatron-LM: each rank keeps both of its chunks' layers */
		nst = s->pp;
		for (int r = 0; r < s->pp; r++)
			cnt[r] = x->stage_layers[r] + x->stage_layers[2 * s->pp - 1 - r];
	}
	int even = 1;
	for (int c = 1; c < nst; c++)
		even &= cnt[c] == cnt[0];
	if (even) {
		if (s->vpp > 1)
			add(w, "--num-virtual-stages-per-pipeline-rank %d", s->vpp);
		return;
	}
	if (nst == s->pp * s->vpp && first_last_flags(w, s, cnt, nst))
		return;
	char *lay = layout(w, cnt, nst, x->m->mtp_layers);
	if (lay)
		add(w, "--pipeline-model-parallel-layout '%s'", lay);
	else
		w->failed = 1;
	free(lay);
}

static void recompute_flags(work *w, const export_facts *x)
{
	const strategy_t *s = x->s;
	int mode = x->rc_mode;
	if (mode < 0 && x->rc_block > 0 && s->schedule != SCHED_ZBV) {
		add(w, "--recompute-granularity full");
		add(w, "--recompute-method block");
		add(w, "--recompute-num-layers %d", x->rc_block);
		return;
	}
	if (mode < 0) {
		char r[EXPORT_LINE / 2];
		export_ranges_text(x, r, sizeof r);
		export_note(&w->notes, "not expressible: per-layer recompute (%s); Megatron-LM recomputes all layers "
				"alike or the first N of every stage; written: the plan's default, %s", r,
				strat_recompute_name(s->recompute));
		mode = s->recompute;
	}
	if (mode == RC_SELECTIVE) {
		if (strat_framework(s) != FW_MEGATRON)
			export_note(&w->notes, "selective: Megatron-LM recomputes the attention core only, keeping more "
					"than the plan's %s selective; evaluate with framework: megatron for its memory",
					strat_framework_name(strat_framework(s)));
		add(w, "--recompute-granularity selective");
		if (s->rc_modules && s->rc_modules != RCM_CORE_ATTN) {
			/* Megatron-Core's fine-grained selective recomputation (space-separated) */
			char mods[128];
			strat_rc_modules_text(s->rc_modules, mods, sizeof mods);
			for (char *c = mods; *c; c++)
				if (*c == ',')
					*c = ' ';
			add(w, "--recompute-modules %s", mods);
		}
	} else if (mode == RC_FULL) {
		add(w, "--recompute-granularity full");
		add(w, "--recompute-method uniform");
		add(w, "--recompute-num-layers 1");
	}
}

static void parallel_flags(work *w, const export_facts *x)
{
	const strategy_t *s = x->s;
	add(w, "--tensor-model-parallel-size %d", s->tp);
	add(w, "--pipeline-model-parallel-size %d", s->pp);
	if (s->pp > 1)
		pipeline_flags(w, x);
	add(w, "--context-parallel-size %d", s->cp);
	if (s->cp > 1) {
		/* USP: the a2a level first, on adjacent ranks, then the p2p ring
		 * (megatron/training/arguments.py --hierarchical-context-parallel-sizes,
		 * --cp-comm-type a2a+p2p; Transformer Engine >= 1.12) */
		int cpm = strat_cp_mode(s), u = strat_cp_ulysses(s);
		add(w, "--cp-comm-type %s", cpm == CP_ULYSSES ? "a2a" : cpm == CP_USP ? "a2a+p2p" : "p2p");
		if (cpm == CP_USP)
			add(w, "--hierarchical-context-parallel-sizes %d %d", u, s->cp / u);
		if (strat_ulysses_kv_short(s, x->m))
			export_note(&w->notes, "not expressible: Ulysses degree %d over %d key/value heads per TP rank; "
					"Transformer Engine's all-to-all needs them divisible by it", u, strat_ulysses_kv_short(s, x->m));
		if (s->seq % (2 * s->cp))
			export_note(&w->notes, "not expressible: seq_length %d with cp %d; Megatron-LM wants it divisible "
					"by 2*cp for every cp type", s->seq, s->cp);
	}
	if (x->moe) {
		add(w, "--expert-model-parallel-size %d", s->ep);
		add(w, "--expert-tensor-parallel-size %d", s->etp);
		if (s->ep > 1 && s->moe_disp == MOED_DEEPEP) /* Megatron-Core >= 0.12 */
			add(w, "--moe-token-dispatcher-type flex --moe-enable-deepep");
		else if (s->ep > 1)
			add(w, "--moe-token-dispatcher-type alltoall");
		if (s->precision != PREC_FP16)
			add(w, "--moe-grouped-gemm");
		else if (s->ep > 1)
			export_note(&w->notes, "not expressible: fp16 with expert parallelism (Megatron-LM refuses it)");
	}
	if (s->sp && s->tp > 1)
		add(w, "--sequence-parallel");
	if (s->zero == 1) {
		add(w, "--use-distributed-optimizer");
	} else if (s->zero >= 2) {
		/* Megatron-FSDP shards gradients (optim_grads) or also parameters */
		add(w, "--use-megatron-fsdp");
		add(w, "--data-parallel-sharding-strategy %s", s->zero == 2 ? "optim_grads" : "optim_grads_params");
		add(w, "--ckpt-format fsdp_dtensor");
		export_note(&w->notes, "ZeRO-%d: Megatron-FSDP, which only saves fsdp_dtensor checkpoints", s->zero);
	}
	optimizer_flags(w, s);
	export_kernel_notes(&w->notes, s, FW_MEGATRON);
	if (s->dp > 1) {
		add(w, "--overlap-grad-reduce");
		if (s->zero >= 1)
			add(w, "--overlap-param-gather");
	}
	if (s->tp_overlap && s->tp > 1) {
		if (s->sp)
			add(w, "--tp-comm-overlap");
		else
			export_note(&w->notes, "not expressible: tp_comm_overlap without sequence parallelism "
					"(--tp-comm-overlap requires --sequence-parallel)");
	}
	if (!s->vocab_parallel && s->tp > 1)
		export_note(&w->notes, "not expressible: vocab_parallel false; Megatron-LM always splits the "
				"embedding and output layer over the %d TP ranks", s->tp);
	if (s->pp > 1 && s->schedule != SCHED_1F1B && s->schedule != SCHED_INTERLEAVED)
		export_note(&w->notes, "not expressible: schedule %s; Megatron-LM runs 1F1B (interleaved with virtual "
				"stages), written as that", strat_schedule_name(s->schedule));
}

/* Normalization as the model file states it; else the cost model's assumption (RMSNorm for
 * a gated MLP, LayerNorm for a plain one), said in a note. */
static void norm_flags(work *w, const export_facts *x)
{
	const model_arch *a = &x->m->arch;
	int norm = a->norm;
	if (!norm) {
		norm = x->m->gated ? MODEL_NORM_RMS : MODEL_NORM_LAYER;
		export_note(&w->notes, "normalization: not in the model file (rms_norm_eps or layer_norm_eps); written "
				"as strata prices it, %s with Megatron's epsilon", norm == MODEL_NORM_RMS ? "RMSNorm" : "LayerNorm");
	}
	add(w, "--normalization %s", norm == MODEL_NORM_RMS ? "RMSNorm" : "LayerNorm");
	if (a->norm)
		add(w, "--norm-epsilon %g", a->norm_eps);
}

/* RoPE's scaling: Llama 3.x's (--use-rope-scaling), YaRN inside MLA (--rope-type yarn);
 * others are a note. */
static void rope_scaling_flags(work *w, const export_facts *x)
{
	const model_arch *a = &x->m->arch;
	int mla = x->attn->attn == ATTN_MLA;
	if (!strcmp(a->rope_scaling, "llama3")) {
		add(w, "--use-rope-scaling");
		if (a->rope_factor > 0)
			add(w, "--rope-scaling-factor %g", a->rope_factor);
	} else if (mla && !strcmp(a->rope_scaling, "yarn")) {
		add(w, "--rope-type yarn");
		if (a->rope_factor > 0)
			add(w, "--rotary-scaling-factor %g", a->rope_factor);
		if (a->mscale > 0)
			add(w, "--mscale %g", a->mscale);
		if (a->mscale_all_dim > 0)
			add(w, "--mscale-all-dim %g", a->mscale_all_dim);
	} else if (mla) {
		add(w, "--rope-type rope"); /* MLA's default is yarn */
	}
	if (a->rope_scaling[0] && strcmp(a->rope_scaling, "llama3") && !(mla && !strcmp(a->rope_scaling, "yarn")))
		export_note(&w->notes, "not written: rope_scaling %s (factor %g); add Megatron-LM's flags for it if it "
				"has them", a->rope_scaling, a->rope_factor);
}

/* Position embedding, its table size, and the vocabulary as the model file gives them. */
static void position_flags(work *w, const export_facts *x)
{
	const model_arch *a = &x->m->arch;
	const strategy_t *s = x->s;
	if (a->pos == MODEL_POS_LEARNED) {
		add(w, "--position-embedding-type learned_absolute");
	} else if (a->pos == MODEL_POS_ROPE) {
		add(w, "--position-embedding-type rope");
		if (a->rope_theta > 0)
			add(w, "--rotary-base %.0f", a->rope_theta);
		if (a->rotary_pct > 0 && a->rotary_pct < 1)
			add(w, "--rotary-percent %g", a->rotary_pct);
		rope_scaling_flags(w, x);
	} else {
		export_note(&w->notes, "position embedding: not in the model file (rope_theta or position_embedding_type); "
				"Megatron's default learned_absolute applies unless you pass --position-embedding-type rope");
	}
	int maxpos = a->max_pos > 0 ? a->max_pos : s->seq;
	if (maxpos < s->seq) {
		export_note(&w->notes, "seq_length %d exceeds the model's max_position_embeddings %d; written as %d",
				s->seq, maxpos, s->seq);
		maxpos = s->seq;
	}
	add(w, "--max-position-embeddings %d", maxpos);
	/* the embedding's rows: the config's vocabulary, which the tokenizer's may be smaller
	 * than; VocabParallelEmbedding splits it over the TP ranks */
	int vocab = x->m->vocab, padded = (vocab + s->tp - 1) / s->tp * s->tp;
	if (padded != vocab)
		export_note(&w->notes, "vocab_size %d padded to %d, a multiple of tp %d", vocab, padded, s->tp);
	add(w, "--padded-vocab-size %d", padded);
}

static void batch_flags(work *w, const export_facts *x)
{
	add(w, "--micro-batch-size %d", x->s->micro_batch);
	add(w, "--global-batch-size %d", x->s->global_batch);
	add(w, "--seq-length %d", x->s->seq);
}

static void precision_flags(work *w, const export_facts *x)
{
	const strategy_t *s = x->s;
	if (s->precision == PREC_FP16) {
		add(w, "--fp16");
	} else {
		add(w, "--bf16");
		if (s->precision == PREC_FP8)
			add(w, "--fp8-format hybrid");
		else if (s->precision == PREC_MXFP8) /* OCP microscaling, Blackwell */
			add(w, "--fp8-format e4m3 --fp8-recipe mxfp8");
		else if (s->precision == PREC_FP4)
			add(w, "--fp4-format e2m1 --fp4-recipe nvfp4");
	}
	add(w, "--attention-backend %s", s->flash ? "flash" : "unfused");
	if (s->loss_fusion) /* TE's kernel: the one priced (core/framework.c) */
		add(w, "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te");
}

/* The paths the script's user sets (checked by the script's head). */
static void data_flags(work *w, const export_facts *x)
{
	(void)x;
	add(w, "--data-path \"${DATA[@]}\"");
	add(w, "--tokenizer-type HuggingFaceTokenizer");
	add(w, "--tokenizer-model \"$TOKENIZER\"");
	add(w, "--save \"$CHECKPOINT\"");
	add(w, "--load \"$CHECKPOINT\"");
}

/* The environment Megatron-LM checks (megatron/training/arguments.py). */
static void env_lines(FILE *f, const strategy_t *s)
{
	if (s->zero >= 2)
		fputs("# Megatron-FSDP asserts that CUDA_DEVICE_MAX_CONNECTIONS is not 1\n"
				"unset CUDA_DEVICE_MAX_CONNECTIONS\n\n", f);
	else if (s->tp > 1 || s->cp > 1)
		fputs("# tp or cp > 1: Megatron-LM asserts CUDA_DEVICE_MAX_CONNECTIONS=1 before Blackwell, so that\n"
				"# TP/CP communication is issued ahead of the computation that waits for it\n"
				"export CUDA_DEVICE_MAX_CONNECTIONS=1\n\n", f);
}

typedef void (*flag_fn)(work *w, const export_facts *x);

/* The script's argument groups in order, each a bash array. A flag goes to the group of its
 * kind; a new kind of choice is a new row. */
static const struct {
	const char *array;
	flag_fn fn;
} groups[] = {
	{"MODEL_ARGS", model_flags},
	{"NORM_ARGS", norm_flags},
	{"EMBEDDING_ARGS", position_flags},
	{"PARALLEL_ARGS", parallel_flags},
	{"BATCH_ARGS", batch_flags},
	{"RECOMPUTE_ARGS", recompute_flags},
	{"PRECISION_ARGS", precision_flags},
	{"DATA_ARGS", data_flags},
};

static void print_script(FILE *f, const work *w, const export_facts *x)
{
	export_script_head(f, x, &w->notes);
	env_lines(f, x->s);
	for (int g = 0, i = 0; g < w->ngroups; g++) {
		if (i == w->group_end[g])
			continue;
		fprintf(f, "%s=(\n", groups[g].array);
		for (; i < w->group_end[g]; i++)
			fprintf(f, "    %s\n", w->a[i]);
		fputs(")\n", f);
	}
	fputs("ARGS=(", f);
	for (int g = 0, i = 0; g < w->ngroups; i = w->group_end[g], g++)
		if (i < w->group_end[g])
			fprintf(f, "%s\"${%s[@]}\"", g ? " " : "", groups[g].array);
	fputs(")\n\n", f);
	export_script_launch(f, "$MEGATRON_PATH/pretrain_gpt.py", "ARGS");
}

int export_megatron(FILE *f, const export_facts *x)
{
	work *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	export_header(&w->notes, x, "megatron", "NVIDIA/Megatron-LM megatron/training/arguments.py");
	export_note(&w->notes, "Megatron takes dp from the world size (%d)", x->p->devices);
	export_note(&w->notes, "not in the plan, add your own as arguments of this script: optimizer, learning rate and "
			"schedule, iterations%s", x->moe ? ", MoE router and load balancing" : "");
	for (size_t g = 0; g < sizeof groups / sizeof groups[0] && g < MAX_GROUPS; g++) {
		groups[g].fn(w, x);
		w->group_end[w->ngroups++] = w->n;
	}
	int rc = w->failed ? -1 : 0;
	if (!rc)
		print_script(f, w, x);
	for (int i = 0; i < w->n; i++)
		free(w->a[i]);
	free(w);
	return rc || ferror(f) ? -1 : 0;
}
