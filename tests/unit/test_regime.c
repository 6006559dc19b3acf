/* Unit tests for src/core/regime.c: no published validation case falls in a regime the
 * search marks as unvalidated (so the list never claims less than the cases measure), and the
 * marks are where they should be. */
#include "check.h"
#include "fixture.h"
#include "core/regime.h"
#include "io/paths.h"
#include "io/plan.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static plan_t plan;

int main(void)
{
	paths_t paths;
	fixture_paths(&paths);
	DIR *d = opendir("tests/validation/public");
	if (!CHECK(d != NULL, "regime: the validation cases are there"))
		return check_done();
	int n = 0, marked = 0;
	struct dirent *e;
	char err[512], path[1200];
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		snprintf(path, sizeof path, "tests/validation/public/%s", e->d_name);
		if (plan_load_file(&plan, path, &paths, err, sizeof err) ||
				strat_resolve(&plan.strategy, plan.devices, err, sizeof err))
			continue;
		n++;
		if (regime_unvalidated(&plan.model, &plan.cluster, &plan.strategy)) {
			marked++;
			printf("  %s is marked unvalidated\n", e->d_name);
		}
	}
	closedir(d);
	CHECK(n >= 100 && marked == 0, check_fmt("regime: none of the %d validation cases is marked unvalidated", n));

	CHECK(fixture_load(&plan, &paths, "model: llama3-70b\ncluster: dgx-h100\ndevices: 512\n"
			"strategy: {tp: 2, pp: 2, cp: 4, schedule: zb-v, global_batch: 512, seq_length: 8192}\n") == 0,
			"regime: a zb-v plan loads");
	unsigned r = regime_unvalidated(&plan.model, &plan.cluster, &plan.strategy);
	CHECK(r == REGIME_SCHEDULE, "regime: zb-v is unvalidated; cp 4 x tp 2 inside a node is not");
	plan.strategy.cp = 8;
	plan.strategy.dp /= 2;
	r = regime_unvalidated(&plan.model, &plan.cluster, &plan.strategy);
	CHECK(r == (REGIME_SCHEDULE | REGIME_SHORT_CP | REGIME_CP_SCALE),
			"regime: cp 8 x tp 2 across nodes at 8K is unvalidated (across nodes, and 1,024 tokens a rank)");
	char buf[128];
	regime_text(r, &plan.strategy, buf, sizeof buf);
	CHECK(!strcmp(buf, "zb-v, short-context cp, cp 8 (1024 tokens a rank)"), check_fmt("regime: named '%s'", buf));
	plan.strategy.seq = 16384;
	plan.strategy.schedule = SCHED_1F1B;
	CHECK(regime_unvalidated(&plan.model, &plan.cluster, &plan.strategy) == 0,
			"regime: 1f1b with cp across nodes at 16K is covered");
	plan.strategy.cp = 64;
	plan.strategy.dp = 2;
	plan.strategy.tp = 2;
	plan.strategy.pp = 2;
	r = regime_unvalidated(&plan.model, &plan.cluster, &plan.strategy);
	regime_text(r, &plan.strategy, buf, sizeof buf);
	CHECK(r == REGIME_CP_SCALE && !strcmp(buf, "cp 64 (256 tokens a rank)"),
			check_fmt("regime: cp 64 of 256 tokens a rank is beyond the validated cp scale ('%s')", buf));
	return check_done();
}
