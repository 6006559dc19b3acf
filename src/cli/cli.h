/* cli.h - batch commands and the option parsing they share. */
#ifndef STRATA_CLI_CLI_H
#define STRATA_CLI_CLI_H

#include "io/paths.h"
#include "io/plan.h"
#include "core/evaluate.h"

#include <stdio.h>

#define CLI_MAX_SETS 64

/* Options common to eval/search/ilp/export (DESIGN.md section 2). */
typedef struct {
	const char *plan;                   /* plan file or NULL for the default plan */
	const char *model, *cluster;        /* -m, -c */
	int nsets;
	const char *set_key[CLI_MAX_SETS];  /* strategy overrides in order */
	char set_val[CLI_MAX_SETS][64];
	int dp_given, shape_changed;        /* re-derive dp when tp/pp/cp/devices change */
	int json, csv, top;
	const char *pins[32];
	int npins;
	int nfiles;                         /* positional files beyond the plan (validate) */
	const char *files[256];
	int verbose;
	int why;                            /* eval --why: the plan's dominant losses (solve/advice.h) */
	int job_only;                       /* search: the plan's strategy only gives the job, so
	                                     * one that does not divide the devices is replaced */
} cli_opts;

/* S made terminal-safe (io/text.h: control characters and bytes that are not UTF-8 become
 * '?') for printing: every string from input (names, ids, paths, arguments, messages that
 * quote them) goes through it. The text lives in one of four rotating buffers, so up to
 * four may be used in one printf; longer text is cut at 4095 bytes. */
const char *cli_safe(const char *s);
/* Parse argv[first..]; 0 ok, 2 usage error (message printed), 3 help was printed. */
int cli_parse(cli_opts *o, int argc, char **argv, int first, const char *cmd);
/* Load the plan named by the options, apply overrides and derive dp (a dp the devices do
 * not allow stays 0: eval_run then says why, as for any invalid strategy).
 * Returns 0, 1 (invalid content) or 2 (file/usage); message printed to stderr. */
int cli_load(const cli_opts *o, const paths_t *paths, plan_t *p);

/* Job first (start.c): the command line names a job (model, cluster, devices, batch or
 * sequence) without a plan file and without any strategy option. */
int cli_job_first(const cli_opts *o);
/* Replace p's strategy by the best plan a short search finds for p's job (p's pins
 * constrain it; its settings that the search keeps stay). 0 with "best of N fitting plans,
 * found in T ms" in msg, or -1 with why in msg (p unchanged). */
int cli_start_search(plan_t *p, char *msg, size_t msglen);

/* Commands: each returns the process exit code (0, 1 or 2). */
int cmd_eval(int argc, char **argv, const paths_t *paths);
int cmd_presets(int argc, char **argv, const paths_t *paths);
int cmd_validate(int argc, char **argv, const paths_t *paths);
int cmd_export(int argc, char **argv, const paths_t *paths);
int cmd_ilp(int argc, char **argv, const paths_t *paths);
int cmd_search(int argc, char **argv, const paths_t *paths);
int cmd_run(int argc, char **argv, const paths_t *paths);
int cmd_sweep(int argc, char **argv, const paths_t *paths);

/* `eval --why`: the losses of r (a valid evaluation of p) with the change that helps each,
 * and the placement of the parallel groups, as text to f or as the members "why" and
 * "placement" of the JSON object being written (cli/why_out.c). */
struct json_w;
void cli_why_text(FILE *f, const plan_t *p, const eval_result *r);
void cli_why_json(struct json_w *w, const plan_t *p, const eval_result *r);

#endif
