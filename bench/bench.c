/* bench.c - performance figures for `make bench`: evaluations per second of the cost
 * model (single thread, median of several timed runs). Prints "bench: NAME VALUE UNIT". */
#include "bench.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bench_load(plan_t *p, const char *name, const char *text, const paths_t *paths)
{
	char err[512];
	if (plan_load_text(p, text, name, paths, err, sizeof err) ||
			strat_resolve(&p->strategy, p->devices, err, sizeof err)) {
		fprintf(stderr, "bench: %s: %s\n", name, err);
		return -1;
	}
	return 0;
}

int bench_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Evaluations per second: 7 runs of ~0.2 s each, median. eval_run lives in the library (no
 * LTO) and every result feeds *sink, so the compiler cannot drop or hoist the work. */
static double evals_per_s(const plan_t *p, eval_result *r, double *sink)
{
	double rates[7];
	strategy_t s = p->strategy;
	for (int run = 0; run < 7; run++) {
		long n = 0;
		double t0 = bench_now(), t;
		do {
			for (int i = 0; i < 1000; i++) {
				eval_run(&p->model, &p->cluster, p->devices, &s, p->budget_gib, r);
				*sink += r->step;
			}
			n += 1000;
			t = bench_now() - t0;
		} while (t < 0.2);
		rates[run] = n / t;
	}
	qsort(rates, 7, sizeof rates[0], bench_dcmp);
	return rates[3];
}

static int bench_plan(const char *name, const char *text, const paths_t *paths, double *sink)
{
	plan_t *p = malloc(sizeof *p);
	eval_result *r = malloc(sizeof *r);
	int rc = 1;
	if (!p || !r)
		goto out;
	if (bench_load(p, name, text, paths))
		goto out;
	if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r)) {
		fprintf(stderr, "bench: %s: %s\n", name, r->why);
		goto out;
	}
	printf("bench: eval_%s %.0f evals/s\n", name, evals_per_s(p, r, sink));
	rc = 0;
out:
	free(p);
	free(r);
	return rc;
}

int main(int argc, char **argv)
{
	(void)argc;
	paths_t paths;
	paths_init(&paths, argv[0]);
	double sink = 0;
	int rc = 0;
	rc |= bench_plan("llama3-70b_1024xh100",
			"model: llama3-70b\ncluster: dgx-h100\ndevices: 1024\n"
			"strategy: {tp: 8, pp: 8, vpp: 5, schedule: interleaved, sp: true, zero: 1, micro_batch: 1,\n"
			"           global_batch: 1024, seq_length: 8192, recompute: selective}\n",
			&paths, &sink);
	rc |= bench_plan("deepseek-v3_2048xh800",
			"model: deepseek-v3\ncluster: h800\ndevices: 2048\n"
			"strategy: {tp: 1, pp: 16, ep: 64, sp: false, zero: 1, micro_batch: 1, global_batch: 15360,\n"
			"           seq_length: 4096, recompute: none, schedule: dualpipe}\n",
			&paths, &sink);
	/* flat in pp: the same job with 1, 8 and 80 pipeline stages (one layer per stage) */
	static const int pps[] = {1, 8, 80};
	for (size_t i = 0; i < sizeof pps / sizeof pps[0]; i++) {
		char name[64], text[512];
		snprintf(name, sizeof name, "llama3-70b_1280xh100_pp%d", pps[i]);
		snprintf(text, sizeof text,
				"model: llama3-70b\ncluster: dgx-h100\ndevices: 1280\n"
				"strategy: {tp: 8, pp: %d, sp: true, zero: 1, micro_batch: 1, global_batch: 1280,\n"
				"           seq_length: 8192, recompute: selective, schedule: 1f1b}\n", pps[i]);
		rc |= bench_plan(name, text, &paths, &sink);
	}
	rc |= bench_ilp(&paths);
	rc |= bench_tui(&paths);
	rc |= bench_lua(&paths);
	rc |= bench_search(&paths);
	if (sink == 42.0)
		printf("\n");
	return rc;
}
