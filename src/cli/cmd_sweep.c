/* cmd_sweep.c - `strata sweep KNOB=a..b`: one knob of the job over a range, each point
 * evaluated, as a table with a bar chart of the chosen metric, CSV or JSON. */
#include "cli/cli.h"
#include "io/json.h"
#include "io/units.h"
#include "solve/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAR_W 30

/* Take the sweep spec and --metric out of argv (the shared parser rejects them). */
static int take(int *argc, char **argv, const char **spec, int *metric)
{
	int n = 0;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		if (i >= 2 && !*spec && a[0] != '-' && sweep_is_spec(a)) {
			*spec = a;
			continue;
		}
		if (!strncmp(a, "--metric", 8) && (a[8] == 0 || a[8] == '=')) {
			const char *v = a[8] == '=' ? a + 9 : i + 1 < *argc ? argv[++i] : NULL;
			if (!v || (*metric = sweep_parse_metric(v)) < 0) {
				fprintf(stderr, "strata sweep: --metric needs one of step, mfu, peak, tokens\n");
				return 2;
			}
			continue;
		}
		argv[n++] = argv[i];
	}
	*argc = n;
	return 0;
}

static void text(const plan_t *p, const sweep_spec *sp, const sweep_point *pt, int metric)
{
	double hi = 0;
	for (int i = 0; i < sp->n; i++)
		if (pt[i].valid && sweep_metric_of(&pt[i], metric) > hi)
			hi = sweep_metric_of(&pt[i], metric);
	printf("sweep    %s from %ld to %ld: %s on %d x %s (%s)\n", sweep_knob_key(sp->knob), sp->v[0], sp->v[sp->n - 1],
			cli_safe(p->model.name), p->devices, cli_safe(p->cluster.device), cli_safe(p->cluster.name));
	printf("plan     tp=%d pp=%d cp=%d mbs=%d gbs=%d seq=%d (dp follows the devices); bars: %s\n\n",
			p->strategy.tp, p->strategy.pp, p->strategy.cp, p->strategy.micro_batch, p->strategy.global_batch,
			p->strategy.seq, sweep_metric_name(metric));
	printf("%9s %5s %10s %6s %9s %9s %4s  %s\n", sweep_knob_short(sp->knob), "dp", "step", "MFU", "tokens/s",
			"alloc GiB", "fits", sweep_metric_name(metric));
	for (int i = 0; i < sp->n; i++) {
		const sweep_point *q = &pt[i];
		if (!q->valid) {
			printf("%9ld  invalid: %s\n", q->value, cli_safe(q->why));
			continue;
		}
		char t[32], r[32], bar[BAR_W * 3 + 1];
		units_time(q->step, t, sizeof t);
		units_rate(q->tokens_per_s, r, sizeof r);
		int w = hi > 0 ? (int)(BAR_W * sweep_metric_of(q, metric) / hi + 0.5) : 0;
		bar[0] = 0;
		for (int k = 0; k < w; k++)
			strcat(bar, "#");
		printf("%9ld %5d %10s %5.1f%% %9s %9.2f %4s  %s\n", q->value, q->dp, t, 100 * q->mfu, r, q->peak_gib,
				q->fits ? "yes" : "no", bar);
	}
}

static void csv(const sweep_spec *sp, const sweep_point *pt)
{
	printf("knob,value,valid,fits,dp,step_s,mfu,tokens_per_s,peak_gib,error\n");
	for (int i = 0; i < sp->n; i++) {
		const sweep_point *q = &pt[i];
		printf("%s,%ld,%d,%d,%d,%.6g,%.4f,%.6g,%.4f,\"%s\"\n", sweep_knob_key(sp->knob), q->value, q->valid, q->fits,
				q->dp, q->step, q->mfu, q->tokens_per_s, q->peak_gib, q->valid ? "" : cli_safe(q->why));
	}
}

static void json(const sweep_spec *sp, const sweep_point *pt, int metric)
{
	json_w w;
	json_init(&w, stdout, 1);
	json_obj_begin(&w, NULL);
	json_str(&w, "knob", sweep_knob_key(sp->knob));
	json_str(&w, "metric", sweep_metric_name(metric));
	json_arr_begin(&w, "points");
	for (int i = 0; i < sp->n; i++) {
		const sweep_point *q = &pt[i];
		json_obj_begin(&w, NULL);
		json_int(&w, "value", q->value);
		json_bool(&w, "valid", q->valid);
		if (q->valid) {
			json_bool(&w, "fits", q->fits);
			json_int(&w, "dp", q->dp);
			json_num(&w, "step_s", q->step);
			json_num(&w, "mfu", q->mfu);
			json_num(&w, "tokens_per_s", q->tokens_per_s);
			json_num(&w, "peak_gib", q->peak_gib);
		} else {
			json_str(&w, "error", q->why);
		}
		json_obj_end(&w);
	}
	json_arr_end(&w);
	json_obj_end(&w);
	json_end(&w);
}

int cmd_sweep(int argc, char **argv, const paths_t *paths)
{
	char *av[300];
	int ac = argc < 300 ? argc : 300, metric = SWEEP_STEP;
	memcpy(av, argv, (size_t)ac * sizeof *av);
	const char *spec = NULL;
	if (take(&ac, av, &spec, &metric))
		return 2;
	cli_opts o;
	int prc = cli_parse(&o, ac, av, 2, "sweep");
	if (prc)
		return prc == 3 ? 0 : 2;
	if (o.nfiles) {
		fprintf(stderr, "strata sweep: one plan file at most (got '%s' too)\n", cli_safe(o.files[0]));
		return 2;
	}
	if (!spec) {
		fprintf(stderr, "strata sweep: name the knob and its range, e.g. strata sweep gbs=256..4096 "
				"(gbs, seq, devices, mbs)\n");
		return 2;
	}
	sweep_spec sp;
	char err[256];
	if (sweep_parse(spec, &sp, err, sizeof err)) {
		fprintf(stderr, "strata %s\n", cli_safe(err));
		return 2;
	}
	plan_t *p = malloc(sizeof *p);
	eval_result *ev = malloc(sizeof *ev);
	sweep_point *pt = malloc(sizeof *pt * SWEEP_MAX);
	int rc = 2;
	if (!p || !ev || !pt)
		fprintf(stderr, "strata: out of memory\n");
	else if (!(rc = cli_load(&o, paths, p))) {
		sweep_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &sp, pt, ev);
		if (o.json)
			json(&sp, pt, metric);
		else if (o.csv)
			csv(&sp, pt);
		else
			text(p, &sp, pt, metric);
		rc = 1;
		for (int i = 0; i < sp.n; i++)
			if (pt[i].valid)
				rc = 0;
		if (rc)
			fprintf(stderr, "strata sweep: no point of the sweep is a valid strategy\n");
	}
	free(p);
	free(ev);
	free(pt);
	return rc;
}
