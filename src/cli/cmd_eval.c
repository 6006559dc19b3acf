/* cmd_eval.c - `strata eval`: evaluate one strategy and print the result. */
#include "cli/cli.h"
#include "io/report.h"
#include "core/evaluate.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_eval(int argc, char **argv, const paths_t *paths)
{
	cli_opts o;
	int prc = cli_parse(&o, argc, argv, 2, "eval");
	if (prc)
		return prc == 3 ? 0 : 2;
	if (o.nfiles) {
		fprintf(stderr, "strata eval: one plan file at most (got '%s' too)\n", cli_safe(o.files[0]));
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
	if (!rc) {
		if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r)) {
			fprintf(stderr, "strata: invalid strategy: %s\n", cli_safe(r->why));
			if (o.json) {
				json_w w;
				json_init(&w, stdout, 1);
				report_json(&w, NULL, p, r);
				json_end(&w);
			}
			rc = 1;
		} else {
			if (o.json) {
				json_w w;
				json_init(&w, stdout, 1);
				json_obj_begin(&w, NULL);
				report_json_members(&w, p, r);
				if (o.why) /* why[] and placement[] (cli/why_out.c) */
					cli_why_json(&w, p, r);
				json_obj_end(&w);
				json_end(&w);
			} else if (o.csv) {
				report_csv_header(stdout);
				report_csv_row(stdout, p, r);
			} else {
				report_table(stdout, p, r);
				if (o.why)
					cli_why_text(stdout, p, r);
			}
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
