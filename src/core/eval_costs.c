/* eval_costs.c - the per-layer-kind costs and stage extras of a strategy as tables, for the
 * bubble ILP (src/solve), which re-adds them per stage exactly as eval_run does; a test
 * checks that the even split priced from them matches eval_run stage by stage. */
#include "core/evaluate.h"
#include "core/cost/compute.h"
#include "core/cost/context.h"
#include "core/cost/dp.h"
#include "core/cost/layer.h"
#include "core/cost/memory.h"
#include "core/cost/schedule.h"
#include "core/cost/vocab.h"

#include <stdio.h>
#include <string.h>

/* Layer kinds: what one layer adds to a stage's forward, backward, recompute and bytes, from
 * their layer costs kc; the largest used kind's parameters (FSDP's unit) into *unit. */
static void kind_tables(const model_t *m, const layer_cost *kc, eval_costs *o, double *unit)
{
	*unit = 0;
	for (int k = 0; k < m->nkinds; k++) {
		const layer_cost *q = &kc[k];
		eval_kind_cost *e = &o->kind[k];
		e->fwd = q->f_comp + q->tp_f + q->cp_f + q->ep_f;
		e->bwd = q->b_in + q->b_w + q->tp_b + q->cp_b + q->ep_b;
		e->wgrad = q->b_w;
		e->rc[RC_NONE] = 0;
		e->rc[RC_FULL] = e->fwd;
		e->rc[RC_SELECTIVE] = q->sel_f;
		for (int mode = 0; mode < RC_COUNT; mode++)
			e->act[mode] = q->act[mode];
		e->work = q->work;
		e->p_dense = q->p_dense;
		e->p_expert = q->p_expert;
		if (q->p_dense + q->p_expert > *unit && model_kind_used(m, k))
			*unit = q->p_dense + q->p_expert;
	}
}

/* The narrowest layer-kind width of the model, and the widest of those and its hidden size
 * (both the hidden size when uniform). */
static void kind_widths(const model_t *m, int seq, double *wmin, double *wmax)
{
	*wmin = *wmax = m->hidden;
	if (model_uniform(m))
		return;
	*wmin = model_kind_width(m, 0, seq);
	for (int k = 0; k < m->nkinds; k++) {
		double kw = model_kind_width(m, k, seq);
		*wmin = kw < *wmin ? kw : *wmin;
		*wmax = kw > *wmax ? kw : *wmax;
	}
}

/* Stage extras, time: embedding, head(s) and P2P. These hold for any split, so with layer
 * kinds of several widths P2P is priced at the narrowest (a lower bound on every chunk's
 * transfer, which the search's time bound needs; a constant per chunk, so it moves no split
 * the ILP picks). */
static void extra_time(const cost_ctx *x, double wmin, const vocab_cost *vc, eval_costs *o)
{
	const strategy_t *s = x->s;
	comm_link pp_l = comm_pp_link(x->c, s);
	double p2p_bytes = x->tok * wmin * ACT_BYTES / x->sp_div;
	o->p2p = (s->pp > 1 ? ctx_pp_send(x, pp_l, p2p_bytes) : 0) * (o->dualpipe ? x->c->eff.contention : 1.0);
	double heads = vc->heads; /* each MTP module reuses the output head */
	o->emb_fwd = vc->emb_f + vc->tp_head;
	o->emb_bwd = vc->emb_b;
	o->head_wgrad = heads * vc->head_mm;
	o->head_fwd = heads * (o->head_wgrad / heads + compute_elem(x, x->tok * vc->Vl * 10.0) + vc->tp_head);
	o->head_bwd = heads * (2 * o->head_wgrad / heads + compute_elem(x, x->tok * vc->Vl * 8.0) + vc->tp_head);
}

/* Stage extras, memory: the embedding's and head's parameters, activations and logits, and
 * the stage buffers at the widest kind (an upper bound, so the ILP's memory stays safe). */
static void extra_memory(const cost_ctx *x, double unit, double wmax, const vocab_cost *vc, eval_costs *o)
{
	const model_t *m = x->m;
	double p2p_buf = x->tok * wmax * ACT_BYTES / x->sp_div;
	o->emb_params = vc->params;
	o->emb_act = vc->emb_act;
	o->head_params = (!m->tied || x->s->pp > 1 || o->dualpipe) ? vc->params : 0;
	o->logits = vc->logits;
	o->buffers = mem_buffers(x, 0, wmax, p2p_buf, dp_zero3_plan(x, unit).buf);
}

int eval_costs_get(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_costs *o, char *why, size_t whylen)
{
	if (strat_validate(s, m, c, devices, why, whylen))
		return -1;
	if (s->pp > EVAL_MAX_STAGES) {
		snprintf(why, whylen, "more pipeline stages than the evaluator supports (256)");
		return -1;
	}
	eval_costs_kinds(m, c, s, budget_gib, NULL, 1, o);
	return 0;
}

/* What eval_costs_kinds and eval_costs_time share: the context, the plan's counts, the
 * layer-kind tables and the time of the stage extras; *vc and *wmax for the memory part. */
static double costs_common(cost_ctx *x, const eval_kinds *k, eval_costs *o, vocab_cost *vc, double *wmax)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	o->pp = s->pp;
	o->vpp = s->vpp;
	o->microbatches = strat_microbatches(s);
	o->schedule = s->schedule;
	o->dualpipe = s->schedule == SCHED_DUALPIPE;
	eval_kinds own;
	if (!k || k->nkinds != m->nkinds) {
		own.nkinds = m->nkinds;
		layer_price_all(x, own.kc);
		k = &own;
	}
	double unit, wmin;
	kind_tables(m, k->kc, o, &unit);
	kind_widths(m, s->seq, &wmin, wmax);
	*vc = vocab_price(x);
	extra_time(x, wmin, vc, o);
	return unit;
}

void eval_costs_time(const model_t *m, const cluster_t *c, const strategy_t *s, const eval_kinds *k, eval_costs *o)
{
	cost_ctx x;
	ctx_init(&x, m, c, s);
	vocab_cost vc;
	double wmax;
	costs_common(&x, k, o, &vc, &wmax);
}

void eval_costs_kinds(const model_t *m, const cluster_t *c, const strategy_t *s, double budget_gib,
		const eval_kinds *k, int inflight, eval_costs *o)
{
	cost_ctx x;
	ctx_init(&x, m, c, s);
	const int p = s->pp, mb = strat_microbatches(s);
	o->budget = (budget_gib > 0 ? budget_gib : eval_default_budget_gib(c)) * COST_GIB;
	vocab_cost vc;
	double wmax;
	double unit = costs_common(&x, k, o, &vc, &wmax);
	double d_dense = (double)s->dp * s->cp;
	double d_exp = (double)s->dp * s->cp * s->tp / ((double)s->ep * s->etp);
	mem_state sb = mem_state_replicated(s, &x.ob, d_dense, d_exp, x.moe_rep);
	o->wb = sb.wb;
	o->gb = sb.gb;
	o->ob = sb.ob;
	o->wbe = sb.wbe;
	o->gbe = sb.gbe;
	o->obe = sb.obe;
	extra_memory(&x, unit, wmax, &vc, o);
	for (int st = 0; st < p; st++)
		o->inflight[st] = inflight ? sched_inflight(s, st, mb) : 0;
}
