/* ilp_pins.c - the layer and stage pins the ILP honours, parsed from the plan's pin
 * strings (DESIGN.md section 6): layers[a:b].stage=s, layers[a:b].recompute=MODE and
 * stages[s].layers=n. Macro pins (tp=8, experts.ep=8, ...) are left to others. */
#include "solve/ilp.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Read a non-negative integer at *p; advances *p. -1 if there is none. */
static long num(const char **p)
{
	if (!isdigit((unsigned char)**p))
		return -1;
	long v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > 1000000)
			return -1;
		(*p)++;
	}
	return v;
}

int ilp_pin_parse(const char *expr, ilp_pin *pin, char *why, size_t whylen)
{
	const char *p = expr;
	while (isspace((unsigned char)*p))
		p++;
	memset(pin, 0, sizeof *pin);
	int layers = !strncmp(p, "layers[", 7);
	int stages = !strncmp(p, "stages[", 7) || !strncmp(p, "stage[", 6);
	if (!layers && !stages)
		return 1;
	p = strchr(p, '[') + 1;
	long a = num(&p), b = a + 1;
	if (a < 0)
		goto bad;
	if (layers && *p == ':') {
		p++;
		b = num(&p);
		if (b < 0)
			goto bad;
	}
	if (*p++ != ']' || *p++ != '.')
		goto bad;
	const char *eq = strchr(p, '=');
	if (!eq)
		goto bad;
	size_t kl = (size_t)(eq - p);
	const char *val = eq + 1;
	while (kl > 0 && isspace((unsigned char)p[kl - 1]))
		kl--;
	while (isspace((unsigned char)*val))
		val++;
	char v[32];
	snprintf(v, sizeof v, "%s", val);
	for (size_t n = strlen(v); n > 0 && isspace((unsigned char)v[n - 1]); n--)
		v[n - 1] = 0;
	if (layers) {
		if (b <= a) {
			snprintf(why, whylen, "pin '%s': the layer range [%ld:%ld] is empty", expr, a, b);
			return -1;
		}
		pin->lo = (int)a;
		pin->hi = (int)b;
		if (kl == 5 && !strncmp(p, "stage", 5)) {
			const char *q = v;
			long s = num(&q);
			if (s < 0 || *q)
				goto bad;
			pin->kind = ILP_PIN_STAGE;
			pin->stage = (int)s;
			return 0;
		}
		if (kl == 9 && !strncmp(p, "recompute", 9)) {
			int mode = strat_parse_recompute(v);
			if (mode < 0) {
				snprintf(why, whylen, "pin '%s': recompute is none, selective or full", expr);
				return -1;
			}
			pin->kind = ILP_PIN_RECOMPUTE;
			pin->value = mode;
			return 0;
		}
		snprintf(why, whylen, "pin '%s': a layer range pins .stage or .recompute", expr);
		return -1;
	}
	if (kl == 6 && !strncmp(p, "layers", 6)) {
		const char *q = v;
		long n = num(&q);
		if (n < 0 || *q)
			goto bad;
		pin->kind = ILP_PIN_LAYERS;
		pin->stage = (int)a;
		pin->value = (int)n;
		return 0;
	}
	snprintf(why, whylen, "pin '%s': a stage pins .layers", expr);
	return -1;
bad:
	snprintf(why, whylen, "pin '%s' is malformed (e.g. layers[0:3].recompute=full, "
			"layers[60:61].stage=15, stages[3].layers=5)", expr);
	return -1;
}

int ilp_pins_from_strings(char (*pins)[128], int n, ilp_pins *out, char *why, size_t whylen)
{
	out->n = 0;
	for (int i = 0; i < n; i++) {
		ilp_pin pin;
		int rc = ilp_pin_parse(pins[i], &pin, why, whylen);
		if (rc < 0)
			return -1;
		if (rc > 0)
			continue;
		if (out->n >= ILP_MAX_PINS) {
			snprintf(why, whylen, "more than %d layer/stage pins", ILP_MAX_PINS);
			return -1;
		}
		out->pin[out->n++] = pin;
	}
	return 0;
}
