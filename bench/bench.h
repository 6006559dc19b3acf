/* bench.h - what the bench files share: the entry point of each group of figures, the
 * clock they time with and the comparator their medians sort with. */
#ifndef STRATA_BENCH_H
#define STRATA_BENCH_H

#include "io/paths.h"
#include "io/plan.h"

/* qsort comparator for doubles, ascending. */
int bench_dcmp(const void *a, const void *b);
/* Monotonic clock in seconds. */
double bench_now(void);
/* Load a plan from text and derive its degrees; 0, or -1 after printing why. */
int bench_load(plan_t *p, const char *name, const char *text, const paths_t *paths);

int bench_ilp(const paths_t *paths);    /* bench_ilp.c */
int bench_tui(const paths_t *paths);    /* bench_tui.c */
int bench_lua(const paths_t *paths);    /* bench_lua.c */
int bench_search(const paths_t *paths); /* bench_search.c */

#endif
