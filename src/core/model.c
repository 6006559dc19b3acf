/* model.c - parameter counting and construction of layer sequences.
 * Parameter formulas: Megatron-LM theoretical_memory_usage.py generalised to GQA, SwiGLU,
 * MoE (routed + shared experts, router) and MLA (DeepSeek-V2/V3 low-rank Q and KV). A
 * layer's matrices and norms are counted at its kind's width and MLP type; the embedding,
 * LM head and final norm at the model's. */
#include "core/model.h"
#include "core/why.h"

#include <stdio.h>
#include <string.h>

int model_append(model_t *m, int k, int n)
{
	if (n <= 0)
		return 0;
	if (m->nruns > 0 && m->run[m->nruns - 1].kind == k) {
		m->run[m->nruns - 1].count += n;
	} else {
		if (m->nruns >= MODEL_MAX_RUNS)
			return -1;
		m->run[m->nruns].kind = (uint8_t)k;
		m->run[m->nruns].count = n;
		m->nruns++;
	}
	if (!m->kind[k].mtp)
		m->layers += n;
	else
		m->mtp_layers += n;
	return 0;
}

void model_set_globals(model_t *m, const model_config *c)
{
	m->hidden = c->hidden;
	m->vocab = c->vocab;
	m->gated = c->gated;
	m->tied = c->tied;
	m->biases = c->biases;
	m->qkv_bias = c->qkv_bias;
	m->hidden_dropout = c->hidden_dropout;
	m->attention_dropout = c->attention_dropout;
	m->arch = c->arch;
}

bool model_arch_equal(const model_arch *a, const model_arch *b)
{
	return a->norm == b->norm && a->norm_eps == b->norm_eps && a->pos == b->pos && a->rope_theta == b->rope_theta &&
			a->rotary_pct == b->rotary_pct && !strcmp(a->rope_scaling, b->rope_scaling) &&
			a->rope_factor == b->rope_factor && a->mscale == b->mscale &&
			a->mscale_all_dim == b->mscale_all_dim && a->max_pos == b->max_pos;
}

/* The sizes every model needs. */
static int check_sizes(const model_config *c, char *why, size_t whylen)
{
	if (c->hidden <= 0)
		return why_set(why, whylen, "%s must be a positive integer (got %d)", "hidden_size", c->hidden);
	if (c->layers <= 0 || c->layers > MODEL_MAX_LAYERS)
		return why_set(why, whylen, "%s must be between 1 and 4096 (got %d)", "num_hidden_layers", c->layers);
	if (c->heads <= 0)
		return why_set(why, whylen, "%s must be a positive integer (got %d)", "num_attention_heads", c->heads);
	if (c->vocab <= 0)
		return why_set(why, whylen, "%s must be a positive integer (got %d)", "vocab_size", c->vocab);
	int kv = c->kv_heads > 0 ? c->kv_heads : c->heads;
	if (kv > c->heads || c->heads % kv)
		return why_set(why, whylen, "%s must divide num_attention_heads (got %d)", "num_key_value_heads", kv);
	int hd = c->head_dim > 0 ? c->head_dim : c->hidden / c->heads;
	if (hd <= 0)
		return why_set(why, whylen, "%s must be positive (got %d)", "head_dim", hd);
	if (c->mtp < 0 || c->mtp > 16)
		return why_set(why, whylen, "%s must be between 0 and 16 (got %d)", "num_nextn_predict_layers", c->mtp);
	return 0;
}

/* The attention every layer shares (GQA/MHA or MLA, a window unless listed per layer). */
static int base_kind(const model_config *c, layer_kind *base, char *why, size_t whylen)
{
	int kv = c->kv_heads > 0 ? c->kv_heads : c->heads;
	int hd = c->head_dim > 0 ? c->head_dim : c->hidden / c->heads;
	if (c->window < 0 || c->chunk < 0)
		return why_set(why, whylen, "%s must be positive (got %d)", c->window < 0 ? "sliding_window" :
				"attention_chunk_size", c->window < 0 ? c->window : c->chunk);
	memset(base, 0, sizeof *base);
	if (!c->local_listed) {
		base->window = c->window;
		base->chunk = c->chunk;
	}
	base->heads = c->heads;
	base->kv_heads = kv;
	base->head_dim = hd;
	if (c->kv_lora > 0) {
		base->attn = ATTN_MLA;
		base->q_lora = c->q_lora;
		base->kv_lora = c->kv_lora;
		base->qk_nope = c->qk_nope;
		base->qk_rope = c->qk_rope;
		base->v_head = c->v_head > 0 ? c->v_head : hd;
		if (base->qk_nope <= 0 || base->qk_rope < 0)
			return why_set(why, whylen, "%s must be positive for MLA (got %d)", "qk_nope_head_dim", base->qk_nope);
		base->kv_heads = c->heads;
	}
	if (c->ffn <= 0)
		return why_set(why, whylen, "%s must be a positive integer (got %d)", "intermediate_size", c->ffn);
	return 0;
}

/* Layer l's kind: dense or MoE by the config's rule, a kind of its own with local
 * attention; -1 (why set) when the kinds run out. */
static int layer_kind_of(model_t *m, const model_config *c, int l, int moe_kind, char *why, size_t whylen)
{
	int freq = c->moe_freq > 0 ? c->moe_freq : 1;
	int first_dense = c->first_k_dense > 0 ? c->first_k_dense : 0;
	if (first_dense > c->layers)
		first_dense = c->layers;
	int k = 0;
	/* HF/DeepSeek rule: layer l is MoE when l >= first_k_dense_replace and
	 * l % moe_layer_freq == 0 (phase 0); Qwen2/3-MoE and Llama 4 count from one,
	 * MoE when (l + 1) % step == 0 (phase step - 1), minus mlp_only_layers; Llama 4's
	 * moe_layers, when given, lists them outright. */
	bool listed = c->list[l / 8] >> (l % 8) & 1;
	bool is_moe = c->list_mode == MODEL_LIST_MOE ? listed :
		l >= first_dense && l % freq == c->moe_phase && !(c->list_mode == MODEL_LIST_DENSE && listed);
	if (moe_kind >= 0 && is_moe)
		k = moe_kind;
	if (c->local_listed && (c->local[l / 8] >> (l % 8) & 1) && (c->window > 0 || c->chunk > 0)) {
		/* the same layer with local attention: a kind of its own */
		layer_kind t = m->kind[k];
		t.window = c->window;
		t.chunk = c->chunk;
		int j;
		for (j = 0; j < m->nkinds && !model_kind_equal(&m->kind[j], &t); j++)
			;
		if (j == m->nkinds) {
			if (m->nkinds >= MODEL_MAX_KINDS)
				return why_set(why, whylen, "model: more than %d layer shapes", MODEL_MAX_KINDS);
			m->kind[m->nkinds++] = t;
		}
		k = j;
	}
	return k;
}

/* The dense kind, the MoE kind (index 1) when the model has experts; *moe_kind. */
static int dense_and_moe(model_t *m, const model_config *c, const layer_kind *base, int *moe_kind, char *why,
		size_t whylen)
{
	layer_kind dense = *base;
	dense.ffn = c->ffn;
	m->kind[0] = dense;
	m->nkinds = 1;
	*moe_kind = -1;
	if (c->experts > 0) {
		if (c->topk <= 0 || c->topk > c->experts)
			return why_set(why, whylen, "%s must be between 1 and the number of experts (got %d)",
					"num_experts_per_tok", c->topk);
		layer_kind moe = *base;
		moe.experts = c->experts;
		moe.topk = c->topk;
		moe.expert_ffn = c->moe_ffn > 0 ? c->moe_ffn : c->ffn;
		moe.shared = c->shared > 0 ? c->shared : 0;
		m->kind[1] = moe;
		m->nkinds = 2;
		*moe_kind = 1;
	}
	int freq = c->moe_freq > 0 ? c->moe_freq : 1;
	if (c->moe_phase < 0 || c->moe_phase >= freq)
		return why_set(why, whylen, "the MoE layer phase %d must be below the MoE layer step %d", c->moe_phase, freq);
	if (c->list_mode != MODEL_LIST_NONE)
		for (int l = c->layers; l < MODEL_MAX_LAYERS; l++)
			if (c->list[l / 8] >> (l % 8) & 1)
				return why_set(why, whylen, "%s names layer %d of a %d-layer model",
						c->list_mode == MODEL_LIST_MOE ? "moe_layers" : "mlp_only_layers", l, c->layers);
	return 0;
}

int model_from_config(model_t *m, const model_config *c, char *why, size_t whylen)
{
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", c->name[0] ? c->name : "model");
	if (check_sizes(c, why, whylen))
		return -1;
	model_set_globals(m, c);
	layer_kind base;
	int moe_kind;
	if (base_kind(c, &base, why, whylen) || dense_and_moe(m, c, &base, &moe_kind, why, whylen))
		return -1;
	for (int l = 0; l < c->layers; l++) {
		int k = layer_kind_of(m, c, l, moe_kind, why, whylen);
		if (k < 0)
			return -1;
		if (model_append(m, k, 1))
			return why_set(why, whylen, "%s: too many alternating layer runs (%d)", "model", MODEL_MAX_RUNS);
	}
	if (c->mtp > 0) {
		layer_kind t = moe_kind >= 0 ? m->kind[moe_kind] : m->kind[0];
		t.mtp = true;
		m->kind[m->nkinds] = t;
		if (model_append(m, m->nkinds, c->mtp))
			return -1;
		m->nkinds++;
	}
	return model_check(m, why, whylen);
}

/* The encoder fields of kind k: in range, and only on a dense GQA/MHA layer. */
static int model_check_encoder(const model_t *m, int k, char *why, size_t whylen)
{
	const layer_kind *t = &m->kind[k];
	if (t->enc_tokens < 0 || t->enc_tokens > 1 << 20 || t->enc_images < 0 || t->enc_images > 4096 ||
			(t->enc_tokens > 0) != (t->enc_images > 0))
		return why_set(why, whylen, "model: an encoder block needs image_tokens in 1..%d and images_per_sample "
				"in 1..4096, both or neither (kind %d)", 1 << 20, k);
	if (t->proj_ffn < 0 || t->proj_ffn > 1 << 24 || t->proj_merge < 0 || t->proj_merge > 64)
		return why_set(why, whylen, "model: projector_intermediate_size or projector_merge out of range (kind %d)", k);
	if (t->enc_tokens == 0 && (t->proj_ffn > 0 || t->proj_merge > 0))
		return why_set(why, whylen, "model: a projector belongs to an encoder block (give image_tokens, kind %d)", k);
	if (t->enc_tokens == 0)
		return 0;
	if (t->attn != ATTN_GQA || t->experts > 0 || t->mtp || t->window > 0 || t->chunk > 0)
		return why_set(why, whylen, "model: an encoder block is a dense block with full attention "
				"(no experts, MLA, MTP, window or chunk; kind %d)", k);
	if (t->proj_merge > 1 && t->enc_tokens % t->proj_merge)
		return why_set(why, whylen, "model: projector_merge %d does not divide image_tokens %d (kind %d)",
				t->proj_merge, t->enc_tokens, k);
	return 0;
}

/* Encoder layers first, then at least one decoder layer. */
static int model_check_order(const model_t *m, char *why, size_t whylen)
{
	bool dec = false;
	for (int r = 0; r < m->nruns; r++) {
		bool enc = model_kind_encoder(m, m->run[r].kind);
		if (enc && dec)
			return why_set(why, whylen, "model: encoder blocks (image_tokens) must come before the decoder's");
		dec = dec || !enc;
	}
	if (!dec)
		return why_set(why, whylen, "model: an encoder needs a decoder after it (a block without image_tokens)");
	return 0;
}

int model_check(const model_t *m, char *why, size_t whylen)
{
	if (m->hidden <= 0 || m->vocab <= 0)
		return why_set(why, whylen, "model: hidden_size and vocab_size must be positive");
	if (m->layers <= 0 || m->layers > MODEL_MAX_LAYERS)
		return why_set(why, whylen, "model: the number of layers must be between 1 and %d (got %d)", MODEL_MAX_LAYERS, m->layers);
	if (m->hidden > 1 << 20 || m->vocab > 1 << 24)
		return why_set(why, whylen, "model: hidden_size or vocab_size is implausibly large");
	if (!(m->hidden_dropout >= 0 && m->hidden_dropout < 1 && m->attention_dropout >= 0 &&
			m->attention_dropout < 1))
		return why_set(why, whylen, "model: dropout must be in [0, 1)");
	for (int k = 0; k < m->nkinds; k++) {
		const layer_kind *t = &m->kind[k];
		if (t->heads <= 0 || t->head_dim <= 0 || t->kv_heads <= 0 || t->heads % t->kv_heads)
			return why_set(why, whylen, "model: heads, kv heads and head_dim must be positive, kv heads dividing heads (kind %d)", k);
		if (t->heads > 1 << 16 || t->head_dim > 1 << 16)
			return why_set(why, whylen, "model: heads or head_dim implausibly large (kind %d)", k);
		if (t->window < 0 || t->window > 1 << 24 || t->chunk < 0 || t->chunk > 1 << 24)
			return why_set(why, whylen, "model: attention window or chunk out of range (kind %d)", k);
		if (t->ffn < 0 || t->ffn > 1 << 24 || t->expert_ffn < 0 || t->expert_ffn > 1 << 24)
			return why_set(why, whylen, "model: FFN size out of range (kind %d)", k);
		if (t->ffn == 0 && t->experts == 0)
			return why_set(why, whylen, "model: a layer needs an MLP or experts (kind %d)", k);
		if (t->experts < 0 || t->experts > 1 << 16 || (t->experts > 0 &&
				(t->topk <= 0 || t->topk > t->experts || t->expert_ffn <= 0)))
			return why_set(why, whylen, "model: experts, top-k and expert FFN size inconsistent (kind %d)", k);
		if (t->shared < 0 || t->shared > 64)
			return why_set(why, whylen, "model: shared experts out of range (kind %d)", k);
		if (t->hidden < 0 || t->hidden > 1 << 20)
			return why_set(why, whylen, "model: hidden_size of layer kind %d must be between 1 and %d (got %d)",
					k, 1 << 20, t->hidden);
		if (t->mlp < MLP_MODEL || t->mlp > MLP_PLAIN)
			return why_set(why, whylen, "model: unknown MLP type %d (kind %d)", t->mlp, k);
		if (model_check_encoder(m, k, why, whylen))
			return -1;
	}
	return model_check_order(m, why, whylen);
}

int model_layer_kind(const model_t *m, int l)
{
	if (l < 0)
		return -1;
	for (int r = 0; r < m->nruns; r++) {
		if (l < m->run[r].count)
			return m->run[r].kind;
		l -= m->run[r].count;
	}
	return -1;
}

void model_count_kinds(const model_t *m, int lo, int hi, int *cnt)
{
	for (int k = 0; k < MODEL_MAX_KINDS; k++)
		cnt[k] = 0;
	int start = 0;
	for (int r = 0; r < m->nruns && start < hi; r++) {
		int end = start + m->run[r].count;
		int a = lo > start ? lo : start, b = hi < end ? hi : end;
		if (b > a)
			cnt[m->run[r].kind] += b - a;
		start = end;
	}
}

int model_layer_hidden(const model_t *m, int l)
{
	int k = model_layer_kind(m, l);
	return k < 0 ? 0 : model_kind_hidden(m, k);
}

bool model_uniform(const model_t *m)
{
	for (int k = 0; k < m->nkinds; k++)
		if (model_kind_hidden(m, k) != m->hidden || model_kind_gated(m, k) != m->gated || model_kind_encoder(m, k))
			return false;
	return true;
}

bool model_kind_equal(const layer_kind *a, const layer_kind *b)
{
	return a->mtp == b->mtp && model_kind_same_layer(a, b);
}

bool model_kind_same_layer(const layer_kind *a, const layer_kind *b)
{
	return a->attn == b->attn && a->hidden == b->hidden && a->mlp == b->mlp && a->heads == b->heads &&
		a->kv_heads == b->kv_heads && a->head_dim == b->head_dim && a->q_lora == b->q_lora &&
		a->kv_lora == b->kv_lora && a->qk_nope == b->qk_nope && a->qk_rope == b->qk_rope &&
		a->v_head == b->v_head && a->ffn == b->ffn && a->experts == b->experts && a->topk == b->topk &&
		a->expert_ffn == b->expert_ffn && a->shared == b->shared && a->window == b->window &&
		a->chunk == b->chunk && a->enc_tokens == b->enc_tokens && a->enc_images == b->enc_images &&
		a->proj_ffn == b->proj_ffn && a->proj_merge == b->proj_merge;
}

bool model_kind_used(const model_t *m, int k)
{
	for (int r = 0; r < m->nruns; r++)
		if (m->run[r].kind == k)
			return true;
	return false;
}

bool model_equal(const model_t *a, const model_t *b)
{
	if (strcmp(a->name, b->name) || a->hidden != b->hidden || a->vocab != b->vocab || a->gated != b->gated ||
			a->tied != b->tied || a->biases != b->biases || a->qkv_bias != b->qkv_bias ||
			a->hidden_dropout != b->hidden_dropout || a->attention_dropout != b->attention_dropout ||
			a->nruns != b->nruns || a->layers != b->layers || a->mtp_layers != b->mtp_layers ||
			!model_arch_equal(&a->arch, &b->arch))
		return false;
	/* layer by layer: kind numbers and kinds no layer uses do not matter */
	for (int r = 0; r < a->nruns; r++)
		if (a->run[r].count != b->run[r].count || !model_kind_equal(&a->kind[a->run[r].kind], &b->kind[b->run[r].kind]))
			return false;
	return true;
}

layer_params model_layer_params(const model_t *m, int k)
{
	const layer_kind *t = &m->kind[k];
	const bool gated = model_kind_gated(m, k);
	double h = model_kind_hidden(m, k);
	layer_params p = {0};
	if (t->attn == ATTN_MLA) {
		double qk = t->qk_nope + t->qk_rope;
		double q = t->q_lora > 0 ? h * t->q_lora + t->q_lora + (double)t->q_lora * t->heads * qk
					 : h * t->heads * qk;
		double kv = h * (t->kv_lora + t->qk_rope) + t->kv_lora +
			(double)t->kv_lora * t->heads * (t->qk_nope + t->v_head);
		p.attn = q + kv + (double)t->heads * t->v_head * h;
	} else {
		double qd = (double)t->heads * t->head_dim, kvd = (double)t->kv_heads * t->head_dim;
		p.attn = h * (qd + 2 * kvd) + qd * h;
		if (m->biases || t->enc_tokens > 0)
			p.attn += qd + 2 * kvd + h;
		else if (m->qkv_bias)
			p.attn += qd + 2 * kvd;
	}
	double mats = gated ? 3 : 2;
	if (t->ffn > 0 && t->experts == 0) {
		p.mlp_dense = mats * h * t->ffn;
		if (m->biases || t->enc_tokens > 0)
			p.mlp_dense += t->ffn + h;
	}
	if (t->experts > 0) {
		p.experts_routed = (double)t->experts * mats * h * t->expert_ffn;
		p.experts_shared = (double)t->shared * mats * h * t->expert_ffn;
		p.router = h * t->experts;
	}
	/* two norms per layer: LayerNorm has scale and bias, RMSNorm only a scale */
	p.norms = (gated ? 1 : 2) * 2 * h;
	if (t->mtp)
		p.extra = 2 * h * h + 2 * h; /* eh_proj and the two input norms of an MTP module */
	int n = t->proj_ffn > 0 ? model_kind_count(m, k) : 0;
	if (n > 0)
		p.extra = model_projector_params(m, k) / n;
	return p;
}

int model_kind_count(const model_t *m, int k)
{
	int n = 0;
	for (int r = 0; r < m->nruns; r++)
		if (m->run[r].kind == k)
			n += m->run[r].count;
	return n;
}

double model_projector_params(const model_t *m, int k)
{
	const layer_kind *t = &m->kind[k];
	if (t->proj_ffn <= 0)
		return 0;
	/* Linear(h * merge -> ffn) + bias, Linear(ffn -> hidden_size) + bias (LLaVA-1.5's
	 * mlp2x_gelu projector; Qwen2-VL's PatchMerger with merge 4) */
	double in = (double)model_kind_hidden(m, k) * (t->proj_merge > 1 ? t->proj_merge : 1), f = t->proj_ffn;
	return in * f + f + f * m->hidden + m->hidden;
}

double model_params_sum(const layer_params *p)
{
	return p->attn + p->mlp_dense + p->experts_routed + p->experts_shared + p->router +
		p->norms + p->extra;
}

double model_params_active(const model_t *m, int k, const layer_params *p)
{
	const layer_kind *t = &m->kind[k];
	double routed = t->experts > 0 ? p->experts_routed * t->topk / t->experts : 0;
	return p->attn + p->mlp_dense + routed + p->experts_shared + p->router + p->norms + p->extra;
}

double model_layer_active(const model_t *m, int k)
{
	layer_params p = model_layer_params(m, k);
	return model_params_active(m, k, &p);
}

static double embed_params(const model_t *m)
{
	double e = (double)m->hidden * m->vocab;
	return (m->tied ? e : 2 * e) + (m->gated ? 1 : 2) * (double)m->hidden; /* + final norm */
}

double model_sum_runs(const model_t *m, const double *per_kind, bool with_mtp)
{
	double sum = embed_params(m);
	for (int r = 0; r < m->nruns; r++) {
		int k = m->run[r].kind;
		if (m->kind[k].mtp && !with_mtp)
			continue;
		sum += m->run[r].count * per_kind[k];
	}
	return sum;
}

void model_sum_runs2(const model_t *m, const double *per_kind, const double *active, double *total,
		double *active_sum)
{
	double e = embed_params(m), t = e, a = e;
	for (int r = 0; r < m->nruns; r++) {
		int k = m->run[r].kind;
		t += m->run[r].count * per_kind[k];
		if (!m->kind[k].mtp)
			a += m->run[r].count * active[k];
	}
	*total = t;
	*active_sum = a;
}

double model_total_params(const model_t *m, bool with_mtp)
{
	double per_kind[MODEL_MAX_KINDS];
	for (int k = 0; k < m->nkinds; k++) {
		layer_params p = model_layer_params(m, k);
		per_kind[k] = model_params_sum(&p);
	}
	return model_sum_runs(m, per_kind, with_mtp);
}

double model_active_params(const model_t *m)
{
	double per_kind[MODEL_MAX_KINDS];
	for (int k = 0; k < m->nkinds; k++)
		per_kind[k] = model_layer_active(m, k);
	return model_sum_runs(m, per_kind, false);
}

int model_max_experts(const model_t *m)
{
	int e = 0;
	for (int k = 0; k < m->nkinds; k++)
		if (m->kind[k].experts > e)
			e = m->kind[k].experts;
	return e;
}
