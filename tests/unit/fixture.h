/* fixture.h - helpers shared by the unit tests (linked into every test binary). */
#ifndef STRATA_TEST_FIXTURE_H
#define STRATA_TEST_FIXTURE_H

#include "io/plan.h"

#include <stdint.h>

/* Load plan text and resolve the derived degrees (dp from devices); 0, or -1 after
 * printing the loader's message. */
int fixture_load(plan_t *plan, const paths_t *paths, const char *text);

/* Point the data search path at the working directory (the runner starts tests at the
 * repository root, so preset names resolve) and fill p. */
void fixture_paths(paths_t *p);
/* xorshift64*: the next number below n from the generator *state (a sample that is the same
 * on every machine). */
uint32_t fixture_rnd(uint64_t *state, uint32_t n);
/* The preset names under presets/KIND ("models", "clusters"), sorted, into names[max]; the
 * count. */
int fixture_presets(const paths_t *paths, const char *kind, char (*names)[128], int max);

/* An A100-80GB-like cluster of 8-GPU nodes (312 TFLOP/s, 300 GB/s NVLink, 25 GB/s NICs
 * with 5 us latency) with every efficiency constant fixed, so a recalibration of the presets
 * cannot move the figures a test compares; no SM count (the GEMM roll-off of the smallest
 * dimension) and default host links. */
cluster_t fixture_cluster(void);
/* Build m from config c, or print why not and exit(1). */
void fixture_model(model_t *m, const model_config *c);

#endif
