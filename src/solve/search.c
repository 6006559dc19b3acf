/* search.c - the search driver: threads for the outer level, the merge, the ILP refinement
 * (inner level), the re-ranking, and the explanation of an empty result. */
#include "solve/search_int.h"
#include "core/framework.h"
#include "core/why.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int search_canon_cmp(const strategy_t *a, const strategy_t *b)
{
	const int ka[] = {a->pp, a->tp, a->cp, a->dp, a->vpp, a->ep, a->etp, a->zero, a->micro_batch, a->sp,
		a->recompute, a->schedule, a->cp_kind, a->cp_ulysses, a->moe_redundant};
	const int kb[] = {b->pp, b->tp, b->cp, b->dp, b->vpp, b->ep, b->etp, b->zero, b->micro_batch, b->sp,
		b->recompute, b->schedule, b->cp_kind, b->cp_ulysses, b->moe_redundant};
	for (size_t i = 0; i < sizeof ka / sizeof ka[0]; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

static int item_cmp(const void *pa, const void *pb)
{
	const search_item *a = pa, *b = pb;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	if (a->peak_gib != b->peak_gib) /* a tie goes to more memory headroom */
		return a->peak_gib < b->peak_gib ? -1 : 1;
	return search_canon_cmp(&a->s, &b->s);
}

static int cand_qcmp(const void *a, const void *b) { return search_cand_cmp(a, b); }

void search_free(search_result *r)
{
	free(r->item);
	r->item = NULL;
	r->n = 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* ---------- outer level ---------- */

/* Run one phase over order[from, to) on nthreads threads (the caller is worker 0);
 * returns the threads used. */
static int run_phase(search_space *sp, search_worker *w, pthread_t *tid, int nthreads, int phase, int from, int to)
{
	sp->phase = phase;
	atomic_store(&sp->next, from);
	sp->hi = to;
	int started = 1;
	/* a thread that cannot start leaves its share to the others */
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, search_worker_run, &w[started]))
			break;
	search_worker_run(&w[0]);
	for (int i = 1; i < started; i++)
		pthread_join(tid[i], NULL);
	return started;
}

/* The workers' heaps merged and sorted (best first) into a new array; NULL when out of
 * memory. */
static search_cand *merge(search_worker *w, int nthreads, int *n)
{
	int total = 0;
	for (int i = 0; i < nthreads; i++)
		total += w[i].heap.n;
	search_cand *all = malloc((size_t)(total ? total : 1) * sizeof *all);
	if (!all)
		return NULL;
	int k = 0;
	for (int i = 0; i < nthreads; i++) {
		memcpy(all + k, w[i].heap.c, (size_t)w[i].heap.n * sizeof *all);
		k += w[i].heap.n;
	}
	qsort(all, (size_t)k, sizeof *all, cand_qcmp);
	*n = k;
	return all;
}

/* The outer level: a sample pass sets the time threshold, then the full pass. Merges the
 * threads' heaps into *out (best first, at most sp->pool). */
static int outer(search_space *sp, int nthreads, search_result *r, search_cand **out, int *nout,
		double *least, strategy_t *least_s)
{
	search_worker *w = calloc((size_t)nthreads, sizeof *w);
	pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
	int rc = -1;
	if (!w || !tid)
		goto done;
	for (int i = 0; i < nthreads; i++) {
		w[i].sp = sp;
		w[i].caller = i == 0;
		w[i].r = malloc(sizeof *w[i].r);
		/* the sample keeps twice the pool: the first round takes the units of its best
		 * 2 x pool, and every one of those is among its own thread's best 2 x pool */
		w[i].heap.cap = 2 * sp->pool;
		w[i].unit_best.cap = sp->pool;
		w[i].heap.c = malloc((size_t)w[i].heap.cap * sizeof *w[i].heap.c);
		w[i].unit_best.c = malloc((size_t)sp->pool * sizeof *w[i].unit_best.c);
		w[i].col_cap = 4 * SEARCH_MAX_DIV;
		w[i].col = malloc(w[i].col_cap * sizeof *w[i].col);
		w[i].kinds = malloc(SEARCH_KINDS * sizeof *w[i].kinds);
		w[i].kinds_key = malloc(SEARCH_KINDS * sizeof *w[i].kinds_key);
		w[i].kinds_ok = calloc(SEARCH_KINDS, 1);
		/* not zeroed (colsum_ok says which entries hold a class): a small job touches a
		 * few pages of it, and zeroing 7 MB per thread cost more than such a search */
		w[i].colsum = malloc(SEARCH_COLSUMS * sizeof *w[i].colsum);
		w[i].colsum_ok = calloc(SEARCH_COLSUMS, 1);
		if (!w[i].r || !w[i].heap.c || !w[i].unit_best.c || !w[i].col || !w[i].kinds || !w[i].kinds_key ||
				!w[i].kinds_ok || !w[i].colsum || !w[i].colsum_ok)
			goto done;
	}
	/* Three rounds, each with the threshold the rounds before left: a sample of every
	 * unit; the units behind the best samples, scored whole; all the other units. Each
	 * round's threshold is known before it starts, so nothing depends on timing. */
	sp->order = malloc((size_t)(sp->nunit ? sp->nunit : 1) * sizeof *sp->order);
	unsigned char *first = calloc((size_t)(sp->nunit ? sp->nunit : 1), 1);
	if (!sp->order || !first) {
		free(first);
		goto done;
	}
	for (int i = 0; i < sp->nunit; i++)
		sp->order[i] = i;
	sp->theta = INFINITY;
	int k, na = 0;
	search_cand *all;
	/* without the time bound (a score hook, exhaustive) the sample has nothing to set */
	if (sp->bound) {
		run_phase(sp, w, tid, nthreads, 0, 0, sp->nunit);
		if (!(all = merge(w, nthreads, &k))) {
			free(first);
			goto done;
		}
		if (k >= sp->pool)
			sp->theta = all[sp->pool - 1].key;
		for (int i = 0; i < k && i < 2 * sp->pool; i++)
			if (!first[all[i].unit]) {
				first[all[i].unit] = 1;
				na++;
			}
		free(all);
	}
	/* units of the first round in index order, then the others */
	int a = 0, b = na;
	for (int i = 0; i < sp->nunit; i++)
		sp->order[first[i] ? a++ : b++] = i;
	free(first);
	for (int i = 0; i < nthreads; i++) {
		w[i].heap.n = 0;
		w[i].heap.cap = sp->pool;
	}
	r->threads = run_phase(sp, w, tid, nthreads, 1, 0, na);
	if (!(all = merge(w, nthreads, &k)))
		goto done;
	if (sp->bound && k >= sp->pool && all[sp->pool - 1].key < sp->theta)
		sp->theta = all[sp->pool - 1].key;
	free(all);
	int t2 = run_phase(sp, w, tid, nthreads, 1, na, sp->nunit);
	if (t2 > r->threads)
		r->threads = t2;

	int have_least = 0;
	for (int i = 0; i < nthreads; i++) {
		search_worker *x = &w[i];
		r->enumerated += x->enumerated;
		r->checked += x->checked;
		r->valid += x->valid;
		r->filtered += x->filtered;
		r->bounded += x->bounded;
		r->evaluated += x->evaluated;
		r->fit += x->fit;
		r->faster_than_ref += x->faster;
		if (x->have_why)
			search_note_why(sp->why, &sp->why_s, &sp->have_why, x->why, &x->why_s);
		if (x->least_peak > 0 && (!have_least || x->least_peak < *least ||
				(x->least_peak == *least && search_canon_cmp(&x->least_s, least_s) < 0))) {
			have_least = 1;
			*least = x->least_peak;
			*least_s = x->least_s;
		}
	}
	r->pruned = r->enumerated - r->checked - r->bounded;
	if (!(*out = merge(w, nthreads, &k)))
		goto done;
	*nout = k < sp->pool ? k : sp->pool;
	rc = 0;
done:
	for (int i = 0; w && i < nthreads; i++) {
		free(w[i].r);
		free(w[i].heap.c);
		free(w[i].unit_best.c);
		free(w[i].col);
		free(w[i].kinds);
		free(w[i].kinds_key);
		free(w[i].kinds_ok);
		free(w[i].colsum);
		free(w[i].colsum_ok);
	}
	free(w);
	free(tid);
	free(sp->order);
	sp->order = NULL;
	return rc;
}

/* ---------- inner level ---------- */

/* Does s's explicit split give every chunk what the even split would? */
static int even_split(const model_t *m, const strategy_t *s)
{
	if (s->nchunks == 0)
		return 1;
	strategy_t e = *s;
	e.nchunks = 0;
	for (int v = 0; v < s->vpp; v++)
		for (int st = 0; st < s->pp; st++) {
			int lo, n, lo2, n2;
			strat_chunk_span(s, m->layers, v, st, &lo, &n);
			strat_chunk_span(&e, m->layers, v, st, &lo2, &n2);
			if (n != n2)
				return 0;
		}
	return 1;
}

/* Are two strategies the same plan (degrees, settings, split, recompute per layer)? */
static int same_plan(const model_t *m, const strategy_t *a, const strategy_t *b)
{
	if (search_canon_cmp(a, b) || a->nchunks != b->nchunks || a->nranges != b->nranges)
		return 0;
	for (int i = 0; i < a->nchunks; i++)
		if (a->chunk_layers[i] != b->chunk_layers[i])
			return 0;
	for (int l = 0; l < m->layers; l++)
		if (strat_layer_recompute(a, l) != strat_layer_recompute(b, l))
			return 0;
	return 1;
}

static void item_from_cand(search_item *it, const search_cand *c)
{
	memset(it, 0, sizeof *it);
	it->s = c->s;
	it->score = c->key;
	it->step = it->even_step = c->step;
	it->peak_gib = it->even_peak_gib = c->peak / GIB;
	it->mfu = c->mfu;
	it->tokens_per_s = c->tps;
	it->ilp_status = -1;
}

/* Refine one candidate with the ILP. Returns 1 when the item is kept, 0 when the ILP
 * found no plan that honours the stage pins (the candidate then does not satisfy them, or
 * the score hook dropped the plan that does), -1 when the score hook aborted. */
static int refine(search_space *sp, const ilp_pins *lp, int need_ilp, const search_cand *c, int limit_ms,
		ilp_result *ir, eval_result *er, search_item *it, char *why, size_t whylen)
{
	const search_job *j = sp->job;
	const search_opts *o = sp->opt;
	item_from_cand(it, c);
	ilp_params prm;
	memset(&prm, 0, sizeof prm);
	prm.time_limit_ms = limit_ms;
	prm.cancel = o->cancel;
	prm.framework = strat_framework(&c->s); /* propose only what it runs */
	prm.no_confirm = 1;
	memset(ir, 0, sizeof *ir);
	int st = ilp_solve(j->model, j->cluster, j->devices, &c->s, sp->budget_gib, lp, &prm, ir);
	it->ilp_status = st;
	it->ilp_ms = ir->solve_ms;
	int plan = ir->have_plan && (st == ILP_OPTIMAL || st == ILP_FEASIBLE || st == ILP_TIMEOUT);
	if (!plan) {
		if (need_ilp && why && !*why)
			snprintf(why, whylen, "%s", ir->why);
		ilp_free(ir);
		return !need_ilp;
	}
	/* keep the even split unless the ILP is faster or the pins need its placement */
	if (!need_ilp && !(ir->step < c->step)) {
		it->ilp_applied = 1; /* the even split is the ILP's plan */
		ilp_free(ir);
		return 1;
	}
	strategy_t s = c->s;
	int applied = ilp_apply(ir, &s) == 0;
	if (even_split(sp->job->model, &s))
		s.nchunks = 0; /* the even split written out is the even split */
	if (applied) {
		if (eval_run(j->model, j->cluster, j->devices, &s, sp->budget_gib, er) || !er->fits) {
			/* the core disagrees with the ILP's pricing: keep the even split, which fits
			 * (but does not place layers as stage pins ask) */
			ilp_free(ir);
			return !need_ilp;
		}
		double key = er->step;
		if (o->score) {
			/* the ILP makes the plan faster, which a score may not like: the refined plan
			 * replaces the even split only when it scores better (or the pins need it) */
			key = search_hook_key(sp, &s, er);
			if (isnan(key) || (key == INFINITY && need_ilp) || (!need_ilp && !(key < c->key))) {
				ilp_free(ir);
				return isnan(key) ? -1 : !need_ilp;
			}
		}
		it->s = s;
		it->score = key;
		it->ilp_applied = 1;
		it->step = er->step;
		it->peak_gib = er->peak_bytes / GIB;
		it->mfu = er->mfu;
		it->tokens_per_s = er->tokens_per_s;
	} else {
		/* the plan's recompute pattern needs more ranges than a strategy holds: report the
		 * ILP's own figures; the model FLOPs are the same, so MFU scales with the time.
		 * The score hook needs an evaluation, which such a plan has not: with one, the even
		 * split stays unless the pins need the ILP's (which keeps the even split's score) */
		if (o->score && !need_ilp) {
			ilp_free(ir);
			return 1;
		}
		if (need_ilp)
			it->s = s; /* the split (which the stage pins are about) is written */
		double peak = 0;
		for (int i = 0; i < ir->stages; i++)
			peak = fmax(peak, ir->st[i].mem);
		it->step = ir->step;
		it->peak_gib = peak / GIB;
		it->mfu = c->mfu * c->step / ir->step;
		it->tokens_per_s = c->tps * c->step / ir->step;
		if (!o->score)
			it->score = it->step;
	}
	it->ilp_gain = it->even_step / it->step - 1;
	ilp_free(ir);
	return 1;
}

static int inner(search_space *sp, const pin_set *pins, const search_cand *c, int nc, search_result *r,
		char *why, size_t whylen)
{
	const search_opts *o = sp->opt;
	r->item = calloc((size_t)(nc ? nc : 1), sizeof *r->item);
	if (!r->item)
		return -1;
	ilp_pins lp;
	lp.n = 0;
	if (sp->fix[PIN_RECOMPUTE]) {
		/* a pinned recompute mode holds for every layer the range pins (which follow and
		 * win) leave alone: the ILP may not choose another */
		ilp_pin *q = &lp.pin[lp.n++];
		memset(q, 0, sizeof *q);
		q->kind = ILP_PIN_RECOMPUTE;
		q->lo = 0;
		q->hi = sp->job->model->layers;
		q->value = sp->val[PIN_RECOMPUTE];
	}
	if (pins) {
		ilp_pins more;
		pin_ilp_pins(pins, &more);
		for (int i = 0; i < more.n && lp.n < ILP_MAX_PINS; i++)
			lp.pin[lp.n++] = more.pin[i];
	}
	int need = pins && pin_needs_ilp(pins);
	ilp_result *ir = NULL;
	eval_result *er = NULL;
	if (!o->no_ilp) {
		ir = malloc(sizeof *ir);
		er = malloc(sizeof *er);
		if (!ir || !er) {
			free(ir);
			free(er);
			return -1;
		}
	}
	/* the inner level shares one time budget: a slow solve (a timeout keeps its best plan)
	 * must not stall an interactive search; candidates past the budget stay even */
	int per = o->ilp_time_limit_ms > 0 ? o->ilp_time_limit_ms : SEARCH_ILP_MS;
	double total = (o->ilp_budget_ms > 0 ? o->ilp_budget_ms : SEARCH_ILP_BUDGET_MS) / 1e3 - sp->ilp_spent;
	double t0 = now_s();
	for (int i = 0; i < nc; i++) {
		if (o->cancel && atomic_load(o->cancel)) {
			r->cancelled = 1;
			break;
		}
		search_item *it = &r->item[r->n];
		double left = total - (now_s() - t0);
		if (o->no_ilp || (left < 1e-3 && !need)) {
			item_from_cand(it, &c[i]);
			r->n++;
			continue;
		}
		if (left < 1e-3) {
			r->dropped++; /* stage pins: without the ILP the candidate does not honour them */
			continue;
		}
		r->refined++;
		int limit = (int)fmin(per, ceil(left * 1e3));
		int kept = refine(sp, &lp, need, &c[i], limit, ir, er, it, why, whylen);
		if (kept < 0)
			break; /* the score hook aborted: search_run reports it */
		if (kept)
			r->n++;
		else
			r->dropped++;
		if (o->progress)
			o->progress(o->user, 2, (double)(i + 1) / nc);
	}
	free(ir);
	free(er);
	sp->ilp_spent += now_s() - t0; /* a deeper search again (search_run) shares the budget */
	qsort(r->item, (size_t)r->n, sizeof *r->item, item_cmp);
	/* candidates that differed only in what the ILP decides (the recompute mode, say) can
	 * end as the same plan: keep its first (best, canonical) occurrence */
	int k = 0;
	for (int i = 0; i < r->n; i++) {
		int dup = 0;
		for (int j = 0; j < k && !dup; j++)
			dup = r->item[j].step == r->item[i].step && same_plan(sp->job->model, &r->item[j].s, &r->item[i].s);
		if (!dup)
			r->item[k++] = r->item[i];
	}
	r->n = k;
	return 0;
}

/* ---------- merging identical results ---------- */

static int near(double x, double y)
{
	return x == y || fabs(x - y) <= SEARCH_ALIKE_REL * fmax(fabs(x), fabs(y));
}

/* How many knobs of s are off their defaults: what makes a plan harder to run. */
static int knobs_set(const strategy_t *s)
{
	return (s->tp > 1) + (s->pp > 1) + (s->vpp > 1) + (s->cp > 1) + (s->cp > 1 && strat_cp_mode(s) != CP_RING) + (s->moe_redundant > 0) +
		(s->ep > 1) + (s->etp > 1) + (s->zero > 0) + (s->micro_batch > 1) + (s->tp > 1 && !s->sp) +
		(s->recompute != RC_NONE) + (s->pp > 1 && s->schedule != SCHED_1F1B);
}

/* Which of two strategies with identical results a merged row shows: the fewer knobs off
 * their defaults, then the smaller degrees, then the canonical order. */
static int simpler_cmp(const strategy_t *a, const strategy_t *b)
{
	int ka = knobs_set(a), kb = knobs_set(b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	double da = (double)a->tp * a->pp * a->vpp * a->cp * a->ep * a->etp * a->micro_batch;
	double db = (double)b->tp * b->pp * b->vpp * b->cp * b->ep * b->etp * b->micro_batch;
	if (da != db)
		return da < db ? -1 : 1;
	return search_canon_cmp(a, b);
}

static search_knobs knobs_of(const strategy_t *s)
{
	search_knobs k = {s->dp, s->tp, s->pp, s->vpp, s->cp, s->cp_kind, s->ep, s->etp, s->zero, s->micro_batch,
		s->sp, s->recompute, s->schedule, s->cp_ulysses, s->moe_redundant};
	return k;
}

void search_knobs_apply(const search_knobs *k, strategy_t *s)
{
	s->dp = k->dp;
	s->tp = k->tp;
	s->pp = k->pp;
	s->vpp = k->vpp;
	s->cp = k->cp;
	s->cp_kind = (uint8_t)k->cp_kind;
	s->ep = k->ep;
	s->etp = k->etp;
	s->zero = k->zero;
	s->micro_batch = k->micro_batch;
	s->sp = k->sp;
	s->recompute = (uint8_t)k->recompute;
	s->schedule = (uint8_t)k->schedule;
	s->cp_ulysses = k->cp_ulysses;
	s->moe_redundant = k->moe_redundant;
}

/* The figures the search reports of an item besides its evaluation. */
static int items_alike(const search_item *a, const search_item *b)
{
	return a->ilp_status == b->ilp_status && a->ilp_applied == b->ilp_applied && near(a->score, b->score) &&
		near(a->step, b->step) && near(a->peak_gib, b->peak_gib) && near(a->mfu, b->mfu) &&
		near(a->tokens_per_s, b->tokens_per_s) && near(a->even_step, b->even_step) &&
		near(a->even_peak_gib, b->even_peak_gib) && near(a->ilp_gain, b->ilp_gain);
}

/* Merge the items (sorted, best first) whose results are identical: every figure the
 * search reports and eval_run gives for their strategies (what eval --json prints) within
 * SEARCH_ALIKE_REL. Such strategies differ in nothing the user can measure (dp traded for
 * cp and micro-batch where both cross the same links, vpp values with the same bubble and
 * memory, ...); the simplest shows the group and counts the others. Returns how many were
 * merged, -1 when out of memory. */
static int merge_alike(const search_space *sp, search_result *r)
{
	const search_job *j = sp->job;
	eval_result *ea = malloc(sizeof *ea), *eb = malloc(sizeof *eb);
	if (!ea || !eb) {
		free(ea);
		free(eb);
		return -1;
	}
	int k = 0, merged = 0;
	for (int i = 0; i < r->n; i++) {
		search_item *it = &r->item[i];
		int into = -1, have = 0;
		/* kept items are in score order: only those within the tolerance can be alike */
		for (int g = k - 1; g >= 0 && near(r->item[g].score, it->score) && into < 0; g--) {
			if (!items_alike(&r->item[g], it))
				continue;
			if (!have && eval_run(j->model, j->cluster, j->devices, &it->s, sp->budget_gib, eb))
				break;
			have = 1;
			if (eval_run(j->model, j->cluster, j->devices, &r->item[g].s, sp->budget_gib, ea) == 0 &&
					eval_alike(ea, eb, SEARCH_ALIKE_REL))
				into = g;
		}
		if (into < 0) {
			r->item[k++] = *it;
			continue;
		}
		search_item *grp = &r->item[into];
		search_knobs add = knobs_of(&it->s);
		if (simpler_cmp(&it->s, &grp->s) < 0) {
			/* the simpler strategy shows the group, which keeps its list */
			add = knobs_of(&grp->s);
			int n = grp->alike;
			search_knobs list[SEARCH_MAX_ALIKE];
			memcpy(list, grp->alike_k, sizeof list);
			*grp = *it;
			grp->alike = n;
			memcpy(grp->alike_k, list, sizeof list);
		}
		if (grp->alike < SEARCH_MAX_ALIKE)
			grp->alike_k[grp->alike] = add;
		grp->alike++;
		merged++;
	}
	r->n = k;
	if (r->n > 1) /* an empty result may have no array */
		qsort(r->item, (size_t)r->n, sizeof *r->item, item_cmp);
	free(ea);
	free(eb);
	return merged;
}

/* ---------- driver ---------- */

static void describe(char *out, size_t n, const strategy_t *s)
{
	snprintf(out, n, "dp=%d tp=%d pp=%d vpp=%d cp=%d ep=%d etp=%d zero=%d mbs=%d sp=%s recompute=%s schedule=%s",
			s->dp, s->tp, s->pp, s->vpp, s->cp, s->ep, s->etp, s->zero, s->micro_batch, s->sp ? "on" : "off",
			strat_recompute_name(s->recompute), strat_schedule_name(s->schedule));
}

int search_run(const search_job *job, const pin_set *pins, const search_opts *o, search_result *r)
{
	static const search_opts dflt;
	if (!o)
		o = &dflt;
	memset(r, 0, sizeof *r);
	if (!job || !job->model || !job->cluster || job->devices <= 0) {
		why_set(r->why, sizeof r->why, "the job needs a model, a cluster and a device count");
		return -1;
	}
	search_opts opt = *o;
	if (opt.top <= 0)
		opt.top = 10;
	if (opt.top > SEARCH_MAX_TOP)
		opt.top = SEARCH_MAX_TOP;
	if (pins && pin_needs_ilp(pins) && opt.no_ilp) {
		why_set(r->why, sizeof r->why, "stage pins (layers[a:b].stage, stages[s].layers) need the ILP level");
		return -1;
	}
	/* a named framework that cannot train the model at all (torchtitan has no MTP module):
	 * no plan of the job runs under it, so none is proposed, and the reason is given */
	fw_issues fi;
	if (job->base.framework != FW_AUTO && fw_check_model(job->base.framework, job->model, &fi, 0) > 0) {
		why_set(r->why, sizeof r->why, "no plan of this model runs under %s: %s",
				fw_caps_of(job->base.framework)->name, fi.text[0]);
		return 0;
	}
	int nthreads = opt.threads > 0 ? opt.threads : online_cpus();
	if (nthreads > SEARCH_MAX_THREADS)
		nthreads = SEARCH_MAX_THREADS;
	/* hooks run on the caller's thread (a Lua state is single-threaded) */
	if (opt.filter || opt.score)
		nthreads = 1;

	double t0 = now_s();
	search_space *sp = malloc(sizeof *sp);
	if (!sp) {
		why_set(r->why, sizeof r->why, "out of memory");
		return -1;
	}
	if (search_space_init(sp, job, pins, &opt)) {
		why_set(r->why, sizeof r->why, "%s", sp->why);
		search_space_free(sp);
		free(sp);
		return -1;
	}
	/* the ILP re-ranks and merges candidates, so it refines more than are shown */
	int pool = opt.refine > 0 ? opt.refine : opt.no_ilp ? opt.top : (pins && pin_needs_ilp(pins) ? 4 : 2) * opt.top;
	sp->pool = pool < opt.top ? opt.top : pool;
	r->shapes = sp->shapes;
	r->shapes_valid = sp->shapes_valid;
	if (nthreads > sp->nunit)
		nthreads = sp->nunit > 0 ? sp->nunit : 1;
	search_cand *cand = NULL;
	int ncand = 0, rc = 0;
	double least = 0;
	strategy_t least_s;
	memset(&least_s, 0, sizeof least_s);
	/* a deeper pool, when merging leaves too few rows, at most this deep */
	int pool_cap = sp->pool > SEARCH_MAX_POOL ? sp->pool : SEARCH_MAX_POOL;
	double outer_s = 0, inner_s = 0, ta = t0;
	char ilp_why[256] = "";
	for (;;) {
		if (outer(sp, nthreads, r, &cand, &ncand, &least, &least_s)) {
			why_set(r->why, sizeof r->why, "out of memory");
			rc = -1;
			goto done;
		}
		if (sp->aborted)
			goto aborted;
		r->least_peak_gib = least / GIB;
		if (opt.cancel && atomic_load(opt.cancel))
			r->cancelled = 1;
		double t1 = now_s();
		outer_s += t1 - ta;
		if (!r->cancelled && inner(sp, pins, cand, ncand, r, ilp_why, sizeof ilp_why)) {
			why_set(r->why, sizeof r->why, "out of memory");
			rc = -1;
			goto done;
		}
		if (sp->aborted)
			goto aborted;
		int merged = merge_alike(sp, r);
		if (merged < 0) {
			why_set(r->why, sizeof r->why, "out of memory");
			rc = -1;
			goto done;
		}
		ta = now_s();
		inner_s += ta - t1;
		/* merged rows left fewer distinct results than asked although the outer level
		 * kept a full pool: search again with a deeper one, so the top K counts distinct
		 * results (deterministic: the pools and their thresholds do not depend on timing) */
		if (!merged || r->n >= opt.top || ncand < sp->pool || r->cancelled || sp->pool >= pool_cap)
			break;
		long long shapes = r->shapes, shapes_valid = r->shapes_valid;
		search_free(r);
		memset(r, 0, sizeof *r);
		r->shapes = shapes;
		r->shapes_valid = shapes_valid;
		free(cand);
		cand = NULL;
		ncand = 0;
		least = 0;
		ilp_why[0] = 0;
		sp->pool = sp->pool < pool_cap / 4 ? 4 * sp->pool : pool_cap;
	}
	r->outer_s = outer_s;
	r->inner_s = inner_s;
	if (r->n > opt.top)
		r->n = opt.top;
	for (int i = 0; i < r->n; i++)
		r->merged += r->item[i].alike;

	if (r->n == 0) {
		char desc[256];
		if (r->cancelled)
			why_set(r->why, sizeof r->why, "the search was cancelled");
		else if (sp->nunit > 0 && r->valid == 0 && r->filtered > 0)
			why_set(r->why, sizeof r->why, "the filter dropped every valid strategy");
		else if (sp->nunit == 0 || r->valid == 0)
			why_set(r->why, sizeof r->why, "%s", sp->have_why || sp->why[0] ? sp->why : "no valid strategy");
		else if (r->fit == 0) {
			describe(desc, sizeof desc, &least_s);
			why_set(r->why, sizeof r->why, "no strategy fits in the %.1f GiB budget: the least memory found is "
					"%.1f GiB per device (%s)", sp->budget_gib, least / GIB, desc);
		} else if (ncand == 0)
			why_set(r->why, sizeof r->why, "the score dropped every fitting strategy");
		else
			why_set(r->why, sizeof r->why, "the ILP found no split that honours the stage pins within %.1f GiB%s%s",
					sp->budget_gib, ilp_why[0] ? ": " : "", ilp_why);
	}
	goto done;
aborted:
	/* the items (if any) are dropped: the caller reports the hook's reason, not results */
	search_free(r);
	r->aborted = 1;
	why_set(r->why, sizeof r->why, "%s", sp->hook_why);
	rc = -1;
done:
	free(cand);
	search_space_free(sp);
	free(sp);
	return rc;
}

/* ---------- explaining an empty result ---------- */

/* Run with a set of pins and report whether anything was found; why gets the reason. */
static int found(const search_job *job, const pin_set *pins, const search_opts *o, char *why, size_t n)
{
	search_result r;
	int rc = search_run(job, pins, o, &r);
	int ok = rc == 0 && r.n > 0;
	if (!ok)
		snprintf(why, n, "%s", r.why);
	search_free(&r);
	return ok;
}

int search_explain(const search_job *job, const pin_set *pins, const search_opts *o, char *why, size_t n)
{
	search_opts q;
	if (o)
		q = *o;
	else
		memset(&q, 0, sizeof q);
	q.top = 1;
	/* one candidate to refine, or 32 with stage pins: the best ones may not be able to
	 * place the pinned layers (a deeper pipeline than the pin's stage can take in order, or
	 * recomputation their framework cannot run) while a slower candidate can; explaining is
	 * rare, so it looks further than the search's default four */
	q.refine = pins && pin_needs_ilp(pins) ? 32 : 1;
	/* and gives those refinements room: a cut budget would blame the wrong pin */
	if (!q.ilp_budget_ms)
		q.ilp_budget_ms = 10 * SEARCH_ILP_BUDGET_MS;
	q.ref_step = 0;
	q.progress = NULL;
	char reason[SEARCH_WHY];
	if (!found(job, NULL, &q, reason, sizeof reason)) {
		snprintf(why, n, "%s", reason);
		return -1;
	}
	if (!pins)
		return why_set(why, n, "a strategy exists");
	for (int i = 1; i <= pins->n; i++) {
		pin_set pre;
		pin_prefix(pins, i, &pre);
		q.no_ilp = o && o->no_ilp && !pin_needs_ilp(&pre);
		if (found(job, &pre, &q, reason, sizeof reason))
			continue;
		const pin_t *bad = &pins->pin[i - 1];
		pin_set alone;
		alone.n = 1;
		alone.pin[0] = *bad;
		char r1[SEARCH_WHY];
		if (i == 1 || !found(job, &alone, &q, r1, sizeof r1)) {
			snprintf(why, n, "pin '%s' cannot be satisfied: %s", bad->text, i == 1 ? reason : r1);
		} else {
			char others[200] = "";
			size_t len = 0;
			for (int k = 0; k < i - 1 && len < sizeof others; k++)
				len += (size_t)snprintf(others + len, sizeof others - len, "%s'%s'", k ? ", " : "",
						pins->pin[k].text);
			snprintf(why, n, "pin '%s' cannot hold together with %s: %s", bad->text, others, reason);
		}
		return i - 1;
	}
	return why_set(why, n, "a strategy exists");
}
