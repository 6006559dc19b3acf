/* cmd_validate.c - `strata validate`: compare predictions with published runs.
 * Each plan file with an `expect:` block is evaluated; step time is compared directly,
 * peak memory in the convention the run measured (allocated bytes; the allocator's
 * reserve; nvidia-smi = reserve + the CUDA context). Prints, for each quantity, the count,
 * median and p90 absolute relative error, the worst cases and a per-source table. */
#include "cli/cli.h"
#include "core/evaluate.h"
#include "io/text.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MAX_CASES 4096

typedef struct {
	char id[128], group[32];
	double pred_t, exp_t, pred_m, exp_m;
	int has_t, has_m, derived_t;
	char conv[16];
} vcase;

typedef struct {
	vcase *c;
	int n;
	int errors;
	int over;                /* cases that ran and are predicted not to fit */
	int over_rc;             /* ... that fit with the full recompute the case leaves open */
	char over_ids[512];
	int verbose, csv;
	const paths_t *paths;
	plan_t *plan;
	eval_result *res;
} vstate;

static double rel(double pred, double exp) { return fabs(pred - exp) / exp; }

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *v, int n, double q)
{
	if (n == 0)
		return 0;
	int k = (int)ceil(q * n) - 1;
	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return v[k];
}

static double median(const double *v, int n)
{
	if (n == 0)
		return 0;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A published run that evaluates over budget: when the case leaves recompute unstated
 * (the source gave none), the run may have used it, so try full recompute before calling
 * it a false "does not fit". Counts and names the cases either way. */
static void judge_fit(vstate *st, const plan_t *p, const char *path)
{
	strategy_t s = p->strategy;
	s.recompute = RC_FULL;
	s.nranges = 0;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (p->expect.unstated_recompute &&
			!eval_run(&p->model, &p->cluster, p->devices, &s, p->budget_gib, st->res) && st->res->fits) {
		st->over_rc++;
	} else {
		st->over++;
		size_t l = strlen(st->over_ids);
		if (l + strlen(base) + 3 < sizeof st->over_ids)
			snprintf(st->over_ids + l, sizeof st->over_ids - l, "%s%s", l ? ", " : "", base);
	}
	/* the step and the figures stay those of the plan as written */
	eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, st->res);
}

static void run_case(vstate *st, const char *path)
{
	char err[1024];
	plan_t *p = st->plan;
	if (plan_load_file(p, path, st->paths, err, sizeof err)) {
		fprintf(stderr, "strata validate: %s\n", cli_safe(err));
		st->errors++;
		return;
	}
	if (!p->has_expect)
		return;
	if (strat_resolve(&p->strategy, p->devices, err, sizeof err) ||
			eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, st->res)) {
		fprintf(stderr, "strata validate: %s: invalid strategy: %s\n", cli_safe(path),
				cli_safe(st->res->why[0] ? st->res->why : err));
		st->errors++;
		return;
	}
	if (!st->res->fits)
		judge_fit(st, p, path);
	if (st->n >= MAX_CASES)
		return;
	vcase *c = &st->c[st->n++];
	memset(c, 0, sizeof *c);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* the id and the convention are printed in every report: terminal-safe once here */
	text_safe(c->id, sizeof c->id, p->id[0] ? p->id : base);
	size_t g = strcspn(c->id, "_");
	snprintf(c->group, sizeof c->group, "%.*s", (int)(g < 31 ? g : 31), c->id);
	const eval_result *r = st->res;
	if (p->expect.step_time_s > 0) {
		c->has_t = 1;
		c->exp_t = p->expect.step_time_s;
		c->pred_t = r->step;
	} else if (p->expect.tokens_per_s > 0) {
		/* a whole-job throughput: one step is global batch x sequence tokens */
		c->has_t = 1;
		c->derived_t = 1;
		c->exp_t = (double)p->strategy.global_batch * p->strategy.seq / p->expect.tokens_per_s;
		c->pred_t = r->step;
	} else if (p->expect.tflops_per_gpu > 0 || p->expect.mfu > 0 || p->expect.hfu > 0) {
		/* only a per-device throughput was published: the step time it implies under the
		 * same FLOP convention (model FLOPs for MFU figures, with recompute for HFU
		 * figures); an MFU or HFU fraction is of the device's peak for the run */
		int hfu = p->expect.tflops_per_gpu > 0 ? !strcmp(p->expect.tflops_convention, "hfu")
			: p->expect.mfu <= 0;
		double fl = hfu ? r->hw_flops : r->model_flops;
		double peak = r->model_flops / (r->mfu * r->step * p->devices);
		double per_dev = p->expect.tflops_per_gpu > 0 ? p->expect.tflops_per_gpu * 1e12
			: (p->expect.mfu > 0 ? p->expect.mfu : p->expect.hfu) * peak;
		c->has_t = 1;
		c->derived_t = 1;
		c->exp_t = fl / (per_dev * p->devices);
		c->pred_t = r->step;
	}
	if (p->expect.peak_mem_gib > 0) {
		text_safe(c->conv, sizeof c->conv, p->expect.mem_convention);
		int conv = !strcmp(c->conv, "reserved") ? EVAL_MEM_RESERVED
			: !strcmp(c->conv, "nvidia-smi") ? EVAL_MEM_NVIDIA_SMI : EVAL_MEM_ALLOCATED;
		double m = eval_mem_convention(&p->cluster, r->peak_bytes / GIB, conv);
		c->has_m = 1;
		c->exp_m = p->expect.peak_mem_gib;
		c->pred_m = m;
	}
	if (st->csv) {
		printf("%s,%s,%d,%.6g,%.6g,%d,%.6g,%.6g,%s\n", c->id, c->group, c->has_t, c->pred_t, c->exp_t, c->has_m,
				c->pred_m, c->exp_m, c->conv);
	} else if (st->verbose) {
		printf("%-64s", c->id);
		if (c->has_t)
			printf("  step %8.3f / %8.3f s (%+6.1f%%)", c->pred_t, c->exp_t, 100 * (c->pred_t / c->exp_t - 1));
		if (c->has_m)
			printf("  mem %6.2f / %6.2f GiB (%+6.1f%%)", c->pred_m, c->exp_m, 100 * (c->pred_m / c->exp_m - 1));
		printf("\n");
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(vstate *st, const char *path)
{
	struct stat sb;
	if (stat(path, &sb)) {
		fprintf(stderr, "strata validate: %s: stat: %s\n", cli_safe(path), strerror(errno));
		st->errors++;
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		run_case(st, path); /* the loader refuses what is not a regular file */
		return;
	}
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "strata validate: %s: opendir: %s\n", cli_safe(path), strerror(errno));
		st->errors++;
		return;
	}
	char **names = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || (strcmp(e->d_name + l - 5, ".yaml") && strcmp(e->d_name + l - 4, ".yml")))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		size_t need = strlen(path) + l + 2;
		names[n] = malloc(need);
		if (!names[n])
			break;
		snprintf(names[n], need, "%s/%s", path, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, name_cmp);
	for (int i = 0; i < n; i++) {
		run_case(st, names[i]);
		free(names[i]);
	}
	free(names);
}

static void summary(const vstate *st, int mem)
{
	double *v = malloc(sizeof(double) * (st->n + 1));
	if (!v)
		return;
	int n = 0;
	for (int i = 0; i < st->n; i++) {
		const vcase *c = &st->c[i];
		if (mem ? c->has_m : c->has_t)
			v[n++] = mem ? rel(c->pred_m, c->exp_m) : rel(c->pred_t, c->exp_t);
	}
	printf("%s: %d cases", mem ? "peak memory" : "step time", n);
	if (n == 0) {
		printf("\n");
		free(v);
		return;
	}
	qsort(v, n, sizeof *v, dcmp);
	printf(", median |error| %.1f%%, p90 %.1f%%, max %.1f%%\n", 100 * median(v, n), 100 * pct(v, n, 0.9),
			100 * v[n - 1]);
	/* worst five */
	int used[8] = {0}, nw = 0;
	for (int w = 0; w < 5 && w < n; w++) {
		int best = -1;
		double be = -1;
		for (int i = 0; i < st->n; i++) {
			const vcase *c = &st->c[i];
			if (!(mem ? c->has_m : c->has_t))
				continue;
			int seen = 0;
			for (int k = 0; k < nw; k++)
				seen |= used[k] == i;
			double e = mem ? rel(c->pred_m, c->exp_m) : rel(c->pred_t, c->exp_t);
			if (!seen && e > be) {
				be = e;
				best = i;
			}
		}
		if (best < 0)
			break;
		used[nw++] = best;
		const vcase *c = &st->c[best];
		if (mem)
			printf("  worst: %-60s %7.2f GiB predicted, %7.2f measured (%s) %+6.1f%%\n", c->id, c->pred_m,
					c->exp_m, c->conv, 100 * (c->pred_m / c->exp_m - 1));
		else
			printf("  worst: %-60s %8.3f s predicted, %8.3f measured %+6.1f%%\n", c->id, c->pred_t, c->exp_t,
					100 * (c->pred_t / c->exp_t - 1));
	}
	/* per source */
	printf("  %-14s %5s %8s %8s %8s\n", "source", "cases", "median", "p90", "bias");
	char groups[64][32];
	int ng = 0;
	for (int i = 0; i < st->n && ng < 64; i++) {
		int seen = 0;
		for (int k = 0; k < ng; k++)
			seen |= !strcmp(groups[k], st->c[i].group);
		if (!seen)
			snprintf(groups[ng++], sizeof groups[0], "%s", st->c[i].group);
	}
	for (int gi = 0; gi < ng; gi++) {
		int k = 0;
		double bias = 0;
		for (int i = 0; i < st->n; i++) {
			const vcase *c = &st->c[i];
			if (strcmp(c->group, groups[gi]) || !(mem ? c->has_m : c->has_t))
				continue;
			double s = mem ? c->pred_m / c->exp_m - 1 : c->pred_t / c->exp_t - 1;
			v[k++] = fabs(s);
			bias += s;
		}
		if (!k)
			continue;
		qsort(v, k, sizeof *v, dcmp);
		printf("  %-14s %5d %7.1f%% %7.1f%% %+7.1f%%\n", groups[gi], k, 100 * median(v, k), 100 * pct(v, k, 0.9),
				100 * bias / k);
	}
	free(v);
}

int cmd_validate(int argc, char **argv, const paths_t *paths)
{
	cli_opts o;
	int prc = cli_parse(&o, argc, argv, 2, "validate");
	if (prc)
		return prc == 3 ? 0 : 2;
	if (!o.plan) {
		fprintf(stderr, "usage: strata validate DIR_OR_FILES... [-v]\n");
		return 2;
	}
	vstate st;
	memset(&st, 0, sizeof st);
	st.c = calloc(MAX_CASES, sizeof *st.c);
	st.plan = malloc(sizeof *st.plan);
	st.res = malloc(sizeof *st.res);
	st.paths = paths;
	st.verbose = o.verbose;
	st.csv = o.csv;
	if (st.csv)
		printf("id,source,has_step,pred_step_s,exp_step_s,has_mem,pred_mem_gib,exp_mem_gib,mem_convention\n");
	if (!st.c || !st.plan || !st.res) {
		fprintf(stderr, "strata: out of memory\n");
		free(st.c);
		free(st.plan);
		free(st.res);
		return 2;
	}
	run_path(&st, o.plan);
	for (int i = 0; i < o.nfiles; i++)
		run_path(&st, o.files[i]);
	if (st.csv)
		goto done;
	if (st.verbose)
		printf("\n");
	printf("validated %d cases\n", st.n);
	summary(&st, 0);
	summary(&st, 1);
	printf("fit: %d case(s) that ran predicted not to fit%s%s", st.over, st.over ? ": " : "", st.over_ids);
	if (st.over_rc)
		printf("; %d fit only with the full recompute the case leaves unstated", st.over_rc);
	printf("\n");
	if (st.errors)
		printf("%d file(s) could not be evaluated (see messages above)\n", st.errors);
done:;
	int rc = st.n == 0 ? 2 : (st.errors ? 1 : 0);
	free(st.c);
	free(st.plan);
	free(st.res);
	return rc;
}
