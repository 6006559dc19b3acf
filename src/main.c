/* main.c - command dispatch. */
#include "cli/cli.h"
#include "cli/help.h"
#include "core/evaluate.h"
#include "tui/tui.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifndef STRATA_VERSION
#define STRATA_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: strata [PLAN.yaml] [options]              explorer (TUI) on a plan\n"
		"       strata eval [PLAN.yaml] [options] [--json|--csv]\n"
		"       strata search [PLAN.yaml] [options] [--top K] [--json|--csv] [--no-ilp] [--threads N] [--compare]\n"
		"       strata ilp [PLAN.yaml] [options] [--json] [--time-limit MS]\n"
		"       strata export [PLAN.yaml] [options] --to megatron|deepspeed|torchtitan [-o FILE]\n"
		"       strata validate DIR_OR_FILES... [-v]\n"
		"       strata sweep KNOB=a..b [PLAN.yaml] [options] [--metric step|mfu|peak|tokens] [--json|--csv]\n"
		"       strata presets\n"
		"       strata run [--lua-steps N] [--lua-mem MIB] [--lua-time S] SCRIPT.lua [args...]   Lua recipe, see strata-lua(7)\n"
		"       strata --help | --version\n"
		"\n"
		"options (override the plan file):\n"
		"  -m, --model NAME|FILE     model preset or file (YAML or Hugging Face config.json)\n"
		"  -c, --cluster NAME|FILE   cluster preset or file\n"
		"  -n, --devices N           number of devices\n"
		"  --dp --tp --pp --vpp --cp --ep --etp N   parallel degrees (dp defaults to devices/(tp*pp*cp))\n"
		"  --zero 0..3  --mbs N  --gbs N  --seq N  --sp | --no-sp  --flash | --no-flash\n"
		"  --recompute none|selective|full   --schedule gpipe|1f1b|interleaved|zb-h1|zb-h2|zb-v|dualpipe\n"
		"  --recompute-modules core_attn,layernorm,mla_up_proj,moe_act,mlp,moe,shared_experts   what selective recomputes\n"
		"  --moe-capacity-factor CF  tokens of the busiest expert rank over the mean (default 1)\n"
		"  --exp-avg-dtype --exp-avg-sq-dtype fp32|fp16|bf16|fp8  --main-grads-dtype fp32|bf16\n"
		"  --main-params-dtype fp32|fp16   optimizer states' dtypes (Megatron's precision-aware optimizer)\n"
		"  --first-stage-layers N  --last-stage-layers N  --account-for-embedding  --account-for-loss\n"
		"                            Megatron's uneven pipeline split\n"
		"  --optimizer-offload F  --activation-offload N   CPU offload: optimizer fraction, activation layers\n"
		"  --loss-fusion true|false  the framework's fused cross entropy   --fp8-cache none|deepseek\n"
		"  --precision bf16|fp16|fp8|mxfp8|fp4  --cp-kind ring|ulysses  --tp-overlap  --budget GIB  --pin EXPR\n"
		"  --framework auto|megatron|torchtitan   whose selective recompute, TP overlap and loss to price\n"
		"                            (auto: torchtitan under --zero 3, Megatron-LM otherwise)\n"
		"explorer only: --no-color (or NO_COLOR=1)  --ascii  --theme NAME   (? in the explorer lists the keys)\n"
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
	if (argc > 1 && !strcmp(argv[1], "ilp"))
		return cmd_ilp(argc, argv, &paths);
	if (argc > 1 && !strcmp(argv[1], "export"))
		return cmd_export(argc, argv, &paths);
	if (argc > 1 && !strcmp(argv[1], "search"))
		return cmd_search(argc, argv, &paths);
	if (argc > 1 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv, &paths);
	if (argc > 1 && !strcmp(argv[1], "sweep"))
		return cmd_sweep(argc, argv, &paths);
	/* A word that is neither a command nor a file (no '/', no '.', nothing of that name) is
	 * a mistyped command: `strata evl` */
	struct stat st;
	if (argc > 1 && argv[1][0] != '-' && !strpbrk(argv[1], "./") && stat(argv[1], &st)) {
		const char *near = cli_nearest_command(argv[1]);
		fprintf(stderr, "strata: unknown command '%s'", cli_safe(argv[1]));
		if (near)
			fprintf(stderr, "; did you mean '%s'?", near);
		fprintf(stderr, " (commands: eval, search, ilp, export, validate, presets, run, sweep; strata --help)\n");
		return 2;
	}
	/* No command: the explorer (a plan file and options may follow). */
	return tui_run(argc, argv, &paths);
}
