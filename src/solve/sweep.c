/* sweep.c - a knob swept over a range, each point priced by eval_run. Changing the devices
 * keeps tp, pp and cp and re-derives dp (so the global batch stays the job's); every other
 * knob keeps the device split. */
#include "solve/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *const key[SWEEP_KNOBS] = {"global_batch", "seq_length", "devices", "micro_batch"};
static const char *const shrt[SWEEP_KNOBS] = {"gbs", "seq", "devices", "mbs"};
static const char *const alias[SWEEP_KNOBS] = {"gbs", "seq", "n", "mbs"};
static const char *const metric[SWEEP_METRICS] = {"step", "mfu", "peak", "tokens"};

const char *sweep_knob_key(sweep_knob k) { return key[k]; }
const char *sweep_knob_short(sweep_knob k) { return shrt[k]; }
const char *sweep_metric_name(sweep_metric m) { return metric[m]; }

int sweep_parse_metric(const char *name)
{
	for (int i = 0; i < SWEEP_METRICS; i++)
		if (!strcmp(name, metric[i]))
			return i;
	return -1;
}

/* The knob the text names before its '='; -1 when none. */
static int knob_of(const char *text)
{
	const char *eq = strchr(text, '=');
	if (!eq)
		return -1;
	size_t l = (size_t)(eq - text);
	for (int i = 0; i < SWEEP_KNOBS; i++)
		if ((strlen(key[i]) == l && !strncmp(text, key[i], l)) || (strlen(alias[i]) == l && !strncmp(text, alias[i], l)))
			return i;
	return -1;
}

int sweep_is_spec(const char *text)
{
	return knob_of(text) >= 0;
}

/* A positive whole number at *p (advanced past it); -1 when there is none. */
static long number(const char **p)
{
	char *end;
	if (**p < '0' || **p > '9')
		return -1;
	long v = strtol(*p, &end, 10);
	*p = end;
	return v > 0 && v <= 1L << 30 ? v : -1;
}

int sweep_parse(const char *text, sweep_spec *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	int k = knob_of(text);
	if (k < 0) {
		snprintf(err, errlen, "sweep wants KNOB=a..b with KNOB one of gbs, seq, devices, mbs (got '%.60s')", text);
		return -1;
	}
	o->knob = (sweep_knob)k;
	const char *p = strchr(text, '=') + 1;
	long a = number(&p);
	if (a < 0)
		goto bad;
	if (!strncmp(p, "..", 2)) {
		p += 2;
		long b = number(&p), step = 0;
		if (b < a)
			goto bad;
		if (*p == '+') {
			p++;
			if ((step = number(&p)) < 0)
				goto bad;
		}
		if (*p)
			goto bad;
		for (long v = a; v <= b; v = step ? v + step : v * 2) {
			if (o->n == SWEEP_MAX) {
				snprintf(err, errlen, "sweep %s: more than %d points", text, SWEEP_MAX);
				return -1;
			}
			o->v[o->n++] = v;
		}
		return 0;
	}
	o->v[o->n++] = a;
	while (*p == ',') {
		p++;
		long v = number(&p);
		if (v < 0)
			goto bad;
		if (o->n == SWEEP_MAX) {
			snprintf(err, errlen, "sweep %s: more than %d points", text, SWEEP_MAX);
			return -1;
		}
		o->v[o->n++] = v;
	}
	if (!*p)
		return 0;
bad:
	snprintf(err, errlen, "sweep: cannot read '%.60s' (KNOB=a..b doubles from a to b, a..b+s adds s, a,b,c lists; "
			"positive whole numbers)", text);
	return -1;
}

void sweep_apply(sweep_knob k, long v, strategy_t *s, int *devices)
{
	switch (k) {
	case SWEEP_GBS:
		s->global_batch = (int)v;
		break;
	case SWEEP_SEQ:
		s->seq = (int)v;
		break;
	case SWEEP_DEVICES:
		*devices = (int)v;
		s->dp = 0;
		break;
	default:
		s->micro_batch = (int)v;
	}
}

double sweep_metric_of(const sweep_point *p, sweep_metric m)
{
	return m == SWEEP_STEP ? p->step : m == SWEEP_MFU ? 100 * p->mfu : m == SWEEP_PEAK ? p->peak_gib : p->tokens_per_s;
}

void sweep_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget_gib,
		const sweep_spec *spec, sweep_point *out, eval_result *ev)
{
	for (int i = 0; i < spec->n; i++) {
		sweep_point *p = &out[i];
		memset(p, 0, sizeof *p);
		p->value = spec->v[i];
		strategy_t t = *s;
		int d = devices;
		sweep_apply(spec->knob, spec->v[i], &t, &d);
		if (strat_resolve(&t, d, p->why, sizeof p->why) || eval_run(m, c, d, &t, budget_gib, ev)) {
			if (!p->why[0])
				snprintf(p->why, sizeof p->why, "%s", ev->why);
			continue;
		}
		p->valid = 1;
		p->fits = ev->fits;
		p->dp = t.dp;
		p->step = ev->step;
		p->mfu = ev->mfu;
		p->tokens_per_s = ev->tokens_per_s;
		p->peak_gib = ev->peak_bytes / GIB;
	}
}
