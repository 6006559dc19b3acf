/* knob.c - knob names, values and stepping through valid values only. */
#include "core/knob.h"
#include "core/evaluate.h"
#include "core/why.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_CAND 4096            /* no number below 2^30 has more divisors than this */
#define MAX_DEVICES (1 << 24)    /* the plan loader's limit */
#define MAX_GBS (1 << 30)

static const struct {
	const char *key, *label;
} info[KNOB_COUNT] = {
	[KNOB_DP] = {"dp", "dp"}, [KNOB_TP] = {"tp", "tp"}, [KNOB_PP] = {"pp", "pp"},
	[KNOB_VPP] = {"vpp", "vpp"}, [KNOB_CP] = {"cp", "cp"}, [KNOB_EP] = {"ep", "ep"},
	[KNOB_ETP] = {"etp", "etp"}, [KNOB_ZERO] = {"zero", "zero"},
	[KNOB_MBS] = {"micro_batch", "micro batch"}, [KNOB_GBS] = {"global_batch", "global batch"},
	[KNOB_SEQ] = {"seq_length", "seq length"}, [KNOB_SP] = {"sp", "sp"},
	[KNOB_RECOMPUTE] = {"recompute", "recompute"}, [KNOB_SCHEDULE] = {"schedule", "schedule"},
	[KNOB_PRECISION] = {"precision", "precision"}, [KNOB_BUDGET] = {"budget_gib", "budget GiB"},
	[KNOB_DEVICES] = {"devices", "devices"},
};

/* The explorer's rows: the job's devices first, dp (which follows them) next. */
static const knob_id order[KNOB_COUNT] = {
	KNOB_DEVICES, KNOB_DP, KNOB_TP, KNOB_PP, KNOB_VPP, KNOB_CP, KNOB_EP, KNOB_ETP, KNOB_ZERO, KNOB_MBS,
	KNOB_GBS, KNOB_SEQ, KNOB_SP, KNOB_RECOMPUTE, KNOB_SCHEDULE, KNOB_PRECISION, KNOB_BUDGET,
};

knob_id knob_at(int row) { return row >= 0 && row < KNOB_COUNT ? order[row] : KNOB_DP; }

int knob_row(knob_id k)
{
	for (int i = 0; i < KNOB_COUNT; i++)
		if (order[i] == k)
			return i;
	return 0;
}

const char *knob_key(knob_id k) { return k < KNOB_COUNT ? info[k].key : "?"; }
const char *knob_label(knob_id k) { return k < KNOB_COUNT ? info[k].label : "?"; }

int knob_find(const char *key)
{
	static const struct { const char *alias; knob_id k; } aliases[] = {
		{"mbs", KNOB_MBS}, {"gbs", KNOB_GBS}, {"seq", KNOB_SEQ}, {"budget", KNOB_BUDGET},
		{"n", KNOB_DEVICES},
	};
	for (int k = 0; k < KNOB_COUNT; k++)
		if (!strcmp(key, info[k].key))
			return k;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (!strcmp(key, aliases[i].alias))
			return (int)aliases[i].k;
	return -1;
}

/* The integer field behind a numeric knob, or NULL. */
static int *int_field(strategy_t *s, knob_id k)
{
	switch (k) {
	case KNOB_DP: return &s->dp;
	case KNOB_TP: return &s->tp;
	case KNOB_PP: return &s->pp;
	case KNOB_VPP: return &s->vpp;
	case KNOB_CP: return &s->cp;
	case KNOB_EP: return &s->ep;
	case KNOB_ETP: return &s->etp;
	case KNOB_ZERO: return &s->zero;
	case KNOB_MBS: return &s->micro_batch;
	case KNOB_GBS: return &s->global_batch;
	case KNOB_SEQ: return &s->seq;
	default: return NULL;
	}
}

/* A numeric knob's value (a strategy field, or the job's devices); 1 when k is numeric. */
static int num_get(const knob_job *j, knob_id k, long long *v)
{
	strategy_t s = j->s;
	int *f = int_field(&s, k);
	if (k == KNOB_DEVICES)
		*v = j->devices;
	else if (f)
		*v = *f;
	return k == KNOB_DEVICES || f;
}

static void num_set(knob_job *j, knob_id k, long long v)
{
	int *f = int_field(&j->s, k);
	if (k == KNOB_DEVICES)
		j->devices = (int)v;
	else if (f)
		*f = (int)v;
}

/* Enumerated knobs: number of values, and get/set as an index. */
static int enum_count(knob_id k)
{
	return k == KNOB_SP ? 2 : k == KNOB_RECOMPUTE ? RC_COUNT : k == KNOB_SCHEDULE ? SCHED_COUNT :
		k == KNOB_PRECISION ? PREC_COUNT : 0;
}

static int enum_get(const strategy_t *s, knob_id k)
{
	return k == KNOB_SP ? s->sp : k == KNOB_RECOMPUTE ? s->recompute : k == KNOB_SCHEDULE ? s->schedule :
		s->precision;
}

static void enum_set(strategy_t *s, knob_id k, int v)
{
	if (k == KNOB_SP)
		s->sp = v != 0;
	else if (k == KNOB_RECOMPUTE)
		s->recompute = (uint8_t)v;
	else if (k == KNOB_SCHEDULE)
		s->schedule = (uint8_t)v;
	else
		s->precision = (uint8_t)v;
}

static const char *enum_name(knob_id k, int v, int for_file)
{
	if (k == KNOB_SP)
		return for_file ? (v ? "true" : "false") : (v ? "on" : "off");
	return k == KNOB_RECOMPUTE ? strat_recompute_name(v) : k == KNOB_SCHEDULE ? strat_schedule_name(v) :
		strat_precision_name(v);
}

static double budget_of(const knob_job *j, const cluster_t *c)
{
	return j->budget_gib > 0 ? j->budget_gib : eval_default_budget_gib(c);
}

static void value_text(const knob_job *j, const cluster_t *c, knob_id k, int for_file, char *out, size_t n)
{
	long long v;
	if (num_get(j, k, &v))
		snprintf(out, n, "%lld", v);
	else if (k == KNOB_BUDGET)
		snprintf(out, n, for_file ? "%g" : "%.1f", budget_of(j, c));
	else if (enum_count(k))
		snprintf(out, n, "%s", enum_name(k, enum_get(&j->s, k), for_file));
	else
		snprintf(out, n, "?");
}

void knob_format(const knob_job *j, const cluster_t *c, knob_id k, char *out, size_t n)
{
	value_text(j, c, k, 0, out, n);
}

void knob_pin_text(const knob_job *j, const cluster_t *c, knob_id k, char *out, size_t n)
{
	char v[64];
	value_text(j, c, k, 1, v, sizeof v);
	snprintf(out, n, "%s=%s", knob_key(k), v);
}

unsigned knob_pin_bit(const char *pin)
{
	char key[128];
	snprintf(key, sizeof key, "%s", pin);
	char *eq = strchr(key, '=');
	if (!eq)
		return 0;
	*eq = 0;
	int k = knob_find(key);
	return k >= 0 ? 1u << k : 0;
}

unsigned knob_rederive(knob_job *j, int k)
{
	strategy_t *s = &j->s;
	unsigned changed = 0;
	if (k < 0 || k == KNOB_DEVICES || k == KNOB_TP || k == KNOB_PP || k == KNOB_CP) {
		long long mp = (long long)s->tp * s->pp * s->cp;
		if (mp > 0 && j->devices % mp == 0 && j->devices / mp != s->dp) {
			s->dp = (int)(j->devices / mp);
			changed |= 1u << KNOB_DP;
		}
	} else if (k == KNOB_DP) {
		long long d = (long long)s->dp * s->tp * s->pp * s->cp;
		if (d > 0 && d <= MAX_DEVICES && d != j->devices) {
			j->devices = (int)d;
			changed |= 1u << KNOB_DEVICES;
		}
	}
	if (k == KNOB_VPP && s->vpp > 1 && s->schedule != SCHED_INTERLEAVED) {
		s->schedule = SCHED_INTERLEAVED;
		changed |= 1u << KNOB_SCHEDULE;
	}
	if (((k == KNOB_SCHEDULE && s->schedule != SCHED_INTERLEAVED) || (k == KNOB_PP && s->pp == 1)) &&
			s->vpp > 1) {
		s->vpp = 1;
		changed |= 1u << KNOB_VPP;
	}
	return changed;
}

/* Divisors of n in ascending order; returns how many fit in out. */
static int divisors(long long n, long long *out, int cap)
{
	long long hi[MAX_CAND];
	int nl = 0, nh = 0;
	for (long long d = 1; d * d <= n && nl < cap && nh < MAX_CAND; d++) {
		if (n % d)
			continue;
		out[nl++] = d;
		if (d != n / d)
			hi[nh++] = n / d;
	}
	while (nh > 0 && nl < cap)
		out[nl++] = hi[--nh];
	return nl;
}

/* Candidate values of a numeric knob, ascending. The candidate sets only make the search
 * short (divisors, powers of two); validity is decided by strat_validate. */
static int candidates(const model_t *m, const knob_job *j, knob_id k, long long *out, int cap)
{
	const strategy_t *s = &j->s;
	int n = 0;
	switch (k) {
	case KNOB_DP: {
		/* whole replicas: dp must divide the sequences per step */
		long long per = s->micro_batch > 0 && s->global_batch % s->micro_batch == 0 ?
			s->global_batch / s->micro_batch : s->global_batch;
		return per > 0 ? divisors(per, out, cap) : 0;
	}
	case KNOB_DEVICES: {
		/* tp*pp*cp stays and dp follows: whole replicas, as many as divide the sequences
		 * per step (so that stepping devices is never refused for the batch) */
		long long mp = (long long)s->tp * s->pp * s->cp;
		long long per = s->micro_batch > 0 && s->global_batch % s->micro_batch == 0 ?
			s->global_batch / s->micro_batch : s->global_batch;
		int nd = per > 0 && mp > 0 ? divisors(per, out, cap) : 0;
		for (int i = 0; i < nd && out[i] * mp <= MAX_DEVICES; i++)
			out[n++] = out[i] * mp;
		return n;
	}
	case KNOB_TP: case KNOB_PP: case KNOB_CP: case KNOB_ETP:
		return divisors(j->devices, out, cap);
	case KNOB_VPP:
		for (int v = 1; v <= 1024 && s->pp > 0 && v * s->pp <= m->layers && n < cap; v++)
			out[n++] = v;
		return n;
	case KNOB_EP:
		return divisors(model_max_experts(m) > 0 ? model_max_experts(m) : 1, out, cap);
	case KNOB_ZERO:
		for (int z = 0; z <= 3; z++)
			out[n++] = z;
		return n;
	case KNOB_MBS: {
		long long per = s->dp > 0 && s->global_batch % s->dp == 0 ? s->global_batch / s->dp : s->global_batch;
		return per > 0 ? divisors(per, out, cap) : 0;
	}
	case KNOB_GBS: {
		/* powers of two of the smallest valid batch (one micro-batch per replica) */
		long long unit = (long long)s->dp * s->micro_batch;
		for (long long g = unit; unit > 0 && g <= MAX_GBS && n < cap; g *= 2)
			out[n++] = g;
		return n;
	}
	case KNOB_SEQ:
		for (long long q = 128; q <= (1 << 20) && n < cap; q *= 2)
			out[n++] = q;
		return n;
	default:
		return 0;
	}
}

/* Try one candidate: apply, keep derived values consistent, respect pins, validate. */
static int try_candidate(const model_t *m, const cluster_t *c, const knob_job *j, knob_id k, long long v,
		unsigned pinned, knob_job *out, unsigned *changed, char *why, size_t n)
{
	*out = *j;
	long long old;
	if (num_get(out, k, &old))
		num_set(out, k, v);
	else
		enum_set(&out->s, k, (int)v);
	*changed = knob_rederive(out, k);
	if (k == KNOB_DP && out->devices != (long long)out->s.dp * out->s.tp * out->s.pp * out->s.cp)
		return why_set(why, n, "dp=%lld would need more than %d devices", v, MAX_DEVICES);
	unsigned clash = *changed & pinned;
	if (clash) {
		for (int i = 0; i < KNOB_COUNT; i++)
			if (clash & (1u << i))
				return why_set(why, n, "%s would change, and it is pinned", knob_key(i));
	}
	return strat_validate(&out->s, m, c, out->devices, why, n);
}

static int step_budget(const cluster_t *c, knob_job *j, int dir, char *why, size_t n)
{
	double b = budget_of(j, c);
	double next = dir > 0 ? floor(b) + 1 : ceil(b) - 1;
	if (next < 1)
		return why_set(why, n, "the memory budget cannot go below 1 GiB");
	if (next >= 1e6)
		return why_set(why, n, "the memory budget cannot go above 1e6 GiB");
	j->budget_gib = next;
	return 0;
}

int knob_step(const model_t *m, const cluster_t *c, knob_job *j, knob_id k, int dir, unsigned pinned,
		unsigned *changed, char *why, size_t whylen)
{
	*changed = 0;
	if (k >= KNOB_COUNT || dir == 0)
		return why_set(why, whylen, "no such knob");
	if (pinned & (1u << k))
		return why_set(why, whylen, "%s is pinned (p unpins it)", knob_key(k));
	if (k == KNOB_BUDGET)
		return step_budget(c, j, dir, why, whylen);
	knob_job trial;
	unsigned ch;
	char first_why[256] = "";
	long long first_v = 0;
	int tried = 0;
	int ne = enum_count(k);
	if (ne) {
		/* enumerations wrap around: the next value in order that the core accepts */
		int cur = enum_get(&j->s, k);
		for (int i = 1; i < ne; i++) {
			int v = ((cur + dir * i) % ne + ne) % ne;
			if (!try_candidate(m, c, j, k, v, pinned, &trial, &ch, tried ? NULL : first_why, sizeof first_why)) {
				*j = trial;
				*changed = ch;
				return 0;
			}
			if (!tried++)
				first_v = v;
		}
		if (!tried)
			return why_set(why, whylen, "%s has no other value", knob_key(k));
		return why_set(why, whylen, "no other %s is valid here (%s=%s: %s)", knob_key(k), knob_key(k),
				enum_name(k, (int)first_v, 0), first_why);
	}
	long long cand[MAX_CAND];
	int nc = candidates(m, j, k, cand, MAX_CAND);
	long long cur = 0;
	num_get(j, k, &cur);
	for (int i = dir > 0 ? 0 : nc - 1; i >= 0 && i < nc; i += dir > 0 ? 1 : -1) {
		if ((dir > 0 && cand[i] <= cur) || (dir < 0 && cand[i] >= cur))
			continue;
		if (!try_candidate(m, c, j, k, cand[i], pinned, &trial, &ch, tried ? NULL : first_why, sizeof first_why)) {
			*j = trial;
			*changed = ch;
			return 0;
		}
		if (!tried++)
			first_v = cand[i];
	}
	const char *way = dir > 0 ? "larger" : "smaller";
	if (!tried)
		return why_set(why, whylen, "no %s %s than %lld to try", way, knob_key(k), cur);
	return why_set(why, whylen, "no %s %s is valid (%s=%lld: %s)", way, knob_key(k), knob_key(k), first_v,
			first_why);
}
