/* fuzz_set.c - the key=value overrides of the command line and the TUI's `:set` (one
 * assignment per input line) applied to the default plan, then evaluated: every value
 * is either taken or refused with a message, and the core never sees an unchecked one. */
#include "fuzz.h"
#include "core/evaluate.h"
#include "io/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static paths_t paths;
	static int ready;
	if (!ready) {
		paths_init(&paths, "strata");
		ready = 1;
	}
	plan_t *p = malloc(sizeof *p);
	eval_result *r = malloc(sizeof *r);
	char *text = malloc(size + 1);
	char err[512];
	if (!p || !r || !text)
		goto out;
	if (plan_load_text(p, plan_default_text, "default", &paths, err, sizeof err) != 0)
		abort(); /* the embedded plan must always load */
	memcpy(text, data, size);
	text[size] = 0;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		err[0] = 0;
		if (plan_set(p, line, eq + 1, err, sizeof err) != 0 && !err[0])
			abort();
	}
	if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r) != 0 && !r->why[0])
		abort();
out:
	free(text);
	free(r);
	free(p);
	return 0;
}
