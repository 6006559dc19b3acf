/* help.h - the table of command-line options, each command's --help printed from it, and
 * the nearest command to a mistyped one. */
#ifndef STRATA_CLI_HELP_H
#define STRATA_CLI_HELP_H

#include <stdio.h>

enum {
	HELP_EVAL = 1, HELP_SEARCH = 2, HELP_ILP = 4, HELP_EXPORT = 8, HELP_VALIDATE = 16, HELP_PRESETS = 32,
	HELP_EXPLORER = 64, HELP_SWEEP = 128, HELP_ALL = 255
};

typedef struct {
	const char *opt;   /* "--tp", or "-m, --model" (the short and long forms) */
	const char *arg;   /* "N", or NULL for a flag */
	const char *key;   /* the plan key a strategy option sets (cli_parse), or NULL */
	const char *def;   /* the default, or NULL when there is none */
	unsigned cmds;     /* HELP_* bits of the commands that take it */
	const char *help;
} cli_optdoc;

/* The option table and its length. */
const cli_optdoc *cli_optdocs(int *n);
/* Print `strata CMD --help` ("explorer" for the bare `strata`) to f; 0, or -1 for a
 * command with no entry (run prints its own). */
int cli_help(const char *cmd, FILE *f);

#define CLI_NCOMMANDS 8
/* The commands' names. */
extern const char *const cli_command_names[CLI_NCOMMANDS];
/* The command nearest to a mistyped word, or NULL when none is near. */
const char *cli_nearest_command(const char *word);

#endif
