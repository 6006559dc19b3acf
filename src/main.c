/* main.c - command dispatch. */
#include "cli/cli.h"
#include "cli/report.h"
#include "core/evaluate.h"

#include <stdio.h>
#include <string.h>

#ifndef STRATA_VERSION
#define STRATA_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strata [PLAN.yaml] [options]              explorer (TUI) on a plan\n"
		"       strata eval [PLAN.yaml] [options] [--json|--csv]\n"
		"       strata validate DIR_OR_FILES... [-v]\n"
		"       strata presets\n"
		"       strata --help | --version\n"
		"\n"
		"options (override the plan file):\n"
		"  -m, --model NAME|FILE     model preset or file (YAML or Hugging Face config.json)\n"
		"  -c, --cluster NAME|FILE   cluster preset or file\n"
		"  -n, --devices N           number of devices\n"
		"  --dp --tp --pp --vpp --cp --ep --etp N   parallel degrees (dp defaults to devices/(tp*pp*cp))\n"
		"  --zero 0..3  --mbs N  --gbs N  --seq N  --sp | --no-sp  --flash | --no-flash\n"
		"  --recompute none|selective|full   --schedule gpipe|1f1b|interleaved|zb-h1|zb-h2|zb-v|dualpipe\n"
		"  --precision bf16|fp16|fp8  --cp-kind ring|ulysses  --tp-overlap  --budget GIB  --pin EXPR\n"
		"\n"
		"exit status: 0 success, 1 invalid or infeasible plan, 2 usage or file error\n");
}

int main(int argc, char **argv)
{
	paths_t paths;
	paths_init(&paths, argv[0]);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("strata %s\n", STRATA_VERSION);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "eval"))
		return cmd_eval(argc, argv, &paths);
	if (argc > 1 && !strcmp(argv[1], "presets"))
		return cmd_presets(argc, argv, &paths);
	if (argc > 1 && !strcmp(argv[1], "validate"))
		return cmd_validate(argc, argv, &paths);
	if (argc > 1 && (!strcmp(argv[1], "search") || !strcmp(argv[1], "ilp") || !strcmp(argv[1], "export") ||
			!strcmp(argv[1], "run"))) {
		fprintf(stderr, "strata: '%s' is not available in this version yet\n", argv[1]);
		return 2;
	}
	/* No command: the explorer. Until the TUI lands, print the evaluated plan. */
	char *eargv[260];
	int n = 0;
	eargv[n++] = argv[0];
	eargv[n++] = "eval";
	for (int i = 1; i < argc && n < 259; i++)
		eargv[n++] = argv[i];
	eargv[n] = NULL;
	return cmd_eval(n, eargv, &paths);
}
