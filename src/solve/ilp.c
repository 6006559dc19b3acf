/* ilp.c - the ILP's entry points: prepare an instance from the core's costs and the pins,
 * price the plan as given (the comparison), build and solve the model, and turn the
 * chosen options into per-stage layers, per-layer recompute modes and the idle split. */
#include "solve/ilp_int.h"
#include "core/framework.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ILP_GLPK_OPT_BYTES 2048    /* GLPK's memory per option (column, its nonzeros, LP factors) */
#define ILP_GLPK_EXACT_MAX 20000   /* an exact DP's plan goes to GLPK up to this many options */
#define ILP_GLPK_BB_MAX 5000       /* and a DP's plan not proven, to branch-and-bound */

const char *ilp_status_name(int status)
{
	static const char *names[] = {"optimal", "feasible", "infeasible", "timeout", "cancelled", "error"};
	return status >= 0 && status <= ILP_ERROR ? names[status] : "?";
}

void ilp_free(ilp_result *r)
{
	free(r->layer_rc);
	r->layer_rc = NULL;
}

int ilp_mem_take(ilp_inst *in, size_t bytes)
{
	if (bytes > in->mem_cap - in->mem_used) {
		in->mem_hit = 1;
		return -1;
	}
	in->mem_used += bytes;
	return 0;
}

void ilp_mem_give(ilp_inst *in, size_t bytes)
{
	in->mem_used -= bytes < in->mem_used ? bytes : in->mem_used;
}

static void inst_free(ilp_inst *in)
{
	free(in->rcpin);
	free(in->stpin);
	free(in->pre);
	free(in->opt);
	free(in->warm);
	free(in->dp_cut);
	free(in->dp_rng);
	free(in->fp_opt);
	ilp_stage_free(in);
	ilp_knap_free(&in->knap);
}

/* Per-layer pins, prefix counts, model choice. 0, or -1 with why. */
static int inst_init(ilp_inst *in, const model_t *m, const eval_costs *ec, const ilp_pins *pins,
		const ilp_params *prm, char *why, size_t whylen)
{
	memset(in, 0, sizeof *in);
	in->m = m;
	in->ec = ec;
	in->prm = prm;
	clock_gettime(CLOCK_MONOTONIC, &in->t0);
	ilp_form_init(ec, &in->form);
	in->L = m->layers;
	in->p = ec->pp;
	in->v = ec->vpp;
	in->P = ec->pp * ec->vpp;
	in->nk = m->nkinds;
	in->mtp = m->mtp_layers;
	in->mtp_kind = in->mtp > 0 ? model_layer_kind(m, m->layers) : 0;
	in->tau_max = in->ub = INFINITY;
	in->lb = 0;
	in->mem_cap = (size_t)(prm->mem_cap_mib > 0 ? prm->mem_cap_mib : ILP_MEM_CAP_MIB) << 20;
	if (in->L < in->P) {
		snprintf(why, whylen, "%d layers cannot give every one of the %d pipeline chunks a layer", in->L, in->P);
		return -1;
	}
	int L = in->L;
	in->rcpin = malloc((size_t)L);
	in->stpin = malloc((size_t)L * sizeof *in->stpin);
	in->pre = calloc((size_t)ILP_NPK * (L + 1), sizeof *in->pre);
	if (!in->rcpin || !in->stpin || !in->pre ||
			ilp_knap_init(&in->knap, ec, in->nk, L + in->mtp, in)) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	memset(in->rcpin, -1, (size_t)L);
	for (int l = 0; l < L; l++)
		in->stpin[l] = -1;
	for (int s = 0; s < EVAL_MAX_STAGES; s++)
		in->cnt_pin[s] = -1;
	for (int i = 0; pins && i < pins->n; i++) {
		const ilp_pin *pn = &pins->pin[i];
		if (pn->kind == ILP_PIN_LAYERS) {
			if (pn->stage < 0 || pn->stage >= in->p || pn->value < in->v || pn->value > L) {
				snprintf(why, whylen, "pin stages[%d].layers=%d: needs a stage below pp=%d and %d to %d layers",
						pn->stage, pn->value, in->p, in->v, L);
				return -1;
			}
			in->cnt_pin[pn->stage] = pn->value;
			continue;
		}
		if (pn->lo < 0 || pn->hi > L || pn->lo >= pn->hi) {
			snprintf(why, whylen, "pin layers[%d:%d]: outside the model's %d layers", pn->lo, pn->hi, L);
			return -1;
		}
		for (int l = pn->lo; l < pn->hi; l++) {
			if (pn->kind == ILP_PIN_RECOMPUTE) {
				in->rcpin[l] = (int8_t)pn->value; /* a later pin wins, as recompute ranges do */
				continue;
			}
			if (pn->stage < 0 || pn->stage >= in->p) {
				snprintf(why, whylen, "pin layers[%d:%d].stage=%d: there are %d stages", pn->lo, pn->hi,
						pn->stage, in->p);
				return -1;
			}
			if (in->stpin[l] >= 0 && in->stpin[l] != pn->stage) {
				snprintf(why, whylen, "pin layers[%d:%d].stage=%d conflicts with an earlier pin of layer %d to stage %d",
						pn->lo, pn->hi, pn->stage, l, in->stpin[l]);
				return -1;
			}
			in->stpin[l] = (int16_t)pn->stage;
			in->has_stage_pins = 1;
		}
	}
	for (int l = 1; l < L; l++)
		if (in->stpin[l] >= 0 && in->stpin[l - 1] > in->stpin[l]) {
			snprintf(why, whylen, "stage pins out of order: layer %d on stage %d comes after a layer on stage %d",
					l, in->stpin[l], in->stpin[l - 1]);
			return -1;
		}
	int uniform = !in->has_stage_pins;
	for (int l = 0; l < L; l++) {
		int k = model_layer_kind(m, l);
		int slot = in->rcpin[l] >= 0 ? in->rcpin[l] : ILP_FREE;
		for (int pk = 0; pk < ILP_NPK; pk++)
			in->pre[pk * (L + 1) + l + 1] = in->pre[pk * (L + 1) + l] + (pk == k * 4 + slot);
		if (l > 0 && (k != model_layer_kind(m, 0) || in->rcpin[l] != in->rcpin[0]))
			uniform = 0;
	}
	/* one kind of layer everywhere: only how many layers a stage holds matters, so the
	 * stage model also serves vpp > 1 (chunks of a stage are then split evenly) */
	in->chunk_model = prm->chunk_model || (in->v > 1 && !uniform);
	in->virt = !in->chunk_model && in->v > 1;
	return 0;
}

/* Layers of each stage of a split given per chunk, with fixed/free counts. */
static void stage_counts(const ilp_inst *in, const int16_t *chunk, int st, int (*fixed)[RC_COUNT], int *nfree)
{
	int f2[MODEL_MAX_KINDS][RC_COUNT], n2[MODEL_MAX_KINDS];
	memset(fixed, 0, sizeof(int) * MODEL_MAX_KINDS * RC_COUNT);
	memset(nfree, 0, sizeof(int) * MODEL_MAX_KINDS);
	int pos = 0;
	for (int c = 0; c < in->P; c++) {
		if (c % in->p == st) {
			ilp_range_counts(in, pos, pos + chunk[c], c == in->P - 1, f2, n2);
			for (int k = 0; k < in->nk; k++) {
				nfree[k] += n2[k];
				for (int mode = 0; mode < RC_COUNT; mode++)
					fixed[k][mode] += f2[k][mode];
			}
		}
		pos += chunk[c];
	}
}

/* The plan as given: the core's split and recompute; also the same split with the
 * knapsack's recompute (a feasible point: its makespan bounds the search) and each
 * stage's least memory (for the infeasible message). */
static void price_base(ilp_inst *in, const strategy_t *base, ilp_result *r, double *ub0)
{
	int16_t chunk[STRAT_MAX_CHUNKS];
	for (int c = 0; c < in->P; c++) {
		int lo, n;
		strat_chunk_span(base, in->L, c / in->p, c % in->p, &lo, &n);
		chunk[c] = (int16_t)n;
	}
	ilp_price even[EVAL_MAX_STAGES], kn[EVAL_MAX_STAGES];
	int kfits = 1, pos = 0;
	r->even_fits = 1;
	r->even_peak = 0;
	r->bad_stage = -1;
	r->bad_over = -INFINITY;
	ilp_mix x[EVAL_MAX_STAGES];
	memset(x, 0, sizeof(ilp_mix) * in->p);
	for (int c = 0; c < in->P; c++) {
		int st = c % in->p, hi = pos + chunk[c] + (c == in->P - 1 ? in->mtp : 0);
		for (int l = pos; l < hi; l++) {
			int mode = l < in->L ? strat_layer_recompute(base, l) :
				(base->nranges ? strat_layer_recompute(base, in->L - 1) : base->recompute);
			x[st].n[model_layer_kind(in->m, l)][mode]++;
		}
		pos += chunk[c];
	}
	for (int st = 0; st < in->p; st++) {
		ilp_price_stage(in->ec, in->nk, st, &x[st], &even[st]);
		if (even[st].mem > in->ec->budget)
			r->even_fits = 0;
		if (even[st].mem > r->even_peak)
			r->even_peak = even[st].mem;
		int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
		ilp_mix mix;
		stage_counts(in, chunk, st, fixed, nfree);
		if (ilp_knap_best(&in->knap, st, (const int(*)[RC_COUNT])fixed, nfree, &mix, &kn[st]))
			kfits = 0;
		double over = kn[st].mem - in->ec->budget;
		if (over > r->bad_over) {
			r->bad_over = over;
			r->bad_stage = st;
		}
	}
	r->even_makespan = ilp_makespan(&in->form, even);
	r->even_step = r->even_makespan;
	int pinned = in->has_stage_pins;
	for (int st = 0; st < in->p; st++) {
		pinned |= in->cnt_pin[st] >= 0;
		in->base_n[st] = 0;
		for (int c = st; c < in->P; c += in->p)
			in->base_n[st] += chunk[c];
	}
	memcpy(in->base_chunk, chunk, (size_t)in->P * sizeof *chunk);
	/* a bound for the solvers, so in their form (at least m x the slowest stage) */
	*ub0 = kfits && !pinned ? ilp_form_value(&in->form, kn) : INFINITY;
}

/* Fill the result from one option per unit. */
static int extract(ilp_inst *in, const int *chosen, ilp_result *r)
{
	const int p = in->p, P = in->P, L = in->L;
	ilp_mix mix[EVAL_MAX_STAGES];
	ilp_price pr[EVAL_MAX_STAGES];
	memset(mix, 0, sizeof(ilp_mix) * p);
	if (in->round_model) {
		/* round 0's chunk as chosen; the tail shared evenly among the later chunks */
		for (int st = 0; st < p; st++) {
			const ilp_opt *o = &in->opt[chosen[st]];
			mix[st] = o->mix;
			r->chunk_layers[st] = (int16_t)(o->b - o->a);
			int sh[STRAT_MAX_CHUNKS + 1];
			ilp_tail_split(in, st, o->tail, 1, sh);
			for (int c = 1; c < in->v; c++)
				r->chunk_layers[c * p + st] = (int16_t)sh[c];
		}
	} else if (in->chunk_model) {
		for (int j = 0; j < P; j++) {
			const ilp_opt *o = &in->opt[chosen[j]];
			r->chunk_layers[j] = (int16_t)(o->b - o->a);
			for (int k = 0; k < in->nk; k++)
				for (int mode = 0; mode < RC_COUNT; mode++)
					mix[j % p].n[k][mode] += o->mix.n[k][mode];
		}
	} else {
		for (int st = 0; st < p; st++) {
			const ilp_opt *o = &in->opt[chosen[st]];
			int n = o->b - o->a;
			mix[st] = o->mix;
			for (int c = 0; c < in->v; c++) /* even chunks, the larger ones first */
				r->chunk_layers[c * p + st] = (int16_t)(n / in->v + (c < n % in->v));
		}
	}
	/* recompute modes per layer: pinned layers keep theirs; a stage's free selective and
	 * full layers of each kind are its first free layers of that kind */
	int rem[EVAL_MAX_STAGES][MODEL_MAX_KINDS][RC_COUNT];
	for (int st = 0; st < p; st++) {
		int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
		stage_counts(in, r->chunk_layers, st, fixed, nfree);
		for (int k = 0; k < in->nk; k++)
			for (int mode = 0; mode < RC_COUNT; mode++)
				rem[st][k][mode] = mix[st].n[k][mode] - fixed[k][mode];
	}
	free(r->layer_rc);
	r->layer_rc = malloc((size_t)L + in->mtp + 1);
	if (!r->layer_rc)
		return -1;
	int pos = 0;
	for (int c = 0; c < P; c++) {
		int st = c % p, hi = pos + r->chunk_layers[c] + (c == P - 1 ? in->mtp : 0);
		for (int l = pos; l < hi; l++) {
			int k = model_layer_kind(in->m, l), mode = RC_NONE;
			if (l < L && in->rcpin[l] >= 0)
				mode = in->rcpin[l];
			else if (rem[st][k][RC_FULL] > 0)
				mode = RC_FULL;
			else if (rem[st][k][RC_SELECTIVE] > 0)
				mode = RC_SELECTIVE;
			if (!(l < L && in->rcpin[l] >= 0))
				rem[st][k][mode]--;
			r->layer_rc[l] = (uint8_t)mode;
		}
		pos += r->chunk_layers[c];
	}
	for (int st = 0; st < p; st++) {
		ilp_price_stage(in->ec, in->nk, st, &mix[st], &pr[st]);
		ilp_stage *o = &r->st[st];
		memset(o, 0, sizeof *o);
		for (int c = st; c < P; c += p)
			o->layers += r->chunk_layers[c];
		for (int k = 0; k < in->nk; k++)
			for (int mode = 0; mode < RC_COUNT; mode++) {
				o->rc[mode] += mix[st].n[k][mode];
				o->kind_layers[k] += mix[st].n[k][mode];
			}
		o->mem = pr[st].mem;
		o->fwd = pr[st].f;
		o->bwd = pr[st].b;
		o->wgrad = pr[st].w;
		o->recompute = pr[st].rc;
	}
	r->makespan = ilp_makespan(&in->form, pr);
	in->extra = ilp_form_extra(&in->form, pr);
	ilp_bubbles(&in->form, pr, &r->bubble_prep, &r->bubble_imb, &r->bubble_rc, &r->useful);
	r->have_plan = 1;
	return 0;
}

static void say_infeasible(const ilp_inst *in, ilp_result *r)
{
	r->status = ILP_INFEASIBLE;
	if (r->bad_stage >= 0 && r->bad_over > 0)
		snprintf(r->why, sizeof r->why,
				"stage %d cannot fit even with full recomputation: it needs %.2f GiB, %.2f GiB over the %.2f GiB budget",
				r->bad_stage, (in->ec->budget + r->bad_over) / GIB, r->bad_over / GIB, in->ec->budget / GIB);
	else
		snprintf(r->why, sizeof r->why, "no layer split meets the pins within the %.2f GiB budget",
				in->ec->budget / GIB);
}

/* The pins a plan's named framework adds: one recompute mode for every layer when it
 * cannot recompute layer by layer (the user's own pins, after it, still win), and no
 * solve at all when it cannot give stages their own layer counts. 0, or -1 with why. */
static int framework_pins(const model_t *m, const strategy_t *base, int fw, const ilp_pins *pins,
		ilp_pins *out, char *why, size_t n)
{
	static const ilp_pins none;
	*out = pins ? *pins : none;
	/* Megatron's block method (the first N layers of every stage) is one of the ILP's
	 * patterns, but the ILP does not search within it: one mode for every layer */
	if (fw == FW_AUTO)
		fw = base->framework;
	if (fw == FW_AUTO)
		return 0;
	const fw_caps *f = fw_caps_of(fw);
	if (!f->uneven && base->pp > 1) {
		snprintf(why, n, "%s cannot give pipeline stages their own layer counts: nothing to balance", f->key);
		return -1;
	}
	if (out->n >= ILP_MAX_PINS) {
		snprintf(why, n, "too many pins (at most %d, one taken by the framework)", ILP_MAX_PINS - 1);
		return -1;
	}
	memmove(&out->pin[1], &out->pin[0], (size_t)out->n * sizeof out->pin[0]);
	out->pin[0] = (ilp_pin){ILP_PIN_RECOMPUTE, 0, m->layers, 0, base->recompute};
	out->n++;
	return 0;
}

int ilp_solve_costs(const model_t *m, const eval_costs *ec, const strategy_t *base, const ilp_pins *user_pins,
		const ilp_params *prm, ilp_result *r)
{
	static const ilp_params none;
	if (!prm)
		prm = &none;
	memset(r, 0, sizeof *r);
	r->stages = ec->pp;
	r->vpp = ec->vpp;
	r->microbatches = ec->microbatches;
	r->layers = m->layers;
	r->bad_stage = -1;
	r->bound = r->gap = NAN;
	ilp_inst in;
	int *chosen = NULL;
	ilp_pins pins_fw, *pins = &pins_fw;
	memset(&in, 0, sizeof in);
	clock_gettime(CLOCK_MONOTONIC, &in.t0); /* solve_ms is read even when the framework refuses */
	if (framework_pins(m, base, prm->framework, user_pins, pins, r->why, sizeof r->why) ||
			inst_init(&in, m, ec, pins, prm, r->why, sizeof r->why)) {
		r->status = ILP_ERROR;
		goto out;
	}
	double ub0;
	price_base(&in, base, r, &ub0);
	in.ub0 = ub0;
	if (ub0 < INFINITY) /* every schedule's makespan is at least m x the slowest stage */
		in.tau_max = ub0 / in.form.m * (1 + 1e-9);
	if (ilp_build_options(&in, r->why, sizeof r->why)) {
		r->status = ILP_ERROR;
		goto out;
	}
	r->options = in.nopt;
	int units = ilp_units(&in);
	chosen = malloc((size_t)units * sizeof *chosen);
	if (!chosen) {
		snprintf(r->why, sizeof r->why, "out of memory");
		r->status = ILP_ERROR;
		goto out;
	}
	int stopped = ilp_should_stop(&in), cancelled = stopped && prm->cancel && atomic_load(prm->cancel);
	if (in.none) { /* a DP over every plan found none */
		say_infeasible(&in, r);
		goto out;
	}
	if (!in.warm && (stopped || in.opts_cut || in.opts_many)) {
		if (stopped)
			r->status = cancelled ? ILP_CANCELLED : ILP_TIMEOUT;
		else
			r->status = ILP_ERROR;
		if (!stopped && in.mem_hit)
			snprintf(r->why, sizeof r->why, "the ILP reached its memory cap (%zu MiB) before it had a plan",
					in.mem_cap >> 20);
		else if (!stopped)
			snprintf(r->why, sizeof r->why, "out of memory");
		goto out;
	}
	/* no options, or a DP that searched everything found no plan */
	if (!in.opts_cut && !in.opts_many && (in.nopt == 0 || (!in.chunk_model && !prm->no_dp && !in.warm) ||
			(in.dp_exact && !in.dp_cut))) {
		say_infeasible(&in, r);
		goto out;
	}
	if (prm->progress && in.warm)
		prm->progress(prm->user, ilp_ms_since(&in.t0), in.ub, NAN);
	double obj = NAN, bound = NAN, gap = NAN;
	int have = 0;
	/* the DP's plan without GLPK: when the options were cut short or time is up (GLPK would
	 * only confirm it, and cannot be stopped while it loads a model), when the DP proved it
	 * optimal and GLPK's confirmation would cost more than it is worth, or when GLPK's model
	 * would not fit the memory cap */
	int exact = in.warm && in.lb > 0;
	size_t glpk_bytes = (size_t)in.nopt * ILP_GLPK_OPT_BYTES;
	int direct = in.warm && (in.opts_cut || in.opts_many || stopped || (exact && (in.nopt > ILP_GLPK_EXACT_MAX || prm->no_confirm)));
	if (in.warm && !direct && ilp_mem_take(&in, glpk_bytes))
		direct = 1;
	if (direct) {
		memcpy(chosen, in.warm, (size_t)units * sizeof *chosen);
		have = 1;
		obj = in.ub;
		if (exact) {
			r->status = ILP_OPTIMAL;
			bound = in.lb;
			gap = 0;
		} else {
			r->status = stopped && !cancelled ? ILP_TIMEOUT : ILP_FEASIBLE;
		}
	} else {
		/* a DP's plan not proven on a large model: GLPK's nodes there take long and cannot
		 * be stopped (branch-and-bound calls back between them only), and rarely better the
		 * plan: the relaxation gives its bound */
		int lp_only = in.warm && !exact && in.nopt > ILP_GLPK_BB_MAX;
		r->status = ilp_glpk_solve(&in, lp_only, chosen, &obj, &bound, &gap, r->why, sizeof r->why);
		if (in.warm)
			ilp_mem_give(&in, glpk_bytes);
		r->rows = in.nrows;
		if (lp_only && r->status == ILP_FEASIBLE) {
			memcpy(chosen, in.warm, (size_t)units * sizeof *chosen);
			obj = in.ub;
			gap = bound > 0 && bound <= obj ? (obj - bound) / obj : NAN;
		}
		have = r->status == ILP_OPTIMAL || r->status == ILP_FEASIBLE ||
			((r->status == ILP_TIMEOUT || r->status == ILP_CANCELLED) && !isnan(obj));
	}
	if (!have && in.warm && (r->status == ILP_TIMEOUT || r->status == ILP_CANCELLED)) {
		memcpy(chosen, in.warm, (size_t)units * sizeof *chosen); /* the DP's plan */
		have = 1;
		if (r->status == ILP_CANCELLED)
			r->status = ILP_FEASIBLE;
		bound = in.lb > 0 ? in.lb : NAN;
		obj = in.ub;
		gap = in.lb > 0 ? 0 : NAN;
	}
	if (r->status == ILP_INFEASIBLE)
		say_infeasible(&in, r);
	if (have) {
		if (extract(&in, chosen, r)) {
			snprintf(r->why, sizeof r->why, "out of memory");
			r->status = ILP_ERROR;
			r->have_plan = 0;
			goto out;
		}
		r->bound = bound;
		r->gap = gap;
		r->why[0] = r->status == ILP_ERROR ? r->why[0] : 0;
		if (r->status == ILP_OPTIMAL && fabs(in.extra) > 1e-9 * r->makespan) {
			r->status = ILP_FEASIBLE; /* optimal for the form, of which the price is more */
			snprintf(r->why, sizeof r->why, "not proven optimal: the schedule's price has a term the solver's "
					"form leaves out (%s)", in.form.s.schedule == SCHED_GPIPE ? "GPipe's slowest forward and "
					"slowest backward on different stages" : in.form.s.schedule == SCHED_DUALPIPE ?
					"DualPipe's pace, its busiest pair of mirrored stages" : in.form.s.schedule == SCHED_ZBV ?
					"ZB-V's slower of F and B_in, or fewer than 2pp - 1 micro-batches" :
					"fewer micro-batches than the warm-up holds");
		}
		if (in.mem_hit && r->status != ILP_OPTIMAL && r->status != ILP_ERROR)
			snprintf(r->why, sizeof r->why,
					"not proven optimal: the search reached the ILP's memory cap (%zu MiB)", in.mem_cap >> 20);
	}
out:
	r->step = r->makespan;
	r->speedup = r->have_plan && r->makespan > 0 ? r->even_makespan / r->makespan : NAN;
	r->solve_ms = ilp_ms_since(&in.t0);
	free(chosen);
	inst_free(&in);
	return r->status;
}

int ilp_solve(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget_gib,
		const ilp_pins *pins, const ilp_params *prm, ilp_result *r)
{
	eval_costs *ec = malloc(sizeof *ec);
	eval_result *ev = malloc(sizeof *ev);
	int rc;
	if (!ec || !ev) {
		memset(r, 0, sizeof *r);
		snprintf(r->why, sizeof r->why, "out of memory");
		rc = r->status = ILP_ERROR;
	} else if (eval_costs_get(m, c, devices, s, budget_gib, ec, r->why, sizeof r->why) ||
			eval_run(m, c, devices, s, budget_gib, ev)) {
		char why[256];
		snprintf(why, sizeof why, "%s", r->why);
		memset(r, 0, sizeof *r);
		snprintf(r->why, sizeof r->why, "invalid strategy: %.200s", why);
		rc = r->status = ILP_ERROR;
	} else {
		rc = ilp_solve_costs(m, ec, s, pins, prm, r);
		/* time outside the pipeline (optimizer, exposed gradient sync) as in the plan */
		double rest = ev->step - r->even_makespan;
		r->even_step = ev->step;
		if (r->have_plan) {
			r->step = r->makespan + rest;
			/* the plan's own step: its stages' optimizer and gradient-sync times differ
			 * from the even split's, which `rest` assumed */
			strategy_t planned = *s;
			if (ilp_apply(r, &planned) == 0 && eval_run(m, c, devices, &planned, budget_gib, ev) == 0)
				r->step = ev->step;
			r->speedup = r->even_step / r->step;
		}
	}
	free(ec);
	free(ev);
	return rc;
}

int ilp_apply(const ilp_result *r, strategy_t *s)
{
	if (!r->have_plan)
		return -1;
	int P = r->stages * r->vpp;
	s->nchunks = P;
	s->first_layers = s->last_layers = 0; /* the ILP's counts replace the split keys */
	s->acct_embed = s->acct_loss = false;
	for (int c = 0; c < P; c++)
		s->chunk_layers[c] = r->chunk_layers[c];
	/* recompute as ranges over the most common mode */
	int cnt[RC_COUNT] = {0, 0, 0};
	for (int l = 0; l < r->layers; l++)
		cnt[r->layer_rc[l]]++;
	int def = RC_NONE;
	for (int mode = 1; mode < RC_COUNT; mode++)
		if (cnt[mode] > cnt[def])
			def = mode;
	rc_range rg[STRAT_MAX_RANGES];
	int n = 0;
	for (int l = 0; l < r->layers;) {
		int e = l;
		while (e < r->layers && r->layer_rc[e] == r->layer_rc[l])
			e++;
		if (r->layer_rc[l] != def) {
			if (n == STRAT_MAX_RANGES)
				return -1;
			rg[n].lo = l;
			rg[n].hi = e;
			rg[n].mode = r->layer_rc[l];
			n++;
		}
		l = e;
	}
	s->recompute = (uint8_t)def;
	s->nranges = n;
	memcpy(s->range, rg, (size_t)n * sizeof rg[0]);
	return 0;
}
