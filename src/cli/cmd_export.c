/* cmd_export.c - `strata export`: write a plan as a Megatron-LM, DeepSpeed or torchtitan
 * launch configuration, to stdout or atomically to a file. */
#include "cli/cli.h"
#include "io/report.h"
#include "core/evaluate.h"
#include "io/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/help.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: strata export [PLAN.yaml] [options] --to %s [-o FILE] [--approximate]\n"
			"  --to TARGET     megatron (command-line flags), deepspeed (JSON), torchtitan (TOML)\n"
			"  -o, --output F  write F atomically instead of standard output\n"
			"  --approximate   write a plan the target cannot launch as priced anyway: the nearest it\n"
			"                  runs, the differences as \"not expressible\" comments (default: refuse, exit 1)\n"
			"  (strata --help lists the plan options)\n",
			"megatron|deepspeed|torchtitan");
}

/* Value of option NAME at argv[*i] ("NAME V" or "NAME=V"); NULL when argv[*i] is not NAME.
 * *missing is set when NAME has no value. */
static const char *take(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l))
		return NULL;
	if (argv[*i][l] == '=')
		return argv[*i] + l + 1;
	if (argv[*i][l])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

/* 1 (after saying why) when the target would not launch the plan as priced and the user
 * did not ask for the nearest; 0 to write. */
static int refuse(export_target t, const plan_t *p, int approx)
{
	fw_issues is;
	int n = export_check(t, p, &is);
	if (!n || approx)
		return 0;
	fprintf(stderr, "strata export: %s would not run this plan as it was priced:\n", fw_caps_of(export_framework(t))->name);
	for (int i = 0; i < is.n; i++)
		fprintf(stderr, "  - %s\n", cli_safe(is.text[i]));
	if (n > is.n)
		fprintf(stderr, "  - (%d more)\n", n - is.n);
	fprintf(stderr, "search for what it runs with `strata search --framework %s`, or write the nearest it runs "
			"with --approximate\n", fw_caps_of(export_framework(t))->key);
	return 1;
}

int cmd_export(int argc, char **argv, const paths_t *paths)
{
	/* --to and -o belong to export alone: take them out before the shared parser sees
	 * the arguments, so eval and the others keep rejecting them */
	const char *to = NULL, *out = NULL;
	int approx = 0;
	char **rest = malloc(sizeof *rest * (size_t)(argc + 1));
	if (!rest) {
		fprintf(stderr, "strata: out of memory\n");
		return 2;
	}
	int n = 0;
	rest[n++] = argv[0];
	rest[n++] = argv[1];
	for (int i = 2; i < argc; i++) {
		int missing = 0;
		const char *v;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_help("export", stdout); /* every option with its default, from help.c's table */
			free(rest);
			return 0;
		}
		if (!strcmp(argv[i], "--approximate"))
			approx = 1;
		else if ((v = take(argc, argv, &i, "--to", &missing)))
			to = v;
		else if ((v = take(argc, argv, &i, "--output", &missing)) || (v = take(argc, argv, &i, "-o", &missing)))
			out = v;
		else if (!missing)
			rest[n++] = argv[i];
		if (missing) {
			fprintf(stderr, "strata export: %s needs a value\n", cli_safe(argv[i]));
			free(rest);
			return 2;
		}
	}
	rest[n] = NULL;
	cli_opts o;
	int prc = cli_parse(&o, n, rest, 2, "export");
	free(rest);
	if (prc)
		return prc == 3 ? 0 : 2;
	if (o.nfiles) {
		fprintf(stderr, "strata export: one plan file at most (got '%s' too)\n", cli_safe(o.files[0]));
		return 2;
	}
	if (o.json || o.csv || o.top || o.verbose) {
		fprintf(stderr, "strata export: --json, --csv, --top and -v do not apply; the format follows --to\n");
		return 2;
	}
	if (!to) {
		fprintf(stderr, "strata export: --to is required (%s)\n", export_target_list());
		usage(stderr);
		return 2;
	}
	int target = export_parse_target(to);
	if (target < 0) {
		fprintf(stderr, "strata export: unknown target '%s' (valid: %s)\n", cli_safe(to), export_target_list());
		return 2;
	}
	if (out && !*out) {
		fprintf(stderr, "strata export: -o needs a file name\n");
		return 2;
	}

	plan_t *p = malloc(sizeof *p);
	eval_result *r = malloc(sizeof *r);
	int rc = p && r ? cli_load(&o, paths, p) : 2;
	if (!p || !r)
		fprintf(stderr, "strata: out of memory\n");
	if (!rc && cli_job_first(&o)) {
		/* job first (start.c): the best plan the target framework runs */
		char msg[600];
		if (p->strategy.framework == FW_AUTO)
			p->strategy.framework = (uint8_t)export_framework((export_target)target);
		if (cli_start_search(p, msg, sizeof msg)) {
			fprintf(stderr, "strata export: %s\n", cli_safe(msg));
			rc = 1;
		} else {
			fprintf(stderr, "strata export: no strategy given: %s for the job (strata search lists them)\n",
					cli_safe(msg));
		}
	}
	/* the cost model checks every rule of the strategy and says whether it fits */
	if (!rc && eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r)) {
		fprintf(stderr, "strata: invalid strategy: %s\n", cli_safe(r->why));
		rc = 1;
	}
	if (!rc && refuse((export_target)target, p, approx))
		rc = 1;
	if (!rc) {
		char err[1024];
		int wrc = out ? export_save(out, (export_target)target, p, err, sizeof err)
			      : export_write(stdout, (export_target)target, p, err, sizeof err);
		if (wrc) {
			fprintf(stderr, "strata export: %s\n", cli_safe(err));
			rc = 2;
		} else if (!r->fits) {
			/* written anyway (the estimate may be conservative), but a script that
			 * launches on success stops here, as with eval */
			report_over_budget(stderr, r);
			rc = 1;
		}
	}
	free(p);
	free(r);
	return rc;
}
