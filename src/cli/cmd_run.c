/* cmd_run.c - `strata run [--lua-steps N] [--lua-mem MIB] [--lua-time SECONDS] SCRIPT.lua
 * [args...]`: run a Lua recipe in batch. What the script prints goes to stdout; an error
 * goes to stderr as "file:line: message" and a traceback (a limit names itself and the
 * option that raises it). Exit 0, 1 on a script error (syntax, runtime, a limit), 2 on a
 * usage or file error. Options come before the script; everything after it belongs to the
 * script (arg[1..n] and `...`), as with lua(1). */
#include "cli/cli.h"
#include "script/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_usage(FILE *f)
{
	fprintf(f, "usage: strata run [--lua-steps N] [--lua-mem MIB] [--lua-time SECONDS] [--plan FILE] SCRIPT.lua "
			"[args...]\n"
			"  --lua-steps N       instruction budget (default %lld)\n"
			"  --lua-mem MIB       memory cap in MiB, the solvers' memory included (default %d)\n"
			"  --lua-time SECONDS  wall-clock limit, the solvers' time included (default %lld)\n"
			"  --plan FILE         the plan strata.current() returns (else nil)\n"
			"A recipe stopped by a limit exits 1 with a message naming the limit and its option.\n"
			"The strata Lua API is described in strata-lua(7).\n",
			SCR_DEFAULT_STEPS, SCR_DEFAULT_MIB, SCR_DEFAULT_TIME_MS / 1000);
}

/* Value of "--opt V" or "--opt=V" at argv[*i], advancing *i; NULL when a is not opt. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, int *missing)
{
	size_t l = strlen(opt);
	const char *a = argv[*i];
	if (strncmp(a, opt, l))
		return NULL;
	if (a[l] == '=')
		return a + l + 1;
	if (a[l])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

int cmd_run(int argc, char **argv, const paths_t *paths)
{
	scr_env env;
	memset(&env, 0, sizeof env);
	env.paths = paths;
	env.out = stdout;
	char err[256];
	const char *plan_file = NULL;
	int i;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout);
			return 0;
		}
		if ((v = opt_value(argc, argv, &i, "--lua-steps", &missing))) {
			if (scr_parse_steps(v, &env.lim.steps, err, sizeof err)) {
				fprintf(stderr, "strata run: %s\n", err);
				return 2;
			}
			continue;
		}
		if (!missing && (v = opt_value(argc, argv, &i, "--lua-mem", &missing))) {
			if (scr_parse_mib(v, &env.lim.mem_mib, err, sizeof err)) {
				fprintf(stderr, "strata run: %s\n", err);
				return 2;
			}
			continue;
		}
		if (!missing && (v = opt_value(argc, argv, &i, "--lua-time", &missing))) {
			if (scr_parse_time(v, &env.lim.time_ms, err, sizeof err)) {
				fprintf(stderr, "strata run: %s\n", err);
				return 2;
			}
			continue;
		}
		if (!missing && (v = opt_value(argc, argv, &i, "--plan", &missing))) {
			plan_file = v;
			continue;
		}
		if (missing) {
			fprintf(stderr, "strata run: %s needs a value\n", a);
			return 2;
		}
		if (a[0] == '-' && a[1]) {
			fprintf(stderr, "strata run: unknown option '%s' (options go before the script)\n", a);
			run_usage(stderr);
			return 2;
		}
		break;
	}
	if (i >= argc) {
		fprintf(stderr, "strata run: no script given\n");
		run_usage(stderr);
		return 2;
	}
	const char *script = argv[i];
	scr_outcome *o = malloc(sizeof *o);
	if (!o) {
		fprintf(stderr, "strata: out of memory\n");
		return 2;
	}
	plan_t *cur = NULL;
	if (plan_file) {
		cur = malloc(sizeof *cur);
		if (!cur || plan_load_file(cur, plan_file, paths, err, sizeof err)) {
			fprintf(stderr, "strata run: %s\n", cur ? cli_safe(err) : "out of memory");
			free(cur);
			free(o);
			return 2;
		}
		strat_resolve(&cur->strategy, cur->devices, err, sizeof err);
		env.current = cur;
	}
	int rc = scr_run_file(&env, script, argc - i - 1, argv + i + 1, o);
	free(cur);
	fflush(stdout);
	if (rc)
		fprintf(stderr, "strata run: %s\n", o->err);
	free(o);
	return rc;
}
