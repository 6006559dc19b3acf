/* export_int.h - what the three export targets share: facts derived once from a plan,
 * and the list of comment lines (header and "not expressible" notes) every output starts
 * with. Private to src/io/export*.c. */
#ifndef STRATA_IO_EXPORT_INT_H
#define STRATA_IO_EXPORT_INT_H

#include "io/plan.h"

#include <stdio.h>

#define EXPORT_MAX_LINES 40
#define EXPORT_LINE 1024
#define EXPORT_MAX_STAGES (2 * STRAT_MAX_CHUNKS) /* zb-v runs two model stages per rank */

/* Comment lines in output order; a line that does not fit is cut, one past the limit is
 * replaced by a final "more notes were dropped" line so the loss is visible. */
typedef struct {
	int n, overflow;
	char text[EXPORT_MAX_LINES][EXPORT_LINE];
} export_notes;

/* Facts about the plan in the shape the targets ask for. */
typedef struct {
	const plan_t *p;
	const char *path;           /* the file written, NULL on standard output */
	const strategy_t *s;
	const model_t *m;
	int mb;                     /* micro-batches per step per data-parallel replica */
	const layer_kind *attn;     /* attention shape (first layer's kind) */
	const layer_kind *dense;    /* dense MLP kind, NULL when every layer is MoE-only */
	const layer_kind *moe;      /* routed-expert kind or NULL */
	int moe_layers;             /* main layers that route to experts */
	int odd_kinds;              /* more than one dense or MoE shape among the layers */
	int odd_width;              /* a layer kind has its own hidden size or MLP type */
	int nstages;                /* pipeline stages in model order: pp*vpp, or 2*pp for zb-v */
	int stage_layers[EXPORT_MAX_STAGES];
	int even;                   /* every stage holds the same number of layers */
	int rc_mode;                /* recompute mode shared by all layers, -1 when they differ */
	int rc_block;               /* k > 0: full recompute of exactly the first k layers of
	                             * every stage and none elsewhere (Megatron's block method) */
} export_facts;

/* Derive the facts of p (strategy already resolved and valid). */
void export_facts_get(export_facts *x, const plan_t *p);

/* Append a printf-formatted comment line. */
void export_note(export_notes *ns, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Lines every target starts with: what was exported and the rank arithmetic. */
void export_header(export_notes *ns, const export_facts *x, const char *target, const char *source);
/* One "not expressible" line per optimizer tensor of s stored in other than fp32, naming
 * why the target keeps them in fp32 (for targets without a precision-aware optimizer). */
void export_opt_fp32_only(export_notes *ns, const strategy_t *s, const char *why);
/* "layers [lo:hi] mode, ..." for the per-layer recompute ranges, into buf. */
void export_ranges_text(const export_facts *x, char *buf, size_t len);
/* Write the lines as PREFIX + line + newline (prefix "# " for shell and TOML). */
void export_notes_print(FILE *f, const export_notes *ns, const char *prefix);

/* Nodes and processes per node for the plan's devices: whole nodes of the cluster's
 * node size when they divide the devices, else the largest count per node that does. */
void export_geometry(const export_facts *x, int *nnodes, int *nproc);
/* The "run: ..." comment lines of the DeepSpeed and torchtitan configs: the deepspeed or
 * torchrun command that starts the framework with the written config. */
void export_run_deepspeed(export_notes *ns, const export_facts *x);
void export_run_torchtitan(export_notes *ns, const export_facts *x);
/* The Megatron-LM script up to its argument arrays: shebang, #SBATCH directives, the notes,
 * `set -euo pipefail`, the check of the paths the user must set (MEGATRON_PATH, DATA_PATH,
 * TOKENIZER, CHECKPOINT), node variables (NNODES, GPUS_PER_NODE, NODE_RANK, MASTER_PORT)
 * checked against the plan's devices, and the DATA array. */
void export_script_head(FILE *f, const export_facts *x, const export_notes *ns);
/* The script's last lines: torchrun (default) or, with LAUNCHER=slurm or inside a Slurm job,
 * srun starting torchrun on every node, running ENTRY with the array named ARGS and the
 * script's own arguments. */
void export_script_launch(FILE *f, const char *entry, const char *args);

/* The three targets; each returns 0, or -1 when writing to f failed. */
int export_megatron(FILE *f, const export_facts *x);
int export_deepspeed(FILE *f, const export_facts *x);
int export_torchtitan(FILE *f, const export_facts *x);

#endif
