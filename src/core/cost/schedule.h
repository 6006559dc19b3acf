/* schedule.h - pipeline schedules: how many micro-batches each stage holds in flight at its
 * memory peak, the warm-up limit the timeline simulates, and the bubble of the step.
 *
 * Sources: GPipe (Huang et al. 2019, arXiv 1811.06965): all m micro-batches in flight,
 * bubble (p-1) stage times; 1F1B (PipeDream-Flush, Narayanan et al. 2021, arXiv 2006.09503):
 * stage s holds p - s; Megatron's interleaved 1F1B (Narayanan et al. 2021, arXiv
 * 2104.04473): warm-up of 2(p-s-1) + (v-1)p chunk-micro-batches plus the one in progress,
 * bubble divided by v; zero-bubble schedules ZB-H1, ZB-H2, ZB-V (Qi et al. 2024, arXiv
 * 2401.10241): bubbles (p-1)(F+B-2W), (p-1)(F+B-3W), half that for the V shape, ZB-H2 holds
 * 2(p-s)-1; DualPipe (DeepSeek-V3 report, arXiv 2412.19437, Table 2): bubble
 * (p/2-1)(F&B + B - 3W), p+1 micro-batches of activations and two copies of the weights. */
#ifndef STRATA_CORE_COST_SCHEDULE_H
#define STRATA_CORE_COST_SCHEDULE_H

#include "core/strategy.h"

/* The warm-up limit of device d on path (0, or 1 for DualPipe's reverse direction) in
 * chunk-micro-batches: how many forwards it may run ahead of its backwards. chunks is the
 * number of chunks per device the schedule interleaves (vpp for interleaved, else 1). */
static inline int sched_limit(int schedule, int p, int chunks, int m, int d, int path);
/* Micro-batches (in units of one stage's per-micro-batch activations) that stage `stage`
 * holds at its peak under s with m micro-batches per step. Under every schedule it never
 * grows with the stage index (p - s, 2(p - s) - 1, the interleaved warm-up, or a constant:
 * GPipe's m, ZB-V's p, DualPipe's p + 1), so among stages that hold the same layers the
 * first holds the most; the evaluation reads each span's peak there (test_evaluate). */
static inline double sched_inflight(const strategy_t *s, int stage, int m);
/* What the bubble reads of the stages' per-micro-batch times: the sum and the largest of
 * T = F + B, the largest F and the largest B (GPipe's two phases are paced apart), and the
 * mean forward, backward (with wgrad) and weight-gradient times per stage. */
typedef struct {
	double tsum, tmax, fmax, bmax, fa, ba, wa;
} sched_times;
/* 1 when sched_bubble reads the mean forward, backward and weight-gradient times (fa, ba,
 * wa): the zero-bubble schedules and DualPipe; the others read T's sum and maxima only. */
static inline int sched_reads_means(int schedule)
{
	return schedule == SCHED_ZBH1 || schedule == SCHED_ZBH2 || schedule == SCHED_ZBV || schedule == SCHED_DUALPIPE;
}
/* The step less m times the slowest stage's T with m micro-batches: warm-up, cool-down and
 * (GPipe) the two phases' separate pacing. 0 with one stage. */
double sched_bubble(const strategy_t *s, int m, const sched_times *t);
/* ZB-V's idle time with p devices, m micro-batches and mean stage times f (forward), bin
 * (input gradient) and w (weight gradient); the ILP prices it too. */
double sched_zbv_bubble(int p, int m, double f, double bin, double w);

static inline int sched_limit(int schedule, int p, int chunks, int m, int d, int path)
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

/* sched_inflight for a schedule given apart (the evaluation keeps the schedule, not s). */
static inline double sched_inflight_of(int schedule, int p, int v, int stage, int m)
{
	double n;
	switch (schedule) {
	case SCHED_GPIPE:
		n = m;
		break;
	case SCHED_INTERLEAVED: {
		/* each chunk holds 1/v of the stage's layers, so chunk-micro-batches count 1/v; with
		 * one chunk per device this is plain 1F1B (p - s), as Megatron runs it */
		double chunks = sched_limit(SCHED_INTERLEAVED, p, v, m, stage, 0);
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
		n = sched_limit(schedule, p, 1, m, stage, 0);
		break;
	}
	return n < m ? n : m;
}

static inline double sched_inflight(const strategy_t *s, int stage, int m)
{
	return sched_inflight_of(s->schedule, s->pp, s->vpp, stage, m);
}

#endif
