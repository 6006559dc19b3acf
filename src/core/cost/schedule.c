/* schedule.c - in-flight micro-batches, warm-up limits and bubbles (schedule.h). The
 * evaluation and the timeline (core/timeline.c) read the same limits from sched_limit. */
#include <math.h>

#include "core/cost/schedule.h"

int sched_limit(int schedule, int p, int chunks, int m, int d, int path)
{
	int pos = path == 1 ? p - 1 - d : d; /* position along the path */
	switch (schedule) {
	case SCHED_GPIPE:
		return m * p * chunks;
	case SCHED_INTERLEAVED:
		return chunks > 1 ? 2 * (p - d - 1) + (chunks - 1) * p + 1 : p - d;
	case SCHED_ZBH2:
		return 2 * (p - pos) - 1;
	case SCHED_ZBV:
		return 2 * p;
	default: /* 1F1B, ZB-H1, each DualPipe direction */
		return p - pos;
	}
}

double sched_inflight(const strategy_t *s, int stage, int m)
{
	int p = s->pp, v = s->vpp;
	double n;
	switch (s->schedule) {
	case SCHED_GPIPE:
		n = m;
		break;
	case SCHED_INTERLEAVED: {
		/* each chunk holds 1/v of the stage's layers, so chunk-micro-batches count 1/v.
		 * With one chunk per device the interleaved warm-up formula is used as written
		 * (2(p-s-1) + 1), where the timeline runs plain 1F1B (p - s). */
		double chunks = v > 1 ? sched_limit(SCHED_INTERLEAVED, p, v, m, stage, 0) : 2.0 * (p - stage - 1) + 1;
		if (chunks > (double)m * v)
			chunks = (double)m * v;
		return chunks / v;
	}
	case SCHED_ZBV: /* V-shape: every device peaks at the first stage's 1F1B level */
		n = sched_limit(SCHED_ZBV, p, 1, m, stage, 0) / 2;
		break;
	case SCHED_DUALPIPE: /* both directions' warm-ups: (p - s) + (s + 1) */
		n = sched_limit(SCHED_DUALPIPE, p, 1, m, stage, 0) + sched_limit(SCHED_DUALPIPE, p, 1, m, stage, 1);
		break;
	default: /* 1F1B, ZB-H1 (p - s), ZB-H2 (2(p - s) - 1) */
		n = sched_limit(s->schedule, p, 1, m, stage, 0);
		break;
	}
	return n < m ? n : m;
}

double sched_bubble(const strategy_t *s, double tsum, double tmax, double fa, double ba, double wa)
{
	int p = s->pp, v = s->vpp;
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
	default: /* GPipe and 1F1B: sum of the stage times plus (m-1) at the slowest */
		bubble = tsum - tmax;
		break;
	}
	return bubble;
}
