/* timeline_zbv.h - ZB-V's per-device program, as the timeline (core/timeline.c) runs it.
 *
 * Source: the V schedule of Qi et al. 2024 (Zero Bubble Pipeline Parallelism, arXiv
 * 2401.10241, sec. 6) as PyTorch runs it (torch.distributed.pipelining,
 * ScheduleZBVZeroBubble). Rank r of p holds chunk 0 (hop r of the V) and chunk 1 (hop
 * 2p-1-r). With n = max(m, 2p-1) micro-batches it runs
 *   1. 2(p-r)-1 x  F0
 *   2. r        x  F1, F0
 *   3. p-r      x  F1, B1, W1
 *   4. until both chunks have n forwards: [F0 while fewer than n], B0, W0, F1, B1, W1
 *   5. r        x  B0, B1
 *   6. p-r      x  B0, W0
 *   7. the W1 left, then the W0 left.
 * Blocks of micro-batches >= m (the padding to 2p-1) are not run. */
#ifndef STRATA_CORE_TIMELINE_ZBV_H
#define STRATA_CORE_TIMELINE_ZBV_H

/* Blocks in rank d's program for p ranks and m micro-batches, padding included: 6 n. */
static inline int tlz_blocks(int p, int m)
{
	return 6 * (m > 2 * p - 1 ? m : 2 * p - 1);
}

/* Block pc of rank d's program: its chunk (0 or 1), kind (TL_F, TL_B, TL_W) and
 * micro-batch (>= m for padding). */
void tlz_next(int p, int m, int d, int pc, int *chunk, int *kind, int *mb);

#endif
