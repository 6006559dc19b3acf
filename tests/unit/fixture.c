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

cluster_t fixture_cluster(void)
{
	cluster_t c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "fixed test cluster");
	snprintf(c.device, sizeof c.device, "TEST-80GB");
	c.mem_gib = 80;
	c.peak_tflops[PREC_BF16] = 312;
	c.peak_tflops[PREC_FP16] = 312;
	c.peak_tflops[PREC_FP8] = 0;
	c.hbm_gbps = 2039;
	c.node_devices = 8;
	c.node_gbps = 300;
	c.net_gbps = 25;
	c.net_lat_us = 5;
	c.eff = (cluster_eff){
		.gemm = 0.6, .gemm_half = 64, .fp8_gemm = 0.4, .flash = 0.4, .grouped_gemm = 0.7,
		.hbm = 0.7, .coll_intra = 0.8, .coll_inter = 0.8, .dp_overlap = 0.8, .tp_overlap = 0.6,
		.layer_us = 20, .reserve_gib = 4, .context_gib = 0.6, .alloc_frag = 0.08,
	};
	c.eff_set = 1;
	return c;
}

void fixture_model(model_t *m, const model_config *c)
{
	char why[256];
	if (model_from_config(m, c, why, sizeof why)) {
		printf("  model_from_config: %s\n", why);
		exit(1);
	}
}
