/* strategy.c - strategy defaults and validity rules with readable reasons (the enum names
 * are strategy_names.c's). */
#include "core/strategy.h"
#include "core/framework.h"
#include "core/why.h"

#include <stdio.h>
#include <string.h>

strategy_t strat_default(void)
{
	strategy_t s;
	memset(&s, 0, sizeof s);
	s.dp = 0; /* derived from the device count */
	s.tp = s.pp = s.vpp = s.cp = s.ep = s.etp = 1;
	s.zero = 1;
	s.micro_batch = 1;
	s.global_batch = 0; /* derived: one micro-batch per replica */
	s.seq = 4096;
	s.sp = true;
	s.flash = true;
	s.vocab_parallel = true;
	s.recompute = RC_NONE;
	s.schedule = SCHED_1F1B;
	s.precision = PREC_BF16;
	s.cp_kind = CP_RING;
	s.framework = FW_AUTO;
	s.rc_modules = RCM_CORE_ATTN;
	s.moe_cf = 1.0;
	return s;
}

/* What strat_resolve derives: dp from the devices when it is 0 and the global batch when it
 * is 0, into *dp and *gb; 0, or -1 with the reason when they cannot be derived. */
static int resolved(const strategy_t *s, int devices, int *dp, int *gb, char *why, size_t n)
{
	*dp = s->dp;
	*gb = s->global_batch;
	if (devices <= 0)
		return why_set(why, n, "devices must be a positive integer (got %d)", devices);
	if (s->tp <= 0 || s->pp <= 0 || s->cp <= 0)
		return why_set(why, n, "tp, pp and cp must be positive integers");
	long long mp = (long long)s->tp * s->pp * s->cp;
	if (*dp == 0) {
		if (devices % mp)
			return why_set(why, n, "tp*pp*cp = %lld does not divide %d devices", mp, devices);
		*dp = (int)(devices / mp);
	}
	if (*gb == 0 && *dp > 0) {
		/* default: enough micro-batches (2*pp) to keep the pipeline mostly busy */
		long long g = (long long)*dp * s->micro_batch * (s->pp > 1 ? 2 * s->pp : 1);
		if (g > (1 << 30))
			return why_set(why, n, "global_batch would default to %lld, over the 2^30 limit: set it explicitly", g);
		*gb = (int)g;
	}
	return 0;
}

int strat_resolve(strategy_t *s, int devices, char *why, size_t n)
{
	int dp, gb;
	int rc = resolved(s, devices, &dp, &gb, why, n);
	if (dp > 0 && s->dp == 0)
		s->dp = dp; /* a dp derived before the global batch failed is kept, as before */
	if (!rc)
		s->global_batch = gb;
	return rc;
}

int strat_microbatches(const strategy_t *s)
{
	long long per = (long long)s->dp * s->micro_batch;
	return per > 0 ? (int)(s->global_batch / per) : 0;
}

int strat_layer_recompute(const strategy_t *s, int l)
{
	int mode = s->recompute;
	for (int i = 0; i < s->nranges; i++)
		if (l >= s->range[i].lo && l < s->range[i].hi)
			mode = s->range[i].mode;
	return mode;
}

/* Chunk (v, stage) under Megatron's split keys (megatron/core/transformer/
 * transformer_block.py get_num_layers_to_build, transformer_layer.py
 * get_transformer_layer_offset). First/last: those ranks hold first_layers /
 * last_layers, the middle ranks the rest evenly; each rank's layers are split evenly over
 * its vpp chunks. Embedding/loss counted: (layers + e + l) / (pp vpp) per chunk, one fewer
 * on the model's first chunk (e) and last chunk (l). Assumes strat_split_check passed. */
static void keys_span(const strategy_t *s, int layers, int v, int stage, int *lo, int *n)
{
	int p = s->pp, vp = s->vpp;
	if (s->first_layers > 0 || s->last_layers > 0) {
		int fl = s->first_layers, ll = s->last_layers;
		int ms = p - (fl > 0) - (ll > 0);
		int mid = ms > 0 ? (layers - fl - ll) / ms : 0;
		int c0 = fl > 0 ? fl : mid;
		int cr = stage == 0 ? c0 : stage == p - 1 && ll > 0 ? ll : mid;
		int before = stage == 0 ? 0 : c0 + (stage - 1) * mid; /* ranks 1 .. stage-1 are middle */
		*lo = v * (layers / vp) + before / vp;
		*n = cr / vp;
		return;
	}
	int nch = p * vp, c = v * p + stage, e = s->acct_embed, l = s->acct_loss;
	int q = (layers + e + l) / nch;
	*lo = c * q - (c > 0 ? e : 0);
	*n = q - (c == 0 ? e : 0) - (c == nch - 1 ? l : 0);
}

void strat_chunk_span(const strategy_t *s, int layers, int v, int stage, int *lo, int *n)
{
	int nch = s->pp * s->vpp;
	int c = v * s->pp + stage;
	if (s->nchunks == nch) {
		int a = 0;
		for (int i = 0; i < c; i++)
			a += s->chunk_layers[i];
		*lo = a;
		*n = s->chunk_layers[c];
		return;
	}
	if (strat_split_keys(s)) {
		keys_span(s, layers, v, stage, lo, n);
		return;
	}
	strat_split_span(strat_even_split(layers, nch), c, lo, n);
}

int strat_split_check(const strategy_t *s, int layers, char *why, size_t n)
{
	/* Megatron-LM, core/transformer/transformer_config.py __post_init__ and
	 * megatron/training/arguments.py: the same refusals, in the plan's key names */
	int fl = s->first_layers, ll = s->last_layers, v = s->vpp;
	if (!strat_split_keys(s))
		return 0;
	if (s->nchunks)
		return why_set(why, n, "stage_layers cannot be set with first_stage_layers, last_stage_layers, "
				"account_for_embedding or account_for_loss (Megatron: the pipeline layout excludes the other split flags)");
	if ((fl || ll) && (s->acct_embed || s->acct_loss))
		return why_set(why, n, "first_stage_layers and last_stage_layers cannot be set with account_for_embedding "
				"or account_for_loss (Megatron refuses the combination)");
	if (fl || ll) {
		if (s->pp < 2)
			return why_set(why, n, "first_stage_layers and last_stage_layers need pp > 1");
		if (fl % v || ll % v)
			return why_set(why, n, "%s_stage_layers = %d must be divisible by vpp = %d", fl % v ? "first" : "last",
					fl % v ? fl : ll, v);
		int mid = layers - fl - ll, ms = s->pp - (fl > 0) - (ll > 0);
		if (mid < 0 || (mid > 0) != (ms > 0))
			return why_set(why, n, "first_stage_layers %d and last_stage_layers %d leave %d layers for %d middle "
					"stages", fl, ll, mid, ms);
		if (ms && mid % ms)
			return why_set(why, n, "the %d middle layers are not divisible by the %d middle pipeline stages "
					"(first_stage_layers %d, last_stage_layers %d)", mid, ms, fl, ll);
		if (ms && (mid / ms) % v)
			return why_set(why, n, "%d layers on each middle pipeline stage are not divisible by vpp = %d",
					mid / ms, v);
		return 0;
	}
	int tot = layers + s->acct_embed + s->acct_loss;
	if (tot % s->pp)
		return why_set(why, n, "%d layers with the embedding and loss counted (account_for_embedding/loss) are "
				"not divisible by pp = %d", tot, s->pp);
	if ((tot / s->pp) % v)
		return why_set(why, n, "%d layers per pipeline stage (embedding and loss counted) are not divisible by "
				"vpp = %d", tot / s->pp, v);
	if (tot / (s->pp * v) < 1)
		return why_set(why, n, "too few layers to count the embedding and loss in the pipeline split");
	return 0;
}

/* Degrees, ZeRO level and the device product. */
static int check_degrees(const strategy_t *s, int devices, char *why, size_t n)
{
	/* a constant table of where each degree lives, not one built per call: every
	 * evaluation of the search passes here */
	static const struct { const char *name; size_t off; } deg[] = {
		{"dp", offsetof(strategy_t, dp)}, {"tp", offsetof(strategy_t, tp)},
		{"pp", offsetof(strategy_t, pp)}, {"vpp", offsetof(strategy_t, vpp)},
		{"cp", offsetof(strategy_t, cp)}, {"ep", offsetof(strategy_t, ep)},
		{"etp", offsetof(strategy_t, etp)}, {"micro_batch", offsetof(strategy_t, micro_batch)},
		{"global_batch", offsetof(strategy_t, global_batch)}, {"seq_length", offsetof(strategy_t, seq)},
	};
	/* a dp or global batch left to strat_resolve that it could not derive: say why, so the
	 * caller reports it as any other rule (eval --json prints valid: false) */
	int dp, gb;
	if ((s->dp == 0 || s->global_batch == 0) && resolved(s, devices, &dp, &gb, why, n))
		return -1;
	int all_pos = s->dp > 0 && s->tp > 0 && s->pp > 0 && s->vpp > 0 && s->cp > 0 && s->ep > 0 && s->etp > 0 &&
			s->micro_batch > 0 && s->global_batch > 0 && s->seq > 0; /* else the table names one */
	for (size_t i = 0; !all_pos && i < sizeof deg / sizeof deg[0]; i++) {
		int v;
		memcpy(&v, (const char *)s + deg[i].off, sizeof v);
		if (v <= 0)
			return why_set(why, n, "%s must be a positive integer (got %d)", deg[i].name, v);
	}
	if (devices <= 0)
		return why_set(why, n, "devices must be a positive integer (got %d)", devices);
	if (s->zero < 0 || s->zero > 3)
		return why_set(why, n, "zero must be 0, 1, 2 or 3 (got %d)", s->zero);
	long long prod = (long long)s->dp * s->tp * s->pp * s->cp;
	if (prod != devices)
		return why_set(why, n, "dp*tp*pp*cp = %d*%d*%d*%d = %lld does not equal %d devices",
				s->dp, s->tp, s->pp, s->cp, prod, devices);
	return 0;
}

/* The key/value heads per TP rank of the first layer kind whose heads the Ulysses degree
 * does not divide (so they are repeated to it), or 0. */
int strat_ulysses_kv_short(const strategy_t *s, const model_t *m)
{
	int u = strat_cp_ulysses(s);
	for (int k = 0; u > 1 && k < m->nkinds; k++) {
		const layer_kind *t = &m->kind[k];
		if (t->attn != ATTN_GQA)
			continue;
		int kvl = t->kv_heads >= s->tp ? t->kv_heads / s->tp : 1;
		if (kvl % u)
			return kvl;
	}
	return 0;
}

/* The Ulysses degree u of CP (cp_ulysses or cp_kind) and the ring of cp/u around it. */
static int check_ulysses(const strategy_t *s, const model_t *m, char *why, size_t n)
{
	if (s->cp_ulysses < 0 || (s->cp_ulysses > 1 && s->cp % s->cp_ulysses))
		return why_set(why, n, "cp_ulysses=%d must divide cp=%d (the ring degree is cp/cp_ulysses)",
				s->cp_ulysses, s->cp);
	if (s->cp_kind == CP_ULYSSES && s->cp_ulysses > 1 && s->cp_ulysses != s->cp)
		return why_set(why, n, "cp_kind ulysses puts all cp=%d ranks in the Ulysses group; for a ring of "
				"Ulysses groups of %d (USP) use cp_kind ring with cp_ulysses %d", s->cp, s->cp_ulysses,
				s->cp_ulysses);
	int u = strat_cp_ulysses(s);
	/* the ring's load-balanced causal chunks: 2 per CP rank (Megatron's a2a+p2p too) */
	if (s->cp > 1 && u < s->cp && s->seq % (2 * s->cp))
		return why_set(why, n, "ring context parallelism needs the sequence length %d divisible by 2*cp=%d (load-balanced chunks)",
				s->seq, 2 * s->cp);
	/* Ulysses scatters the heads of each TP rank over its u ranks: the query heads must
	 * split; key/value heads split too, or (fewer than u) are repeated to u, as USP does
	 * (Fang & Zhao 2024, Sec. 3; layer_comm.c prices the repeated copies) */
	for (int k = 0; u > 1 && k < m->nkinds; k++) {
		const layer_kind *t = &m->kind[k];
		int hl = t->heads / s->tp;
		int kvl = t->attn == ATTN_GQA ? (t->kv_heads >= s->tp ? t->kv_heads / s->tp : 1) : hl;
		if (hl % u)
			return why_set(why, n, "ulysses %s=%d does not divide the %d heads left per TP rank",
					u == s->cp ? "cp" : "degree", u, hl);
		if (kvl % u && u % kvl)
			return why_set(why, n, "ulysses degree %d and the %d key/value heads left per TP rank: one must "
					"divide the other", u, kvl);
	}
	return 0;
}

/* Heads over TP and Ulysses CP, the sequence over CP and SP. */
static int check_split(const strategy_t *s, const model_t *m, char *why, size_t n)
{
	/* every layer kind must split over TP and Ulysses CP, not only the first (a VLM's
	 * encoder and decoder differ in heads) */
	for (int k = 0; k < m->nkinds; k++) {
		const layer_kind *t = &m->kind[k];
		if (t->heads % s->tp)
			return why_set(why, n, "tp=%d does not divide %d attention heads", s->tp, t->heads);
		if (t->attn == ATTN_GQA && t->kv_heads % s->tp && s->tp % t->kv_heads)
			return why_set(why, n, "tp=%d and %d key/value heads: one must divide the other",
					s->tp, t->kv_heads);
	}
	if (s->seq % s->cp)
		return why_set(why, n, "cp=%d does not divide sequence length %d", s->cp, s->seq);
	if (check_ulysses(s, m, why, n))
		return -1;
	/* CP deals a vision encoder's images out whole (layer_comm.c) */
	for (int k = 0; s->cp > 1 && k < m->nkinds; k++) {
		long long imgs = (long long)s->micro_batch * m->kind[k].enc_images;
		if (imgs % s->cp)
			return why_set(why, n, "cp=%d does not divide the %lld images of a micro-batch the encoder sees "
					"(micro_batch x images_per_sample)", s->cp, imgs);
	}
	if (s->sp && s->tp > 1 && (s->seq / s->cp) % s->tp)
		return why_set(why, n, "sequence parallelism needs seq/cp = %d divisible by tp=%d",
				s->seq / s->cp, s->tp);
	return 0;
}

/* The batch over DP, the experts over EP and ETP. */
static int check_batch_experts(const strategy_t *s, const model_t *m, char *why, size_t n)
{
	long long per = (long long)s->dp * s->micro_batch;
	if (s->global_batch % per)
		return why_set(why, n, "global_batch=%d is not divisible by dp*micro_batch = %d*%d = %lld",
				s->global_batch, s->dp, s->micro_batch, per);
	int moe_experts = 0;
	for (int k = 0; k < m->nkinds; k++) {
		if (m->kind[k].experts > moe_experts)
			moe_experts = m->kind[k].experts;
		if (m->kind[k].experts > 0 && m->kind[k].experts % s->ep)
			return why_set(why, n, "ep=%d does not divide %d experts", s->ep, m->kind[k].experts);
	}
	if (moe_experts == 0 && (s->ep > 1 || s->etp > 1))
		return why_set(why, n, "ep=%d, etp=%d: the model has no experts (use ep=1, etp=1)", s->ep, s->etp);
	if (s->moe_redundant < 0 || (s->moe_redundant > 0 && (moe_experts == 0 || s->ep < 2)))
		return why_set(why, n, "moe_redundant_experts=%d needs a MoE model and ep > 1 (replicas balance the "
				"load across expert-parallel ranks)", s->moe_redundant);
	for (int k = 0; s->moe_redundant > 0 && k < m->nkinds; k++) {
		int e = m->kind[k].experts;
		if (e > 0 && s->moe_redundant > e - e / s->ep)
			return why_set(why, n, "moe_redundant_experts=%d exceeds the %d experts an EP rank does not own "
					"(%d experts over ep=%d)", s->moe_redundant, e - e / s->ep, e, s->ep);
	}
	/* a replica is a whole copy refreshed from its owner after each step (EPLB); ZeRO-3
	 * shards the owner's parameters themselves */
	if (s->moe_redundant > 0 && s->zero == 3)
		return why_set(why, n, "moe_redundant_experts needs zero 0, 1 or 2 (replicas are whole copies of "
				"their owner's weights; ZeRO-3 shards those)");
	if (moe_experts > 0) {
		long long edp = (long long)s->dp * s->cp * s->tp;
		if (edp % ((long long)s->ep * s->etp))
			return why_set(why, n, "ep*etp = %d*%d must divide dp*cp*tp = %lld (expert parallelism is carved out of the data, context and tensor ranks)",
					s->ep, s->etp, edp);
	}
	return 0;
}

/* Virtual stages, schedules and the layer split over the pipeline. */
static int check_pipeline(const strategy_t *s, const model_t *m, char *why, size_t n)
{
	int mb = strat_microbatches(s);
	if (s->pp == 1 && s->vpp > 1)
		return why_set(why, n, "vpp=%d needs pp > 1", s->vpp);
	if (s->vpp > 1 && s->schedule != SCHED_INTERLEAVED)
		return why_set(why, n, "vpp=%d needs the interleaved schedule (got %s)", s->vpp,
				strat_schedule_name(s->schedule));
	if (s->schedule == SCHED_INTERLEAVED && s->pp > 1 && s->vpp > 1 && mb % s->pp)
		return why_set(why, n, "the interleaved schedule needs the %d micro-batches divisible by pp=%d",
				mb, s->pp);
	if (s->schedule == SCHED_DUALPIPE && (s->pp % 2 || mb % 2))
		return why_set(why, n, "dualpipe needs an even pp (got %d) and an even number of micro-batches (got %d)",
				s->pp, mb);
	/* DualPipe.step asserts num_chunks >= 2 num_ranks (github.com/deepseek-ai/DualPipe): its
	 * program has no steady phase below that, and the bubble of the DeepSeek-V3 report's
	 * table assumes one */
	if (s->schedule == SCHED_DUALPIPE && mb < 2 * s->pp)
		return why_set(why, n, "dualpipe needs at least 2*pp = %d micro-batches (got %d)", 2 * s->pp, mb);
	if ((long long)s->pp * s->vpp > STRAT_MAX_CHUNKS)
		return why_set(why, n, "pp*vpp = %lld exceeds %d pipeline chunks", (long long)s->pp * s->vpp,
				STRAT_MAX_CHUNKS);
	/* every stage needs a layer; chunks beyond the layer count stay empty, as with
	 * Megatron's --allow-padding-num-layers (first and last chunks give way first) */
	int need = s->pp * (s->schedule == SCHED_ZBV ? 2 : 1);
	if (m->layers < need)
		return why_set(why, n, "%d layers cannot fill %d pipeline stages (pp=%d%s)", m->layers, need, s->pp,
				s->schedule == SCHED_ZBV ? ", two chunks per stage for zb-v" : "");
	if (strat_split_check(s, m->layers, why, n))
		return -1;
	if (s->nchunks) {
		if (s->nchunks != s->pp * s->vpp)
			return why_set(why, n, "stage layer list has %d entries, pp*vpp = %d", s->nchunks, s->pp * s->vpp);
		int sum = 0;
		for (int i = 0; i < s->nchunks; i++) {
			if (s->chunk_layers[i] < 0)
				return why_set(why, n, "stage layer counts must not be negative");
			sum += s->chunk_layers[i];
		}
		if (sum != m->layers)
			return why_set(why, n, "stage layer counts sum to %d, the model has %d layers", sum, m->layers);
	}
	return 0;
}

/* Precision on the device, value ranges of the enums, capacity factor and ranges. */
static int check_values(const strategy_t *s, const model_t *m, const cluster_t *c, char *why, size_t n)
{
	if (s->precision >= PREC_COUNT || c->peak_tflops[s->precision] <= 0)
		return why_set(why, n, "%s is not supported by %s (no %s peak in the cluster file)",
				strat_precision_name(s->precision), c->device, strat_precision_name(s->precision));
	if (!(s->moe_cf >= 0 && s->moe_cf <= 16))
		return why_set(why, n, "moe_capacity_factor must be above 0 and at most 16 (got %g)", s->moe_cf);
	if (s->recompute >= RC_COUNT || s->schedule >= SCHED_COUNT || s->cp_kind > CP_ULYSSES || s->framework >= FW_COUNT ||
			s->rc_modules >= 1u << RCM_COUNT || s->fp8_cache >= FP8C_COUNT || s->moe_disp >= MOED_COUNT ||
			s->moe_route >= MOER_COUNT)
		return why_set(why, n, "unknown recompute, schedule, cp kind, framework, fp8_cache or moe dispatch value");
	/* the report's caching quantizes activations its fp8 GEMMs produce and consume */
	if (s->fp8_cache != FP8C_NONE && s->precision != PREC_FP8)
		return why_set(why, n, "fp8_cache %s needs precision fp8 (got %s)", strat_fp8_cache_name(s->fp8_cache),
				strat_precision_name(s->precision));
	for (int k = 0; k < OPT_KEYS; k++)
		if (s->opt_dt[k] >= ODT_COUNT || !(strat_opt_dtypes(k) >> s->opt_dt[k] & 1))
			return why_set(why, n, "%s cannot be %s", strat_opt_key(k), strat_opt_dtype_name(s->opt_dt[k]));
	if (!(s->opt_offload >= 0 && s->opt_offload <= 1))
		return why_set(why, n, "optimizer_offload must be a fraction from 0 to 1 (got %g)", s->opt_offload);
	if (s->act_offload < 0 || (s->act_offload > 0 && s->act_offload >= m->layers))
		return why_set(why, n, "activation_offload must be from 0 to %d layers, fewer than the model's %d (got %d)",
				m->layers - 1, m->layers, s->act_offload);
	for (int i = 0; i < s->nranges; i++)
		if (s->range[i].lo < 0 || s->range[i].hi > m->layers || s->range[i].lo >= s->range[i].hi)
			return why_set(why, n, "recompute range [%d:%d] is outside the %d layers", s->range[i].lo,
					s->range[i].hi, m->layers);
	return 0;
}

int strat_validate(const strategy_t *s, const model_t *m, const cluster_t *c, int devices,
		char *why, size_t n)
{
	if (check_degrees(s, devices, why, n) || check_split(s, m, why, n) || check_batch_experts(s, m, why, n) ||
			check_pipeline(s, m, why, n) || check_values(s, m, c, why, n) || fw_validate(s, m, why, n))
		return -1;
	return 0;
}
