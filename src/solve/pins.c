/* pins.c - parsing pins and checking strategies against them. The search turns macro pins
 * into fixed loop values and layer pins into ILP constraints; this file only knows the
 * syntax and what "honoured" means. */
#include "solve/pins.h"
#include "core/nearest.h"
#include "core/why.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEGREE (1 << 24)

typedef enum { V_INT, V_BOOL, V_ENUM, V_GIB } vtype;

static const struct {
	const char *name;
	int key;
	int type;              /* vtype */
	long lo, hi;           /* V_INT */
	int (*parse)(const char *);
	const char *choices;
} keys[] = {
	{"dp", PIN_DP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"tp", PIN_TP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"pp", PIN_PP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"vpp", PIN_VPP, V_INT, 1, 1024, NULL, NULL},
	{"cp", PIN_CP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"cp_kind", PIN_CP_KIND, V_ENUM, 0, 0, strat_parse_cp_kind, "ring, ulysses"},
	{"ep", PIN_EP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"etp", PIN_ETP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"zero", PIN_ZERO, V_INT, 0, 3, NULL, NULL},
	{"micro_batch", PIN_MBS, V_INT, 1, 1 << 20, NULL, NULL},
	{"mbs", PIN_MBS, V_INT, 1, 1 << 20, NULL, NULL},
	{"sp", PIN_SP, V_BOOL, 0, 0, NULL, NULL},
	{"recompute", PIN_RECOMPUTE, V_ENUM, 0, 0, strat_parse_recompute, "none, selective, full"},
	{"schedule", PIN_SCHEDULE, V_ENUM, 0, 0, strat_parse_schedule,
		"gpipe, 1f1b, interleaved, zb-h1, zb-h2, zb-v, dualpipe"},
	{"precision", PIN_PRECISION, V_ENUM, 0, 0, strat_parse_precision, "bf16, fp16, fp8"},
	{"vocab_parallel", PIN_VOCAB_PARALLEL, V_BOOL, 0, 0, NULL, NULL},
	{"experts.ep", PIN_EP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"experts.etp", PIN_ETP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"attention.tp", PIN_TP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"attention.cp", PIN_CP, V_INT, 1, MAX_DEGREE, NULL, NULL},
	{"attention.cp_kind", PIN_CP_KIND, V_ENUM, 0, 0, strat_parse_cp_kind, "ring, ulysses"},
	{"embedding.vocab_parallel", PIN_VOCAB_PARALLEL, V_BOOL, 0, 0, NULL, NULL},
	{"global_batch", PIN_GBS, V_INT, 1, 1 << 30, NULL, NULL},
	{"gbs", PIN_GBS, V_INT, 1, 1 << 30, NULL, NULL},
	{"seq_length", PIN_SEQ, V_INT, 1, 1 << 26, NULL, NULL},
	{"seq", PIN_SEQ, V_INT, 1, 1 << 26, NULL, NULL},
	{"budget_gib", PIN_BUDGET, V_GIB, 0, 0, NULL, NULL},
	{"budget", PIN_BUDGET, V_GIB, 0, 0, NULL, NULL},
	{"devices", PIN_DEVICES, V_INT, 1, MAX_DEGREE, NULL, NULL},
};

static const char *key_names[PIN_NKEYS] = {
	[PIN_DP] = "dp", [PIN_TP] = "tp", [PIN_PP] = "pp", [PIN_VPP] = "vpp", [PIN_CP] = "cp",
	[PIN_CP_KIND] = "cp_kind", [PIN_EP] = "ep", [PIN_ETP] = "etp", [PIN_ZERO] = "zero",
	[PIN_MBS] = "micro_batch", [PIN_SP] = "sp", [PIN_RECOMPUTE] = "recompute",
	[PIN_SCHEDULE] = "schedule", [PIN_PRECISION] = "precision",
	[PIN_VOCAB_PARALLEL] = "vocab_parallel", [PIN_GBS] = "global_batch", [PIN_SEQ] = "seq_length",
	[PIN_BUDGET] = "budget_gib", [PIN_DEVICES] = "devices", [PIN_LAYER] = "layers",
};

const char *pin_key_name(int key) { return key >= 0 && key < PIN_NKEYS ? key_names[key] : "?"; }

static int parse_bool(const char *v, int *out)
{
	static const char *t[] = {"true", "on", "yes", "1"}, *f[] = {"false", "off", "no", "0"};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (!strcmp(v, t[i]))
			return *out = 1, 0;
		if (!strcmp(v, f[i]))
			return *out = 0, 0;
	}
	return -1;
}

/* Copy s into out (n > 0) without surrounding white space; s and out may be the same. */
static void trim(const char *s, char *out, size_t n)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t l = strlen(s);
	while (l > 0 && isspace((unsigned char)s[l - 1]))
		l--;
	if (l >= n)
		l = n - 1;
	memmove(out, s, l);
	out[l] = 0;
}

size_t pin_names(const char **out, size_t max)
{
	static const char *const layer[] = {"layers[a:b].recompute", "layers[a:b].stage", "stages[s].layers"};
	size_t n = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0] && n < max; i++)
		out[n++] = keys[i].name;
	for (size_t i = 0; i < 3 && n < max; i++)
		out[n++] = layer[i];
	return n;
}

int pin_parse(const char *expr, pin_t *p, char *why, size_t n)
{
	memset(p, 0, sizeof *p);
	trim(expr, p->text, sizeof p->text);
	if (strlen(expr) >= sizeof p->text)
		return why_set(why, n, "pin '%.40s...' is longer than %d characters", p->text, PIN_TEXT - 1);
	int rc = ilp_pin_parse(p->text, &p->layer, why, n);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		p->key = PIN_LAYER;
		return 0;
	}
	const char *eq = strchr(p->text, '=');
	if (!eq)
		return why_set(why, n, "pin '%s' is written key=value (e.g. tp=8, experts.ep=8)", p->text);
	char key[PIN_TEXT], val[PIN_TEXT];
	snprintf(key, sizeof key, "%.*s", (int)(eq - p->text), p->text);
	trim(key, key, sizeof key);
	trim(eq + 1, val, sizeof val);
	if (!*val)
		return why_set(why, n, "pin '%s' has no value", p->text);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(key, keys[i].name))
			continue;
		p->key = keys[i].key;
		switch (keys[i].type) {
		case V_INT: {
			char *end;
			errno = 0;
			long v = strtol(val, &end, 10);
			if (end == val || *end || errno)
				return why_set(why, n, "pin '%s': %s must be an integer", p->text, key);
			if (v < keys[i].lo || v > keys[i].hi)
				return why_set(why, n, "pin '%s': %s must be between %ld and %ld", p->text, key,
						keys[i].lo, keys[i].hi);
			p->value = (int)v;
			return 0;
		}
		case V_BOOL:
			if (parse_bool(val, &p->value))
				return why_set(why, n, "pin '%s': %s must be true or false", p->text, key);
			return 0;
		case V_ENUM:
			p->value = keys[i].parse(val);
			if (p->value < 0)
				return why_set(why, n, "pin '%s': %s must be one of %s", p->text, key, keys[i].choices);
			return 0;
		default: {
			char *end;
			errno = 0;
			double g = strtod(val, &end);
			if (end == val || *end || errno || !(g > 0 && g < 1e6))
				return why_set(why, n, "pin '%s': the budget is a positive number of GiB", p->text);
			p->value = (int)(g * 1024 + 0.5); /* MiB: pins are compared as integers */
			return 0;
		}
		}
	}
	if (!strncmp(key, "experts.", 8) || !strncmp(key, "attention.", 10) || !strncmp(key, "embedding.", 10))
		return why_set(why, n, "pin '%s': operator-group pins are experts.ep, experts.etp, attention.tp, "
				"attention.cp, attention.cp_kind and embedding.vocab_parallel", p->text);
	const char *names[sizeof keys / sizeof keys[0] + 3];
	size_t nn = pin_names(names, sizeof names / sizeof names[0]);
	const char *near = nearest_word(key, names, nn);
	char hint[80] = "";
	if (near)
		snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
	return why_set(why, n, "pin '%s': unknown key '%s'%s (pinnable: dp tp pp vpp cp cp_kind ep etp zero mbs sp "
			"recompute schedule precision, experts.ep, experts.etp, attention.tp, attention.cp, "
			"attention.cp_kind, embedding.vocab_parallel, layers[a:b].recompute, layers[a:b].stage, "
			"stages[s].layers)", p->text, key, hint);
}

int pin_add(pin_set *set, const char *expr, char *why, size_t n)
{
	if (set->n >= PIN_MAX)
		return why_set(why, n, "more than %d pins", PIN_MAX);
	if (pin_parse(expr, &set->pin[set->n], why, n))
		return -1;
	set->n++;
	return 0;
}

int pin_set_from_strings(pin_set *set, char (*pins)[128], int n, char *why, size_t whylen)
{
	set->n = 0;
	for (int i = 0; i < n; i++)
		if (pin_add(set, pins[i], why, whylen))
			return -1;
	return 0;
}

int pin_fixed(const pin_set *set, int key, int *value, char *why, size_t n)
{
	const pin_t *first = NULL;
	for (int i = 0; i < set->n; i++) {
		const pin_t *p = &set->pin[i];
		if (p->key != key)
			continue;
		if (!first) {
			first = p;
			*value = p->value;
		} else if (p->value != first->value) {
			why_set(why, n, "pins '%s' and '%s' fix %s to different values", first->text, p->text,
					pin_key_name(key));
			return -1;
		}
	}
	return first ? 1 : 0;
}

/* Pipeline stage that holds layer l under s's split (-1 when no chunk does). */
static int stage_of(const model_t *m, const strategy_t *s, int l)
{
	for (int v = 0; v < s->vpp; v++)
		for (int st = 0; st < s->pp; st++) {
			int lo, cnt;
			strat_chunk_span(s, m->layers, v, st, &lo, &cnt);
			if (l >= lo && l < lo + cnt)
				return st;
		}
	return -1;
}

static int field(const strategy_t *s, int key)
{
	switch (key) {
	case PIN_DP: return s->dp;
	case PIN_TP: return s->tp;
	case PIN_PP: return s->pp;
	case PIN_VPP: return s->vpp;
	case PIN_CP: return s->cp;
	case PIN_CP_KIND: return s->cp_kind;
	case PIN_EP: return s->ep;
	case PIN_ETP: return s->etp;
	case PIN_ZERO: return s->zero;
	case PIN_MBS: return s->micro_batch;
	case PIN_SP: return s->sp;
	case PIN_RECOMPUTE: return s->recompute;
	case PIN_SCHEDULE: return s->schedule;
	case PIN_PRECISION: return s->precision;
	case PIN_VOCAB_PARALLEL: return s->vocab_parallel;
	case PIN_GBS: return s->global_batch;
	case PIN_SEQ: return s->seq;
	default: return -1;
	}
}

static int layer_pin_honoured(const pin_t *p, const model_t *m, const strategy_t *s, char *why, size_t n)
{
	const ilp_pin *q = &p->layer;
	if (q->kind == ILP_PIN_RECOMPUTE) {
		for (int l = q->lo; l < q->hi; l++)
			if (strat_layer_recompute(s, l) != q->value) {
				why_set(why, n, "pin '%s': layer %d recomputes %s", p->text, l,
						strat_recompute_name(strat_layer_recompute(s, l)));
				return 0;
			}
		return 1;
	}
	if (q->kind == ILP_PIN_STAGE) {
		for (int l = q->lo; l < q->hi; l++) {
			int st = stage_of(m, s, l);
			if (st != q->stage) {
				why_set(why, n, "pin '%s': layer %d is on stage %d", p->text, l, st);
				return 0;
			}
		}
		return 1;
	}
	int cnt = 0;
	for (int v = 0; v < s->vpp && q->stage < s->pp; v++) {
		int lo, c;
		strat_chunk_span(s, m->layers, v, q->stage, &lo, &c);
		cnt += c;
	}
	if (cnt != q->value) {
		why_set(why, n, "pin '%s': stage %d holds %d layers", p->text, q->stage, cnt);
		return 0;
	}
	return 1;
}

int pin_honoured(const pin_set *set, const model_t *m, const strategy_t *s, char *why, size_t n)
{
	for (int i = 0; i < set->n; i++) {
		const pin_t *p = &set->pin[i];
		if (p->key == PIN_BUDGET || p->key == PIN_DEVICES) /* the job's, not the strategy's */
			continue;
		if (p->key == PIN_LAYER) {
			if (!layer_pin_honoured(p, m, s, why, n))
				return 0;
			continue;
		}
		if (p->key == PIN_RECOMPUTE) {
			/* a layer the range pins do not claim recomputes as pinned, whatever mode
			 * the strategy names as its default */
			for (int l = 0; l < m->layers; l++) {
				int claimed = 0;
				for (int k = 0; k < set->n && !claimed; k++)
					claimed = set->pin[k].key == PIN_LAYER && set->pin[k].layer.kind == ILP_PIN_RECOMPUTE &&
						l >= set->pin[k].layer.lo && l < set->pin[k].layer.hi;
				if (!claimed && strat_layer_recompute(s, l) != p->value) {
					why_set(why, n, "pin '%s': layer %d recomputes %s", p->text, l,
							strat_recompute_name(strat_layer_recompute(s, l)));
					return 0;
				}
			}
			continue;
		}
		if (field(s, p->key) != p->value) {
			why_set(why, n, "pin '%s': the strategy has %s=%d", p->text, pin_key_name(p->key), field(s, p->key));
			return 0;
		}
	}
	return 1;
}

int pin_layers_valid(const pin_set *set, const model_t *m, int pp, char *why, size_t n)
{
	for (int i = 0; i < set->n; i++) {
		const pin_t *p = &set->pin[i];
		if (p->key != PIN_LAYER)
			continue;
		const ilp_pin *q = &p->layer;
		if (q->kind != ILP_PIN_LAYERS && q->hi > m->layers) {
			why_set(why, n, "pin '%s': the model has %d layers (0 to %d)", p->text, m->layers, m->layers - 1);
			return 0;
		}
		if (q->kind == ILP_PIN_LAYERS && q->value > m->layers) {
			why_set(why, n, "pin '%s': the model has only %d layers", p->text, m->layers);
			return 0;
		}
		if (q->kind != ILP_PIN_RECOMPUTE && pp > 0 && q->stage >= pp) {
			why_set(why, n, "pin '%s': stage %d does not exist with pp=%d", p->text, q->stage, pp);
			return 0;
		}
	}
	return 1;
}

int pin_min_pp(const pin_set *set)
{
	int pp = 1;
	for (int i = 0; i < set->n; i++) {
		const pin_t *p = &set->pin[i];
		if (p->key == PIN_LAYER && p->layer.kind != ILP_PIN_RECOMPUTE && p->layer.stage + 1 > pp)
			pp = p->layer.stage + 1;
	}
	return pp;
}

int pin_needs_ilp(const pin_set *set)
{
	for (int i = 0; i < set->n; i++)
		if (set->pin[i].key == PIN_LAYER && set->pin[i].layer.kind != ILP_PIN_RECOMPUTE)
			return 1;
	return 0;
}

int pin_apply_ranges(const pin_set *set, strategy_t *s, char *why, size_t n)
{
	for (int i = 0; i < set->n; i++) {
		const pin_t *p = &set->pin[i];
		if (p->key != PIN_LAYER || p->layer.kind != ILP_PIN_RECOMPUTE)
			continue;
		if (s->nranges >= STRAT_MAX_RANGES)
			return why_set(why, n, "pin '%s': more than %d recompute ranges", p->text, STRAT_MAX_RANGES);
		rc_range *r = &s->range[s->nranges++];
		r->lo = p->layer.lo;
		r->hi = p->layer.hi;
		r->mode = (uint8_t)p->layer.value;
	}
	return 0;
}

void pin_ilp_pins(const pin_set *set, ilp_pins *out)
{
	out->n = 0;
	for (int i = 0; i < set->n && out->n < ILP_MAX_PINS; i++)
		if (set->pin[i].key == PIN_LAYER)
			out->pin[out->n++] = set->pin[i].layer;
}

void pin_prefix(const pin_set *set, int n, pin_set *out)
{
	out->n = n < set->n ? n : set->n;
	memcpy(out->pin, set->pin, (size_t)out->n * sizeof out->pin[0]);
}
