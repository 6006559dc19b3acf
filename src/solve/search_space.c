/* search_space.c - the outer level's space: the device splits a job allows, the values of
 * every other field below a split, and the units of work the threads share (one unit per
 * device split and expert layout). What a thread does with a unit: search_unit.c.
 *
 * A split (tp, cp, pp; dp follows) is probed with the most permissive choice of everything
 * else (one micro-batch per step, the fewest virtual stages, no expert parallelism, no
 * ZeRO, no recompute): a schedule, cp kind or sp setting that strat_validate rejects even
 * then is rejected for every strategy of the split, so it is dropped from the split's
 * lists, and a split with nothing left is dropped whole. */
#include "solve/search_int.h"
#include "core/model.h"
#include "core/framework.h"
#include "core/why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Divisors of n in ascending order; returns the count. */
int search_divisors(long long n, int *out)
{
	int lo = 0, hi = 0;
	static const int cap = SEARCH_MAX_DIV / 2;
	int big[SEARCH_MAX_DIV / 2];
	for (long long d = 1; d * d <= n && lo < cap && hi < cap; d++) {
		if (n % d)
			continue;
		out[lo++] = (int)d;
		if (d * d != n)
			big[hi++] = (int)(n / d);
	}
	for (int i = hi - 1; i >= 0; i--)
		out[lo++] = big[i];
	return lo;
}

void search_note_why(char *why, strategy_t *why_s, int *have, const char *reason, const strategy_t *s)
{
	if (*have && search_canon_cmp(s, why_s) >= 0)
		return;
	*have = 1;
	*why_s = *s;
	snprintf(why, SEARCH_WHY, "%s", reason);
}

int search_cand_cmp(const search_cand *a, const search_cand *b)
{
	if (a->key < b->key)
		return -1;
	if (a->key > b->key)
		return 1;
	/* a tie goes to the plan with more memory headroom */
	if (a->peak < b->peak)
		return -1;
	if (a->peak > b->peak)
		return 1;
	return search_canon_cmp(&a->s, &b->s);
}

void search_heap_offer(search_heap *h, const search_cand *c)
{
	int i;
	if (h->n < h->cap) {
		i = h->n++;
		while (i > 0 && search_cand_cmp(c, &h->c[(i - 1) / 2]) > 0) {
			h->c[i] = h->c[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		h->c[i] = *c;
		return;
	}
	if (h->cap == 0 || search_cand_cmp(c, &h->c[0]) >= 0)
		return;
	/* replace the worst (the root) and sift down */
	i = 0;
	for (;;) {
		int l = 2 * i + 1, r = l + 1, big = -1;
		if (l < h->n && search_cand_cmp(&h->c[l], c) > 0)
			big = l;
		if (r < h->n && search_cand_cmp(&h->c[r], big < 0 ? c : &h->c[big]) > 0)
			big = r;
		if (big < 0)
			break;
		h->c[i] = h->c[big];
		i = big;
	}
	h->c[i] = *c;
}

/* ---------- lists of values below a unit ---------- */

/* Values of one field: the pinned one, or the given defaults. */
static int pick(const search_space *sp, int key, const int *dflt, int n, int *out)
{
	if (sp->fix[key]) {
		out[0] = sp->val[key];
		return 1;
	}
	memcpy(out, dflt, (size_t)n * sizeof *out);
	return n;
}

/* Drop the values whose bit is not in mask; returns the new count. */
static int keep(int *v, int n, unsigned mask)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (mask & (1u << v[i]))
			v[k++] = v[i];
	return k;
}

/* The Ulysses degrees of a unit's CP: 1 (ring) and cp (Ulysses), then the USP splits
 * between (Fang & Zhao 2024), each the framework runs; a cp_kind pin keeps its pure form,
 * a job that sets cp_ulysses its own degree. */
static int unit_ulysses(const search_space *sp, const search_unit *u, int *out)
{
	const fw_caps *f = sp->base.framework != FW_AUTO ? fw_caps_of(sp->base.framework) : NULL;
	unsigned ok = f ? f->cp_kinds : ~0u;
	int n = 0;
	if (sp->fix[PIN_CP_KIND]) { /* -1: cp_kind ulysses (search_var_set) */
		out[n++] = sp->val[PIN_CP_KIND] == CP_ULYSSES ? -1 : 1;
		return n;
	}
	if (sp->base.cp_ulysses > 1) { /* the job's own degree (--cp-ulysses), as a pin: the
		                                * units whose cp it does not divide are invalid */
		out[n++] = sp->base.cp_ulysses;
		return n;
	}
	if (u->cp == 1) {
		out[n++] = 1;
		return n;
	}
	if (ok & 1u << CP_RING)
		out[n++] = 1;
	if (ok & 1u << CP_ULYSSES)
		out[n++] = -1;
	for (int d = 2, k = 0; d < u->cp && k < SEARCH_MAX_USP && (ok & 1u << CP_USP); d++)
		if (u->cp % d == 0) {
			out[n++] = d;
			k++;
		}
	return n;
}

/* The redundant experts per EP rank a unit tries. A job that sets moe_redundant_experts R
 * opts in to a trainer with EPLB-style replicas (none of the exported frameworks has one):
 * 0, 1, 2, 4 ... below R and R itself, at most the experts a rank does not own, so the
 * search weighs the EP degree against replicas (docs/cost-model.md); else 0. */
static int unit_redundancy(const search_space *sp, const search_unit *u, int *out)
{
	const strategy_t *b = &sp->base;
	int e = model_max_experts(sp->job->model), n = 0, rmax = b->moe_redundant;
	out[n++] = 0;
	if (rmax <= 0 || e == 0 || u->ep < 2 || (b->framework != FW_AUTO && !fw_caps_of(b->framework)->redundant_experts))
		return n;
	rmax = rmax < e - e / u->ep ? rmax : e - e / u->ep;
	for (int r = 1; r < rmax && n < SEARCH_MAX_RED - 1; r *= 2)
		out[n++] = r;
	out[n++] = rmax;
	return n;
}

/* The column variants of a unit: its Ulysses degrees crossed with its redundancies. */
static void unit_variants(const search_space *sp, const search_unit *u, search_lists *L)
{
	int us[2 + SEARCH_MAX_USP], rs[SEARCH_MAX_RED];
	int nu = unit_ulysses(sp, u, us), nr = unit_redundancy(sp, u, rs);
	L->ncpk = 0;
	L->nred = nr;
	for (int i = 0; i < nu; i++)
		for (int j = 0; j < nr; j++) {
			L->cpk[L->ncpk] = us[i];
			L->red[L->ncpk++] = rs[j];
		}
}

/* The values of every field below a unit; filter drops those the split checks ruled out. */
void search_unit_lists(const search_space *sp, const search_unit *u, int filter, search_lists *L)
{
	static const int all_sched[] = {SCHED_GPIPE, SCHED_1F1B, SCHED_INTERLEAVED, SCHED_ZBH1, SCHED_ZBH2,
		SCHED_ZBV, SCHED_DUALPIPE};
	static const int one_f1b[] = {SCHED_1F1B};
	static const int rcs[] = {RC_NONE, RC_SELECTIVE, RC_FULL};
	static const int sp_both[] = {1, 0}, sp_off[] = {0};
	/* a single stage has no pipeline: every schedule is the same plain loop, so 1F1B
	 * stands for all of them; sp and the cp kind only matter with tp > 1 and cp > 1 */
	if (u->pp == 1)
		L->nsched = pick(sp, PIN_SCHEDULE, one_f1b, 1, L->sched);
	else
		L->nsched = pick(sp, PIN_SCHEDULE, all_sched, SCHED_COUNT, L->sched);
	static const int zall[] = {0, 1, 2, 3}, znone[] = {0, 3};
	/* ZeRO-1/2 shard over the data-parallel ranks: with a single replica of every parameter
	 * they are ZeRO-0 under another name */
	long long edp = (long long)u->dp * u->cp * u->tp;
	if ((long long)u->dp * u->cp == 1 && edp <= (long long)u->ep * u->etp)
		L->nzero = pick(sp, PIN_ZERO, znone, 2, L->zero);
	else
		L->nzero = pick(sp, PIN_ZERO, zall, 4, L->zero);
	L->nrc = pick(sp, PIN_RECOMPUTE, rcs, RC_COUNT, L->rc);
	L->nsp = u->tp > 1 ? pick(sp, PIN_SP, sp_both, 2, L->sp) : pick(sp, PIN_SP, sp_off, 1, L->sp);
	unit_variants(sp, u, L);
	if (sp->base.framework != FW_AUTO) {
		/* what the named framework runs (the rest of its rules: strat_validate) */
		const fw_caps *f = fw_caps_of(sp->base.framework);
		L->nsched = u->pp > 1 ? keep(L->sched, L->nsched, f->sched) : L->nsched;
		L->nzero = keep(L->zero, L->nzero, f->zero & (u->pp > 1 ? f->zero_pp : ~0u) & (u->tp > 1 ? f->zero_tp : ~0u));
		L->nrc = keep(L->rc, L->nrc, f->recompute);
		L->nsp = u->tp > 1 ? keep(L->sp, L->nsp, (f->sp_off ? 1u : 0) | (f->sp_on ? 2u : 0)) : L->nsp;
	}
	if (filter) {
		L->nsched = keep(L->sched, L->nsched, u->sched_ok);
		int k = 0;
		for (int i = 0; i < L->ncpk; i++)
			if (u->cpk_ok >> (i / L->nred) & 1) {
				L->cpk[k] = L->cpk[i];
				L->red[k++] = L->red[i];
			}
		L->ncpk = k;
		L->nsp = keep(L->sp, L->nsp, u->sp_ok);
	}
	if (sp->fix[PIN_MBS]) {
		L->mbs[0] = sp->val[PIN_MBS];
		L->nmbs = 1;
	} else {
		L->nmbs = search_divisors(sp->base.global_batch / u->dp, L->mbs);
		while (L->nmbs > 0 && L->mbs[L->nmbs - 1] > (1 << 20))
			L->nmbs--;
	}
}

/* vpp values of a schedule: [lo, hi]. Interleaving needs two chunks per stage and at most
 * one layer per chunk (more chunks than layers would only add empty chunks). */
void search_vpp_range(const search_space *sp, int pp, int sched, int *lo, int *hi)
{
	if (sp->fix[PIN_VPP]) {
		*lo = *hi = sp->val[PIN_VPP];
	} else if (sched == SCHED_INTERLEAVED) {
		*lo = 2;
		*hi = pp > 1 ? sp->layers / pp : 1;
	} else {
		*lo = *hi = 1;
	}
}

static long long unit_leaves(const search_space *sp, const search_unit *u, const search_lists *L)
{
	long long row = (long long)L->nzero * L->nrc * L->nsp * L->ncpk * L->nmbs, n = 0;
	for (int i = 0; i < L->nsched; i++) {
		int lo, hi;
		search_vpp_range(sp, u->pp, L->sched[i], &lo, &hi);
		if (hi >= lo)
			n += (hi - lo + 1) * row;
	}
	return n;
}

/* ---------- building the space ---------- */

static int add_unit(search_space *sp, int *cap, const search_unit *u)
{
	if (sp->nunit == *cap) {
		int nc = *cap ? 2 * *cap : 256;
		search_unit *nu = realloc(sp->unit, (size_t)nc * sizeof *nu);
		if (!nu)
			return -1;
		sp->unit = nu;
		*cap = nc;
	}
	sp->unit[sp->nunit++] = *u;
	return 0;
}

/* Which schedules, cp kinds and sp settings can any strategy of a split use? Each is tried
 * with every other free field at the value that satisfies the most rules (one micro-batch
 * per step, the fewest virtual stages, no expert parallelism, no ZeRO, no recompute):
 * when that is invalid, every strategy with the value is. Fills the unit's masks; 0 when
 * nothing is valid (the reason is kept). */
static int probe_split(search_space *sp, search_unit *u)
{
	strategy_t s = sp->base;
	s.tp = u->tp;
	s.cp = u->cp;
	s.pp = u->pp;
	s.dp = u->dp;
	s.ep = sp->fix[PIN_EP] ? sp->val[PIN_EP] : 1;
	s.etp = sp->fix[PIN_ETP] ? sp->val[PIN_ETP] : 1;
	s.micro_batch = sp->fix[PIN_MBS] ? sp->val[PIN_MBS] : 1;
	s.zero = sp->fix[PIN_ZERO] ? sp->val[PIN_ZERO] : 0;
	s.recompute = (uint8_t)(sp->fix[PIN_RECOMPUTE] ? sp->val[PIN_RECOMPUTE] : RC_NONE);
	search_lists L;
	u->sched_ok = u->cpk_ok = u->sp_ok = 0;
	search_unit_lists(sp, u, 0, &L);
	const search_job *j = sp->job;
	for (int is = 0; is < L.nsched; is++) {
		int vlo, vhi;
		search_vpp_range(sp, u->pp, L.sched[is], &vlo, &vhi);
		if (vhi < vlo)
			continue;
		s.schedule = (uint8_t)L.sched[is];
		s.vpp = vlo;
		for (int ik = 0; ik < L.ncpk; ik++) {
			search_var_set(&s, &L, ik);
			s.moe_redundant = 0; /* the split's probe has no EP: replicas are the unit's */
			for (int i = 0; i < L.nsp; i++) {
				s.sp = L.sp[i];
				if (strat_validate(&s, j->model, j->cluster, j->devices, NULL, 0))
					continue;
				u->sched_ok |= 1u << s.schedule;
				u->cpk_ok |= 1ull << (ik / L.nred);
				u->sp_ok |= 1u << s.sp;
			}
		}
	}
	if (u->sched_ok)
		return 1;
	/* the reason of the first combination tried */
	char why[256];
	int vlo, vhi;
	search_vpp_range(sp, u->pp, L.sched[0], &vlo, &vhi);
	s.schedule = (uint8_t)L.sched[0];
	s.vpp = vlo;
	search_var_set(&s, &L, 0);
	s.moe_redundant = 0;
	s.sp = L.sp[0];
	if (strat_validate(&s, j->model, j->cluster, j->devices, why, sizeof why))
		search_note_why(sp->why, &sp->why_s, &sp->have_why, why, &s);
	return 0;
}

static int add_split_units(search_space *sp, int *cap, const search_unit *split)
{
	int tp = split->tp, cp = split->cp, dp = split->dp;
	int experts = model_max_experts(sp->job->model);
	long long edp = (long long)dp * cp * tp;
	int eps[SEARCH_MAX_DIV], neps = 0;
	if (sp->fix[PIN_EP]) {
		eps[neps++] = sp->val[PIN_EP];
	} else if (experts > 0) {
		int d[SEARCH_MAX_DIV], nd = search_divisors(experts, d);
		for (int i = 0; i < nd; i++)
			if (edp % d[i] == 0)
				eps[neps++] = d[i];
	} else {
		eps[neps++] = 1;
	}
	for (int ie = 0; ie < neps; ie++) {
		int ep = eps[ie];
		int etps[SEARCH_MAX_DIV], netp = 0;
		if (sp->fix[PIN_ETP])
			etps[netp++] = sp->val[PIN_ETP];
		else if (experts > 0 && edp % ep == 0) {
			/* expert tensor parallelism stays inside the scale-up domain (the node on a
			 * DGX, the rack on an NVL72), like every framework's TP: the core prices the
			 * ETP all-reduce on the domain's link */
			int nd = search_divisors(edp / ep, etps);
			for (int i = 0; i < nd; i++)
				if (etps[i] <= cluster_domain_devices(sp->job->cluster))
					etps[netp++] = etps[i];
		} else
			etps[netp++] = 1;
		for (int it = 0; it < netp; it++) {
			search_unit u = *split;
			u.ep = ep;
			u.etp = etps[it];
			search_lists L;
			search_unit_lists(sp, &u, 0, &L);
			u.leaves = unit_leaves(sp, &u, &L);
			if (u.leaves > 0 && add_unit(sp, cap, &u))
				return -1;
		}
	}
	return 0;
}

int search_space_init(search_space *sp, const search_job *job, const pin_set *pins, const search_opts *o)
{
	memset(sp, 0, sizeof *sp);
	sp->job = job;
	sp->opt = o;
	/* a score hook ranks by something the step-time bound says nothing about */
	sp->bound = !o->score && !o->exhaustive;
	sp->layers = job->model->layers;
	static const pin_set none;
	if (!pins)
		pins = &none;
	char why[SEARCH_WHY];
	for (int k = 0; k < PIN_LAYER; k++) {
		int rc = pin_fixed(pins, k, &sp->val[k], why, sizeof why);
		if (rc < 0) {
			why_set(sp->why, sizeof sp->why, "%s", why);
			return 0;
		}
		sp->fix[k] = rc;
	}
	if (sp->fix[PIN_DEVICES] && sp->val[PIN_DEVICES] != job->devices) {
		/* the search keeps the job's devices: a pin that names others is a conflict */
		why_set(sp->why, sizeof sp->why, "pin 'devices=%d': the job has %d devices (the search keeps the job's "
				"devices; -n or devices: sets them)", sp->val[PIN_DEVICES], job->devices);
		return 0;
	}
	strategy_t *b = &sp->base;
	*b = job->base;
	b->nranges = 0;
	b->nchunks = 0;
	/* the split keys fit one pp x vpp; the candidates' splits are the even one or the ILP's */
	b->first_layers = b->last_layers = 0;
	b->acct_embed = b->acct_loss = false;
	if (sp->fix[PIN_PRECISION])
		b->precision = (uint8_t)sp->val[PIN_PRECISION];
	if (sp->fix[PIN_VOCAB_PARALLEL])
		b->vocab_parallel = sp->val[PIN_VOCAB_PARALLEL];
	if (sp->fix[PIN_GBS])
		b->global_batch = sp->val[PIN_GBS];
	if (sp->fix[PIN_SEQ])
		b->seq = sp->val[PIN_SEQ];
	sp->budget_gib = sp->fix[PIN_BUDGET] ? sp->val[PIN_BUDGET] / 1024.0
		: job->budget_gib > 0 ? job->budget_gib : eval_default_budget_gib(job->cluster);
	sp->budget = sp->budget_gib * 1024.0 * 1024.0 * 1024.0;
	if (b->global_batch <= 0 || b->seq <= 0) {
		why_set(sp->why, sizeof sp->why, "the job needs a global batch and a sequence length");
		return -1;
	}
	if (pin_apply_ranges(pins, b, sp->why, sizeof sp->why))
		return -1;
	if (!pin_layers_valid(pins, job->model, 0, why, sizeof why)) {
		why_set(sp->why, sizeof sp->why, "%s", why);
		return 0;
	}
	int n = job->devices, min_pp = pin_min_pp(pins), cap = 0;
	int d[SEARCH_MAX_DIV], nd = search_divisors(n, d);
	for (int it = 0; it < nd; it++) {
		int tp = d[it];
		if (sp->fix[PIN_TP] && tp != sp->val[PIN_TP])
			continue;
		for (int ic = 0; ic < nd; ic++) {
			int cp = d[ic];
			if ((n / tp) % cp || (sp->fix[PIN_CP] && cp != sp->val[PIN_CP]))
				continue;
			for (int ip = 0; ip < nd; ip++) {
				int pp = d[ip];
				if ((n / tp / cp) % pp || pp < min_pp || (sp->fix[PIN_PP] && pp != sp->val[PIN_PP]))
					continue;
				int dp = n / tp / cp / pp;
				if (sp->fix[PIN_DP] && dp != sp->val[PIN_DP])
					continue;
				sp->shapes++;
				search_unit split = {tp, cp, pp, dp, 1, 1, 0, 0, 0, 0};
				if (!probe_split(sp, &split))
					continue;
				sp->shapes_valid++;
				if (add_split_units(sp, &cap, &split)) {
					why_set(sp->why, sizeof sp->why, "out of memory");
					return -1;
				}
			}
		}
	}
	if (sp->shapes == 0) {
		/* name the pins that leave no split of the devices */
		char pv[200] = "";
		size_t len = 0;
		for (int k = PIN_DP; k <= PIN_CP; k++)
			if (sp->fix[k] && k != PIN_VPP && len < sizeof pv)
				len += (size_t)snprintf(pv + len, sizeof pv - len, "%s%s=%d", len ? ", " : "", pin_key_name(k),
						sp->val[k]);
		if (min_pp > 1 && len < sizeof pv)
			snprintf(pv + len, sizeof pv - len, "%spp >= %d for the stage pins", len ? ", " : "", min_pp);
		why_set(sp->why, sizeof sp->why, "no split of %d devices into dp*tp*pp*cp has %s", n,
				*pv ? pv : "the pinned degrees");
	}
	return 0;
}

void search_space_free(search_space *sp)
{
	free(sp->unit);
	sp->unit = NULL;
}

