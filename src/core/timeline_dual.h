/* timeline_dual.h - DualPipe's per-device program, as the timeline (core/timeline.c) runs it.
 *
 * Source: the DualPipe implementation (github.com/deepseek-ai/DualPipe, dualpipe/dualpipe.py,
 * DualPipe.step), which the DeepSeek-V3 report (arXiv 2412.19437, sec. 3.2.1, fig. 5)
 * describes. pp ranks (even), m micro-batches (even, at least 2 pp), half fed from each end;
 * rank d holds model stage d of the first direction and stage pp-1-d of the second. For
 * each rank, with h = pp/2 and r = min(d, pp-1-d), "near" is the direction in which the rank
 * is stage r and "far" the other, the program runs eight steps:
 *   1. 2(h-r-1) x  F near
 *   2. (r+1)    x  F near, F far
 *   3. (h-r-1)  x  B far (weight gradient deferred), W, F far
 *   4. (m/2-pp+r+1) x  F near & B far, F far & B near   (overlapped pairs; the two middle
 *                  ranks run their first pair one after the other)
 *   5. (h-r-1)  x  B far, F far & B near
 *   6. (r+1)    x  B far, B near   (the weight gradients deferred from the middle on)
 *   7. (h-r-1)  x  W, B near (deferred)
 *   8. (r+1)    x  W
 * A deferred W is run by a later W step, oldest first; a backward that does not defer runs
 * its W at once. Before a step computes, it waits for every receive posted since the last
 * one: an overlapped pair waits for both inputs, and the repository posts two receives a step
 * early (the next near forward's during step 2, the next far forward's before step 3's W).
 * An overlapped pair sends both outputs when both are computed, and so does the middle
 * ranks' first pair, run one after the other. Communication itself takes no time here (the
 * evaluation hides DualPipe's P2P behind the paired compute, core/cost/stage.c). */
#ifndef STRATA_CORE_TIMELINE_DUAL_H
#define STRATA_CORE_TIMELINE_DUAL_H

enum {
	TLD_F = 0, TLD_B = 1, TLD_BD = 2, TLD_W = 3, /* forward, backward with its W, backward deferring W, a deferred W */
	TLD_FAR = 4,                                  /* flag: the far direction (else near) */
	TLD_PAIR = 8,        /* flag on an F: overlapped with the backward after it (TLD_HOLD, and
	                      * it also waits for that backward's input) */
	TLD_HOLD = 64,       /* flag on an F: its output leaves with the next block's */
	TLD_EARLY_NEAR = 16, /* flag: also waits for the input of the next near forward */
	TLD_EARLY_FAR = 32   /* flag: also waits for the input of the next far forward */
};

#define TLD_MAX_SEGS 12
#define TLD_MAX_TOKS 4

/* A run of identical steps: reps times the tokens tok[0..n). */
typedef struct {
	int reps;
	int n;
	unsigned char tok[TLD_MAX_TOKS];
} tld_seg;

/* The program of rank d of p with m micro-batches into seg; returns the number of segments,
 * or 0 when (p, m) is outside the implementation's domain (p odd or < 2, m odd or < 2p). */
int tld_program(int p, int m, int d, tld_seg seg[TLD_MAX_SEGS]);

#endif
