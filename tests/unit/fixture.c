/* fixture.c - helpers shared by the unit tests. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

uint32_t fixture_rnd(uint64_t *state, uint32_t n)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (uint32_t)((x * 2685821657736338717ULL) >> 33) % n;
}

typedef struct {
	char (*names)[128];
	int n, max;
} preset_list;

static void add_preset(const char *name, const char *path, void *arg)
{
	(void)path;
	preset_list *l = arg;
	if (l->n < l->max)
		snprintf(l->names[l->n++], 128, "%s", name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int fixture_presets(const paths_t *paths, const char *kind, char (*names)[128], int max)
{
	char sub[64];
	snprintf(sub, sizeof sub, "presets/%s", kind);
	preset_list l = {names, 0, max};
	paths_each(paths, sub, add_preset, &l);
	qsort(names, (size_t)l.n, sizeof names[0], by_name);
	return l.n;
}

void fixture_paths(paths_t *p)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(p, "strata");
}
