/* fixture.c - helpers shared by the unit tests. */
#include "fixture.h"

#include <stdio.h>

int fixture_load(plan_t *plan, const paths_t *paths, const char *text)
{
	char err[512];
	if (plan_load_text(plan, text, "t.yaml", paths, err, sizeof err) ||
			strat_resolve(&plan->strategy, plan->devices, err, sizeof err)) {
		printf("  load: %s\n", err);
		return -1;
	}
	return 0;
}
