/* schedule.c - in-flight micro-batches, warm-up limits and bubbles (schedule.h). The
 * evaluation and the timeline (core/timeline.c) read the same limits from sched_limit,
 * which schedule.h holds inline with sched_inflight: the evaluation asks once per stage. */
#include <math.h>

#include "core/cost/schedule.h"

double sched_zbv_bubble(int p, int m, double f, double bin, double w)
{
	/* ZB-V as PyTorch's ScheduleZBVZeroBubble runs it (Qi et al. 2024, sec. 6; the timeline
	 * runs that program): the paper's (p-1)(F + B_in - 2W)/2 assumes F = B_in; the program's
	 * warm-up and cool-down chains wait on the slower of F and B_in, so its idle time is
	 * (p-1)(max(F, B_in) - W) (measured on the program for F, B_in, W over 0.25..2 and p
	 * 2..16, within F - B_in below). With m < 2p-1 the program is the 2p-1 one with the
	 * missing micro-batches skipped: each leaves up to min(F, (F + B_in)/2) idle. */
	double steady = (p - 1) * fmax(0, fmax(f, bin) - w);
	double shortfall = m < 2 * p - 1 ? (2 * p - 1 - m) * fmin(f, (f + bin) / 2) : 0;
	return steady + shortfall;
}

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
	case SCHED_ZBH1: /* with fewer than p micro-batches, fewer deferred W fill the tail */
		bubble = (p - 1) * fmax(0, fa + ba - 2 * wa) + (m < p ? (p - m) * wa : 0);
		break;
	case SCHED_ZBH2: /* ZB-H2's warm-up wants 2p-1 micro-batches: each missing one leaves a W's idle */
		bubble = (p - 1) * fmax(0, fa + ba - 3 * wa) + (m < 2 * p - 1 ? (2 * p - 1 - m) * wa : 0);
		break;
	case SCHED_ZBV:
		bubble = sched_zbv_bubble(p, m, fa, ba - wa, wa);
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
