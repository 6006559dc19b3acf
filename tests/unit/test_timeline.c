/* Unit tests for src/core/timeline.c: the F/B/W simulation behind the explorer's pipeline
 * timeline. Closed-form makespans for GPipe, 1F1B and interleaved 1F1B with equal stages;
 * structural checks (every block once, no overlap on a device, inputs before outputs,
 * 1F1B's in-flight limit) for every schedule; the zero-bubble schedules must beat 1F1B. */
#include "check.h"
#include "core/strategy.h"
#include "core/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tl_result res; /* large: keep it off the stack */

static double F[TL_MAX_STAGES], B[TL_MAX_STAGES], W[TL_MAX_STAGES];

static void stage_times(int p, double f, double b, double w)
{
	for (int i = 0; i < p; i++) {
		F[i] = f;
		B[i] = b;
		W[i] = w;
	}
}

static int run(int sched, int p, int v, int m)
{
	tl_spec sp = {sched, p, v, m, F, B, W};
	char why[256] = "";
	int rc = tl_simulate(&sp, &res, why, sizeof why);
	if (rc)
		printf("  tl_simulate: %s\n", why);
	return rc;
}

/* Chunks per micro-batch path for a schedule. */
static int hops(int sched, int p, int v)
{
	return sched == SCHED_ZBV ? 2 * p : sched == SCHED_INTERLEAVED ? p * v : p;
}

/* Structural invariants of a simulated step. */
static void check_structure(const char *name, int sched, int p, int v, int m)
{
	char nm[160];
	int split = sched == SCHED_ZBH1 || sched == SCHED_ZBH2 || sched == SCHED_ZBV || sched == SCHED_DUALPIPE;
	int K = hops(sched, p, v);
	snprintf(nm, sizeof nm, "%s: every block once (%d)", name, (split ? 3 : 2) * m * K);
	CHECK(res.nops == (split ? 3 : 2) * m * K, nm);
	int overlap = 0, unsorted = 0;
	for (int i = 1; i < res.nops; i++) {
		const tl_op *a = &res.ops[i - 1], *b = &res.ops[i];
		if (a->dev > b->dev || (a->dev == b->dev && a->t0 > b->t0))
			unsorted = 1;
		if (a->dev == b->dev && b->t0 < a->t1 - 1e-9)
			overlap = 1;
	}
	snprintf(nm, sizeof nm, "%s: sorted by device and time", name);
	CHECK(!unsorted, nm);
	snprintf(nm, sizeof nm, "%s: no two blocks overlap on a device", name);
	CHECK(!overlap, nm);
	/* every micro-batch: its backward on a device starts after its forward there ended,
	 * and a W after its B */
	int order = 1;
	for (int i = 0; i < res.nops && order; i++) {
		const tl_op *o = &res.ops[i];
		if (o->kind == TL_F)
			continue;
		int want = o->kind == TL_B ? TL_F : TL_B;
		for (int j = 0; j < res.nops; j++) {
			const tl_op *q = &res.ops[j];
			if (q->dev == o->dev && q->mb == o->mb && q->chunk == o->chunk && q->kind == want &&
					q->t1 > o->t0 + 1e-9)
				order = 0;
		}
	}
	snprintf(nm, sizeof nm, "%s: backward after forward, W after B, per device and chunk", name);
	CHECK(order, nm);
	double work = 0;
	for (int d = 0; d < p; d++)
		work += res.busy[d];
	snprintf(nm, sizeof nm, "%s: bubble fraction matches idle time", name);
	CHECK_NEAR(res.bubble, 1 - work / (p * res.makespan), 1e-9, nm);
}

static void test_closed_forms(void)
{
	const double f = 1, b = 2;
	stage_times(4, f, b, 0.5);
	if (!run(SCHED_1F1B, 4, 1, 8)) {
		CHECK_NEAR(res.makespan, (8 + 4 - 1) * (f + b), 1e-12, "1f1b p=4 m=8: (m+p-1)(f+b)");
		check_structure("1f1b p=4 m=8", SCHED_1F1B, 4, 1, 8);
	}
	if (!run(SCHED_GPIPE, 4, 1, 8)) {
		CHECK_NEAR(res.makespan, (8 + 4 - 1) * (f + b), 1e-12, "gpipe p=4 m=8: (m+p-1)(f+b)");
		check_structure("gpipe p=4 m=8", SCHED_GPIPE, 4, 1, 8);
		/* GPipe: on every device all forwards come before the first backward */
		int ok = 1;
		for (int i = 1; i < res.nops; i++)
			if (res.ops[i].dev == res.ops[i - 1].dev && res.ops[i].kind == TL_F && res.ops[i - 1].kind == TL_B)
				ok = 0;
		CHECK(ok, "gpipe: all forwards before backwards on each device");
	}
	for (int v = 2; v <= 4; v += 2) {
		char nm[128];
		if (run(SCHED_INTERLEAVED, 4, v, 16))
			continue;
		snprintf(nm, sizeof nm, "interleaved p=4 v=%d m=16: m(f+b) + (p-1)(f+b)/v", v);
		CHECK_NEAR(res.makespan, 16 * (f + b) + 3 * (f + b) / v, 1e-12, nm);
		snprintf(nm, sizeof nm, "interleaved p=4 v=%d m=16", v);
		check_structure(nm, SCHED_INTERLEAVED, 4, v, 16);
	}
	/* interleaved with one chunk is plain 1F1B */
	if (!run(SCHED_INTERLEAVED, 4, 1, 8))
		CHECK_NEAR(res.makespan, 33, 1e-12, "interleaved v=1 = 1f1b");
	/* one stage: no bubble */
	if (!run(SCHED_1F1B, 1, 1, 5)) {
		CHECK_NEAR(res.makespan, 5 * (f + b), 1e-12, "1f1b p=1: m(f+b)");
		CHECK(res.bubble < 1e-12, "1f1b p=1: no bubble");
	}
	/* uneven stages, slowest last: sum of stage times + (m-1) x slowest (the core's form) */
	double tsum = 0, tmax = 0;
	for (int i = 0; i < 4; i++) {
		F[i] = 1 + 0.1 * i;
		B[i] = 2 + 0.2 * i;
		tsum += F[i] + B[i];
		tmax = F[i] + B[i] > tmax ? F[i] + B[i] : tmax;
	}
	if (!run(SCHED_1F1B, 4, 1, 8))
		CHECK_NEAR(res.makespan, tsum + 7 * tmax, 1e-9, "1f1b uneven, slowest last: sum + (m-1) max");
}

static void test_inflight_1f1b(void)
{
	stage_times(4, 1, 2, 0.5);
	if (run(SCHED_1F1B, 4, 1, 12))
		return;
	/* walk each device's blocks in order: forwards minus backwards never exceed p - s */
	int ok = 1, peak0 = 0;
	for (int d = 0; d < 4; d++) {
		int n = 0, peak = 0;
		for (int i = 0; i < res.nops; i++) {
			if (res.ops[i].dev != d)
				continue;
			n += res.ops[i].kind == TL_F ? 1 : -1;
			peak = n > peak ? n : peak;
		}
		if (peak > 4 - d)
			ok = 0;
		if (d == 0)
			peak0 = peak;
	}
	CHECK(ok, "1f1b: at most p - s micro-batches in flight on stage s");
	CHECK(peak0 == 4, "1f1b: stage 0 holds p micro-batches at its peak");
}

static void test_zero_bubble(void)
{
	const int p = 4, m = 8;
	stage_times(p, 1, 2, 0.8); /* B = 1.2 input gradient + 0.8 weight gradient */
	double base = 0;
	if (!run(SCHED_1F1B, p, 1, m))
		base = res.makespan;
	const struct { int sched; const char *name; } zs[] = {
		{SCHED_ZBH1, "zb-h1"}, {SCHED_ZBH2, "zb-h2"}, {SCHED_ZBV, "zb-v"}, {SCHED_DUALPIPE, "dualpipe"},
	};
	for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
		char nm[128];
		if (run(zs[i].sched, p, 1, m))
			continue;
		check_structure(zs[i].name, zs[i].sched, p, 1, m);
		snprintf(nm, sizeof nm, "%s: shorter than 1f1b (%.2f < %.2f)", zs[i].name, res.makespan, base);
		CHECK(res.makespan < base - 1e-9, nm);
		snprintf(nm, sizeof nm, "%s: not below the per-device work m(f+b)", zs[i].name);
		CHECK(res.makespan >= m * 3.0 - 1e-9, nm);
		int nw = 0;
		for (int k = 0; k < res.nops; k++)
			nw += res.ops[k].kind == TL_W;
		snprintf(nm, sizeof nm, "%s: weight-gradient blocks drawn", zs[i].name);
		CHECK(nw == m * hops(zs[i].sched, p, 1), nm);
	}
	/* DualPipe feeds both ends: the last device starts with a forward too */
	if (!run(SCHED_DUALPIPE, p, 1, m)) {
		int last_first = -1;
		for (int k = 0; k < res.nops; k++)
			if (res.ops[k].dev == p - 1) {
				last_first = res.ops[k].t0 == 0 && res.ops[k].kind == TL_F;
				break;
			}
		CHECK(last_first == 1, "dualpipe: the last device starts at t=0 (second direction)");
	}
	/* ZB-V: device 0 also runs the last chunk, so it ends the step with backward work */
	if (!run(SCHED_ZBV, p, 1, m)) {
		int chunk1 = 0;
		for (int k = 0; k < res.nops; k++)
			chunk1 += res.ops[k].dev == 0 && res.ops[k].chunk == 1;
		CHECK(chunk1 == 3 * m, "zb-v: device 0 runs both chunks of the V");
	}
}

/* DualPipe runs the implementation's program (github.com/deepseek-ai/DualPipe, DualPipe.step):
 * at pp 2 it leaves no gap, whatever the stage times (before, the greedy choice idled 11 %
 * of the DeepSeek-V3 pp 2 step); with F = B = W the idle time per device is the DeepSeek-V3
 * report's (pp/2 - 1)(F&B + B - 3W) (F&B = F + B, B the full backward); every device holds
 * pp + 1 micro-batches at its peak, the report's activation count. */
static void test_dualpipe(void)
{
	char nm[160];
	/* DeepSeek-V3 on 2048 H800, dp 128 tp 4 pp 2 cp 2 ep 256: the evaluation's stage times */
	F[0] = 0.2044, B[0] = 0.3235, W[0] = 0.0668;
	F[1] = 0.2181, B[1] = 0.3448, W[1] = 0.0735;
	for (int m = 4; m <= 16; m += 4) {
		if (run(SCHED_DUALPIPE, 2, 1, m))
			continue;
		double work = m / 2.0 * (F[0] + B[0] + F[1] + B[1]);
		snprintf(nm, sizeof nm, "dualpipe pp 2 m %d: no idle time (makespan %.4f, work %.4f)", m, res.makespan, work);
		CHECK_NEAR(res.makespan, work, 1e-9, nm);
		snprintf(nm, sizeof nm, "dualpipe pp 2 m %d", m);
		check_structure(nm, SCHED_DUALPIPE, 2, 1, m);
	}
	for (int p = 4; p <= 16; p *= 2) {
		stage_times(p, 1, 2, 1);
		int m = 4 * p;
		if (run(SCHED_DUALPIPE, p, 1, m))
			continue;
		snprintf(nm, sizeof nm, "dualpipe pp %d m %d, F = B = W: idle (p/2-1)(F&B + B - 3W)", p, m);
		CHECK_NEAR(res.makespan - m * 3.0, (p / 2 - 1) * (1 + 2 + 2 - 3), 1e-9, nm);
		snprintf(nm, sizeof nm, "dualpipe pp %d m %d", p, m);
		check_structure(nm, SCHED_DUALPIPE, p, 1, m);
		int peak_ok = 1;
		for (int d = 0; d < p; d++) {
			int n = 0, peak = 0;
			for (int i = 0; i < res.nops; i++)
				if (res.ops[i].dev == d && res.ops[i].kind != TL_W) {
					n += res.ops[i].kind == TL_F ? 1 : -1;
					peak = n > peak ? n : peak;
				}
			peak_ok &= peak == p + 1;
		}
		snprintf(nm, sizeof nm, "dualpipe pp %d: every device holds pp + 1 micro-batches at its peak", p);
		CHECK(peak_ok, nm);
	}
}

static void test_errors(void)
{
	char why[256];
	stage_times(4, 1, 2, 0.5);
	tl_spec sp = {SCHED_1F1B, 4, 1, 0, F, B, W};
	CHECK(tl_simulate(&sp, &res, why, sizeof why) == -1 && strstr(why, "micro-batches"), "error: no micro-batches");
	sp.microbatches = TL_MAX_UNITS;
	CHECK(tl_simulate(&sp, &res, why, sizeof why) == -1 && strstr(why, "exceed"), "error: too many units");
	CHECK(tl_units(&sp) == 4L * TL_MAX_UNITS, "tl_units: stages x micro-batches");
	sp.schedule = SCHED_INTERLEAVED;
	sp.vpp = 2;
	sp.microbatches = 6;
	CHECK(tl_simulate(&sp, &res, why, sizeof why) == -1 && strstr(why, "divisible"),
			"error: interleaved needs micro-batches divisible by pp");
	sp.schedule = 99;
	CHECK(tl_simulate(&sp, &res, why, sizeof why) == -1 && strstr(why, "schedule"), "error: unknown schedule");
}

/* Every schedule over a range of shapes: no deadlock, structure holds. */
static void test_all_shapes(void)
{
	int bad = 0, runs = 0;
	for (int sched = 0; sched < SCHED_COUNT; sched++)
		for (int p = 1; p <= 8; p *= 2)
			for (int m = p; m <= 3 * p; m += p) {
				int v = sched == SCHED_INTERLEAVED && p > 1 ? 2 : 1;
				for (int i = 0; i < p; i++) {
					F[i] = 1 + 0.3 * (i % 3);
					B[i] = 2 * F[i];
					W[i] = 0.4 * F[i];
				}
				tl_spec sp = {sched, p, v, m, F, B, W};
				char why[256];
				runs++;
				if (tl_simulate(&sp, &res, why, sizeof why)) {
					printf("  sched %d p %d m %d: %s\n", sched, p, m, why);
					bad++;
					continue;
				}
				int split = sched == SCHED_ZBH1 || sched == SCHED_ZBH2 || sched == SCHED_ZBV ||
					sched == SCHED_DUALPIPE;
				if (res.nops != (split ? 3 : 2) * m * hops(sched, p, v) || !(res.makespan > 0))
					bad++;
			}
	char nm[96];
	snprintf(nm, sizeof nm, "all schedules x p in 1..8 x three batch sizes simulate (%d runs)", runs);
	CHECK(bad == 0, nm);
}

int main(void)
{
	test_closed_forms();
	test_inflight_1f1b();
	test_zero_bubble();
	test_dualpipe();
	test_errors();
	test_all_shapes();
	return check_done();
}
