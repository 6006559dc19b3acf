/* stage.c - a pipeline stage's layers, memory and time; which stages are alike (stage.h). */
#include <string.h>

#include "core/cost/stage.h"

void stage_env_init(stage_env *e, const cost_ctx *x, const layer_cost *kc)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const cluster_t *c = x->c;
	e->x = x;
	e->kc = kc;
	e->p = s->pp;
	e->v = s->vpp;
	e->mb = strat_microbatches(s);
	e->dualpipe = s->schedule == SCHED_DUALPIPE;
	e->dg = dp_groups_of(x);
	e->sb = mem_state_replicated(s, &x->ob, e->dg.d_dense, e->dg.d_exp, x->moe_rep);
	e->pp_l = comm_pp_link(c, s);
	/* a model whose layers all have the model's width prices every chunk's P2P alike,
	 * others per chunk at the width of its edges */
	e->uniform = true;
	double unit = 0;
	for (int k = 0; k < m->nkinds; k++) {
		e->uniform = e->uniform && kc[k].width == m->hidden;
		if (kc[k].p_dense + kc[k].p_expert > unit && model_kind_used(m, k))
			unit = kc[k].p_dense + kc[k].p_expert;
	}
	e->z3 = dp_zero3_plan(x, unit);
	e->p2p_bytes = x->tok * m->hidden * ACT_BYTES / x->sp_div;
	e->p2p = e->p > 1 ? ctx_pp_send(x, e->pp_l, e->p2p_bytes) : 0;
	/* DualPipe sends each chunk's activations and gradients while the paired chunk
	 * computes (DeepSeek-V3 report, sec. 3.2.1: "both all-to-all and PP communication can
	 * be fully hidden"): a send far shorter than a chunk costs only its `contention` share */
	e->p2p_seen = e->dualpipe ? c->eff.contention : 1.0;
	e->p2p_chunk = e->p2p * e->p2p_seen;
	e->even = !strat_explicit_split(s);
	if (e->even)
		e->split = strat_even_split(m->layers, e->p * e->v);
	e->vc = vocab_price(x);
}

/* Width of layer l's kind as a boundary (layer_cost.width: an encoder's scaled by its
 * patches per text token), or 0 when l is out of range. */
static double layer_width(const model_t *m, const layer_cost *kc, int l)
{
	return l >= 0 && l < m->layers ? kc[model_layer_kind(m, l)].width : 0;
}

/* Width of the larger side of the boundary before layer i (0 when neither side exists). */
static double edge_width(const model_t *m, const layer_cost *kc, int i)
{
	double a = layer_width(m, kc, i - 1), b = layer_width(m, kc, i);
	return a > b ? a : b;
}

/* Width of what a pipeline chunk of layers [lo, hi) sends and receives: the activation and
 * its gradient cross its input edge (unless it starts the model) and its output edge
 * (unless it ends it). Where the layers on the two sides of an edge differ in width, the
 * wider side is priced: a projection between widths belongs to the model, as a layer kind
 * of its own when it is described at all. */
static double chunk_width(const model_t *m, const layer_cost *kc, int lo, int hi)
{
	double w = lo > 0 ? edge_width(m, kc, lo) : 0;
	double o = hi < m->layers ? edge_width(m, kc, hi) : 0;
	w = o > w ? o : w;
	return w > 0 ? w : m->hidden;
}

/* Where a walk over the layer-kind runs stands: run ri starts at layer `start`. The chunks
 * of a stage come in layer order, so one walk serves them all. */
typedef struct {
	int ri, start;
} run_walk;

/* Add the layers of [lo, hi) to cnt by kind (no recompute ranges: one mode for all). */
static void count_runs(const model_t *m, run_walk *w, int lo, int hi, int *cnt)
{
	if (m->nruns == 1) { /* one layer kind throughout (most dense models): no walk */
		int b = hi < m->run[0].count ? hi : m->run[0].count;
		if (b > lo)
			cnt[m->run[0].kind] += b - lo;
		return;
	}
	while (w->ri < m->nruns && w->start + m->run[w->ri].count <= lo)
		w->start += m->run[w->ri++].count;
	for (int ri = w->ri, start = w->start; ri < m->nruns && start < hi; ri++) {
		int end = start + m->run[ri].count;
		int a = lo > start ? lo : start, b = hi < end ? hi : end;
		if (b > a)
			cnt[m->run[ri].kind] += b - a;
		start = end;
	}
}

/* Count layers [lo, hi) into sh by kind and recompute mode, layer by layer (recompute
 * ranges). */
static void count_layers(const model_t *m, const strategy_t *s, int lo, int hi, stage_shape *sh)
{
	for (int l = lo; l < hi; l++)
		sh->cnt[model_layer_kind(m, l)][strat_layer_recompute(s, l < m->layers ? l : m->layers - 1)] += 1;
}

void stage_shape_of(const stage_env *e, int st, stage_shape *sh)
{
	const cost_ctx *x = e->x;
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	if (s->nranges > 0)
		for (int k = 0; k < m->nkinds; k++)
			sh->cnt[k][0] = sh->cnt[k][1] = sh->cnt[k][2] = 0;
	sh->layers = 0;
	sh->p2p_sum = sh->pp2 = sh->p2p_max = 0;
	/* counts are whole numbers, so summing them as int and storing once is exact */
	int kcnt[MODEL_MAX_KINDS] = {0};
	run_walk w = {0, 0};
	for (int ch = 0; ch < e->v; ch++) {
		int lo, n;
		if (e->even)
			strat_split_span(e->split, ch * e->p + st, &lo, &n);
		else
			strat_chunk_span(s, m->layers, ch, st, &lo, &n);
		int last_chunk = (st == e->p - 1 && ch == e->v - 1);
		int hi = lo + n + (last_chunk ? m->mtp_layers : 0); /* MTP rides on the last stage */
		sh->layers += n;
		if (s->nranges == 0)
			count_runs(m, &w, lo, hi, kcnt);
		else
			count_layers(m, s, lo, hi, sh);
		if (e->p > 1) { /* one activation send and one gradient send per chunk */
			double ct = e->p2p_chunk;
			if (!e->uniform) {
				double cb = x->tok * chunk_width(m, e->kc, lo, lo + n) * ACT_BYTES / x->sp_div;
				ct = ctx_pp_send(x, e->pp_l, cb) * e->p2p_seen;
				sh->p2p_max = cb > sh->p2p_max ? cb : sh->p2p_max;
			}
			sh->p2p_sum += ct;
			sh->pp2 += 2 * ct;
		}
	}
	for (int k = 0; s->nranges == 0 && k < m->nkinds; k++) {
		sh->cnt[k][0] = sh->cnt[k][1] = sh->cnt[k][2] = 0;
		sh->cnt[k][s->recompute] = kcnt[k];
	}
}

bool stage_shape_same(const stage_env *e, const stage_shape *a, const stage_shape *b)
{
	if (a->layers != b->layers || a->p2p_sum != b->p2p_sum || a->pp2 != b->pp2 || a->p2p_max != b->p2p_max)
		return false;
	for (int k = 0; k < e->x->m->nkinds; k++)
		for (int mode = 0; mode < RC_COUNT; mode++)
			if (a->cnt[k][mode] != b->cnt[k][mode])
				return false;
	return true;
}

/* The stage's layers: every per-layer cost is linear in the counts, so each kind adds its
 * per-layer costs times its count (recompute by mode). The breakdown books recompute
 * compute under `rc` and its communication under the communication kinds. */
static void sum_layers(const stage_env *e, const stage_shape *restrict sh, stage_sum *restrict a)
{
	const model_t *m = e->x->m;
	for (int k = 0; k < m->nkinds; k++) {
		const layer_cost *q = &e->kc[k];
		const double *cnt = sh->cnt[k];
		double nk = cnt[0] + cnt[1] + cnt[2];
		if (nk == 0)
			continue;
		a->pd += nk * q->p_dense;
		a->pe += nk * q->p_expert;
		for (int mode = 0; mode < RC_COUNT; mode++)
			a->act_mb += cnt[mode] * q->act[mode];
		if (q->work > a->work)
			a->work = q->work;
		if (cnt[RC_FULL] + cnt[RC_SELECTIVE] > 0 && q->act[RC_NONE] > a->work)
			a->work = q->act[RC_NONE]; /* a recomputed layer is materialised whole */
		double rcf = cnt[RC_FULL] * (q->f_comp + q->tp_f + q->cp_f + q->ep_f) + cnt[RC_SELECTIVE] * q->sel_f;
		a->f += nk * (q->f_comp + q->tp_f + q->cp_f + q->ep_f);
		a->b += nk * (q->b_in + q->b_w + q->tp_b + q->cp_b + q->ep_b) + rcf;
		a->w += nk * q->b_w;
		a->rc += cnt[RC_FULL] * q->f_comp + cnt[RC_SELECTIVE] * q->sel_f;
		a->comp += nk * (q->f_comp + q->b_in + q->b_w);
		a->tpc += nk * (q->tp_f + q->tp_b) + cnt[RC_FULL] * q->tp_f;
		a->cpc += nk * (q->cp_f + q->cp_b) + cnt[RC_FULL] * q->cp_f;
		a->epc += nk * (q->ep_f + q->ep_b) + cnt[RC_FULL] * q->ep_f;
		a->fl_model += nk * q->flops_model;
		a->fl_hw += nk * q->flops_model + cnt[RC_FULL] * q->flops_fwd + cnt[RC_SELECTIVE] * q->flops_sel;
		if (!e->uniform && q->width > a->wst) /* the widest kind sizes the TP workspace */
			a->wst = q->width;
	}
}

/* First stage: embedding; last stage: LM head(s), loss, final norm; DualPipe: each device
 * also holds the mirrored stage's parameters. */
static void add_ends(const stage_env *e, int st, stage_sum *restrict a)
{
	const model_t *m = e->x->m;
	const vocab_cost *vc = &e->vc;
	if (st == 0) {
		a->pd += vc->params;
		a->f += vc->emb_f + vc->tp_head;
		a->b += vc->emb_b;
		a->comp += vc->emb_f + vc->emb_b;
		a->tpc += vc->tp_head;
		a->extra_act += vc->emb_act;
	}
	if (st == e->p - 1) {
		if (!m->tied || e->p > 1 || e->dualpipe)
			a->pd += vc->params;
		int heads = vc->heads; /* each MTP module reuses the output head */
		a->f += heads * (vc->head_f + vc->tp_head);
		a->b += heads * (vc->head_b + vc->tp_head);
		a->w += heads * vc->head_mm;
		a->comp += heads * (vc->head_f + vc->head_b);
		a->tpc += 2 * heads * vc->tp_head;
		a->fl_model += heads * 3 * vc->head_fl;
		a->fl_hw += heads * 3 * vc->head_fl;
	}
	if (e->dualpipe) {
		a->pd *= 2;
		a->pe *= 2;
	}
}

void stage_layers(const stage_env *e, const stage_shape *sh, stage_sum *a)
{
	/* built in a local and copied: GCC zeroes a struct of this size with `rep stos`
	 * otherwise, which costs more than the layers' sums (once per distinct stage) */
	stage_sum z = {0};
	z.f = z.b = sh->p2p_sum;
	*a = z;
	sum_layers(e, sh, a);
}

/* Activation offload (Megatron --cpu-offloading-num-layers N, Transformer Engine's
 * cpu_offload context, transformer_engine/pytorch/cpu_offload.py): the activations of N of
 * the stage's layers go to the host as the next layer computes and come back as the
 * layer after it runs backward, double-buffered; the device keeps the other layers'.
 * A layer's copy (its activation bytes over host.link_gbps) hides under one layer's
 * forward, resp. backward; the excess is exposed, in fwd and bwd and booked as `host`. */
static void act_offload(const cost_ctx *x, int layers, const stage_sum *a, stage_cost *o, eval_stage_time *tt)
{
	int k = x->s->act_offload < layers ? x->s->act_offload : layers;
	double per = a->act_mb / layers, link = cluster_host_link_gbps(x->c) * 1e9;
	double copy = per / link, fl = a->f / layers, bl = a->b / layers;
	double hf = k * (copy > fl ? copy - fl : 0), hb = k * (copy > bl ? copy - bl : 0);
	o->act_mb = a->act_mb - k * per;
	tt->fwd += hf;
	tt->bwd += hb;
	tt->host = hf + hb;
}

void stage_price(const stage_env *e, int st, const stage_shape *sh, const stage_sum *layers, stage_cost *o)
{
	const cost_ctx *x = e->x;
	const strategy_t *s = x->s;
	double h = x->m->hidden;
	stage_sum a = *layers;
	add_ends(e, st, &a);
	eval_mem *me = &o->mem;
	me->layers = sh->layers;
	me->inflight = me->activations = me->total = 0; /* the stage's own (place_stage) */
	me->weights = a.pd * e->sb.wb + a.pe * e->sb.wbe;
	me->grads = a.pd * e->sb.gb + a.pe * e->sb.gbe;
	me->optimizer = a.pd * e->sb.ob + a.pe * e->sb.obe;
	/* the embedding and the head work at the model's width, and so does a stage without
	 * layers */
	double tp_w = h, p2p_buf = e->p2p_bytes;
	if (!e->uniform) {
		tp_w = (st == 0 || st == e->p - 1 || a.wst == 0) && h > a.wst ? h : a.wst;
		p2p_buf = sh->p2p_max;
	}
	me->buffers = mem_buffers(x, a.work, tp_w, p2p_buf, e->z3.buf);
	o->act_mb = a.act_mb;
	o->extra_act = a.extra_act;
	/* ZeRO-3: parameters gathered and gradients reduce-scattered on every micro-batch */
	double zf = 0, zb = 0;
	if (s->zero == 3)
		dp_zero3(x, &e->dg, &e->z3, a.pd, a.pe, sh->layers, (st == 0) + (st == e->p - 1), a.f, a.b, &zf, &zb);
	eval_stage_time *tt = &o->tt;
	tt->fwd = a.f + zf;
	tt->bwd = a.b + zb;
	tt->wgrad = a.w;
	tt->recompute = a.rc;
	tt->compute = a.comp;
	tt->tp = a.tpc;
	tt->cp = a.cpc;
	tt->ep = a.epc;
	tt->pp = sh->pp2;
	tt->dp_exposed = zf + zb; /* ZeRO-3 exposure per micro-batch, already inside f and b */
	tt->host = 0;
	if (s->act_offload > 0 && sh->layers > 0)
		act_offload(x, sh->layers, &a, o, tt);
	tt->optimizer = dp_optimizer(x, &e->dg, a.pd, a.pe);
	o->t_dp = s->zero < 3 ? dp_sync(x, &e->dg, a.pd, a.pe) : 0;
	o->t_dp_edge = dp_edge(x, o->t_dp, a.pd + a.pe, e->z3.unit_params);
	/* the tied embedding's all-reduce over the pipeline's two ends, after the backward */
	o->t_tied = st == 0 || st == e->p - 1 ? dp_tied_embedding(x, e->pp_l, e->vc.params) : 0;
	o->fl_model = a.fl_model;
	o->fl_hw = a.fl_hw;
}

/* The chunk (index v*pp + stage) holding layer l under the even split of strat_chunk_span:
 * chunks before `fe` hold base layers, the next rem hold base + 1, the rest base. */
static int chunk_of_layer(int l, int layers, int nch)
{
	strat_split sp = strat_even_split(layers, nch);
	int base = sp.base, rem = sp.rem, fe = sp.fe;
	/* int, not long: layers are at most MODEL_MAX_LAYERS, and a 64-bit division costs
	 * several times a 32-bit one */
	int a = fe * base;
	if (l < a)
		return l / base;
	int b = a + rem * (base + 1);
	if (l < b)
		return fe + (l - a) / (base + 1);
	return fe + rem + (l - b) / base;
}

/* Mark the stages around a boundary before layer b (a change of layer kind or of recompute
 * mode): the stages holding layers b-1 and b differ from their neighbours. */
static void mark_boundary(const strategy_t *s, int layers, int b, uint8_t *start)
{
	int nch = s->pp * s->vpp;
	for (int l = b - 1; l <= b; l++) {
		if (l < 0 || l >= layers)
			continue;
		int st = chunk_of_layer(l, layers, nch) % s->pp;
		start[st] |= STAGE_SHAPE;
		if (st + 1 < s->pp)
			start[st + 1] |= STAGE_SHAPE;
	}
}

/* Between two marked stages, each chunk row v of consecutive stages moves through layers
 * with no boundary inside or at its edges, and every row's chunk size is constant: the
 * stages hold the same counts of each kind and mode, and chunks of the same widths. */
void stage_starts(const model_t *m, const strategy_t *s, uint8_t *start)
{
	int p = s->pp, nch = p * s->vpp, L = m->layers;
	/* one or two stages, or an explicit split: every stage on its own */
	if (p <= 2 || strat_explicit_split(s) || L < nch) {
		memset(start, STAGE_SHAPE, (size_t)p);
		return;
	}
	memset(start, 0, (size_t)p);
	start[0] = STAGE_SHAPE;
	start[1] = start[p - 1] = STAGE_ENDS;
	/* where the chunk size changes (strat_chunk_span's remainder; none without one) */
	strat_split sp = strat_even_split(L, nch);
	if (sp.rem > 0) {
		start[sp.fe % p] |= STAGE_SHAPE;
		if (sp.fe + sp.rem < nch)
			start[(sp.fe + sp.rem) % p] |= STAGE_SHAPE;
	}
	/* layer-kind runs of the main model, then recompute ranges */
	int b = 0;
	for (int ri = 0; ri + 1 < m->nruns; ri++) {
		b += m->run[ri].count;
		if (b >= L)
			break;
		mark_boundary(s, L, b, start);
	}
	for (int i = 0; i < s->nranges; i++) {
		mark_boundary(s, L, s->range[i].lo, start);
		mark_boundary(s, L, s->range[i].hi, start);
	}
}
