/* help.c - the one table of command-line options. cli_parse() reads the strategy options'
 * plan keys from it and `strata CMD --help` prints it, so the help cannot list an option
 * the parser does not take, or miss one it does (tests/cli/cli_help.sh also runs every
 * listed option through its command). */
#include "cli/help.h"
#include "core/nearest.h"

#include <stdio.h>
#include <string.h>

#define STRAT (HELP_EVAL | HELP_SEARCH | HELP_ILP | HELP_EXPORT | HELP_EXPLORER | HELP_SWEEP)

static const cli_optdoc table[] = {
	{"-m, --model", "NAME|FILE", NULL, NULL, STRAT, "model preset or file (YAML or Hugging Face config.json)"},
	{"-c, --cluster", "NAME|FILE", NULL, NULL, STRAT, "cluster preset or file"},
	{"-n, --devices", "N", "devices", NULL, STRAT, "number of devices"},
	{"--dp", "N", "dp", "devices/(tp*pp*cp)", STRAT, "data-parallel degree"},
	{"--tp", "N", "tp", "1", STRAT, "tensor-parallel degree"},
	{"--pp", "N", "pp", "1", STRAT, "pipeline-parallel degree"},
	{"--vpp", "N", "vpp", "1", STRAT, "virtual stages per pipeline rank (interleaved schedule)"},
	{"--cp", "N", "cp", "1", STRAT, "context-parallel degree"},
	{"--ep", "N", "ep", "1", STRAT, "expert-parallel degree"},
	{"--etp", "N", "etp", "1", STRAT, "expert tensor-parallel degree"},
	{"--zero", "0..3", "zero", "1", STRAT, "optimizer-state sharding level (ZeRO)"},
	{"--mbs", "N", "micro_batch", "1", STRAT, "micro-batch size"},
	{"--gbs", "N", "global_batch", "dp*mbs", STRAT, "global batch size"},
	{"--seq", "N", "seq_length", "4096", STRAT, "sequence length"},
	{"--sp, --no-sp", NULL, NULL, "on", STRAT, "sequence parallelism on or off"},
	{"--flash, --no-flash", NULL, NULL, "on", STRAT, "flash attention on or off"},
	{"--recompute", "none|selective|full", "recompute", "none", STRAT, "activation recomputation"},
	{"--recompute-modules", "LIST", "recompute_modules", "core_attn",
		STRAT, "what selective recomputes: core_attn,layernorm,mla_up_proj,moe_act,mlp,moe,shared_experts"},
	{"--schedule", "NAME", "schedule", "1f1b", STRAT,
		"pipeline schedule: gpipe|1f1b|interleaved|zb-h1|zb-h2|zb-v|dualpipe"},
	{"--precision", "bf16|fp16|fp8|mxfp8|fp4", "precision", "bf16", STRAT, "compute precision (the device must have a peak for it)"},
	{"--cp-kind", "ring|ulysses", "cp_kind", "ring", STRAT, "context-parallel algorithm"},
	{"--tp-overlap", NULL, NULL, "off", STRAT, "overlap TP communication with compute"},
	{"--cp-ulysses", "N", "cp_ulysses", "1 (ring) or cp (ulysses)", STRAT,
		"Ulysses degree inside CP; the rest, cp/N, is a ring (USP)"},
	{"--moe-redundant-experts", "N", "moe_redundant_experts", "0", STRAT,
		"replicas of hot experts per EP rank (EPLB) that even out the expert load"},
	{"--moe-capacity-factor", "CF", "moe_capacity_factor", "1", STRAT,
		"tokens of the busiest expert rank over the mean"},
	{"--exp-avg-dtype", "fp32|fp16|bf16|fp8", "exp_avg_dtype", "fp32", STRAT, "Adam first moment's dtype"},
	{"--exp-avg-sq-dtype", "fp32|fp16|bf16|fp8", "exp_avg_sq_dtype", "fp32", STRAT, "Adam second moment's dtype"},
	{"--main-grads-dtype", "fp32|bf16", "main_grads_dtype", "fp32", STRAT, "main gradients' dtype"},
	{"--main-params-dtype", "fp32|fp16", "main_params_dtype", "fp32", STRAT, "main parameters' dtype"},
	{"--first-stage-layers", "N", "first_stage_layers", "even split", STRAT,
		"layers of the first pipeline stage (Megatron's --decoder-first-pipeline-num-layers)"},
	{"--last-stage-layers", "N", "last_stage_layers", "even split", STRAT,
		"layers of the last pipeline stage (--decoder-last-pipeline-num-layers)"},
	{"--account-for-embedding", NULL, NULL, "off", STRAT, "count the embedding as a layer in the pipeline split"},
	{"--account-for-loss", NULL, NULL, "off", STRAT, "count the loss as a layer in the pipeline split"},
	{"--optimizer-offload", "0..1", "optimizer_offload", "0", STRAT, "fraction of the optimizer states kept on the host"},
	{"--activation-offload", "N", "activation_offload", "0", STRAT, "layers whose activations are offloaded to the host"},
	{"--loss-fusion", "true|false", "loss_fusion", "false", STRAT, "the framework's fused cross entropy (Megatron + TE: 2 bytes per logit)"},
	{"--fp8-cache", "none|deepseek", "fp8_cache", "none", STRAT, "DeepSeek-V3's fp8 activation caching (fp8 runs)"},
	{"--moe-dispatcher", "alltoall|deepep", "moe_dispatcher", "alltoall", STRAT, "MoE token dispatch (deepep: one copy a node)"},
	{"--moe-routing", "spread|contiguous", "moe_routing", "spread", STRAT, "where a token's experts lie (contiguous: benchmark gates)"},
	{"--framework", "auto|megatron|torchtitan|deepspeed", "framework", "auto", STRAT,
		"whose recompute, TP overlap and loss to price (auto: torchtitan under --zero 3, else Megatron-LM)"},
	{"--budget", "GIB", "budget", "cluster's", STRAT, "memory budget per device"},
	{"--pin", "EXPR", NULL, "none", STRAT, "pin a choice (tp=8, experts.ep=8, layers[0:3].recompute=full); repeatable"},
	{"--train-tokens", "N", "train_tokens", "none", STRAT,
		"tokens the run trains on (15e12, 15T): its days, GPU-hours, cost and energy"},
	{"--gpu-hour-cost", "USD", "gpu_hour_cost", "none", STRAT, "price of one GPU-hour, for the cost of the run"},
	{"--json", NULL, NULL, "off", HELP_EVAL | HELP_SEARCH | HELP_ILP | HELP_SWEEP, "JSON output"},
	{"--csv", NULL, NULL, "off", HELP_EVAL | HELP_SEARCH | HELP_VALIDATE | HELP_SWEEP, "CSV output"},
	{"--metric", "step|mfu|peak|tokens", NULL, "step", HELP_SWEEP, "what the text chart's bars show"},
	{"--top", "K", NULL, "10", HELP_SEARCH, "candidates listed"},
	{"--no-ilp", NULL, NULL, "off", HELP_SEARCH, "skip the inner level (the bubble ILP on the top candidates)"},
	{"--threads", "N", NULL, "online CPUs", HELP_SEARCH, "worker threads of the outer level (at most 64)"},
	{"--time-limit", "MS", NULL, "500", HELP_SEARCH, "time limit of one ILP refinement"},
	{"--compare", NULL, NULL, "off", HELP_SEARCH, "also rank the plan's own strategy"},
	{"--write", "FILE", NULL, "off", HELP_SEARCH, "write the best plan (uneven split included) as a plan file, atomically"},
	{"--export", "FILE", NULL, "off", HELP_SEARCH,
		"write the best plan as a launch config (target: --to, --framework or .sh/.json/.toml)"},
	{"--to", "TARGET", NULL, "from --framework or FILE", HELP_SEARCH, "the --export target: megatron, deepspeed, torchtitan"},
	{"--force", NULL, NULL, "off: refuse, exit 2", HELP_SEARCH, "let --write and --export replace an existing file"},
	{"--time-limit", "MS", NULL, "60000", HELP_ILP, "time limit of the ILP"},
	{"--to", "TARGET", NULL, NULL, HELP_EXPORT, "megatron (launch script), deepspeed (JSON), torchtitan (TOML)"},
	{"-o, --output", "FILE", NULL, "standard output", HELP_EXPORT, "write FILE atomically instead of standard output"},
	{"--approximate", NULL, NULL, "off: refuse, exit 1", HELP_EXPORT,
		"write a plan the target cannot launch as priced anyway, the differences as \"not expressible\" comments"},
	{"--why", NULL, NULL, "off", HELP_EVAL,
		"why is it slow: the dominant losses, the change that helps each (measured), group placement"},
	{"-v, --verbose", NULL, NULL, "off", HELP_VALIDATE, "one line per case"},
	{"--no-color", NULL, NULL, "off (NO_COLOR=1 too)", HELP_EXPLORER, "monochrome"},
	{"--ascii", NULL, NULL, "off", HELP_EXPLORER, "ASCII instead of Unicode box and bar characters"},
	{"--theme", "NAME", NULL, "dark", HELP_EXPLORER, "colour theme (themes/NAME.yaml; `strata presets` lists them)"},
	{"-h, --help", NULL, NULL, NULL, HELP_ALL, "this help"},
};

static const struct {
	const char *name;
	unsigned bit;
	const char *usage, *what;
} commands[] = {
	{"eval", HELP_EVAL, "strata eval [PLAN.yaml] [options]", "evaluate one plan: memory per stage, step time, MFU"},
	{"search", HELP_SEARCH, "strata search [PLAN.yaml] [options]",
		"rank the strategies of the plan's job (two-level search; pins from the plan and --pin)"},
	{"ilp", HELP_ILP, "strata ilp [PLAN.yaml] [options]",
		"bubble ILP: layers per stage and per-layer recompute under the memory budget"},
	{"validate", HELP_VALIDATE, "strata validate DIR_OR_FILES... [options]",
		"compare predictions with the measured figures of plan files that carry `expect:`"},
	{"export", HELP_EXPORT, "strata export [PLAN.yaml] [options] --to megatron|deepspeed|torchtitan [-o FILE] [--approximate]",
		"write the plan as the target framework's launch script or config, exactly as priced"},
	{"sweep", HELP_SWEEP, "strata sweep KNOB=a..b [PLAN.yaml] [options]",
		"one knob (gbs, seq, devices, mbs) over a range: a..b doubles, a..b+s adds s, a,b,c lists"},
	{"presets", HELP_PRESETS, "strata presets", "list the model, cluster and theme presets"},
	{"explorer", HELP_EXPLORER, "strata [PLAN.yaml] [options]", "the explorer (TUI); ? in it lists the keys"},
};

const cli_optdoc *cli_optdocs(int *n)
{
	*n = (int)(sizeof table / sizeof table[0]);
	return table;
}

const char *const cli_command_names[CLI_NCOMMANDS] = {"eval", "search", "ilp", "export", "validate", "presets",
	"run", "sweep"};

int cli_help(const char *cmd, FILE *f)
{
	for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
		if (strcmp(commands[c].name, cmd))
			continue;
		fprintf(f, "usage: %s\n%s.\n\noptions (they override the plan file; in brackets the value when "
				"neither sets it):\n", commands[c].usage, commands[c].what);
		for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
			const cli_optdoc *d = &table[i];
			if (!(d->cmds & commands[c].bit))
				continue;
			char head[64];
			snprintf(head, sizeof head, "%s%s%s", d->opt, d->arg ? " " : "", d->arg ? d->arg : "");
			fprintf(f, "  %-30s %s", head, d->help);
			if (d->def)
				fprintf(f, " [%s]", d->def);
			fputc('\n', f);
		}
		fprintf(f, "\nexit status: 0 success, 1 invalid or infeasible plan, 2 usage or file error\n");
		return 0;
	}
	return -1;
}

const char *cli_nearest_command(const char *word)
{
	return nearest_word(word, cli_command_names, CLI_NCOMMANDS);
}
