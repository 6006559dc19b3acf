/* bench_search.c - the two-level search on the three jobs of the speed targets (issue 5):
 * strategies in the space, strategies per second and wall time (both levels, all online
 * CPUs), each the median of several runs, as "bench: search_NAME_... VALUE UNIT". */
#include "bench.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/search.h"

#include <stdio.h>
#include <stdlib.h>

#define RUNS 5

static int one(const char *name, const char *text, const paths_t *paths)
{
	plan_t *p = malloc(sizeof *p);
	int rc = 1;
	if (!p)
		return 1;
	if (bench_load(p, name, text, paths))
		goto out;
	search_job job = {&p->model, &p->cluster, p->devices, p->strategy, p->budget_gib};
	search_opts o = {0};
	double wall[RUNS];
	long long space = 0;
	int threads = 0;
	for (int i = 0; i < RUNS; i++) {
		search_result r;
		double t0 = bench_now();
		if (search_run(&job, NULL, &o, &r) || r.n == 0) {
			fprintf(stderr, "bench: %s: %s\n", name, r.why);
			search_free(&r);
			goto out;
		}
		wall[i] = bench_now() - t0;
		space = r.enumerated;
		threads = r.threads;
		search_free(&r);
	}
	qsort(wall, RUNS, sizeof wall[0], bench_dcmp);
	printf("bench: search_%s_candidates %lld\n", name, space);
	printf("bench: search_%s_per_s %.4g cand/s\n", name, space / wall[RUNS / 2]);
	printf("bench: search_%s_wall %.3f s\n", name, wall[RUNS / 2]);
	printf("bench: search_%s_threads %d\n", name, threads);
	rc = 0;
out:
	free(p);
	return rc;
}

int bench_search(const paths_t *paths)
{
	int rc = 0;
	rc |= one("llama3-405b_16384xh100",
			"model: llama3-405b\ncluster: dgx-h100\ndevices: 16384\n"
			"strategy: {global_batch: 2048, seq_length: 8192}\n", paths);
	rc |= one("deepseek-v3_2048xh800",
			"model: deepseek-v3\ncluster: h800\ndevices: 2048\n"
			"strategy: {global_batch: 15360, seq_length: 4096}\n", paths);
	rc |= one("gpt3-13b_64xa100",
			"model: bench/gpt3-13b.yaml\ncluster: dgx-a100-80g\ndevices: 64\n"
			"strategy: {global_batch: 512, seq_length: 2048}\n", paths);
	return rc;
}
