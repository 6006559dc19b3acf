/* plan_write.h - write a plan back as a YAML plan file (DESIGN.md section 3) that
 * plan_load_file() reads back to the same plan, and save it atomically. */
#ifndef STRATA_IO_PLAN_WRITE_H
#define STRATA_IO_PLAN_WRITE_H

#include "io/paths.h"
#include "io/plan.h"

#include <stdio.h>

/* Write p as YAML to f. Preset names stay names, file references become absolute paths
 * (the saved file may live elsewhere), inline models and clusters are written inline.
 * 0, or -1 with a reason (a model that has no config-key form, a write error). */
int plan_write(FILE *f, const plan_t *p, const paths_t *paths, char *err, size_t errlen);
/* Replace PATH with the plan atomically (io/atomic.h: temporary file beside it, fsync,
 * rename; symlinks followed, permissions kept). 0 or -1 + err. */
int plan_save(const plan_t *p, const char *path, const paths_t *paths, char *err, size_t errlen);

#endif
