/* cmd_ilp.c - `strata ilp`: the bubble ILP for a plan's macro strategy. Prints the refined
 * split next to the core's even split (table), or the eval JSON plus an "ilp" object. */
#include "cli/cli.h"
#include "io/units.h"
#include "core/evaluate.h"
#include "io/report.h"
#include "script/script.h"
#include "solve/ilp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define DEFAULT_LIMIT_MS 60000 /* a batch run never hangs; --time-limit changes it */

static void ilp_table(FILE *f, const plan_t *p, const eval_result *ev, const ilp_result *x)
{
	const strategy_t *s = &p->strategy;
	fprintf(f, "plan     %s on %d x %s, dp=%d tp=%d pp=%d vpp=%d cp=%d ep=%d, %s, %d micro-batches\n",
			cli_safe(p->model.name), p->devices, cli_safe(p->cluster.device), s->dp, s->tp, s->pp, s->vpp, s->cp, s->ep,
			strat_schedule_name(s->schedule), ev->microbatches);
	fprintf(f, "ilp      %s in %.1f ms (%d options), budget %.1f GiB\n\n", ilp_status_name(x->status),
			x->solve_ms, x->options, ev->budget_bytes / GIB);
	fprintf(f, "  stage layers  none   sel  full  mem GiB   fwd ms   bwd ms  recomp ms | even: layers  mem GiB\n");
	for (int i = 0; i < x->stages; i++) {
		const ilp_stage *t = &x->st[i];
		const eval_mem em = eval_stage_mem(ev, i);
		fprintf(f, "  %5d %6d %5d %5d %5d %8.2f %8.2f %8.2f %10.2f | %12d %8.2f%s\n", i, t->layers, t->rc[RC_NONE],
				t->rc[RC_SELECTIVE], t->rc[RC_FULL], t->mem / GIB, t->fwd * 1e3, t->bwd * 1e3,
				t->recompute * 1e3, em.layers, em.total / GIB,
				em.total > ev->budget_bytes ? "  OVER" : "");
	}
	char t[6][32];
	double idle = x->bubble_prep + x->bubble_imb + x->bubble_rc;
	const double v[6] = {x->step, x->even_step, x->makespan, x->useful, idle, 0};
	for (int i = 0; i < 5; i++)
		units_time(v[i], t[i], sizeof t[i]);
	fprintf(f, "\nstep time  %s  (even split %s%s): speedup %.3fx\n", t[0], t[1],
			x->even_fits ? "" : ", does not fit", x->speedup);
	fprintf(f, "pipeline   %s = useful %s + idle %s\n", t[2], t[3], t[4]);
	units_time(x->bubble_prep, t[0], sizeof t[0]);
	units_time(x->bubble_imb, t[1], sizeof t[1]);
	units_time(x->bubble_rc, t[2], sizeof t[2]);
	fprintf(f, "  idle     preparation %s, imbalance %s, recomputation %s\n", t[0], t[1], t[2]);
	if (x->status != ILP_OPTIMAL)
		fprintf(f, "  (not proven optimal%s)\n", isnan(x->gap) ? "" : ", see the gap in --json");
}

/* Take --time-limit MS out of argv (the shared parser does not know it). */
static int take_time_limit(int *argc, char **argv, int *ms)
{
	*ms = 0;
	int n = 0;
	for (int i = 0; i < *argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--time-limit")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "strata ilp: --time-limit needs a value in milliseconds\n");
				return 2;
			}
			v = argv[++i];
		} else if (!strncmp(argv[i], "--time-limit=", 13)) {
			v = argv[i] + 13;
		} else {
			argv[n++] = argv[i];
			continue;
		}
		char *end;
		long t = strtol(v, &end, 10);
		if (*end || t <= 0 || t > 86400000) {
			fprintf(stderr, "strata ilp: --time-limit needs a positive number of milliseconds (got '%s')\n",
					cli_safe(v));
			return 2;
		}
		*ms = (int)t;
	}
	*argc = n;
	return 0;
}

int cmd_ilp(int argc, char **argv, const paths_t *paths)
{
	char *av[300];
	int ac = argc < 300 ? argc : 300, limit;
	memcpy(av, argv, (size_t)ac * sizeof *av);
	if (take_time_limit(&ac, av, &limit))
		return 2;
	cli_opts o;
	int prc = cli_parse(&o, ac, av, 2, "ilp");
	if (prc)
		return prc == 3 ? 0 : 2;
	if (o.nfiles || o.csv) {
		fprintf(stderr, "strata ilp: %s\n", o.csv ? "--csv is not offered here (use --json)" :
				"one plan file at most");
		return 2;
	}
	plan_t *p = malloc(sizeof *p);
	eval_result *ev = malloc(sizeof *ev);
	ilp_result *x = malloc(sizeof *x);
	int rc = 2;
	if (!p || !ev || !x) {
		fprintf(stderr, "strata: out of memory\n");
		goto out;
	}
	memset(x, 0, sizeof *x);
	if ((rc = cli_load(&o, paths, p)))
		goto out;
	ilp_pins pins;
	char why[256];
	if (ilp_pins_from_strings(p->pins, p->npins, &pins, why, sizeof why)) {
		fprintf(stderr, "strata ilp: %s\n", cli_safe(why));
		rc = 2;
		goto out;
	}
	if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, ev)) {
		fprintf(stderr, "strata: invalid strategy: %s\n", cli_safe(ev->why));
		x->status = ILP_ERROR;
		snprintf(x->why, sizeof x->why, "invalid strategy");
	} else {
		ilp_params prm;
		memset(&prm, 0, sizeof prm);
		prm.time_limit_ms = limit ? limit : DEFAULT_LIMIT_MS;
		ilp_solve(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &pins, &prm, x);
	}
	if (o.json) {
		json_w w;
		json_init(&w, stdout, 1);
		json_obj_begin(&w, NULL);
		report_json_members(&w, p, ev);
		scr_ilp_json(&w, x);
		json_obj_end(&w);
		json_end(&w);
	} else if (x->have_plan) {
		ilp_table(stdout, p, ev, x);
	}
	rc = 1;
	if (x->have_plan) {
		rc = 0;
		if (x->status == ILP_TIMEOUT)
			fprintf(stderr, "strata ilp: time limit reached: the plan shown is not proven optimal\n");
	} else if (ev->valid) {
		rc = 1;
		if (x->status == ILP_TIMEOUT || x->status == ILP_CANCELLED)
			fprintf(stderr, "strata ilp: no plan within the time limit\n");
		else
			fprintf(stderr, "strata ilp: %s\n", x->why[0] ? cli_safe(x->why) : ilp_status_name(x->status));
	}
out:
	if (x)
		ilp_free(x);
	free(p);
	free(ev);
	free(x);
	return rc;
}
