/* export.h - a plan as the launch configuration of a training framework: Megatron-LM
 * command-line arguments, a DeepSpeed JSON config, a torchtitan TOML job config.
 * What a target cannot express is written into the output as a comment, never dropped. */
#ifndef STRATA_IO_EXPORT_H
#define STRATA_IO_EXPORT_H

#include "io/plan.h"

#include <stddef.h>
#include <stdio.h>

typedef enum { EXPORT_MEGATRON = 0, EXPORT_DEEPSPEED, EXPORT_TORCHTITAN, EXPORT_COUNT } export_target;

/* Target by name ("megatron", "deepspeed", "torchtitan"); -1 when unknown. */
int export_parse_target(const char *name);
/* The valid target names for messages: "megatron, deepspeed, torchtitan". */
const char *export_target_list(void);
/* Write plan p (strategy resolved and valid) for target t to f. 0, or -1 + err. */
int export_write(FILE *f, export_target t, const plan_t *p, char *err, size_t errlen);
/* Replace PATH with the export atomically: a temporary file in the same directory, fsync,
 * rename; the old file stays whole when anything fails. 0, or -1 + err. */
int export_save(const char *path, export_target t, const plan_t *p, char *err, size_t errlen);

#endif
