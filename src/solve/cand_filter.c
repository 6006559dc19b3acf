/* cand_filter.c - the search table's `/` filter: parse terms, test a result against them. */
#include "solve/cand_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_DP, K_TP, K_PP, K_VPP, K_CP, K_EP, K_ETP, K_ZERO, K_MBS, K_SP, K_RC, K_SCHED, K_STEP, K_ALLOC, K_MFU, K_TOK,
	K_COUNT };
enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

static const struct {
	const char *name;
	int key;
} keys[] = {
	{"dp", K_DP}, {"tp", K_TP}, {"pp", K_PP}, {"vpp", K_VPP}, {"cp", K_CP}, {"ep", K_EP}, {"etp", K_ETP},
	{"zero", K_ZERO}, {"mbs", K_MBS}, {"micro_batch", K_MBS}, {"sp", K_SP}, {"recompute", K_RC}, {"rc", K_RC},
	{"schedule", K_SCHED}, {"step", K_STEP}, {"alloc", K_ALLOC}, {"peak", K_ALLOC}, {"mfu", K_MFU}, {"tok", K_TOK},
};

/* The value a name-valued key takes from text; -1 when not one of its names. */
static double name_value(int key, const char *v)
{
	if (key == K_SP)
		return !strcmp(v, "on") || !strcmp(v, "true") ? 1 : !strcmp(v, "off") || !strcmp(v, "false") ? 0 : -1;
	if (key == K_RC)
		return !strcmp(v, "sel") ? RC_SELECTIVE : strat_parse_recompute(v);
	return strat_parse_schedule(v);
}

static int term(const char *s, cand_filter *f, char *err, size_t errlen)
{
	size_t kl = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
	int key = -1;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strlen(keys[i].name) == kl && !strncmp(s, keys[i].name, kl))
			key = keys[i].key;
	if (key < 0) {
		snprintf(err, errlen, "'%s': unknown key (dp tp pp vpp cp ep etp zero mbs sp recompute schedule step alloc mfu tok)", s);
		return -1;
	}
	const char *o = s + kl;
	static const char *const ops[] = {"!=", "<=", ">=", "=", "<", ">"};
	static const int opv[] = {OP_NE, OP_LE, OP_GE, OP_EQ, OP_LT, OP_GT};
	int op = -1;
	size_t ol = 0;
	for (int i = 0; i < 6 && op < 0; i++)
		if (!strncmp(o, ops[i], strlen(ops[i])))
			op = opv[i], ol = strlen(ops[i]);
	if (op < 0 || !o[ol]) {
		snprintf(err, errlen, "'%s': want KEY OP VALUE with OP one of = != < <= > >=", s);
		return -1;
	}
	const char *v = o + ol;
	double x;
	if (key == K_SP || key == K_RC || key == K_SCHED) {
		if (op != OP_EQ && op != OP_NE) {
			snprintf(err, errlen, "'%s': %.*s takes = or != only", s, (int)kl, s);
			return -1;
		}
		if ((x = name_value(key, v)) < 0) {
			snprintf(err, errlen, "'%s': '%s' is not a value of %.*s", s, v, (int)kl, s);
			return -1;
		}
	} else {
		char *end;
		x = strtod(v, &end);
		if (end == v || *end) {
			snprintf(err, errlen, "'%s': '%s' is not a number", s, v);
			return -1;
		}
	}
	if (f->n == CFILTER_MAX) {
		snprintf(err, errlen, "more than %d terms", CFILTER_MAX);
		return -1;
	}
	f->t[f->n].key = key;
	f->t[f->n].op = op;
	f->t[f->n].v = x;
	f->n++;
	return 0;
}

int cand_filter_parse(const char *text, cand_filter *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	char buf[256];
	snprintf(buf, sizeof buf, "%s", text);
	for (char *save = NULL, *s = strtok_r(buf, " \t,", &save); s; s = strtok_r(NULL, " \t,", &save))
		if (term(s, f, err, errlen))
			return -1;
	return 0;
}

static double item_value(const search_item *it, int key)
{
	const strategy_t *s = &it->s;
	switch (key) {
	case K_DP: return s->dp;
	case K_TP: return s->tp;
	case K_PP: return s->pp;
	case K_VPP: return s->vpp;
	case K_CP: return s->cp;
	case K_EP: return s->ep;
	case K_ETP: return s->etp;
	case K_ZERO: return s->zero;
	case K_MBS: return s->micro_batch;
	case K_SP: return s->sp;
	case K_RC: return s->recompute;
	case K_SCHED: return s->schedule;
	case K_STEP: return it->step;
	case K_ALLOC: return it->peak_gib;
	case K_MFU: return 100 * it->mfu;
	default: return it->tokens_per_s;
	}
}

int cand_filter_match(const cand_filter *f, const search_item *it)
{
	for (int i = 0; i < f->n; i++) {
		double x = item_value(it, f->t[i].key), v = f->t[i].v;
		int ok;
		switch (f->t[i].op) {
		case OP_EQ: ok = x == v; break;
		case OP_NE: ok = x != v; break;
		case OP_LT: ok = x < v; break;
		case OP_LE: ok = x <= v; break;
		case OP_GT: ok = x > v; break;
		default: ok = x >= v;
		}
		if (!ok)
			return 0;
	}
	return 1;
}
