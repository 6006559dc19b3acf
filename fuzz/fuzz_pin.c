/* fuzz_pin.c - pin expressions (DESIGN.md section 6), one per input line: the search's
 * parser (macro, operator-group and layer-range pins) and the ILP's layer/stage parser
 * must accept or refuse each with a reason, and a parsed set must check against a real
 * model and strategy without a crash. */
#include "fuzz.h"
#include "core/model.h"
#include "io/plan.h"
#include "solve/ilp.h"
#include "solve/pins.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static paths_t paths;
	static plan_t *base;
	char why[256];
	if (!base) {
		paths_init(&paths, "strata");
		base = malloc(sizeof *base);
		if (!base || plan_load_text(base, plan_default_text, "default", &paths, why, sizeof why) != 0)
			abort();
	}
	char *text = malloc(size + 1);
	pin_set *set = calloc(1, sizeof *set);
	if (!text || !set)
		goto out;
	memcpy(text, data, size);
	text[size] = 0;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		pin_t p;
		ilp_pin ip;
		why[0] = 0;
		if (pin_parse(line, &p, why, sizeof why) < 0 && !why[0])
			abort(); /* a refusal must say why */
		why[0] = 0;
		if (ilp_pin_parse(line, &ip, why, sizeof why) < 0 && !why[0])
			abort();
		(void)pin_add(set, line, why, sizeof why);
	}
	(void)pin_honoured(set, &base->model, &base->strategy, why, sizeof why);
	(void)pin_layers_valid(set, &base->model, base->strategy.pp, why, sizeof why);
	strategy_t s = base->strategy;
	(void)pin_apply_ranges(set, &s, why, sizeof why);
	ilp_pins ipins;
	pin_ilp_pins(set, &ipins);
out:
	free(set);
	free(text);
	return 0;
}
