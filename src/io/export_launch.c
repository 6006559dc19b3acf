/* export_launch.c - how an export is started: nodes and processes per node for the plan's
 * devices, the frame of the Megatron-LM launch script (Slurm directives, required paths,
 * node variables, torchrun or srun), and the one-line run commands that the DeepSpeed and
 * torchtitan configs carry as comments.
 *
 * Launcher flags as upstream spells them: torchrun (pytorch torch/distributed/run.py)
 * --nnodes, --nproc-per-node, --node-rank, --master-addr, --master-port, --rdzv-id,
 * --rdzv-backend, --rdzv-endpoint; srun/sbatch (Slurm) --nodes, --ntasks-per-node,
 * --gpus-per-node; deepspeed (deepspeed/launcher/runner.py) --num_nodes, --num_gpus,
 * --hostfile, --master_addr, --master_port; torchtitan's entry point module
 * torchtitan.train with --job.config_file (torchtitan/train.py, the TOML-file era). */
#include "io/export_int.h"

#include <string.h>

void export_geometry(const export_facts *x, int *nnodes, int *nproc)
{
	int dev = x->p->devices, nd = x->p->cluster.node_devices;
	if (nd <= 0 || dev <= nd) {
		*nnodes = 1;
		*nproc = dev;
		return;
	}
	/* the largest per-node count that divides the devices: whole nodes when it can */
	int g = nd;
	while (g > 1 && dev % g)
		g--;
	*nproc = g;
	*nnodes = dev / g;
}

/* The path the config is written to, quoted for a shell; a placeholder on standard output. */
static void config_word(const export_facts *x, const char *placeholder, char *buf, size_t len)
{
	if (!x->path) {
		snprintf(buf, len, "%s", placeholder);
		return;
	}
	size_t k = 0;
	if (k + 1 < len)
		buf[k++] = '\'';
	for (const char *c = x->path; *c && k + 6 < len; c++) {
		if (*c == '\'') {
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else {
			buf[k++] = *c;
		}
	}
	if (k + 1 < len)
		buf[k++] = '\'';
	buf[k] = 0;
}

void export_run_deepspeed(export_notes *ns, const export_facts *x)
{
	int nodes, nproc;
	char cfg[EXPORT_LINE / 2];
	export_geometry(x, &nodes, &nproc);
	config_word(x, "ds_config.json", cfg, sizeof cfg);
	export_note(ns, "run: deepspeed --num_nodes %d --num_gpus %d%s --master_addr \"${MASTER_ADDR:-localhost}\" "
			"--master_port \"${MASTER_PORT:-29500}\" \"$TRAIN_SCRIPT\" --deepspeed --deepspeed_config %s",
			nodes, nproc, nodes > 1 ? " --hostfile \"$HOSTFILE\"" : "", cfg);
	export_note(ns, "TRAIN_SCRIPT: your training script (it calls deepspeed.initialize with the config); "
			"HOSTFILE: one line 'host slots=%d' per node%s", nproc, nodes > 1 ? "" : " (not needed on one node)");
}

void export_run_torchtitan(export_notes *ns, const export_facts *x)
{
	int nodes, nproc;
	char cfg[EXPORT_LINE / 2];
	export_geometry(x, &nodes, &nproc);
	config_word(x, "job.toml", cfg, sizeof cfg);
	export_note(ns, "run: torchrun --nnodes %d --nproc-per-node %d --rdzv-backend c10d --rdzv-endpoint "
			"\"${MASTER_ADDR:-localhost}:${MASTER_PORT:-29500}\" -m torchtitan.train --job.config_file %s",
			nodes, nproc, cfg);
	export_note(ns, "start it on each of the %d node(s) from a torchtitan checkout; recent torchtitan takes "
			"--module/--config instead of TOML, with the same field names", nodes);
}

/* Slurm directives, read by sbatch up to the first command line of the script. */
static void sbatch_lines(FILE *f, int nodes, int nproc)
{
	fprintf(f, "#SBATCH --job-name=strata-megatron\n#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=1\n"
			"#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n", nodes, nproc);
}

void export_script_head(FILE *f, const export_facts *x, const export_notes *ns)
{
	int nodes, nproc;
	export_geometry(x, &nodes, &nproc);
	fputs("#!/usr/bin/env bash\n", f);
	sbatch_lines(f, nodes, nproc);
	export_notes_print(f, ns, "# ");
	fprintf(f, "#\n"
			"# Start (strata docs/usage.md, \"Launching an export\"):\n"
			"#   one node, or each node by hand: MEGATRON_PATH=... DATA_PATH=... TOKENIZER=... CHECKPOINT=... "
			"./THIS_SCRIPT [more pretrain_gpt.py flags]\n"
			"#     on %d nodes: NODE_RANK=0..%d and MASTER_ADDR=<node 0's address> on each\n"
			"#   Slurm: sbatch THIS_SCRIPT, or LAUNCHER=slurm ./THIS_SCRIPT in an allocation: srun starts "
			"torchrun once per node\n", nodes, nodes - 1);
	fputs("set -euo pipefail\n\n", f);
	fputs("missing=\"\"\n"
			"for v in MEGATRON_PATH DATA_PATH TOKENIZER CHECKPOINT; do\n"
			"    [ -n \"${!v:-}\" ] || missing=\"$missing $v\"\n"
			"done\n"
			"if [ -n \"$missing\" ]; then\n"
			"    echo \"$0: set$missing first. MEGATRON_PATH: a Megatron-LM checkout (pretrain_gpt.py); "
			"DATA_PATH: the preprocessed dataset prefix (or 'weight prefix ...' blends); TOKENIZER: a Hugging Face "
			"tokenizer name or directory; CHECKPOINT: the directory to save to and resume from\" >&2\n"
			"    exit 2\n"
			"fi\n\n", f);
	fprintf(f, "NNODES=${NNODES:-%d}\nGPUS_PER_NODE=${GPUS_PER_NODE:-%d}\nNODE_RANK=${NODE_RANK:-0}\n"
			"MASTER_PORT=${MASTER_PORT:-29500}\n", nodes, nproc);
	fprintf(f, "if [ \"$((NNODES * GPUS_PER_NODE))\" -ne %d ]; then\n"
			"    echo \"$0: NNODES x GPUS_PER_NODE is $((NNODES * GPUS_PER_NODE)); the plan is for %d devices "
			"(strata export -n N for another count)\" >&2\n"
			"    exit 2\n"
			"fi\n", x->p->devices, x->p->devices);
	fputs("read -r -a DATA <<<\"$DATA_PATH\"\n\n", f);
}

void export_script_launch(FILE *f, const char *entry, const char *args)
{
	fprintf(f, "LAUNCHER=${LAUNCHER:-$([ -n \"${SLURM_JOB_ID:-}\" ] && echo slurm || echo torchrun)}\n"
			"case \"$LAUNCHER\" in\n"
			"torchrun)\n"
			"    exec torchrun --nnodes \"$NNODES\" --nproc-per-node \"$GPUS_PER_NODE\" --node-rank \"$NODE_RANK\" \\\n"
			"        --master-addr \"${MASTER_ADDR:-localhost}\" --master-port \"$MASTER_PORT\" \\\n"
			"        \"%s\" \"${%s[@]}\" \"$@\"\n"
			"    ;;\n"
			"slurm)\n"
			"    : \"${SLURM_JOB_ID:?LAUNCHER=slurm runs inside a Slurm allocation (sbatch or salloc)}\"\n"
			"    MASTER_ADDR=${MASTER_ADDR:-$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)}\n"
			"    exec srun --nodes \"$NNODES\" --ntasks-per-node 1 \\\n"
			"        torchrun --nnodes \"$NNODES\" --nproc-per-node \"$GPUS_PER_NODE\" --rdzv-id \"$SLURM_JOB_ID\" \\\n"
			"        --rdzv-backend c10d --rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\" \\\n"
			"        \"%s\" \"${%s[@]}\" \"$@\"\n"
			"    ;;\n"
			"*)\n"
			"    echo \"$0: LAUNCHER must be torchrun or slurm (got '$LAUNCHER')\" >&2\n"
			"    exit 2\n"
			"    ;;\n"
			"esac\n", entry, args, entry, args);
}
