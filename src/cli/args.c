/* args.c - shared option parsing for the batch commands. */
#include "cli/cli.h"
#include "cli/help.h"
#include "io/text.h"

#include <stdio.h>
#include <string.h>

const char *cli_safe(const char *s)
{
	static char ring[4][4096];
	static int next;
	char *b = ring[next];
	next = (next + 1) % 4;
	return text_safe(b, sizeof ring[0], s ? s : "");
}

static int add_set(cli_opts *o, const char *key, const char *val)
{
	if (o->nsets >= CLI_MAX_SETS) {
		fprintf(stderr, "strata: too many options\n");
		return 2;
	}
	o->set_key[o->nsets] = key;
	snprintf(o->set_val[o->nsets], sizeof o->set_val[0], "%s", val);
	o->nsets++;
	if (!strcmp(key, "dp"))
		o->dp_given = 1;
	if (!strcmp(key, "tp") || !strcmp(key, "pp") || !strcmp(key, "cp") || !strcmp(key, "devices"))
		o->shape_changed = 1;
	return 0;
}

int cli_parse(cli_opts *o, int argc, char **argv, int first, const char *cmd)
{
	/* the strategy options and their plan keys come from the help's table (help.c) */
	int ndoc;
	const cli_optdoc *doc = cli_optdocs(&ndoc);
	memset(o, 0, sizeof *o);
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		int done = 0;
		for (int k = 0; k < ndoc && !done; k++) {
			if (!doc[k].key)
				continue;
			/* "-n, --devices": each comma-separated form */
			for (const char *f = doc[k].opt; *f && !done;) {
				size_t l = strcspn(f, ",");
				if (!strncmp(a, f, l) && a[l] == 0) {
					if (i + 1 >= argc) {
						fprintf(stderr, "strata %s: %s needs a value\n", cmd, a);
						return 2;
					}
					if (add_set(o, doc[k].key, argv[++i]))
						return 2;
					done = 1;
				} else if (!strncmp(a, f, l) && a[l] == '=' && a[1] == '-') {
					if (add_set(o, doc[k].key, a + l + 1))
						return 2;
					done = 1;
				}
				f += l;
				f += strspn(f, ", ");
			}
		}
		if (done)
			continue;
		if (!strcmp(a, "--sp") || !strcmp(a, "--no-sp")) {
			add_set(o, "sp", a[2] == 'n' ? "false" : "true");
		} else if (!strcmp(a, "--flash") || !strcmp(a, "--no-flash")) {
			add_set(o, "flash_attention", a[2] == 'n' ? "false" : "true");
		} else if (!strcmp(a, "--tp-overlap")) {
			add_set(o, "tp_comm_overlap", "true");
		} else if (!strcmp(a, "--account-for-embedding") || !strcmp(a, "--account-for-loss")) {
			add_set(o, a[14] == 'e' ? "account_for_embedding" : "account_for_loss", "true");
		} else if (!strcmp(a, "-m") || !strcmp(a, "--model") || !strcmp(a, "-c") || !strcmp(a, "--cluster") ||
				!strcmp(a, "--pin") || !strcmp(a, "--top")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "strata %s: %s needs a value\n", cmd, a);
				return 2;
			}
			const char *v = argv[++i];
			if (a[1] == 'm' || !strcmp(a, "--model"))
				o->model = v;
			else if (a[1] == 'c' || !strcmp(a, "--cluster"))
				o->cluster = v;
			else if (!strcmp(a, "--pin")) {
				if (o->npins >= (int)(sizeof o->pins / sizeof o->pins[0])) {
					fprintf(stderr, "strata %s: more than %d --pin options\n", cmd,
							(int)(sizeof o->pins / sizeof o->pins[0]));
					return 2;
				}
				o->pins[o->npins++] = v;
			} else {
				int k = 0;
				if (sscanf(v, "%d", &k) != 1 || k <= 0) {
					fprintf(stderr, "strata %s: --top needs a positive integer\n", cmd);
					return 2;
				}
				o->top = k;
			}
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			if (cli_help(cmd, stdout))
				printf("usage: strata %s [PLAN.yaml] [options]  (strata --help lists the options)\n", cmd);
			return 3;
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--csv")) {
			o->csv = 1;
		} else if (!strcmp(a, "--why") && !strcmp(cmd, "eval")) {
			o->why = 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose = 1;
		} else if (a[0] == '-' && a[1]) {
			int tui = !strcmp(cmd, "explorer");
			fprintf(stderr, "strata %s: unknown option '%s' (strata%s%s --help lists them)\n", cmd, cli_safe(a),
					tui ? "" : " ", tui ? "" : cmd);
			return 2;
		} else if (!o->plan) {
			o->plan = a;
		} else if (o->nfiles < 256) {
			o->files[o->nfiles++] = a;
		} else {
			fprintf(stderr, "strata %s: too many files\n", cmd);
			return 2;
		}
	}
	if (o->json && o->csv) {
		fprintf(stderr, "strata %s: choose one of --json and --csv\n", cmd);
		return 2;
	}
	return 0;
}

int cli_load(const cli_opts *o, const paths_t *paths, plan_t *p)
{
	char err[1024];
	int rc = o->plan ? plan_load_file(p, o->plan, paths, err, sizeof err)
			 : plan_load_text(p, plan_default_text, "(default plan)", paths, err, sizeof err);
	if (rc) {
		fprintf(stderr, "strata: %s\n", cli_safe(err));
		return rc;
	}
	if (o->model) {
		snprintf(p->model_ref, sizeof p->model_ref, "%s", o->model);
		if ((rc = plan_load_model(&p->model, o->model, paths, err, sizeof err))) {
			fprintf(stderr, "strata: %s\n", cli_safe(err));
			return rc;
		}
	}
	if (o->cluster) {
		snprintf(p->cluster_ref, sizeof p->cluster_ref, "%s", o->cluster);
		if ((rc = plan_load_cluster(&p->cluster, o->cluster, paths, err, sizeof err))) {
			fprintf(stderr, "strata: %s\n", cli_safe(err));
			return rc;
		}
	}
	for (int i = 0; i < o->nsets; i++) {
		if (plan_set(p, o->set_key[i], o->set_val[i], err, sizeof err)) {
			fprintf(stderr, "strata: %s\n", cli_safe(err));
			return 2;
		}
	}
	for (int i = 0; i < o->npins; i++) {
		if (p->npins >= PLAN_MAX_PINS || strlen(o->pins[i]) >= sizeof p->pins[0]) {
			char head[41];
			if (p->npins >= PLAN_MAX_PINS)
				fprintf(stderr, "strata: more than %d pins (plan file and --pin together)\n", PLAN_MAX_PINS);
			else
				fprintf(stderr, "strata: pin '%s...' is longer than %zu bytes\n",
						text_safe(head, sizeof head, o->pins[i]), sizeof p->pins[0] - 1);
			return 2;
		}
		snprintf(p->pins[p->npins++], sizeof p->pins[0], "%s", o->pins[i]);
	}
	if (o->shape_changed && !o->dp_given)
		p->strategy.dp = 0;
	if (o->job_only && strat_resolve(&p->strategy, p->devices, err, sizeof err)) {
		/* keep the job (global batch, sequence), drop a shape the devices do not allow */
		p->strategy.tp = p->strategy.pp = p->strategy.cp = p->strategy.vpp = 1;
		p->strategy.dp = 0;
	}
	/* A dp or global batch that cannot be derived (tp*pp*cp does not divide the devices) is
	 * an invalid strategy like any other: it stays 0 and the command's eval_run names the
	 * rule, so eval --json and ilp --json print their valid: false object for it too. */
	strat_resolve(&p->strategy, p->devices, err, sizeof err);
	return 0;
}
