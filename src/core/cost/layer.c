/* layer.c - one layer of a kind, composed from the physics modules (layer.h).
 *
 * Sources: FLOPs per layer after Narayanan et al. 2021 (arXiv 2104.04473) and Megatron-Core's
 * num_floating_point_operations (GQA, SwiGLU, MoE): 2 FLOPs per parameter per token forward
 * plus the attention core, backward twice the forward. Element-wise traffic: two norms, two
 * bias-dropout-residual adds, rotary (or bias) on Q and K and the MLP activation, each
 * streaming its tensors through HBM; backward twice. */

#include "core/framework.h"
#include "core/cost/layer.h"
#include "core/cost/memory.h"
#include "core/cost/recompute.h"

void layer_shape_init(const cost_ctx *x, int k, layer_shape *sh)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const layer_kind *t = &m->kind[k];
	double tp = s->tp;
	sh->t = t;
	sh->h = model_kind_hidden(m, k);
	sh->tp = tp;
	sh->tok = x->tok;
	sh->tsp = x->tok_sp;
	sh->heads_l = (double)t->heads / tp;
	sh->kv_l = t->attn == ATTN_MLA ? sh->heads_l : (t->kv_heads >= tp ? (double)t->kv_heads / tp : 1.0);
	sh->g = model_kind_gated(m, k) ? 2.0 : 1.0;
	sh->hdrop = m->hidden_dropout > 0;
	sh->adrop = m->attention_dropout > 0;
	sh->mla = t->attn == ATTN_MLA;
	sh->causal = t->enc_tokens <= 0;
	sh->dense_mlp = t->ffn > 0 && t->experts == 0;
	sh->moe = t->experts > 0;
	if (sh->mla) {
		double qk = t->qk_nope + t->qk_rope;
		sh->qd = sh->heads_l * qk;
		sh->kd = sh->heads_l * qk;
		sh->vd = sh->heads_l * t->v_head;
		sh->od = sh->vd;
	} else {
		sh->qd = sh->heads_l * t->head_dim;
		sh->kd = sh->vd = sh->kv_l * t->head_dim;
		sh->od = sh->qd;
	}
	/* keys each query attends to, as a full-attention length whose causal half is the
	 * attended pairs: a sliding window w leaves s*w - w^2/2 pairs (2w - w^2/s); chunks of c
	 * tokens, causal inside each chunk, s*c/2 (c) */
	sh->kv_len = x->seq;
	if (t->window > 0 && t->window < sh->kv_len)
		sh->kv_len = 2.0 * t->window - (double)t->window * t->window / x->seq;
	if (t->chunk > 0 && t->chunk < sh->kv_len)
		sh->kv_len = t->chunk;
	sh->scores = x->b * sh->heads_l * (x->seq / s->cp) * x->seq;
	sh->fl = t->ffn / tp;
	sh->ef = t->expert_ffn / (double)s->etp;
	sh->tm = x->tok_moe * t->topk;
	/* the busiest expert rank sets the pace and the memory peak: its tokens are the
	 * capacity factor times the mean (the useful FLOPs stay those of tm), less what
	 * redundant experts rebalance (strat_moe_imbalance) */
	sh->tml = sh->tm * (s->moe_redundant > 0 ? strat_moe_imbalance(s, x->moe_cf, t->experts) : x->moe_cf);
	/* expert tensor parallelism splits each expert's matrices over etp ranks, and every one
	 * of them computes its slice for all the tokens routed to the expert within the group:
	 * the dispatched tokens are gathered over the expert-TP group (Megatron-Core's
	 * MoEAlltoAllTokenDispatcher with expert_tensor_parallel_size, all-gather before and
	 * reduce-scatter after the experts), so a rank's expert GEMMs see etp times its own */
	sh->etm = sh->tm * s->etp;
	sh->etml = sh->tml * s->etp;
	sh->sf = (double)t->shared * t->expert_ffn / tp;
}

/* Parameters held by one device, compute seconds and stored bytes of the three passes. */
static void layer_compute(const cost_ctx *x, int k, const layer_parts *p, layer_cost *o)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const layer_shape *sh = &p->sh;
	const layer_kind *t = sh->t;
	double tp = s->tp;
	layer_params lp = model_layer_params(m, k);
	/* bytes per decoder token of what crosses a stage boundary after this layer: an
	 * encoder's patches per sample over the text tokens */
	o->width = model_kind_width(m, k, s->seq);
	o->params = model_params_sum(&lp);
	o->params_active = model_params_active(m, k, &lp);
	o->p_dense = (lp.attn + lp.mlp_dense + lp.experts_shared) / tp + lp.norms + lp.router + lp.extra / tp;
	if (sh->moe)
		o->p_expert = lp.experts_routed / ((double)s->ep * s->etp) * strat_moe_replica(s, sh->t->experts);
	double proj = p->ap.f + p->mlp.t; /* forward GEMM time */
	o->f_comp = proj + p->core.f + p->elem_f + p->launch;
	o->b_in = proj + p->core.b + 2 * p->elem_f + p->launch;
	o->b_w = proj;
	if (sh->moe && s->fp8_cache == FP8C_DEEPSEEK) /* the SwiGLU output, recomputed (memory.c) */
		o->b_in += compute_elem(x, p->mlp.moe_fn_elem);
	o->act[RC_NONE] = p->act.attn + p->act.core + p->act.mlp;
	o->act[RC_FULL] = p->act.input;
	o->work = p->act.work;
	/* FLOPs per device and micro-batch (core_fl is already per device) */
	/* the projector's share (extra) runs on merged tokens: mlp.c counts its FLOPs */
	double active = lp.attn + lp.mlp_dense + lp.experts_shared + lp.router + (t->proj_ffn > 0 ? 0 : lp.extra) +
		(sh->moe ? lp.experts_routed * t->topk / t->experts : 0);
	double fwd = 2.0 * active * (x->b * x->seq / s->cp) / tp + p->ap.core_fl + p->mlp.proj_fl;
	o->flops_fwd = fwd;
	o->flops_model = 3 * fwd;
}

/* The parts of a layer of kind k: shape, attention, MLP, stored bytes, element-wise work.
 * like: the parts of a kind with the same attention block, whose projections and core are
 * taken as they are (NULL: priced here). */
static void layer_parts_of(const cost_ctx *x, int k, const layer_parts *like, layer_parts *p)
{
	layer_shape *sh = &p->sh;
	layer_shape_init(x, k, sh);
	if (like) {
		p->ap = like->ap;
		p->core = like->core;
	} else {
		p->ap = attn_project(x, sh);
		p->core = compute_attn_core(x, sh, p->ap.core_fl);
	}
	p->mlp = mlp_price(x, sh);
	p->act = mem_layer_acts(x, sh);
	if (sh->t->proj_ffn > 0)
		p->act.mlp += mlp_projector(x, sh, &p->mlp);
	double elem = sh->tsp * sh->h * ACT_BYTES * (4 + 6 + (sh->hdrop ? 1 : 0)) +
		sh->tok * (sh->qd + sh->kd) * ACT_BYTES * 2 + p->mlp.elem;
	p->elem_f = compute_elem(x, elem);
	p->launch = x->c->eff.layer_us * 1e-6 + p->mlp.launch;
}

/* Compose kind k's costs from its parts: time, parameters, communication, recomputation. */
static void layer_finish(const cost_ctx *x, int k, const layer_parts *p, layer_cost *o)
{
	/* the fields that only some layers set (expert parameters, TP, CP and EP
	 * communication); the modules below set every other one. Not a memset of the whole:
	 * GCC makes that a `rep stos`, slow for its size, once per kind and evaluation */
	o->p_expert = 0;
	o->tp_f = o->tp_b = o->cp_f = o->cp_b = o->ep_f = o->ep_b = 0;
	layer_compute(x, k, p, o);
	lcomm_price(x, p, o);
	o->flops_sel = recomp_megatron(x, p, o);
	if (x->fw->per_op_sac)
		recomp_torchtitan(x, p, o);
}

void layer_price(const cost_ctx *x, int k, layer_cost *o)
{
	cost_ctx own;
	x = ctx_kind(x, k, &own);
	layer_parts p;
	layer_parts_of(x, k, NULL, &p);
	layer_finish(x, k, &p, o);
}

/* An MTP module's layer is kind j's layer plus the MTP projection (mlp.c, the last GEMM of
 * its MLP block): the index of such a j before k, or -1. */
static int mtp_base(const model_t *m, int k)
{
	if (!m->kind[k].mtp)
		return -1;
	for (int j = 0; j < k; j++)
		if (!m->kind[j].mtp && model_kind_same_layer(&m->kind[j], &m->kind[k]))
			return j;
	return -1;
}

/* Whether kinds a and b have the same attention block: every field attn_project and
 * compute_attn_core read through the layer shape. */
static bool same_attention(const model_t *m, int a, int b)
{
	const layer_kind *s = &m->kind[a], *t = &m->kind[b];
	return model_kind_hidden(m, a) == model_kind_hidden(m, b) && s->attn == t->attn && s->heads == t->heads &&
		s->kv_heads == t->kv_heads && s->head_dim == t->head_dim && s->q_lora == t->q_lora &&
		s->kv_lora == t->kv_lora && s->qk_nope == t->qk_nope && s->qk_rope == t->qk_rope &&
		s->v_head == t->v_head && s->window == t->window && s->chunk == t->chunk &&
		s->enc_tokens == t->enc_tokens && s->enc_images == t->enc_images;
}

void layer_price_all(const cost_ctx *x, layer_cost *kc)
{
	const model_t *m = x->m;
	layer_parts p[MODEL_MAX_KINDS];
	for (int k = 0; k < m->nkinds; k++) {
		cost_ctx own;
		const cost_ctx *xk = ctx_kind(x, k, &own);
		int j = mtp_base(m, k);
		if (j < 0) {
			/* dense and MoE layers of one model usually share their attention (DeepSeek-V3:
			 * five MLA GEMMs), so it is priced once */
			int a = 0;
			while (a < k && !same_attention(m, a, k))
				a++;
			layer_parts_of(xk, k, a < k ? &p[a] : NULL, &p[k]);
		} else { /* the same parts, the projection added where mlp_price adds it */
			p[k] = p[j];
			p[k].sh.t = &m->kind[k];
			p[k].mlp.t += mlp_mtp_proj(x, &p[k].sh);
		}
		layer_finish(xk, k, &p[k], &kc[k]);
	}
}
