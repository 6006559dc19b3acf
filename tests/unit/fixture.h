/* fixture.h - helpers shared by the unit tests (linked into every test binary). */
#ifndef STRATA_TEST_FIXTURE_H
#define STRATA_TEST_FIXTURE_H

#include "io/plan.h"

/* Load plan text and resolve the derived degrees (dp from devices); 0, or -1 after
 * printing the loader's message. */
int fixture_load(plan_t *plan, const paths_t *paths, const char *text);

#endif
