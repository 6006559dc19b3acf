/* timeline.h - a simplified simulation of one pipeline-parallel step: which forward (F),
 * backward (B) and weight-gradient (W) block every stage runs when, for the schedules of
 * strategy.h. It is for drawing the schedule, not for the step time (the core's closed
 * forms give that): a greedy list scheduler with each schedule's in-flight limit and
 * priorities reproduces the familiar shapes, including the bubbles. Pure, no allocation:
 * the caller owns the buffers. */
#ifndef STRATA_CORE_TIMELINE_H
#define STRATA_CORE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_MAX_STAGES 256
#define TL_MAX_UNITS 16384           /* micro-batches x pipeline chunks simulated at most */
#define TL_MAX_OPS (3 * TL_MAX_UNITS)

enum { TL_F = 0, TL_B = 1, TL_W = 2 };

/* One block on one device. */
typedef struct {
	double t0, t1;
	int mb;                 /* micro-batch */
	uint16_t dev;           /* device (pipeline rank) */
	uint8_t kind;           /* TL_F, TL_B or TL_W */
	uint8_t chunk;          /* virtual chunk on the device (interleaved, zb-v, dualpipe direction) */
} tl_op;

/* What to simulate. Times are seconds for one micro-batch over the whole stage (all of its
 * chunks), as eval_stage_time gives them; bwd includes wgrad. */
typedef struct {
	int schedule;           /* schedule_t */
	int stages, vpp, microbatches;
	const double *fwd, *bwd, *wgrad;   /* [stages] */
} tl_spec;

/* Working memory and result. ops[0..nops) is sorted by device, then start time. */
typedef struct {
	int nops;
	double makespan;
	double busy[TL_MAX_STAGES];        /* seconds each device computes */
	double bubble;                     /* idle fraction of devices x makespan */
	tl_op ops[TL_MAX_OPS];
	double fend[TL_MAX_UNITS], bend[TL_MAX_UNITS]; /* scratch: end of F and B per unit */
} tl_result;

/* Micro-batch x chunk units the spec needs (compare with TL_MAX_UNITS). */
long tl_units(const tl_spec *sp);
/* Simulate; 0 on success, -1 with a reason (bad spec, too large). */
int tl_simulate(const tl_spec *sp, tl_result *r, char *why, size_t whylen);

#endif
