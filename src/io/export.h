/* export.h - a plan as the launch configuration of a training framework: Megatron-LM
 * command-line arguments, a DeepSpeed JSON config, a torchtitan TOML job config.
 * A plan the target cannot launch as priced is refused by the callers (export_check);
 * written anyway on request, what the target cannot express becomes a comment line. */
#ifndef STRATA_IO_EXPORT_H
#define STRATA_IO_EXPORT_H

#include "io/plan.h"
#include "core/framework.h"

#include <stddef.h>
#include <stdio.h>

typedef enum { EXPORT_MEGATRON = 0, EXPORT_DEEPSPEED, EXPORT_TORCHTITAN, EXPORT_COUNT } export_target;

/* Target by name ("megatron", "deepspeed", "torchtitan"); -1 when unknown. */
int export_parse_target(const char *name);
/* The valid target names for messages: "megatron, deepspeed, torchtitan". */
const char *export_target_list(void);
/* The framework target t launches. */
int export_framework(export_target t);
/* Why target t would not launch plan p as it was priced: its framework cannot run the
 * plan or the model (core/framework.c), or the plan is priced as another framework.
 * Fills out and returns the number of reasons (0: the export is exact). */
int export_check(export_target t, const plan_t *p, fw_issues *out);
/* Write plan p (strategy resolved and valid) for target t to f; what the target cannot
 * express is written as the nearest it can, with "not expressible" comment lines (see
 * export_check). 0, or -1 + err. */
int export_write(FILE *f, export_target t, const plan_t *p, char *err, size_t errlen);
/* Replace PATH with the export atomically: a temporary file in the same directory, fsync,
 * rename; the old file stays whole when anything fails. The Megatron-LM script is made
 * executable (0755 under the usual umask). 0, or -1 + err. */
int export_save(const char *path, export_target t, const plan_t *p, char *err, size_t errlen);

#endif
