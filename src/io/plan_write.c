/* plan_write.c - the YAML form of a plan, and the atomic save the explorer's `w` uses.
 * An inline model is written as config keys when they rebuild it exactly, else as blocks
 * (per-kind shapes, widths and MLP types: what strata.layers builds), checked by loading
 * the blocks back before anything is written. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include "io/plan_write.h"
#include "io/atomic.h"
#include "io/text.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A YAML double-quoted scalar. Escaped: \ and ", and every character libyaml refuses to
 * read raw although an escape may give it (C0 controls, DEL, C1 controls, U+FFFE, U+FFFF);
 * a byte that is not UTF-8 (a name can only carry one if a caller put it there) becomes
 * U+FFFD, so whatever is in memory the text loads. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		int valid;
		size_t k = text_utf8_next(s, &valid);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else if (!valid)
			fputs("\\uFFFD", f);
		else if (k == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0)
			fprintf(f, "\\x%02x", (unsigned char)s[1]);
		else if (k == 3 && c == 0xef && (unsigned char)s[1] == 0xbf && (unsigned char)s[2] >= 0xbe)
			fprintf(f, "\\u%s", (unsigned char)s[2] == 0xbe ? "FFFE" : "FFFF");
		else
			fwrite(s, 1, k, f);
		s += k;
	}
	fputc('"', f);
}

/* The shortest decimal that reads back to exactly v. */
static void put_num(FILE *f, double v)
{
	char buf[64];
	if (v == (double)(long long)v && v > -1e15 && v < 1e15) {
		fprintf(f, "%lld", (long long)v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

static void key_num(FILE *f, const char *indent, const char *key, double v)
{
	fprintf(f, "%s%s: ", indent, key);
	put_num(f, v);
	fputc('\n', f);
}

static void key_str(FILE *f, const char *indent, const char *key, const char *v)
{
	fprintf(f, "%s%s: ", indent, key);
	put_str(f, v);
	fputc('\n', f);
}

/* ---------- inline model: back to Hugging Face config keys ---------- */

/* Rebuild the config a model came from; -1 when the layer pattern has no config form. */
static int model_to_config(const model_t *m, model_config *c)
{
	memset(c, 0, sizeof *c);
	const layer_kind *k0 = &m->kind[0];
	text_copy(c->name, sizeof c->name, m->name);
	c->hidden = m->hidden;
	c->vocab = m->vocab;
	c->gated = m->gated;
	c->tied = m->tied;
	c->biases = m->biases;
	c->qkv_bias = m->qkv_bias;
	c->hidden_dropout = m->hidden_dropout;
	c->attention_dropout = m->attention_dropout;
	c->arch = m->arch;
	c->layers = m->layers;
	c->heads = k0->heads;
	c->kv_heads = k0->kv_heads;
	c->head_dim = k0->head_dim;
	c->ffn = k0->ffn;
	c->window = k0->window;
	c->chunk = k0->chunk;
	if (k0->attn == ATTN_MLA) {
		c->q_lora = k0->q_lora;
		c->kv_lora = k0->kv_lora;
		c->qk_nope = k0->qk_nope;
		c->qk_rope = k0->qk_rope;
		c->v_head = k0->v_head;
	}
	c->mtp = m->mtp_layers;
	int moe = -1;
	for (int k = 0; k < m->nkinds; k++)
		if (m->kind[k].experts > 0 && !m->kind[k].mtp && moe < 0)
			moe = k;
	if (moe < 0)
		return 0;
	c->experts = m->kind[moe].experts;
	c->topk = m->kind[moe].topk;
	c->moe_ffn = m->kind[moe].expert_ffn;
	c->shared = m->kind[moe].shared;
	/* MoE layers are those l >= first_k_dense_replace with l % moe_layer_freq == 0: read
	 * both off the first two MoE layers */
	int first = -1, second = -1;
	for (int l = 0; l < m->layers && second < 0; l++) {
		if (model_layer_kind(m, l) != moe)
			continue;
		if (first < 0)
			first = l;
		else
			second = l;
	}
	if (first < 0)
		return -1;
	c->moe_freq = second > 0 ? second - first : (first > 0 ? first : 1);
	c->first_k_dense = first;
	/* the keys count from zero (moe_layer_freq) or from one (decoder_sparse_step): any
	 * other phase has no config form, and the caller's round trip sends it to blocks */
	c->moe_phase = first % c->moe_freq;
	if (c->moe_phase != 0 && c->moe_phase != c->moe_freq - 1)
		return -1;
	return 0;
}

/* The model_arch keys that are stated, under their Hugging Face names. */
static void put_arch(FILE *f, const model_arch *a, const char *ind)
{
	if (a->norm)
		key_num(f, ind, a->norm == MODEL_NORM_RMS ? "rms_norm_eps" : "layer_norm_eps", a->norm_eps);
	if (a->pos == MODEL_POS_LEARNED)
		fprintf(f, "%sposition_embedding_type: absolute\n", ind);
	else if (a->pos == MODEL_POS_ROPE && !a->rope_theta)
		fprintf(f, "%sposition_embedding_type: rope\n", ind);
	if (a->rope_theta > 0)
		key_num(f, ind, "rope_theta", a->rope_theta);
	if (a->rotary_pct > 0)
		key_num(f, ind, "partial_rotary_factor", a->rotary_pct);
	if (a->rope_scaling[0] || a->rope_factor > 0 || a->mscale > 0 || a->mscale_all_dim > 0) {
		fprintf(f, "%srope_scaling: {rope_type: \"%s\", factor: %.17g, mscale: %.17g, mscale_all_dim: %.17g}\n", ind,
				a->rope_scaling, a->rope_factor, a->mscale, a->mscale_all_dim);
	}
	if (a->max_pos > 0)
		fprintf(f, "%smax_position_embeddings: %d\n", ind, a->max_pos);
}

/* The model-wide keys of a model in the blocks form, each line prefixed with ind. */
static void put_model_wide(FILE *f, const model_t *m, const char *ind)
{
	key_str(f, ind, "name", m->name);
	fprintf(f, "%shidden_size: %d\n%svocab_size: %d\n%shidden_act: %s\n%stie_word_embeddings: %s\n", ind, m->hidden,
			ind, m->vocab, ind, m->gated ? "silu" : "gelu", ind, m->tied ? "true" : "false");
	if (m->biases)
		fprintf(f, "%sbias: true\n", ind);
	if (m->qkv_bias)
		fprintf(f, "%sattention_bias: true\n", ind);
	if (m->hidden_dropout > 0)
		key_num(f, ind, "hidden_dropout", m->hidden_dropout);
	if (m->attention_dropout > 0)
		key_num(f, ind, "attention_dropout", m->attention_dropout);
	put_arch(f, &m->arch, ind);
}

/* One run of layers as a block mapping on one line (the keys of strata.dense/moe/mla). */
static void put_block(FILE *f, const layer_kind *t, int count)
{
	fprintf(f, "{block: %s, layers: %d", t->attn == ATTN_MLA ? "mla" : t->experts > 0 ? "moe" : "dense", count);
	if (t->mtp)
		fputs(", mtp: true", f);
	if (t->hidden > 0)
		fprintf(f, ", hidden_size: %d", t->hidden);
	if (t->mlp != MLP_MODEL)
		fprintf(f, ", hidden_act: %s", t->mlp == MLP_GATED ? "silu" : "gelu");
	fprintf(f, ", num_attention_heads: %d, head_dim: %d", t->heads, t->head_dim);
	if (t->attn == ATTN_MLA)
		fprintf(f, ", q_lora_rank: %d, kv_lora_rank: %d, qk_nope_head_dim: %d, qk_rope_head_dim: %d, v_head_dim: %d",
				t->q_lora, t->kv_lora, t->qk_nope, t->qk_rope, t->v_head);
	else
		fprintf(f, ", num_key_value_heads: %d", t->kv_heads);
	if (t->window > 0)
		fprintf(f, ", sliding_window: %d", t->window);
	if (t->chunk > 0)
		fprintf(f, ", attention_chunk_size: %d", t->chunk);
	if (t->ffn > 0)
		fprintf(f, ", intermediate_size: %d", t->ffn);
	if (t->experts > 0)
		fprintf(f, ", n_routed_experts: %d, num_experts_per_tok: %d, moe_intermediate_size: %d, n_shared_experts: %d",
				t->experts, t->topk, t->expert_ffn, t->shared);
	if (t->enc_tokens > 0)
		fprintf(f, ", image_tokens: %d, images_per_sample: %d", t->enc_tokens, t->enc_images);
	if (t->proj_ffn > 0)
		fprintf(f, ", projector_intermediate_size: %d", t->proj_ffn);
	if (t->proj_merge > 0)
		fprintf(f, ", projector_merge: %d", t->proj_merge);
	fputs("}", f);
}

/* The blocks form of a model (a mapping, each line prefixed with ind). */
static void put_blocks_model(FILE *f, const model_t *m, const char *ind)
{
	put_model_wide(f, m, ind);
	fprintf(f, "%sblocks:\n", ind);
	for (int r = 0; r < m->nruns; r++) {
		fprintf(f, "%s  - ", ind);
		put_block(f, &m->kind[m->run[r].kind], m->run[r].count);
		fputc('\n', f);
	}
}

/* 1 when the blocks form of m loads back to m exactly (a kind no block expresses, such as
 * an MoE layer that also has a dense MLP, or a kind no run uses, would not). */
static int blocks_roundtrip(const model_t *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	if (!mf)
		return 0;
	put_blocks_model(mf, m, "");
	int bad = ferror(mf);
	if (fclose(mf) || bad) {
		free(text);
		return 0;
	}
	model_t *back = malloc(sizeof *back);
	char why[256];
	int ok = back && !plan_model_from_text(back, text, "model", why, sizeof why) && model_equal(back, m);
	free(back);
	free(text);
	return ok;
}

static int write_model(FILE *f, const model_t *m, char *err, size_t n)
{
	model_config c;
	model_t back;
	char why[256];
	if (model_to_config(m, &c) || model_from_config(&back, &c, why, sizeof why) || !model_equal(&back, m)) {
		/* layer kinds of several shapes or widths: the blocks form */
		if (!blocks_roundtrip(m)) {
			snprintf(err, n, "model '%s' has a layer shape that neither config keys nor blocks can express",
					m->name);
			return -1;
		}
		fputs("model:\n", f);
		put_blocks_model(f, m, "  ");
		return 0;
	}
	fputs("model:\n", f);
	key_str(f, "  ", "name", c.name);
	fprintf(f, "  hidden_size: %d\n  intermediate_size: %d\n  num_hidden_layers: %d\n"
			"  num_attention_heads: %d\n  num_key_value_heads: %d\n  head_dim: %d\n  vocab_size: %d\n"
			"  hidden_act: %s\n  tie_word_embeddings: %s\n",
			c.hidden, c.ffn, c.layers, c.heads, c.kv_heads, c.head_dim, c.vocab, c.gated ? "silu" : "gelu",
			c.tied ? "true" : "false");
	if (c.biases)
		fputs("  bias: true\n", f);
	if (c.qkv_bias)
		fputs("  attention_bias: true\n", f);
	if (c.window > 0)
		fprintf(f, "  sliding_window: %d\n", c.window);
	if (c.chunk > 0)
		fprintf(f, "  attention_chunk_size: %d\n", c.chunk);
	if (c.hidden_dropout > 0)
		key_num(f, "  ", "hidden_dropout", c.hidden_dropout);
	if (c.attention_dropout > 0)
		key_num(f, "  ", "attention_dropout", c.attention_dropout);
	put_arch(f, &c.arch, "  ");
	if (c.experts > 0)
		fprintf(f, "  n_routed_experts: %d\n  num_experts_per_tok: %d\n  moe_intermediate_size: %d\n"
				"  n_shared_experts: %d\n  first_k_dense_replace: %d\n  %s: %d\n",
				c.experts, c.topk, c.moe_ffn, c.shared, c.first_k_dense,
				c.moe_phase ? "decoder_sparse_step" : "moe_layer_freq", c.moe_freq);
	if (c.kv_lora > 0)
		fprintf(f, "  q_lora_rank: %d\n  kv_lora_rank: %d\n  qk_nope_head_dim: %d\n  qk_rope_head_dim: %d\n"
				"  v_head_dim: %d\n", c.q_lora, c.kv_lora, c.qk_nope, c.qk_rope, c.v_head);
	if (c.mtp > 0)
		fprintf(f, "  num_nextn_predict_layers: %d\n", c.mtp);
	return 0;
}

/* ---------- inline cluster ---------- */

static void write_cluster(FILE *f, const cluster_t *c)
{
	fputs("cluster:\n", f);
	key_str(f, "  ", "name", c->name);
	fputs("  device:\n", f);
	key_str(f, "    ", "name", c->device);
	key_num(f, "    ", "memory_gib", c->mem_gib);
	key_num(f, "    ", "hbm_gbps", c->hbm_gbps);
	if (c->sms > 0)
		fprintf(f, "    sms: %d\n", c->sms);
	if (c->device_power_w > 0)
		key_num(f, "    ", "power_w", c->device_power_w);
	fputs("    peak_tflops:\n", f);
	key_num(f, "      ", "bf16", c->peak_tflops[PREC_BF16]);
	key_num(f, "      ", "fp16", c->peak_tflops[PREC_FP16]);
	key_num(f, "      ", "fp8", c->peak_tflops[PREC_FP8]);
	if (c->peak_tflops[PREC_MXFP8] > 0)
		key_num(f, "      ", "mxfp8", c->peak_tflops[PREC_MXFP8]);
	if (c->peak_tflops[PREC_FP4] > 0)
		key_num(f, "      ", "fp4", c->peak_tflops[PREC_FP4]);
	fprintf(f, "  node:\n    devices: %d\n", c->node_devices);
	key_num(f, "    ", "link_gbps", c->node_gbps);
	if (c->node_power_w > 0)
		key_num(f, "    ", "power_w", c->node_power_w);
	if (c->domain_devices > 0 || c->domain_gbps > 0 || c->domain_peer_gbps > 0) {
		fprintf(f, "  domain:\n    devices: %d\n", cluster_domain_devices(c));
		key_num(f, "    ", "link_gbps", cluster_domain_gbps(c));
		if (c->domain_peer_gbps > 0)
			key_num(f, "    ", "peer_gbps", c->domain_peer_gbps);
	}
	fputs("  network:\n", f);
	key_num(f, "    ", "link_gbps", c->net_gbps);
	key_num(f, "    ", "latency_us", c->net_lat_us);
	if (c->net_not_rail)
		fputs("    rail_optimized: false\n", f);
	if (c->net_oversub > 1)
		key_num(f, "    ", "oversubscription", c->net_oversub);
	if (c->host_gbps > 0 || c->host_mem_gbps > 0) {
		fputs("  host:\n", f);
		if (c->host_gbps > 0)
			key_num(f, "    ", "link_gbps", c->host_gbps);
		if (c->host_mem_gbps > 0)
			key_num(f, "    ", "mem_gbps", c->host_mem_gbps);
	}
	if (!c->eff_set)
		return; /* inherited from the device family again on load */
	const char *key;
	fputs("  efficiency:\n", f);
	if (c->eff_from[0])
		key_str(f, "    ", "derived_from", c->eff_from);
	size_t off;
	for (size_t i = 0; (key = plan_eff_key(i, &off)); i++)
		key_num(f, "    ", key, *(const double *)((const char *)&c->eff + off));
}

/* A reference: preset names as they are, file paths made absolute. */
static void write_ref(FILE *f, const char *key, const char *ref, const char *kind, const plan_t *p,
		const paths_t *paths)
{
	char found[PATH_MAX], err[256], abs[PATH_MAX];
	int is_file = plan_ref_is_path(ref) &&
		!plan_resolve_ref(ref, kind, p->path, paths, found, sizeof found, err, sizeof err) && realpath(found, abs);
	key_str(f, "", key, is_file ? abs : ref);
}

/* ---------- strategy ---------- */

static void write_strategy(FILE *f, const strategy_t *s, int devices)
{
	fputs("strategy:\n", f);
	/* dp follows from the device count; written only when it does not (an invalid plan is
	 * saved as it is, so the user sees the same reason after loading it) */
	if ((long long)s->dp * s->tp * s->pp * s->cp != devices && s->dp > 0)
		fprintf(f, "  dp: %d\n", s->dp);
	fprintf(f, "  tp: %d\n  pp: %d\n  vpp: %d\n  cp: %d\n  cp_kind: %s\n  ep: %d\n  etp: %d\n  zero: %d\n"
			"  micro_batch: %d\n", s->tp, s->pp, s->vpp, s->cp, strat_cp_kind_name(s->cp_kind), s->ep, s->etp,
			s->zero, s->micro_batch);
	if (s->global_batch > 0)
		fprintf(f, "  global_batch: %d\n", s->global_batch);
	fprintf(f, "  seq_length: %d\n  sp: %s\n  flash_attention: %s\n  tp_comm_overlap: %s\n  vocab_parallel: %s\n"
			"  recompute: %s\n  schedule: %s\n  precision: %s\n", s->seq, s->sp ? "true" : "false",
			s->flash ? "true" : "false", s->tp_overlap ? "true" : "false", s->vocab_parallel ? "true" : "false",
			strat_recompute_name(s->recompute), strat_schedule_name(s->schedule), strat_precision_name(s->precision));
	if (s->framework != FW_AUTO) /* plans of the default framework keep their old form */
		fprintf(f, "  framework: %s\n", strat_framework_name(s->framework));
	if (s->moe_cf > 0 && s->moe_cf != 1.0)
		key_num(f, "  ", "moe_capacity_factor", s->moe_cf);
	if (s->cp_ulysses > 1) /* both written only when set */
		fprintf(f, "  cp_ulysses: %d\n", s->cp_ulysses);
	if (s->moe_redundant > 0)
		fprintf(f, "  moe_redundant_experts: %d\n", s->moe_redundant);
	if (s->loss_fusion) /* both written only when not the default */
		fputs("  loss_fusion: true\n", f);
	if (s->fp8_cache != FP8C_NONE)
		fprintf(f, "  fp8_cache: %s\n", strat_fp8_cache_name(s->fp8_cache));
	if (s->moe_disp != MOED_ALLTOALL)
		fprintf(f, "  moe_dispatcher: %s\n", strat_moe_dispatcher_name(s->moe_disp));
	if (s->moe_route != MOER_SPREAD)
		fprintf(f, "  moe_routing: %s\n", strat_moe_routing_name(s->moe_route));
	for (int k = 0; k < OPT_KEYS; k++) /* written only when not the fp32 default */
		if (s->opt_dt[k] != ODT_FP32)
			fprintf(f, "  %s: %s\n", strat_opt_key(k), strat_opt_dtype_name(s->opt_dt[k]));
	if (s->first_layers > 0)
		fprintf(f, "  first_stage_layers: %d\n", s->first_layers);
	if (s->last_layers > 0)
		fprintf(f, "  last_stage_layers: %d\n", s->last_layers);
	if (s->acct_embed)
		fputs("  account_for_embedding: true\n", f);
	if (s->acct_loss)
		fputs("  account_for_loss: true\n", f);
	if (s->opt_offload > 0)
		key_num(f, "  ", "optimizer_offload", s->opt_offload);
	if (s->act_offload > 0)
		fprintf(f, "  activation_offload: %d\n", s->act_offload);
	if (s->rc_modules && s->rc_modules != RCM_CORE_ATTN) {
		char mods[128];
		strat_rc_modules_text(s->rc_modules, mods, sizeof mods);
		fprintf(f, "  recompute_modules: [%s]\n", mods);
	}
	if (s->nranges > 0) {
		fputs("  recompute_layers: {", f);
		int first = 1;
		for (int i = 0; i < s->nranges; i++) {
			/* a later identical range wins anyway, and a YAML map cannot repeat a key */
			int later = 0;
			for (int j = i + 1; j < s->nranges; j++)
				if (s->range[j].lo == s->range[i].lo && s->range[j].hi == s->range[i].hi)
					later = 1;
			if (later)
				continue;
			fprintf(f, "%s\"%d:%d\": %s", first ? "" : ", ", s->range[i].lo, s->range[i].hi,
					strat_recompute_name(s->range[i].mode));
			first = 0;
		}
		fputs("}\n", f);
	}
	if (s->nchunks > 0) {
		fputs("  stage_layers: [", f);
		for (int i = 0; i < s->nchunks; i++)
			fprintf(f, "%s%d", i ? ", " : "", s->chunk_layers[i]);
		fputs("]\n", f);
	}
}

int plan_write(FILE *f, const plan_t *p, const paths_t *paths, char *err, size_t errlen)
{
	fputs("# strata plan (written by strata; `strata eval FILE` evaluates it)\n", f);
	if (p->id[0])
		key_str(f, "", "id", p->id);
	if (p->source[0])
		key_str(f, "", "source", p->source);
	if (!strcmp(p->model_ref, "(inline)") || !p->model_ref[0]) {
		if (write_model(f, &p->model, err, errlen))
			return -1;
	} else {
		write_ref(f, "model", p->model_ref, "models", p, paths);
	}
	if (!strcmp(p->cluster_ref, "(inline)") || !p->cluster_ref[0])
		write_cluster(f, &p->cluster);
	else
		write_ref(f, "cluster", p->cluster_ref, "clusters", p, paths);
	fprintf(f, "devices: %d\n", p->devices);
	if (p->budget_gib > 0)
		key_num(f, "", "budget_gib", p->budget_gib);
	if (p->train_tokens > 0)
		key_num(f, "", "train_tokens", p->train_tokens);
	if (p->gpu_hour_usd > 0)
		key_num(f, "", "gpu_hour_cost", p->gpu_hour_usd);
	write_strategy(f, &p->strategy, p->devices);
	if (p->npins > 0) {
		fputs("pins: [", f);
		for (int i = 0; i < p->npins; i++) {
			if (i)
				fputs(", ", f);
			put_str(f, p->pins[i]);
		}
		fputs("]\n", f);
	}
	if (p->has_expect) {
		const plan_expect *e = &p->expect;
		fputs("expect:\n", f);
		key_num(f, "  ", "step_time_s", e->step_time_s);
		key_num(f, "  ", "peak_mem_gib", e->peak_mem_gib);
		key_str(f, "  ", "mem_convention", e->mem_convention);
		key_num(f, "  ", "tflops_per_gpu", e->tflops_per_gpu);
		key_num(f, "  ", "mfu", e->mfu);
		key_str(f, "  ", "tflops_convention", e->tflops_convention);
	}
	if (ferror(f)) {
		snprintf(err, errlen, "write error");
		return -1;
	}
	return 0;
}

typedef struct {
	const plan_t *p;
	const paths_t *paths;
} save_job;

static int save_write(FILE *f, void *arg, char *err, size_t errlen)
{
	const save_job *j = arg;
	return plan_write(f, j->p, j->paths, err, errlen);
}

/* The written temporary file must load with the loader `strata eval` and the explorer
 * use, or it does not replace the plan on disk. */
static int save_check(const char *tmp, void *arg, char *err, size_t errlen)
{
	const save_job *j = arg;
	plan_t *back = malloc(sizeof *back);
	char why[1024];
	if (!back) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = plan_load_file(back, tmp, j->paths, why, sizeof why);
	free(back);
	if (rc) {
		/* the loader names the temporary file, which is about to go */
		size_t tl = strlen(tmp);
		int named = !strncmp(why, tmp, tl);
		snprintf(err, errlen, "the plan as written would not load back (%s%s)", named ? "written plan" : "",
				named ? why + tl : why);
		return -1;
	}
	return 0;
}

int plan_save(const plan_t *p, const char *path, const paths_t *paths, char *err, size_t errlen)
{
	save_job j = {p, paths};
	return atomic_write_checked(path, save_write, save_check, &j, err, errlen);
}
