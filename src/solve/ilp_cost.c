/* ilp_cost.c - pricing a stage from the core's per-kind costs, the schedule's makespan
 * form and the split of idle time. Mirrors eval_run's per-stage sums; test_ilp checks
 * the even split priced here against eval_run stage by stage. */
#include "solve/ilp_int.h"
#include "core/cost/schedule.h"

#include <math.h>

void ilp_price_stage(const eval_costs *ec, int nkinds, int st, const ilp_mix *x, ilp_price *o)
{
	const int p = ec->pp;
	double pd = 0, pe = 0, act = 0, work = 0, f = 0, b = 0, w = 0, rc = 0, extra = 0;
	for (int k = 0; k < nkinds; k++) {
		const eval_kind_cost *q = &ec->kind[k];
		const int *n = x->n[k];
		double nk = n[RC_NONE] + n[RC_SELECTIVE] + n[RC_FULL];
		if (nk == 0)
			continue;
		pd += nk * q->p_dense;
		pe += nk * q->p_expert;
		for (int mode = 0; mode < RC_COUNT; mode++)
			act += n[mode] * q->act[mode];
		if (q->work > work)
			work = q->work;
		if (n[RC_FULL] + n[RC_SELECTIVE] > 0 && q->act[RC_NONE] > work)
			work = q->act[RC_NONE]; /* a recomputed layer is materialised whole */
		double r = n[RC_FULL] * q->rc[RC_FULL] + n[RC_SELECTIVE] * q->rc[RC_SELECTIVE];
		f += nk * q->fwd;
		b += nk * q->bwd + r;
		w += nk * q->wgrad;
		rc += r;
	}
	if (p > 1) { /* one activation and one gradient send per chunk */
		f += ec->vpp * ec->p2p;
		b += ec->vpp * ec->p2p;
	}
	if (st == 0) {
		pd += ec->emb_params;
		f += ec->emb_fwd;
		b += ec->emb_bwd;
		extra = ec->emb_act;
	}
	if (st == p - 1) {
		pd += ec->head_params;
		f += ec->head_fwd;
		b += ec->head_bwd;
		w += ec->head_wgrad;
	}
	if (ec->dualpipe) {
		pd *= 2;
		pe *= 2;
	}
	o->f = f;
	o->b = b;
	o->w = w;
	o->rc = rc;
	o->work = work;
	o->mem = pd * (ec->wb + ec->gb + ec->ob) + pe * (ec->wbe + ec->gbe + ec->obe) +
		ec->inflight[st] * (act + extra) + (st == p - 1 ? ec->logits : 0) + work + ec->buffers;
}

void ilp_form_init(const eval_costs *ec, ilp_form *f)
{
	const int p = ec->pp, m = ec->microbatches, v = ec->vpp;
	f->p = p;
	f->m = m;
	f->v = v;
	f->s = strat_default();
	f->s.pp = p;
	f->s.vpp = v;
	f->s.schedule = (uint8_t)ec->schedule;
	f->extra = p > 1 && (ec->schedule == SCHED_GPIPE || ec->schedule == SCHED_ZBH1 ||
		ec->schedule == SCHED_ZBH2 || ec->schedule == SCHED_ZBV || ec->schedule == SCHED_DUALPIPE);
	f->cM = m;
	f->cS = f->cZ = 0;
	f->gF = f->gB = 1;
	f->gW = 0;
	if (p == 1)
		return;
	switch (ec->schedule) {
	case SCHED_INTERLEAVED: /* m Tmax + (sum T - Tmax) / v */
		f->cM = m - 1.0 / v;
		f->cS = 1.0 / v;
		break;
	case SCHED_ZBH1:
		f->cZ = p - 1;
		f->gW = 2;
		break;
	case SCHED_ZBH2:
		f->cZ = p - 1;
		f->gW = 3;
		break;
	case SCHED_ZBV: { /* (p-1) max(0, max(F, B_in) - W): the form takes the larger of F and B_in
			   * over the layer kinds, so that it is the price unless recomputation turns it */
		double fs = 0, bins = 0;
		for (int k = 0; k < MODEL_MAX_KINDS; k++) { /* kinds past the model's are zero */
			fs += ec->kind[k].fwd;
			bins += ec->kind[k].bwd - ec->kind[k].wgrad;
		}
		f->cZ = p - 1;
		f->gF = fs >= bins;
		f->gB = fs < bins;
		f->gW = fs >= bins ? 1 : 2;
		break;
	}
	case SCHED_DUALPIPE: /* (p/2 - 1)(F&B + B - 3W) */
		f->cZ = p / 2.0 - 1;
		f->gB = 2;
		f->gW = 3;
		break;
	default: /* GPipe, 1F1B: sum T + (m - 1) Tmax */
		f->cM = m - 1;
		f->cS = 1;
		break;
	}
}

double ilp_form_g(const ilp_form *f, const ilp_price *q)
{
	return f->gF * q->f + f->gB * q->b - f->gW * q->w;
}

double ilp_form_h(const ilp_form *f, double gsum)
{
	if (f->cZ > 0)
		return f->cZ * fmax(0, gsum / f->p);
	return f->cS * gsum;
}

double ilp_form_value(const ilp_form *f, const ilp_price *st)
{
	double tmax = 0, g = 0;
	for (int s = 0; s < f->p; s++) {
		double t = st[s].f + st[s].b;
		tmax = t > tmax ? t : tmax;
		g += ilp_form_g(f, &st[s]);
	}
	return f->cM * tmax + ilp_form_h(f, g);
}

/* DualPipe's pace: the busiest pair of mirrored stages (evaluate.c), summed as the stage
 * sums are, so that a balanced pipeline's pace is exactly its mean. */
static double dual_pace(const ilp_form *f, const ilp_price *st)
{
	double pace = 0;
	for (int d = 0; d < f->p / 2; d++) {
		double T = ((st[d].f + st[d].b) + (st[f->p - 1 - d].f + st[f->p - 1 - d].b)) / 2;
		pace = T > pace ? T : pace;
	}
	return pace;
}

/* eval_run's pipeline time: m times the pace plus sched_bubble over the same sums. */
static double exact_makespan(const ilp_form *f, const ilp_price *st)
{
	sched_times t = {0, 0, 0, 0, 0, 0, 0};
	for (int s = 0; s < f->p; s++) {
		double T = st[s].f + st[s].b;
		t.tsum += T;
		t.tmax = T > t.tmax ? T : t.tmax;
		t.fmax = st[s].f > t.fmax ? st[s].f : t.fmax;
		t.bmax = st[s].b > t.bmax ? st[s].b : t.bmax;
		t.fa += st[s].f;
		t.ba += st[s].b;
		t.wa += st[s].w;
	}
	t.fa /= f->p;
	t.ba /= f->p;
	t.wa /= f->p;
	double pace = f->s.schedule == SCHED_DUALPIPE ? dual_pace(f, st) : t.tmax;
	return f->m * pace + sched_bubble(&f->s, f->m, &t);
}

double ilp_form_extra(const ilp_form *f, const ilp_price *st)
{
	if (!f->extra)
		return 0;
	double x = exact_makespan(f, st) - ilp_form_value(f, st);
	return f->s.schedule == SCHED_DUALPIPE ? x : fmax(0, x); /* DualPipe's is not positive */
}

double ilp_makespan(const ilp_form *f, const ilp_price *st)
{
	return f->extra ? exact_makespan(f, st) : ilp_form_value(f, st);
}

/* Preparation is the bubble a perfectly balanced pipeline of the same total work would
 * have; imbalance is what the slowest stage adds on top; recomputation is the average
 * device's recompute time over the step. They are written out per schedule (not as
 * differences) so that the test that they add up means something. */
void ilp_bubbles(const ilp_form *f, const ilp_price *st, double *prep, double *imb, double *rc,
		double *useful)
{
	const int p = f->p;
	double tsum = 0, tmax = 0, rsum = 0, g = 0;
	for (int s = 0; s < p; s++) {
		double t = st[s].f + st[s].b;
		tsum += t;
		tmax = t > tmax ? t : tmax;
		rsum += st[s].rc;
		g += ilp_form_g(f, &st[s]);
	}
	double tavg = tsum / p;
	*rc = f->m * rsum / p;
	*useful = f->m * (tsum - rsum) / p;
	if (p == 1) {
		*prep = *imb = 0;
	} else if (f->cZ > 0) {
		*prep = ilp_form_h(f, g);
		/* the price beyond the form; DualPipe: paced by its busiest mirrored pair */
		*imb = f->s.schedule == SCHED_DUALPIPE ? f->m * (dual_pace(f, st) - tavg) :
			f->m * (tmax - tavg) + ilp_form_extra(f, st);
	} else {
		*prep = (p - 1) * tavg * f->cS;
		*imb = f->cM * (tmax - tavg) + ilp_form_extra(f, st); /* GPipe: the phases' pacing apart */
	}
}

double ilp_ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) * 1e-6;
}
