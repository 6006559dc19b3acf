/* fuzz_plan.c - a whole plan file, from text to the core: whatever the loader accepts
 * must evaluate (or be rejected with a reason) without a crash, and whatever it rejects
 * must come with a message. Presets are looked up in the source tree ($STRATA_DATA or the
 * directory above the binary), so names like `dgx-h100` resolve as in real use. */
#include "fuzz.h"
#include "core/evaluate.h"
#include "io/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static paths_t paths; /* harness-only state: the search list is built once */
	static int ready;
	if (!ready) {
		paths_init(&paths, "strata"); /* finds presets through $STRATA_DATA */
		ready = 1;
	}
	char *text = malloc(size + 1);
	plan_t *p = malloc(sizeof *p);
	eval_result *r = malloc(sizeof *r);
	if (!text || !p || !r)
		goto out;
	memcpy(text, data, size);
	text[size] = 0;
	char err[512] = "";
	int rc = plan_load_text(p, text, "fuzz.yaml", &paths, err, sizeof err);
	if (rc != 0) {
		if (!err[0])
			abort(); /* a rejection must say why */
	} else {
		if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r) != 0 && !r->why[0])
			abort();
	}
out:
	free(r);
	free(p);
	free(text);
	return 0;
}
