/* cmd_eval.c - `strata eval`: evaluate one strategy and print the result; with no strategy
 * on a command line that names a job, the best plan a short search finds (start.c); with
 * --compare B.yaml, the plan and B side by side. */
#include "cli/cli.h"
#include "io/report.h"
#include "core/evaluate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Take --compare FILE (or --compare=FILE) out of argv; 0, or 2 (message printed). */
static int take_compare(int *argc, char **argv, const char **cmp)
{
	int n = 0;
	*cmp = NULL;
	for (int i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--compare")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "strata eval: --compare needs a plan file\n");
				return 2;
			}
			*cmp = argv[++i];
		} else if (!strncmp(argv[i], "--compare=", 10)) {
			*cmp = argv[i] + 10;
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	if (*cmp && !**cmp) {
		fprintf(stderr, "strata eval: --compare needs a plan file\n");
		return 2;
	}
	return 0;
}

static void print_one(const cli_opts *o, const plan_t *p, const eval_result *r)
{
	if (o->json) {
		json_w w;
		json_init(&w, stdout, 1);
		if (o->why && r->valid) { /* why[] and placement[] (cli/why_out.c) */
			json_obj_begin(&w, NULL);
			report_json_members(&w, p, r);
			cli_why_json(&w, p, r);
			json_obj_end(&w);
		} else {
			report_json(&w, NULL, p, r);
		}
		json_end(&w);
	} else if (o->csv) {
		report_csv_header(stdout);
		report_csv_row(stdout, p, r);
	} else {
		report_table(stdout, p, r);
		if (o->why && r->valid)
			cli_why_text(stdout, p, r);
	}
}

/* eval A --compare B: both evaluated under the same options; exit 1 when either is
 * invalid or does not fit (both are printed first). */
static int compare(const cli_opts *o, const char *bfile, const paths_t *paths, const plan_t *pa,
		const eval_result *ra)
{
	cli_opts ob = *o;
	ob.plan = bfile;
	plan_t *pb = malloc(sizeof *pb);
	eval_result *rb = malloc(sizeof *rb);
	int rc = 2;
	if (!pb || !rb) {
		fprintf(stderr, "strata: out of memory\n");
		goto out;
	}
	if ((rc = cli_load(&ob, paths, pb)))
		goto out;
	int bad = eval_run(&pb->model, &pb->cluster, pb->devices, &pb->strategy, pb->budget_gib, rb);
	const char *na = o->plan ? o->plan : "(command line)";
	if (o->json) {
		json_w w;
		json_init(&w, stdout, 1);
		json_obj_begin(&w, NULL);
		report_json(&w, "a", pa, ra);
		report_json(&w, "b", pb, rb);
		if (ra->valid && rb->valid)
			report_cmp_json(&w, ra, rb);
		json_obj_end(&w);
		json_end(&w);
	} else if (ra->valid && rb->valid) {
		report_cmp_table(stdout, na, pa, ra, bfile, pb, rb);
	}
	if (!ra->valid)
		fprintf(stderr, "strata: A: invalid strategy: %s\n", cli_safe(ra->why));
	if (bad)
		fprintf(stderr, "strata: B: invalid strategy: %s\n", cli_safe(rb->why));
	rc = !ra->valid || bad || !ra->fits || !rb->fits;
	if (!bad && !rb->fits) {
		fprintf(stderr, "strata: B: ");
		report_over_budget(stderr, rb);
	}
	if (ra->valid && !ra->fits) {
		fprintf(stderr, "strata: A: ");
		report_over_budget(stderr, ra);
	}
out:
	free(pb);
	free(rb);
	return rc;
}

int cmd_eval(int argc, char **argv, const paths_t *paths)
{
	char *av[300];
	int ac = argc < 300 ? argc : 300;
	memcpy(av, argv, (size_t)ac * sizeof *av);
	const char *cmp;
	if (take_compare(&ac, av, &cmp))
		return 2;
	cli_opts o;
	int prc = cli_parse(&o, ac, av, 2, "eval");
	if (prc)
		return prc == 3 ? 0 : 2;
	if (o.nfiles) {
		fprintf(stderr, "strata eval: one plan file at most (got '%s' too; --compare B.yaml compares two)\n",
				cli_safe(o.files[0]));
		return 2;
	}
	if (cmp && o.csv) {
		fprintf(stderr, "strata eval: --compare prints a table or --json, not --csv\n");
		return 2;
	}
	plan_t *p = malloc(sizeof *p);
	eval_result *r = malloc(sizeof *r);
	if (!p || !r) {
		free(p);
		free(r);
		fprintf(stderr, "strata: out of memory\n");
		return 2;
	}
	int rc = cli_load(&o, paths, p);
	if (!rc && cli_job_first(&o)) {
		char msg[600];
		if (cli_start_search(p, msg, sizeof msg)) {
			fprintf(stderr, "strata eval: %s\n", cli_safe(msg));
			rc = 1;
		} else {
			fprintf(stderr, "strata eval: no strategy given: %s for the job (strata search lists them)\n",
					cli_safe(msg));
		}
	}
	if (!rc) {
		int bad = eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r);
		if (cmp) {
			rc = compare(&o, cmp, paths, p, r);
		} else if (bad) {
			fprintf(stderr, "strata: invalid strategy: %s\n", cli_safe(r->why));
			if (o.json)
				print_one(&o, p, r);
			rc = 1;
		} else {
			print_one(&o, p, r);
			if (!r->fits) {
				report_over_budget(stderr, r);
				rc = 1;
			}
		}
	}
	free(p);
	free(r);
	return rc;
}
