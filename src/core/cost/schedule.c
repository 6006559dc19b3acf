/* schedule.c - in-flight micro-batches, warm-up limits and bubbles (schedule.h). The
 * evaluation and the timeline (core/timeline.c) read the same limits from sched_limit,
 * which schedule.h holds inline with sched_inflight: the evaluation asks once per stage. */
#include <math.h>

#include "core/cost/schedule.h"

double sched_bubble(const strategy_t *s, int m, const sched_times *t)
{
	int p = s->pp, v = s->vpp;
	double tsum = t->tsum, tmax = t->tmax, fa = t->fa, ba = t->ba, wa = t->wa;
	double bubble;
	if (p == 1)
		return 0;
	switch (s->schedule) {
	case SCHED_INTERLEAVED:
		bubble = (tsum - tmax) / v;
		break;
	case SCHED_ZBH1:
		bubble = (p - 1) * fmax(0, fa + ba - 2 * wa);
		break;
	case SCHED_ZBH2:
		bubble = (p - 1) * fmax(0, fa + ba - 3 * wa);
		break;
	case SCHED_ZBV:
		bubble = (p - 1) * fmax(0, fa + ba - 3 * wa) / 2;
		break;
	case SCHED_DUALPIPE:
		/* (PP/2 - 1)(F&B + B - 3W), F&B an overlapped forward+backward pair */
		bubble = (p / 2.0 - 1) * fmax(0, fa + 2 * ba - 3 * wa);
		break;
	case SCHED_GPIPE:
		/* all forwards, then all backwards: each phase is a flow shop of m identical jobs,
		 * whose makespan is the sum of the stages plus (m-1) at its own slowest stage, so
		 * the step is sum T + (m-1)(max F + max B); this exceeds the 1F1B form by
		 * (m-1)(max F + max B - max T) when the slowest forward and the slowest backward
		 * are on different stages (e.g. an embedding stage and a loss stage) */
		bubble = tsum - tmax + (m - 1) * fmax(0, t->fmax + t->bmax - tmax);
		break;
	default: /* 1F1B: sum of the stage times plus (m-1) at the slowest */
		bubble = tsum - tmax;
		break;
	}
	return bubble;
}
