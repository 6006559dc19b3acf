/* The bubble ILP's limits: the recompute knapsack's fronts (built one from the other)
 * against plain enumeration; models far larger than any preset (DeepSeek-V3's shape with
 * 1,024 and 4,096 layers) solve, or stop, within the time limit and the memory cap; the
 * cancel flag stops every phase within 100 ms; and DeepSeek-V3 on two stages with four or
 * more chunks each (a dense head longer than the pipeline) is proven optimal at once. */
#include "check.h"
#include "fixture.h"
#include "solve/ilp.h"
#include "solve/ilp_int.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
/* what a sanitized build may take longer (it runs several times slower) */
#define SLOW (SANITIZED ? 4 : 1)

static paths_t paths;
static plan_t plan;
static ilp_result res;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static unsigned short seed[3] = {0x1234, 0xabcd, 0x3e66};

static double urand(double lo, double hi)
{
	return lo + (hi - lo) * erand48(seed);
}

/* The front as it was computed before fronts were built one from the other: every
 * (selective, full) pair, sorted by save (stable, so equal points keep the order of fewer
 * full, then fewer selective layers), the points no other beats kept. */
static int by_save_desc(const void *a, const void *b)
{
	const ilp_cpt *x = a, *y = b;
	if (x->save != y->save)
		return x->save > y->save ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int reference_front(const eval_kind_cost *q, int n, ilp_cpt *pts)
{
	int m = 0;
	for (int full = 0; full <= n; full++)
		for (int sel = 0; sel + full <= n; sel++) {
			memset(&pts[m], 0, sizeof pts[m]);
			pts[m].save = sel * (q->act[RC_NONE] - q->act[RC_SELECTIVE]) + full * (q->act[RC_NONE] - q->act[RC_FULL]);
			pts[m].time = sel * q->rc[RC_SELECTIVE] + full * q->rc[RC_FULL];
			pts[m].sel[0] = (int16_t)sel;
			pts[m].full[0] = (int16_t)full;
			m++;
		}
	/* a stable sort: insertion into the sorted prefix */
	for (int i = 1; i < m; i++) {
		ilp_cpt t = pts[i];
		int j = i;
		while (j > 0 && by_save_desc(&pts[j - 1], &t) > 0) {
			pts[j] = pts[j - 1];
			j--;
		}
		pts[j] = t;
	}
	int out = 0;
	double tmin = INFINITY;
	for (int i = 0; i < m; i++)
		if (pts[i].time < tmin) {
			tmin = pts[i].time;
			pts[out++] = pts[i];
		}
	for (int i = 0; i < out / 2; i++) {
		ilp_cpt t = pts[i];
		pts[i] = pts[out - 1 - i];
		pts[out - 1 - i] = t;
	}
	return out;
}

/* Fronts of 0 .. 60 layers for kinds of every sort: random costs, whole-byte savings
 * (equal saves abound), selective saving nothing, selective and full in proportion (equal
 * points), selective nearly as efficient as full (large fronts). */
static void test_fronts(void)
{
	enum { N = 60 };
	static ilp_cpt ref[(N + 1) * (N + 2) / 2];
	static eval_costs ec;
	int same = 1, checked = 0, most = 0;
	for (int it = 0; it < 50; it++) {
		eval_kind_cost *q = &ec.kind[0];
		q->act[RC_NONE] = urand(4, 10);
		q->act[RC_SELECTIVE] = q->act[RC_NONE] * urand(0.3, 1);
		q->act[RC_FULL] = q->act[RC_NONE] * urand(0.01, 0.3);
		q->rc[RC_SELECTIVE] = urand(0, 0.5);
		q->rc[RC_FULL] = urand(0.5, 2);
		switch (it % 5) {
		case 1:
			for (int mode = 0; mode < RC_COUNT; mode++)
				q->act[mode] = floor(q->act[mode] * 1e8);
			break;
		case 2:
			q->act[RC_SELECTIVE] = q->act[RC_NONE];
			q->rc[RC_SELECTIVE] = 0;
			break;
		case 3:
			q->act[RC_NONE] = 6, q->act[RC_SELECTIVE] = 4, q->act[RC_FULL] = 2;
			q->rc[RC_SELECTIVE] = 0.25, q->rc[RC_FULL] = 0.5;
			break;
		case 4:
			q->act[RC_NONE] = 6, q->act[RC_SELECTIVE] = 3, q->act[RC_FULL] = 1;
			q->rc[RC_SELECTIVE] = 0.1 * urand(0.9, 1.1), q->rc[RC_FULL] = 0.2;
			break;
		default:
			break;
		}
		ilp_knap k;
		if (ilp_knap_init(&k, &ec, 1, N, NULL)) {
			CHECK(0, "fronts: knapsack set up");
			return;
		}
		for (int n = it % 2 ? N : 0; n >= 0 && n <= N; n += it % 2 ? -7 : 1) { /* up, and down from the top */
			int np;
			const ilp_kpt *f = ilp_knap_front(&k, 0, n, &np);
			int nr = reference_front(q, n, ref);
			int ok = f && np == nr;
			for (int i = 0; ok && i < np; i++)
				ok = f[i].sel == ref[i].sel[0] && f[i].full == ref[i].full[0];
			if (!ok && same)
				printf("  kind %d, %d layers: %d points, enumeration %d\n", it, n, f ? np : -1, nr);
			same &= ok;
			most = np > most ? np : most;
			checked++;
		}
		ilp_knap_free(&k);
	}
	CHECK(same, "fronts: built one from the other, they equal the enumeration point for point");
	printf("  %d fronts, the largest %d points\n", checked, most);
}

/* DeepSeek-V3 with L layers: its three dense layers, then MoE (and its MTP module). */
static int load_dsv3(int L, const char *cluster_devices_strategy)
{
	char text[512];
	snprintf(text, sizeof text, "model: deepseek-v3\n%s", cluster_devices_strategy);
	if (fixture_load(&plan, &paths, text))
		return -1;
	model_t *m = &plan.model;
	int moe = -1;
	for (int r = 0; r < m->nruns; r++)
		if (m->run[r].count > 1 && (moe < 0 || m->run[r].count > m->run[moe].count))
			moe = r;
	if (moe < 0)
		return -1;
	m->run[moe].count += L - m->layers;
	m->layers = L;
	return 0;
}

static long peak_rss_kib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

/* A solve on a background thread, cancelled after `after` ms. */
typedef struct {
	ilp_params prm;
	atomic_int flag;
	int status;
} job_t;

static job_t job;

static void *run_job(void *u)
{
	(void)u;
	job.status = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, NULL,
			&job.prm, &res);
	return NULL;
}

/* Worst time from raising the flag to the solve's return over cancels at `n` points in
 * (0, span] ms; -1 when the thread could not start. */
static double cancel_latency(int no_dp, double span, int n)
{
	double worst = 0;
	for (int i = 1; i <= n; i++) {
		memset(&job.prm, 0, sizeof job.prm);
		atomic_init(&job.flag, 0);
		job.prm.cancel = &job.flag;
		job.prm.no_dp = no_dp;
		pthread_t th;
		double t0 = now_ms();
		if (pthread_create(&th, NULL, run_job, NULL))
			return -1;
		while (now_ms() - t0 < span * i / n)
			usleep(500);
		double tc = now_ms();
		atomic_store(&job.flag, 1);
		pthread_join(th, NULL);
		double lat = now_ms() - tc;
		worst = lat > worst ? lat : worst;
		ilp_free(&res);
	}
	return worst;
}

#define BIG_STAGE "cluster: h800\ndevices: 32768\nstrategy: {tp: 8, pp: 256, ep: 128, global_batch: 4096, seq_length: 4096}\n"
#define BIG_CHUNK "cluster: h800\ndevices: 8192\nstrategy: {tp: 8, pp: 16, vpp: 2, ep: 256, " \
	"schedule: interleaved, global_batch: 4096, seq_length: 4096}\n"
#define BIG_PLAIN "cluster: h800\ndevices: 8192\nstrategy: {tp: 8, pp: 16, ep: 256, global_batch: 4096, seq_length: 4096}\n"

/* 4,096 layers on 256 stages: the stage model is solved by the threshold DP over cached
 * prices (far too many options for GLPK), proven optimal in well under a second; with a
 * 30 ms limit it stops at once, with the first plan. */
static void test_big_stage(void)
{
	if (load_dsv3(4096, BIG_STAGE))
		return;
	ilp_params prm = {0};
	prm.time_limit_ms = 60000;
	double t0 = now_ms();
	int st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, NULL, &prm, &res);
	double t = now_ms() - t0;
	if (!CHECK(st == ILP_OPTIMAL && res.have_plan, "4096 layers, pp 256: proven optimal"))
		printf("  status %s: %s\n", ilp_status_name(st), res.why);
	if (!CHECK(t < 3000 * SLOW, "4096 layers, pp 256: in a few seconds at most"))
		printf("  %.0f ms\n", t);
	CHECK(res.have_plan && res.gap == 0 && res.bound == res.makespan, "4096 layers, pp 256: a zero gap");
	double best = res.makespan;
	ilp_free(&res);
	prm.time_limit_ms = 30;
	t0 = now_ms();
	st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, NULL, &prm, &res);
	t = now_ms() - t0;
	if (!CHECK(t < 30 + 100 * SLOW, "4096 layers, pp 256, 30 ms limit: returns within the limit and 100 ms"))
		printf("  %.0f ms\n", t);
	CHECK((st == ILP_TIMEOUT || st == ILP_OPTIMAL) && res.have_plan && res.makespan >= best * (1 - 1e-9),
			"4096 layers, pp 256, 30 ms limit: a plan, not better than the optimum");
	ilp_free(&res);
}

/* 1,024 layers with two chunks per stage: the chunk DP's states and the chunk model's
 * options outgrow any cap, so the solve stops at the memory cap with the plan it has
 * and says so; the process's peak memory grows by less than the cap (and some slack). */
static void test_memory_cap(void)
{
	if (load_dsv3(1024, BIG_CHUNK))
		return;
	ilp_params prm = {0};
	prm.time_limit_ms = 60000;
	prm.mem_cap_mib = 64;
	long rss0 = peak_rss_kib();
	double t0 = now_ms();
	int st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, NULL, &prm, &res);
	double t = now_ms() - t0;
	long grew = peak_rss_kib() - rss0;
	if (!CHECK(st == ILP_FEASIBLE && res.have_plan && strstr(res.why, "memory cap"),
				"1024 layers, vpp 2, 64 MiB cap: a plan, not proven, with a message naming the cap"))
		printf("  status %s: %s\n", ilp_status_name(st), res.why);
	if (SANITIZED)
		printf("SKIP 1024 layers, vpp 2, 64 MiB cap: peak memory (sanitizers keep freed memory)\n");
	else if (!CHECK(grew < (64 + 48) * 1024, "1024 layers, vpp 2, 64 MiB cap: peak memory grows by less than 112 MiB"))
		printf("  grew by %ld MiB\n", grew / 1024);
	CHECK(t < 10000 * SLOW, "1024 layers, vpp 2, 64 MiB cap: in seconds");
	ilp_free(&res);
	/* the default cap (1 GiB) on the same model: the same kind of answer, under the cap */
	prm.mem_cap_mib = 0;
	rss0 = peak_rss_kib();
	st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, NULL, &prm, &res);
	grew = peak_rss_kib() - rss0;
	CHECK(res.have_plan && (st == ILP_FEASIBLE || st == ILP_OPTIMAL), "1024 layers, vpp 2, default cap: a plan");
	if (!SANITIZED && !CHECK(grew < (ILP_MEM_CAP_MIB + 128) * 1024L, "1024 layers, vpp 2, default cap: under the cap"))
		printf("  grew by %ld MiB\n", grew / 1024);
	ilp_free(&res);
}

/* The cancel flag, raised at points spread over the solve, ends it within 100 ms: the
 * stage DP over cached prices, the chunk DP and its options, GLPK's simplex on a plain
 * model of 64,000 options (whose root LP takes seconds; after it, GLPK's branch-and-bound
 * only stops between nodes, and a node of that model takes seconds too). */
static void test_cancel(void)
{
	static const struct {
		const char *name, *text;
		int layers, no_dp;
		double span;
	} cases[] = {
		{"stage DP, 4096 layers on 256 stages", BIG_STAGE, 4096, 0, 500},
		{"chunk DP and options, 1024 layers, vpp 2", BIG_CHUNK, 1024, 0, 1500},
		{"GLPK's simplex, 1024 layers, 64,000 options", BIG_PLAIN, 1024, 1, 1200},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].no_dp && SANITIZED) { /* the phases shift: the cancels would fall in its nodes */
			printf("SKIP cancel: %s: sanitized build\n", cases[i].name);
			continue;
		}
		if (load_dsv3(cases[i].layers, cases[i].text))
			continue;
		double worst = cancel_latency(cases[i].no_dp, cases[i].span * SLOW, 4);
		char name[160];
		snprintf(name, sizeof name, "cancel: %s stops within 100 ms", cases[i].name);
		if (!CHECK(worst >= 0 && worst < 100 * SLOW, name))
			printf("  worst %.1f ms\n", worst);
	}
}

/* DeepSeek-V3 on 512 H800 with pp 2 and four to eight chunks per stage: the round starts
 * used to be searched one set at a time and never finished (60 s, 0.1-1 % gap left); with
 * the head placed round by round they are proven optimal at once. */
static void test_hard(void)
{
	static const char *strat[] = {
		"cluster: h800\ndevices: 512\nstrategy: {tp: 8, pp: 2, vpp: 4, ep: 128, schedule: interleaved}\n",
		"cluster: h800\ndevices: 512\nstrategy: {tp: 8, pp: 2, vpp: 4, ep: 256, schedule: interleaved}\n",
		"cluster: h800\ndevices: 512\nstrategy: {tp: 4, pp: 2, vpp: 4, ep: 64, zero: 2, schedule: interleaved}\n",
		"cluster: h800\ndevices: 512\nstrategy: {tp: 8, pp: 2, vpp: 8, ep: 256, schedule: interleaved}\n",
	};
	for (size_t i = 0; i < sizeof strat / sizeof strat[0]; i++) {
		if (load_dsv3(61, strat[i]))
			continue;
		ilp_params prm = {0};
		prm.time_limit_ms = 60000;
		int st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, NULL, &prm,
				&res);
		char name[160];
		snprintf(name, sizeof name, "dsv3 512 h800 pp2 (case %zu): proven optimal in under 2 s", i);
		if (!CHECK(st == ILP_OPTIMAL && res.solve_ms < 2000 * SLOW, name))
			printf("  status %s in %.0f ms, gap %g\n", ilp_status_name(st), res.solve_ms, res.gap);
		ilp_free(&res);
	}
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd)) /* the runner starts tests at the repository root */
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_fronts();
	test_hard();
	test_big_stage();
	test_memory_cap();
	test_cancel();
	return check_done();
}
