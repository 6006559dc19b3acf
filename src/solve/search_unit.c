/* search_unit.c - what a thread does with a unit (a device split and expert layout):
 * score every strategy below it that can matter, with three kinds of proof that let it
 * skip the rest without calling the cost model.
 *
 *   time     eval_run's step is m x (the slowest stage's forward + backward) plus a
 *            bubble (for GPipe, 1F1B and interleaving at least (p - 1)/v stage-times),
 *            exposed DP communication and the optimizer step, none negative; the
 *            slowest stage takes at least the average, and the average needs only the
 *            per-layer costs (eval_costs_get), not the stage loop. Those costs depend on
 *            sp, the cp kind and the micro-batch but not on ZeRO, the schedule, vpp or
 *            recompute, which enter as exact terms: recompute adds r[mode] >= 0 and every
 *            virtual stage adds two P2P transfers. So one table per unit bounds every
 *            strategy below it, and a subtree is skipped when the bound of its best corner
 *            exceeds the threshold: the worst of the candidates kept so far (see
 *            search.c: a sample of every unit, then the units the sample liked best,
 *            scored whole), or of this unit's own when better, raised to the --compare
 *            reference.
 *   memory   the stages' static memory (weights, gradients, optimizer states) does not
 *            depend on the micro-batch, recompute, sp or cp kind; its average over stages
 *            does not depend on the split of layers either. Over the budget, it ends the
 *            ZeRO level (average) or the schedule and vpp (most loaded stage).
 *            Activations grow with the micro-batch (m x b is at most the replica's batch,
 *            in-flight micro-batches are capped by m), so the first micro-batch that does
 *            not fit ends its row.
 *   rules    a column the split's probe cannot make valid is skipped (search_space.c).
 * The threshold depends only on the rounds before and on the unit itself, never on which
 * thread took which unit, so counts and results are reproducible.
 * Hooks (search.h): the filter runs after the rules and before eval_run, in the sample too
 * (a dropped sample must not set the threshold); a score replaces the step time as the
 * heaps' key, and since it bounds nothing the time bound is off (sp->bound). */
#include "solve/search_int.h"
#include "core/framework.h"
#include "core/cost/comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layer-kind costs of s, priced once per eval_kinds_same class: they depend on neither
 * dp, pp, vpp, recompute nor (but through the framework and DualPipe) ZeRO and the
 * schedule, so every device split and schedule of a (tp, cp, ep, etp, micro-batch, sp, ...)
 * reuses them, in the bound tables (fill_col) and in the evaluations (search_eval). A
 * direct-mapped cache per worker. */
static uint32_t kinds_hash(const eval_kinds_key *key)
{
	/* a multiplicative hash over the key's 64-bit words (its padding is zeroed) */
	uint64_t words[(sizeof *key + 7) / 8] = {0}, x = 0;
	memcpy(words, key, sizeof *key);
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		x = (x ^ words[i]) * 0x9E3779B97F4A7C15ull, x ^= x >> 29;
	return (uint32_t)(x >> 32);
}

static uint32_t kinds_slot(const eval_kinds_key *key) { return kinds_hash(key) & (SEARCH_KINDS - 1); }

static const eval_kinds *worker_kinds(search_worker *w, const strategy_t *s)
{
	const search_job *j = w->sp->job;
	eval_kinds_key key = eval_kinds_key_of(s);
	uint32_t h = kinds_slot(&key);
	if (w->kinds_ok[h] && !memcmp(&w->kinds_key[h], &key, sizeof key))
		return &w->kinds[h];
	/* a USP variant of a class whose ring form is cached: only its CP communication
	 * differs (eval_kinds_resplit) */
	eval_kinds_key ring = key;
	ring.cp_ulysses = 1;
	uint32_t g = kinds_slot(&ring);
	if (key.cp_ulysses > 1 && g != h && w->kinds_ok[g] && !memcmp(&w->kinds_key[g], &ring, sizeof ring)) {
		w->kinds[h] = w->kinds[g];
		eval_kinds_resplit(j->model, j->cluster, s, &w->kinds[h]);
	} else {
		eval_kinds_get(j->model, j->cluster, s, &w->kinds[h]);
	}
	w->kinds_key[h] = key;
	w->kinds_ok[h] = 1;
	return &w->kinds[h];
}

/* eval_run with the worker's layer-kind costs: eval_run's result, bit for bit. */
static int search_eval(search_worker *w, const strategy_t *s, eval_result *r)
{
	const search_job *j = w->sp->job;
	return eval_run_kinds(j->model, j->cluster, j->devices, s, w->sp->budget_gib, worker_kinds(w, s), r);
}

static double static_bytes(const eval_mem *m) { return m->weights + m->grads + m->optimizer; }

/* The strategy of a unit with its degrees filled in. */
static strategy_t unit_strategy(const search_space *sp, const search_unit *u)
{
	strategy_t s = sp->base;
	s.tp = u->tp;
	s.cp = u->cp;
	s.pp = u->pp;
	s.dp = u->dp;
	s.ep = u->ep;
	s.etp = u->etp;
	return s;
}

static void offer(search_heap *h, const strategy_t *s, const eval_result *r, double key, int unit)
{
	if (h->n < h->cap || key <= h->c[0].key) {
		search_cand c;
		c.unit = unit;
		c.s = *s;
		c.key = key;
		c.step = r->step;
		c.peak = r->peak_bytes;
		c.mfu = r->mfu;
		c.tps = r->tokens_per_s;
		search_heap_offer(h, &c);
	}
}

/* ---------- hooks ---------- */

int search_hook_filter(search_space *sp, const strategy_t *s)
{
	const search_opts *o = sp->opt;
	if (!o->filter)
		return 1;
	sp->hook_why[0] = 0;
	int keep = o->filter(o->hook_user, s, sp->hook_why, sizeof sp->hook_why);
	if (keep >= 0)
		return keep != 0;
	sp->aborted = 1;
	if (!sp->hook_why[0])
		snprintf(sp->hook_why, sizeof sp->hook_why, "the filter hook aborted the search");
	return -1;
}

double search_hook_key(search_space *sp, const strategy_t *s, const eval_result *r)
{
	const search_opts *o = sp->opt;
	if (!o->score)
		return r->step;
	sp->hook_why[0] = 0;
	double key = o->score(o->hook_user, s, r, sp->hook_why, sizeof sp->hook_why);
	if (isnan(key)) {
		sp->aborted = 1;
		if (!sp->hook_why[0])
			snprintf(sp->hook_why, sizeof sp->hook_why, "the score hook aborted the search");
	}
	return key;
}

/* ---------- the time bound ---------- */

double search_col_cp(const model_t *m, const eval_kinds *k)
{
	double cp = 0;
	for (int i = 0; i < m->nruns; i++)
		cp += m->run[i].count * (k->kc[m->run[i].kind].cp_f + k->kc[m->run[i].kind].cp_b);
	return cp;
}

double search_col_base(const model_t *m, const eval_costs *ec)
{
	double base = ec->emb_fwd + ec->emb_bwd + ec->head_fwd + ec->head_bwd;
	for (int i = 0; i < m->nruns; i++) {
		const eval_kind_cost *k = &ec->kind[m->run[i].kind];
		base += m->run[i].count * (k->fwd + k->bwd);
	}
	return base;
}

/* Price the dp- and pp-independent sums of s's column into e (its class's entry), and the
 * P2P of s's pipeline link when s has stages to send between. */
static void colsum_price(search_worker *w, strategy_t *s, eval_costs *ec, search_colsum *e, int fresh, int link)
{
	const model_t *m = w->sp->job->model;
	const eval_kinds *k = worker_kinds(w, s);
	eval_costs_time(m, w->sp->job->cluster, s, k, ec);
	if (s->pp > 1)
		e->p2p[link] = ec->p2p;
	if (!fresh)
		return; /* only this link's P2P was missing */
	e->p2p[!link] = NAN;
	if (s->pp <= 1)
		e->p2p[link] = NAN;
	double rc[RC_COUNT] = {0, 0, 0};
	int l = 0;
	for (int i = 0; i < m->nruns; i++) {
		const eval_kind_cost *k = &ec->kind[m->run[i].kind];
		int n = m->run[i].count;
		for (int mode = 0; mode < RC_COUNT; mode++) {
			if (s->nranges == 0) {
				rc[mode] += n * k->rc[mode];
				continue;
			}
			/* pinned recompute ranges override the mode on their layers */
			s->recompute = (uint8_t)mode;
			for (int x = l; x < l + n; x++)
				rc[mode] += k->rc[strat_layer_recompute(s, x < m->layers ? x : m->layers - 1)];
		}
		l += n;
	}
	s->recompute = RC_NONE;
	e->base = search_col_base(m, ec);
	e->nocp = e->base - search_col_cp(m, k);
	for (int mode = 0; mode < RC_COUNT; mode++)
		e->rc[mode] = rc[mode];
}

/* One column of a unit's bound table. Its sums depend on the layer-kind class alone (the
 * batch, the recompute ranges and the job's fixed fields are the search's), so the
 * column-sum cache prices each class once for every device split that meets it. Returns
 * the class's entry, NULL when s is invalid. */
static const search_colsum *fill_col(search_worker *w, strategy_t *s, eval_costs *ec, search_col *c)
{
	const search_job *j = w->sp->job;
	c->ok = !strat_validate(s, j->model, j->cluster, j->devices, NULL, 0) && s->pp <= EVAL_MAX_STAGES;
	if (!c->ok)
		return NULL;
	eval_kinds_key key = eval_kinds_key_of(s);
	uint32_t h = kinds_hash(&key) & (SEARCH_COLSUMS - 1);
	search_colsum *e = &w->colsum[h];
	int link = !comm_pp_in_domain(j->cluster, s);
	if (!w->colsum_ok[h] || memcmp(&e->key, &key, sizeof key)) {
		e->key = key;
		colsum_price(w, s, ec, e, 1, link);
		w->colsum_ok[h] = 1;
	} else if (s->pp > 1 && isnan(e->p2p[link])) {
		colsum_price(w, s, ec, e, 0, link);
	}
	double mb = strat_microbatches(s), p = s->pp;
	c->a = mb * e->base / p;
	for (int mode = 0; mode < RC_COUNT; mode++)
		c->r[mode] = mb * e->rc[mode] / p;
	c->pv = p > 1 ? mb * 2.0 * e->p2p[link] : 0; /* per virtual stage: p chunks x send+receive / p */
	c->m = mb;
	return e;
}

/* Whether a unit's columns may be certified rather than priced (search_certify). The proof
 * that the per-micro-batch time grows with the micro-batch needs the TP windows that
 * overlap hides to be smaller than the projections they hide under: at most four windows
 * of tp_overlap x the projections (the forward collective with tp_comm_overlap, the
 * backward's doubled window and SP's extra all-gather), each hiding a (1 - contention)
 * share, against the three passes of projections every layer counts. */
static int can_certify(const search_space *sp)
{
	const cluster_eff *e = &sp->job->cluster->eff;
	double hide = e->tp_overlap * (e->contention < 1 ? 1 - e->contention : 0);
	return sp->bound && e->tp_overlap >= 0 && 4 * hide <= 3;
}

/* Certify c when the bound from the micro-batch sum `sum` of a smaller or equal micro-batch
 * (-1: none) exceeds th (fill_table says why): c then holds that bound, less a relative 1e-9
 * for rounding, and its mb micro-batches; nocp is the row's running CP-free sum. 1 when
 * certified, else 0 and c is left as it was. */
static int certify(search_col *c, double sum, double nocp, double mb, double p, double th)
{
	double lb = mb * sum / p * (1 - 1e-9);
	if (!(sum >= 0 && lb > th))
		return 0;
	c->ok = 1;
	c->a = lb;
	for (int mode = 0; mode < RC_COUNT; mode++)
		c->r[mode] = 0;
	c->pv = 0;
	c->m = mb;
	c->nocp = nocp;
	return 1;
}

/* One row (sp, column variant) of a unit's bound table, its micro-batches ascending: each
 * column certified or priced (fill_table); the priced ones' least bounds into mins and
 * pvmin. s holds the unit's table strategy; bpd is the batch over dp. Returns the columns
 * certified or valid. */
static int fill_row(search_worker *w, const search_lists *L, int isp, int ik, strategy_t *s, double th, double bpd,
		double *mins, double *pvmin)
{
	search_col *row = &w->col[((size_t)isp * L->ncpk + ik) * L->nmbs];
	double qbase = -1, qnocp = -1; /* sum and CP-free sum of the row's last priced column */
	const double p = s->pp;
	int ok = 0;
	s->sp = L->sp[isp];
	search_var_set(s, L, ik);
	for (int im = 0; im < L->nmbs; im++) {
		search_col *c = &row[im];
		double mb = bpd / L->mbs[im], cert = qbase;
		/* the CP-free sums the rows of the other Ulysses degrees priced */
		for (int jk = 0; jk < ik; jk++)
			if (L->red[jk] == L->red[ik])
				cert = fmax(cert, row[(jk - ik) * L->nmbs + im].nocp);
		if (certify(c, cert, qnocp, mb, p, th)) {
			ok++;
			continue;
		}
		s->micro_batch = L->mbs[im];
		const search_colsum *e = fill_col(w, s, &w->ec, c);
		c->nocp = qnocp;
		if (!e)
			continue;
		qbase = e->base;
		c->nocp = qnocp = fmax(qnocp, e->nocp);
		ok++;
		for (int mode = 0; mode < RC_COUNT; mode++)
			mins[mode] = fmin(mins[mode], c->a + c->r[mode]);
		*pvmin = fmin(*pvmin, c->pv);
	}
	return ok;
}

/* Fill a unit's bound table: columns by sp, column variant and micro-batch, and the least
 * time bound of the priced ones by recompute mode (mins) and per virtual stage (pvmin).
 *
 * Columns that provably lie above the unit's starting threshold th are certified instead
 * of priced. Along one (sp, variant) row the columns differ only in the micro-batch b, and
 * a column's bound is a = m(b) x base(b) / p with m(b) = batch / (dp x b) micro-batches and
 * base(b) the embedding, head and layers' forward and backward time of one micro-batch.
 * base(b) never decreases with b: every term of the cost model (GEMM and HBM rooflines
 * with their wave and tile roll-offs, the attention kernels, the alpha-beta collectives,
 * kernel-launch floors taken with the memory time they cover) grows with the tokens of a
 * micro-batch, and what overlap subtracts is bounded by compute that grows at least as
 * fast: comm_overlap(c, w, k) + (1 - k) w never decreases when c and w do not, the TP
 * windows are tp_overlap x the projections, of which every layer counts three passes
 * (can_certify), and ring CP hides under the attention core that the layer counts
 * (layer_comm.c). So for b > q, a(b) >= m(b) x base(q) / p: once a column q of the row is
 * priced, every later column whose bound from base(q) exceeds th is certified with that
 * bound (less a relative 1e-9 for rounding), with no recompute and no P2P term (both >= 0),
 * and not validated: it is bounded by run_unit whatever its validity, since the threshold
 * only falls within a unit. The same holds of base less the layers' CP communication
 * (nocp), which is the same for every Ulysses degree (eval_kinds_resplit reprices only
 * that): the rows of the unit's other Ulysses degrees with the same redundancy certify
 * too. Certificates come from the unit's own rows alone (not from the column-sum cache,
 * whose contents depend on which thread took which unit), so the counts stay the same with
 * any number of threads. tests/unit/test_search_bound.c checks both monotonicities over the
 * presets and that results equal the exhaustive search's. Returns the columns priced or
 * certified (0: none can be valid). */
static int fill_table(search_worker *w, const search_unit *u, const search_lists *L, double th, double *mins,
		double *pvmin)
{
	const search_space *sp = w->sp;
	strategy_t s = unit_strategy(sp, u);
	s.schedule = SCHED_1F1B;
	s.vpp = 1;
	s.zero = 0;
	s.recompute = RC_NONE;
	int ok = 0;
	for (int mode = 0; mode < RC_COUNT; mode++)
		mins[mode] = INFINITY;
	*pvmin = INFINITY;
	size_t need = (size_t)L->nsp * L->ncpk * L->nmbs;
	if (need > w->col_cap) { /* more variants (USP, redundancy) than the first allocation */
		search_col *nc = realloc(w->col, need * sizeof *nc);
		if (!nc)
			return 0;
		w->col = nc;
		w->col_cap = need;
	}
	if (!can_certify(sp))
		th = INFINITY;
	const double bpd = (double)sp->base.global_batch / u->dp;
	for (int isp = 0; isp < L->nsp; isp++)
		for (int ik = 0; ik < L->ncpk; ik++)
			ok += fill_row(w, L, isp, ik, &s, th, bpd, mins, pvmin);
	return ok;
}

/* The pruning threshold: a strategy whose bound exceeds it can neither enter the kept
 * candidates nor be faster than the reference. */
static double threshold(const search_space *sp, const search_heap *unit_best)
{
	if (!sp->bound)
		return INFINITY;
	double t = sp->theta;
	if (unit_best->n == unit_best->cap && unit_best->c[0].key < t)
		t = unit_best->c[0].key;
	if (sp->opt->ref_step > t)
		t = sp->opt->ref_step;
	return t;
}

/* ---------- phase 0: the sample ---------- */

/* A few strategies of the unit into the thread's heap: the two schedules with the least
 * bubble the split allows, the first recompute mode that fits, the smallest micro-batch.
 * The worst of the best `pool` of all samples becomes the time threshold, so a sample the
 * filter drops must not count. Runs only with the time bound on (no score hook): the key
 * is the step time. */
static void sample_unit(search_worker *w, const search_unit *u, int ui)
{
	static const int pref[] = {SCHED_ZBV, SCHED_ZBH2, SCHED_DUALPIPE, SCHED_ZBH1, SCHED_INTERLEAVED, SCHED_1F1B,
		SCHED_GPIPE};
	const search_space *sp = w->sp;
	const search_job *j = sp->job;
	search_lists L;
	search_unit_lists(sp, u, 1, &L);
	strategy_t s = unit_strategy(sp, u);
	s.sp = L.sp[0];
	search_var_set(&s, &L, 0);
	s.micro_batch = L.mbs[0];
	s.zero = L.zero[L.nzero > 1 ? 1 : 0];
	int tried = 0;
	for (size_t ip = 0; ip < sizeof pref / sizeof pref[0] && tried < 2; ip++) {
		int in = 0;
		for (int i = 0; i < L.nsched; i++)
			in |= L.sched[i] == pref[ip];
		int vlo, vhi;
		search_vpp_range(sp, u->pp, pref[ip], &vlo, &vhi);
		if (!in || vhi < vlo)
			continue;
		s.schedule = (uint8_t)pref[ip];
		s.vpp = vlo;
		for (int ir = 0; ir < L.nrc; ir++) {
			s.recompute = (uint8_t)L.rc[ir];
			/* the filter sees only what the rules allow (it is told so) */
			int keep = !sp->opt->filter || !strat_validate(&s, j->model, j->cluster, j->devices, NULL, 0) ?
					search_hook_filter(w->sp, &s) : 0;
			if (keep < 0)
				return;
			if (!keep)
				continue;
			int rc = search_eval(w, &s, w->r);
			if (rc == 0)
				tried += ir == 0;
			if (rc == 0 && w->r->fits) {
				offer(&w->heap, &s, w->r, w->r->step, ui);
				break;
			}
		}
	}
}

/* ---------- phase 1: the unit ---------- */

/* Score one strategy that passed the time bound. Returns 0 to go on with the row, 1 when
 * it did not fit (larger micro-batches will not either), 2 when the static memory of the
 * schedule and vpp is over the budget, 3 when that of the ZeRO level is, 4 when a hook
 * aborted the search, 5 when the framework that prices it does not run it: its rules
 * (fw_search_check) read no micro-batch, so no larger micro-batch of the row runs either,
 * and this one, the first of them the bound let through, is the canonically first whose
 * rejection could be noted (search_canon_cmp orders by micro-batch before sp, recompute and
 * schedule). */
static int score(search_worker *w, const strategy_t *s, int ui, int *zero_checked, int *sv_checked)
{
	const search_space *sp = w->sp;
	const search_job *j = sp->job;
	eval_result *r = w->r;
	w->checked++;
	/* validate first without writing a reason: formatting one costs as much as the rule
	 * check, and only the canonically first rejection is kept */
	if (strat_validate(s, j->model, j->cluster, j->devices, NULL, 0)) {
		if (!w->have_why || search_canon_cmp(s, &w->why_s) < 0) {
			char why[256];
			strat_validate(s, j->model, j->cluster, j->devices, why, sizeof why);
			search_note_why(w->why, &w->why_s, &w->have_why, why, s);
		}
		return 0;
	}
	/* an `auto` plan is priced as one framework: propose it only if that one runs it */
	if (fw_search_check(s, j->model, NULL)) {
		if (!w->have_why || search_canon_cmp(s, &w->why_s) < 0) {
			fw_issues is;
			fw_search_check(s, j->model, &is);
			search_note_why(w->why, &w->why_s, &w->have_why, is.text[0], s);
		}
		return 5;
	}
	/* after the rules (cheap) and before the cost model (the filter's point) */
	int keep = search_hook_filter(w->sp, s);
	if (keep < 0)
		return 4;
	if (!keep) {
		w->filtered++;
		return 0;
	}
	if (search_eval(w, s, r)) {
		search_note_why(w->why, &w->why_s, &w->have_why, r->why, s);
		return 0;
	}
	w->valid++;
	w->evaluated++;
	if (!r->fits && (w->least_peak == 0 || r->peak_bytes < w->least_peak ||
			(r->peak_bytes == w->least_peak && search_canon_cmp(s, &w->least_s) < 0))) {
		w->least_peak = r->peak_bytes;
		w->least_s = *s;
	}
	if (!*zero_checked) {
		/* the stages' static memory sums to the same total under any split of the layers
		 * (dualpipe holds two copies) */
		*zero_checked = 1;
		double sum = 0;
		for (int st = 0; st < r->stages; st++)
			sum += static_bytes(&eval_span_of(r, st)->mem);
		if (sum / (r->stages * (s->schedule == SCHED_DUALPIPE ? 2.0 : 1.0)) > sp->budget)
			return 3;
	}
	if (!*sv_checked) {
		*sv_checked = 1;
		for (int st = 0; st < r->stages; st++)
			if (static_bytes(&eval_span_of(r, st)->mem) > sp->budget)
				return 2;
	}
	if (!r->fits)
		return 1;
	w->fit++;
	if (sp->opt->ref_step > 0 && r->step < sp->opt->ref_step)
		w->faster++;
	double key = search_hook_key(w->sp, s, r);
	if (isnan(key))
		return 4;
	if (key == INFINITY) {
		w->filtered++;
		return 0;
	}
	offer(&w->heap, s, r, key, ui);
	offer(&w->unit_best, s, r, key, ui);
	return 0;
}

static void run_unit(search_worker *w, const search_unit *u, int ui)
{
	const search_space *sp = w->sp;
	const search_opts *o = sp->opt;
	search_lists L;
	search_unit_lists(sp, u, 1, &L);
	w->enumerated += u->leaves;
	double mins[RC_COUNT], pvmin;
	search_heap *ub = &w->unit_best;
	ub->n = 0; /* before the threshold is read: the last unit's best are not this one's */
	if (!fill_table(w, u, &L, threshold(sp, ub), mins, &pvmin))
		return; /* no column can be valid: everything is pruned */
	const long long row = (long long)L.nsp * L.ncpk * L.nmbs; /* strategies per recompute mode */
	strategy_t s = unit_strategy(sp, u);
	for (int iz = 0; iz < L.nzero; iz++) {
		s.zero = L.zero[iz];
		int zero_checked = 0;
		for (int is = 0; is < L.nsched; is++) {
			int vlo, vhi;
			search_vpp_range(sp, u->pp, L.sched[is], &vlo, &vhi);
			s.schedule = (uint8_t)L.sched[is];
			int flush = s.schedule == SCHED_GPIPE || s.schedule == SCHED_1F1B || s.schedule == SCHED_INTERLEAVED;
			for (int vpp = vlo; vpp <= vhi; vpp++) {
				s.vpp = vpp;
				int sv_checked = 0;
				if (o->cancel && atomic_load(o->cancel))
					return;
				for (int ir = 0; ir < L.nrc; ir++) {
					int mode = L.rc[ir];
					s.recompute = (uint8_t)mode;
					if (mins[mode] + pvmin * vpp > threshold(sp, ub)) {
						w->bounded += row;
						continue;
					}
					for (int isp = 0; isp < L.nsp; isp++) {
						s.sp = L.sp[isp];
						for (int ik = 0; ik < L.ncpk; ik++) {
							search_var_set(&s, &L, ik);
							const search_col *col = &w->col[((size_t)isp * L.ncpk + ik) * L.nmbs];
							for (int im = 0; im < L.nmbs; im++) {
								const search_col *c = &col[im];
								if (!c->ok)
									continue;
								/* GPipe, 1F1B and interleaving idle (p - 1)/v stage-times
								 * besides the m the pipeline is busy: (m - 1) T_max + sum T
								 * >= (m + p - 1) T_avg, and the same over v for the
								 * interleaved form (docs/ilp.md lists each schedule's) */
								double fill = flush ? 1 + (u->pp - 1.0) / (vpp * c->m) : 1;
								if ((c->a + c->r[mode] + c->pv * vpp) * fill > threshold(sp, ub)) {
									w->bounded++;
									continue;
								}
								s.micro_batch = L.mbs[im];
								int stop = score(w, &s, ui, &zero_checked, &sv_checked);
								if (stop == 4)
									return;
								if (stop == 3)
									goto next_zero;
								if (stop == 2)
									goto next_vpp;
								if (stop == 1 || stop == 5)
									break;
							}
						}
					}
				}
next_vpp:;
			}
		}
next_zero:;
	}
}

void *search_worker_run(void *arg)
{
	search_worker *w = arg;
	search_space *sp = w->sp;
	const search_opts *o = sp->opt;
	for (;;) {
		if ((o->cancel && atomic_load(o->cancel)) || sp->aborted)
			break;
		int i = atomic_fetch_add(&sp->next, 1);
		if (i >= sp->hi)
			break;
		int u = sp->order[i];
		if (sp->phase == 0) {
			sample_unit(w, &sp->unit[u], u);
			continue;
		}
		run_unit(w, &sp->unit[u], u);
		int done = atomic_fetch_add(&sp->done, 1) + 1;
		if (w->caller && o->progress)
			o->progress(o->user, 1, (double)done / sp->nunit);
	}
	return NULL;
}
