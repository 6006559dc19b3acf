/* recompute.c - selective recomputation by framework (recompute.h has the sources). */
#include "core/cost/recompute.h"

double recomp_megatron(const cost_ctx *x, const layer_parts *p, layer_cost *o)
{
	const strategy_t *s = x->s;
	const layer_shape *sh = &p->sh;
	const layer_acts *a = &p->act;
	double h = sh->h, tsp = sh->tsp;
	/* The norms' outputs are the inputs of the QKV and first MLP (or router) GEMMs; MLA
	 * keeps its latents and drops the up-projected Q, K, V. */
	unsigned rm = s->rc_modules ? s->rc_modules : RCM_CORE_ATTN;
	double keep = o->act[RC_NONE], rt = 0, rfl = 0;
	if (rm & RCM_CORE_ATTN) {
		keep -= s->flash ? 0 : a->core;
		rt += p->core.sel;
		rfl += p->ap.core_fl;
	}
	if (rm & RCM_LAYERNORM) {
		keep -= 2 * 2 * h * tsp;
		rt += compute_elem(x, tsp * h * ACT_BYTES * 4);
	}
	if ((rm & RCM_MLA_UP_PROJ) && sh->mla) {
		keep -= sh->tok * (sh->qd + sh->kd + sh->vd) * ACT_BYTES;
		rt += p->ap.up_t;
		rfl += p->ap.up_fl;
	}
	if ((sh->dense_mlp && (rm & RCM_MLP)) || (sh->moe && (rm & RCM_MOE))) {
		keep -= a->mlp - 2 * h * tsp; /* all but the block's input */
		rt += p->mlp.t + compute_elem(x, p->mlp.elem) + o->ep_f;
		rfl += p->mlp.fl;
	} else if (sh->moe) {
		if ((rm & RCM_MOE_ACT) && s->fp8_cache != FP8C_DEEPSEEK) { /* else recomputed anyway */
			keep -= a->moe_fn;
			rt += compute_elem(x, p->mlp.moe_fn_elem);
		}
		if (rm & RCM_SHARED_EXPERTS) {
			keep -= a->shared;
			rt += p->mlp.sh_t + compute_elem(x, p->mlp.sh_elem);
			rfl += p->mlp.sh_fl;
		}
	}
	o->act[RC_SELECTIVE] = keep;
	o->sel_f = rt;
	return rfl;
}

/* One matmul of the per-op policy: kept bytes, or recompute seconds and FLOPs. */
typedef struct {
	int n;
	double keep, t, fl;
} sac_acc;

static void sac_mm(const cost_ctx *x, sac_acc *a, double M, double K, double N)
{
	if (++a->n % 2) {
		a->keep += M * N * ACT_BYTES;
	} else {
		a->t += compute_gemm(x, M, K, N, 1);
		a->fl += 2.0 * M * K * N;
	}
}

/* The block's matmuls in execution order. */
static void sac_walk(const cost_ctx *x, const layer_parts *p, sac_acc *a)
{
	const layer_shape *sh = &p->sh;
	const layer_kind *t = sh->t;
	double tok = sh->tok, h = sh->h;
	if (sh->mla) {
		if (t->q_lora > 0) {
			sac_mm(x, a, tok, h, t->q_lora);
			sac_mm(x, a, tok, t->q_lora, sh->qd);
		} else {
			sac_mm(x, a, tok, h, sh->qd);
		}
		sac_mm(x, a, tok, h, t->kv_lora + t->qk_rope);
		sac_mm(x, a, tok, t->kv_lora, sh->heads_l * (t->qk_nope + t->v_head));
	} else {
		sac_mm(x, a, tok, h, sh->qd);
		sac_mm(x, a, tok, h, sh->kd);
		sac_mm(x, a, tok, h, sh->vd);
	}
	sac_mm(x, a, tok, sh->od, h);
	if (sh->dense_mlp) {
		for (int i = 0; i < (int)sh->g; i++) /* w1 (gate) then w3 (up) */
			sac_mm(x, a, tok, h, sh->fl);
		sac_mm(x, a, tok, sh->fl, h);
	}
	if (sh->moe) {
		sac_mm(x, a, x->tok_moe, h, t->experts); /* router */
		if (t->shared > 0) {
			for (int i = 0; i < (int)sh->g; i++)
				sac_mm(x, a, tok, h, sh->sf);
			sac_mm(x, a, tok, sh->sf, h);
		}
	}
}

void recomp_torchtitan(const cost_ctx *x, const layer_parts *p, layer_cost *o)
{
	const strategy_t *s = x->s;
	const layer_shape *sh = &p->sh;
	sac_acc a = {0, 0, 0, 0};
	sac_walk(x, p, &a);
	if (sh->moe) {
		/* grouped expert GEMMs are not aten.mm: recomputed with their all-to-alls */
		a.t += p->mlp.routed_t + o->ep_f;
		a.fl += p->mlp.routed_fl;
	}
	/* kept: the block input, odd matmul outputs, SDPA output and log-sum-exp, the two TP
	 * reduce-scatter outputs; recomputed: even matmuls, every element-wise op, the SP
	 * all-gathers (half of the forward TP traffic) and, without flash (no SDPA kernel to
	 * keep), the attention core */
	o->act[RC_SELECTIVE] = p->act.input + a.keep + (s->flash ? sh->tok * sh->od * ACT_BYTES + p->act.core : 0) +
		(s->tp > 1 && s->sp ? 2 * sh->h * sh->tsp * ACT_BYTES : 0);
	o->sel_f = a.t + p->elem_f + p->launch + (s->tp > 1 ? 0.5 * o->tp_f : 0) + (s->flash ? 0 : p->core.sel);
	o->flops_sel = a.fl + (s->flash ? 0 : p->ap.core_fl);
}
