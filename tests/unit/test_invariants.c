/* Invariants of the cost model over a pseudo-random sample of the whole strategy space
 * (every model preset on every cluster preset; every schedule, ZeRO level, recompute mode,
 * cp kind, expert layout and precision): what must hold wherever the search looks, not only
 * on published plans.
 *   - every figure of a valid result is finite and non-negative;
 *   - MFU is at most HFU, and each at most the device family's ceiling under the FLOP
 *     convention the model counts with (eval_mfu_ceiling: the GEMM efficiency of the run's
 *     precision, fp8's over the 16-bit peak MFU is counted against, or the flash kernels'
 *     in counted FLOPs, Megatron's whole score matrix against the half causal kernels run,
 *     when higher): exact, no slack;
 *   - model FLOPs are a property of the job (model, global batch, sequence): no split of
 *     the devices, schedule, ZeRO level, recompute mode or expert layout changes them.
 *   - equivalent plans evaluate identically: interleaved with one chunk per device is 1F1B;
 *     at cp 1 the cp kind does not matter; one data-parallel replica of a dense model (cp 1)
 *     gives ZeRO 1 and 2 the model-state bytes and time of ZeRO 0 under Megatron-LM.
 *   - monotonicity: more recomputation never less time nor more stored activations; a larger
 *     micro-batch never fewer stored activations; a higher ZeRO level never more model-state
 *     memory (weights, gradients, optimizer states); a faster link (NVLink or network
 *     bandwidth x 1.5, network latency / 2) never more step time.
 *   - conservation: the pipeline timeline (core/timeline.c) fed with the evaluation's stage
 *     times keeps each device busy m x its stage's parts, and idles the closed-form bubble
 *     (CONS_TOL below), on a sample and on a sweep of every schedule over pp 1..64.
 * A violation prints the plan that shows it and the smallest plan that still does (shrink). */
#include "check.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "core/timeline.h"
#include "io/paths.h"
#include "io/plan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLES 1500 /* per (model, cluster) pair; STRATA_INVARIANT_SAMPLES overrides */
/* Conservation: the timeline's longest device window less m slowest-stage times must equal
 * the closed-form bubble within half a slowest-stage time (F + B) where the timeline idles
 * more (the price optimistic), and within that plus the pipeline's imbalance (the sum over
 * stages of the slowest stage's time less theirs) where it idles less. The closed forms
 * take "sum of the stages + (m-1) x the slowest", exact when the slowest stage is the last;
 * the timeline runs the real order, in which a slow stage in the middle hides part of its
 * warm-up behind faster neighbours, so the closed form may charge up to the imbalance more,
 * and under interleaving up to v times it (each of the v chunk rows of the warm-up carries its
 * own; measured on the pp 1..64 sweep: 1.3 stage times at pp 12 vpp 2, imbalance 0.5). Enforced for
 * every schedule (the zero-bubble ones and DualPipe with the allowances below; DualPipe
 * against m times its pace, the busiest pair of mirrored stages). */
#define CONS_TOL 0.5
#define CONS_EVERY 16      /* one timeline per 16 samples in make test */
#define CONS_EVERY_LONG 64 /* and per 64 under make check-invariants (a timeline costs ~100 evaluations) */
/* The zero-bubble schedules (ZB-H1, ZB-H2, ZB-V, and DualPipe, which defers W the same
 * way and whose form takes stage means too) are held on the pessimistic side to
 * CONS_ZB_PESS stage times plus one W per stage more: the timeline defers weight gradients
 * without the memory cap the zero-bubble scheduler keeps (Qi et al. 2024 place a W only
 * within the memory limit), so at large m it fills gaps the real schedule leaves (measured
 * worst: 4.5 stage times, ZB-H1 pp 8 m 128 with W at a twentieth of the stage; 6.4 beyond
 * the imbalance at pp 63 on 126 layers, where the last stage is twice the others);
 * ZB-V with m < 2p - 1 is charged min(F, (F + B_in)/2) per missing micro-batch, which the
 * program loses only in part (3.5 stage times at pp 43, m 43). */
#define CONS_ZB_PESS 5.0
/* and on the optimistic side to half the imbalance more: their closed forms take stage means
 * on top of m slowest-stage times, and with unequal stages the stages before a slow one
 * idle a little more than the means say (measured worst: 0.36 of the imbalance, ZB-H1 on
 * Llama-3.1-405B pp 25, m 100; DualPipe 0.21 of it at pp 52, m 104) */
#define CONS_ZB_OPT 0.5
#define CONS_ZB(k) ((k) == SCHED_ZBH1 || (k) == SCHED_ZBH2 || (k) == SCHED_ZBV || (k) == SCHED_DUALPIPE)

static eval_result res, alt;

/* 1 when two results agree, bit for bit, on every figure the search and the user read. */
static int same(const eval_result *a, const eval_result *b)
{
	return eval_alike(a, b, 0);
}

static uint32_t rnd(uint32_t n);

static double acts_max(const eval_result *r)
{
	double a = 0;
	for (int st = 0; st < r->stages; st++)
		a = fmax(a, eval_stage_mem(r, st).activations);
	return a;
}

static double states_max(const eval_result *r)
{
	double a = 0;
	for (int st = 0; st < r->stages; st++)
		a = fmax(a, eval_stage_mem(r, st).weights + eval_stage_mem(r, st).grads + eval_stage_mem(r, st).optimizer);
	return a;
}

/* A neighbour of s one step up in monotone direction `rule` (0..3; k 0..2 picks the link),
 * and whether the step holds: 1, 0 when it does not, -1 when none applies. *what names the
 * rule. res must hold s's evaluation. */
static int monotone(const model_t *m, const cluster_t *c, int dev, const strategy_t *s, int rule, int k,
		const char **what)
{
	strategy_t o = *s;
	(void)m;
	switch (rule) {
	case 3: { /* a faster link (k: NVLink or network bandwidth up, or latency down) */
		static cluster_t f;
		f = *c;
		if (k == 0)
			f.node_gbps *= 1.5;
		else if (k == 1)
			f.net_gbps *= 1.5;
		else
			f.net_lat_us *= 0.5;
		*what = k == 0 ? "faster NVLink: no more step time" : k == 1 ? "faster network: no more step time" :
			"lower network latency: no more step time";
		if (eval_run(m, &f, dev, s, 0, &alt))
			return -1;
		return alt.step <= res.step * (1 + 1e-12);
	}
	case 4: /* DeepEP for the alltoall dispatcher: a token crosses to a node once, not once
	         * per expert, so the EP time cannot grow */
		if (s->ep < 2 || s->moe_disp == MOED_DEEPEP)
			return -1;
		o.moe_disp = MOED_DEEPEP;
		*what = "DeepEP instead of the alltoall dispatcher: no more step time";
		if (eval_run(m, c, dev, &o, 0, &alt))
			return -1;
		return alt.step <= res.step * (1 + 1e-12);
	case 0: /* more recomputation */
		if (s->recompute == RC_FULL || s->nranges)
			return -1;
		o.recompute = (uint8_t)(s->recompute + 1);
		/* torchtitan's per-op selective checkpointing keeps every other matmul output,
		 * including ones no backward needs (a row-parallel GEMM's full-width partial sum),
		 * so against no checkpointing at all it may store more: skip that step */
		if (strat_framework(s) == FW_TORCHTITAN && o.recompute == RC_SELECTIVE)
			o.recompute = RC_FULL;
		*what = "more recomputation: no less time, no more stored activations";
		if (eval_run(m, c, dev, &o, 0, &alt))
			return -1;
		return alt.step >= res.step * (1 - 1e-12) && acts_max(&alt) <= acts_max(&res) * (1 + 1e-12);
	case 1: /* a larger micro-batch */
		o.micro_batch = s->micro_batch * 2;
		*what = "a larger micro-batch: no fewer stored activations";
		if (eval_run(m, c, dev, &o, 0, &alt))
			return -1;
		return acts_max(&alt) >= acts_max(&res) * (1 - 1e-12);
	default: /* a higher ZeRO level */
		if (s->zero == 3)
			return -1;
		o.zero = s->zero + 1;
		*what = "a higher ZeRO level: no more model-state memory";
		if (eval_run(m, c, dev, &o, 0, &alt))
			return -1;
		return states_max(&alt) <= states_max(&res) * (1 + 1e-12);
	}
}

/* The equivalent plan of s to check against (0: none applies). */
static int equivalent(const model_t *m, const strategy_t *s, strategy_t *o, const char **what)
{
	*o = *s;
	if (s->schedule == SCHED_INTERLEAVED && s->vpp == 1) {
		o->schedule = SCHED_1F1B;
		*what = "interleaved with vpp 1 = 1f1b";
		return 1;
	}
	if (s->cp == 1) {
		o->cp_kind = s->cp_kind == CP_RING ? CP_ULYSSES : CP_RING;
		*what = "cp 1: ring = ulysses";
		if (s->dp == 1 && model_max_experts(m) == 0 && (s->zero == 1 || s->zero == 2) &&
				strat_framework(s) == FW_MEGATRON && s->framework == FW_MEGATRON) {
			o->cp_kind = s->cp_kind;
			o->zero = 0;
			*what = "one replica: zero 1/2 = zero 0";
		}
		return 1;
	}
	return 0;
}
static void show(const char *what, const char *mname, const char *cname, const strategy_t *s, int dev);

/* ---- conservation: the timeline against the closed forms ---- */
static tl_result tl;
/* worst disagreement per schedule, in units of the slowest stage's F + B (stats): the most
 * optimistic (the timeline idles more than priced) and the most pessimistic beyond the
 * allowance for imbalance */
static double cons_opt[SCHED_COUNT], cons_pess[SCHED_COUNT];

/* Simulate r's pipeline step (core/timeline.c) and compare it with the evaluation: -1 when
 * it cannot be simulated (too many blocks), 1 when it agrees, 0 when not; *busy_err and
 * *idle_err say by how much (relative to one device's work and in slowest-stage times). */
static int conserved(const strategy_t *s, const eval_result *r, double *busy_err, double *idle_err)
{
	static double f[EVAL_MAX_STAGES], b[EVAL_MAX_STAGES], w[EVAL_MAX_STAGES];
	int p = r->stages, m = r->microbatches;
	double tmax = 0, imb = 0, wsum = 0;
	for (int i = 0; i < p; i++) {
		f[i] = eval_stage_time_of(r, i).fwd;
		b[i] = eval_stage_time_of(r, i).bwd;
		w[i] = eval_stage_time_of(r, i).wgrad;
		wsum += w[i];
		tmax = fmax(tmax, f[i] + b[i]);
	}
	for (int i = 0; i < p; i++)
		imb += tmax - (f[i] + b[i]);
	/* the steady state's pace: the slowest stage, or DualPipe's busiest mirrored pair */
	double pace = tmax;
	if (s->schedule == SCHED_DUALPIPE && p > 1) {
		pace = 0;
		for (int d = 0; d < p / 2; d++)
			pace = fmax(pace, (f[d] + b[d] + f[p - 1 - d] + b[p - 1 - d]) / 2);
	}
	tl_spec sp = {s->schedule, p, s->vpp, m, f, b, w};
	char why[256];
	if (tl_units(&sp) > TL_MAX_UNITS || tl_simulate(&sp, &tl, why, sizeof why))
		return -1;
	/* busy: every device computes its stage's parts m times (DualPipe: half the micro-batches
	 * through each of its two stages) */
	double win = 0;
	*busy_err = 0;
	for (int d = 0; d < p; d++) {
		const eval_stage_time *a = &eval_span_of(r, d)->st, *z = &eval_span_of(r, p - 1 - d)->st;
		double parts = a->compute + a->recompute + a->tp + a->cp + a->ep + a->pp + a->dp_exposed;
		double zparts = z->compute + z->recompute + z->tp + z->cp + z->ep + z->pp + z->dp_exposed;
		double want = s->schedule == SCHED_DUALPIPE && p > 1 ? m / 2.0 * (parts + zparts) : m * parts;
		*busy_err = fmax(*busy_err, fabs(tl.busy[d] - want) / want);
	}
	/* idle: the longest device window (first block to last) less m slowest-stage times */
	for (int d = 0; d < p; d++) {
		double t0 = INFINITY, t1 = 0;
		for (int i = 0; i < tl.nops; i++)
			if (tl.ops[i].dev == d) {
				t0 = fmin(t0, tl.ops[i].t0);
				t1 = fmax(t1, tl.ops[i].t1);
			}
		win = fmax(win, t1 - t0);
	}
	*idle_err = ((win - m * pace) - r->bubble) / tmax;
	cons_opt[s->schedule] = fmax(cons_opt[s->schedule], *idle_err);
	cons_pess[s->schedule] = fmax(cons_pess[s->schedule], -*idle_err - s->vpp * imb / tmax);
	if (getenv("CONS_DEBUG") && fabs(*idle_err) > 0.4) {
		double fa = 0, ba = 0, wa = 0;
		for (int i = 0; i < p; i++) { fa += f[i] / p; ba += b[i] / p; wa += w[i] / p; }
		printf("DBG %s p %d m %d err %+.2f imb %.2f F %.3f B %.3f W %.3f (x tmax) bubble %.3f\n",
				strat_schedule_name(s->schedule), p, m, *idle_err, imb / tmax, fa / tmax, ba / tmax, wa / tmax,
				r->bubble / tmax);
	}
	/* optimistic (the timeline idles more than priced): half a stage time at most; pessimistic:
	 * that plus the imbalance the closed form charges in full (above) */
	int held = *idle_err <= CONS_TOL + (CONS_ZB(s->schedule) ? CONS_ZB_OPT * imb / tmax : 0) &&
		*idle_err >= -(CONS_TOL + s->vpp * imb / tmax + (CONS_ZB(s->schedule) ? CONS_ZB_PESS + wsum / tmax : 0));
	return *busy_err <= 1e-9 && held;
}

/* GPipe whose slowest forward and slowest backward are on different stages (DeepSeek-V3
 * pp 8 tp 8 cp 4 ep 8 etp 4 under ZeRO 3 on H200, 256 micro-batches; make check-invariants
 * found its like): the forward phase is paced by the slowest forward, the backward phase by
 * the slowest backward, so the 1F1B form sum T + (m-1) max T was 16.9 stage times short. */
static void gpipe_phases(const paths_t *paths)
{
	static model_t m;
	static cluster_t c;
	char err[256];
	if (plan_load_model(&m, "deepseek-v3", paths, err, sizeof err) ||
			plan_load_cluster(&c, "h200", paths, err, sizeof err)) {
		CHECK(0, check_fmt("invariants: gpipe phases: %s", err));
		return;
	}
	strategy_t s = strat_default();
	s.dp = 1;
	s.tp = 8;
	s.pp = 8;
	s.cp = 4;
	s.ep = 8;
	s.etp = 4;
	s.zero = 3;
	s.precision = 2;
	s.seq = 4096;
	s.global_batch = 256;
	s.schedule = SCHED_GPIPE;
	double be = 0, ie = 0;
	int ok = !eval_run(&m, &c, 256, &s, 1e6, &res) ? conserved(&s, &res, &be, &ie) : 0;
	CHECK(ok == 1, check_fmt("invariants: gpipe paces its forward and backward phases apart (DeepSeek-V3 pp 8 "
			"cp 4 etp 4 zero 3 on H200, m %d: idle off by %.3f stage times)", res.microbatches, ie));
}

/* Every schedule, pp 1..64 and three micro-batch counts on one deep model (Llama-3.1-405B,
 * 126 layers, tp 8 on DGX H100): the conservation check over the whole pipeline range.
 * pp, 2 pp and 4 pp micro-batches (fmax_ = 4; make test: pp only). Returns the violations
 * of the enforced schedules; *n counts the simulated plans. */
static long cons_sweep(const paths_t *paths, int fmax_, long *n)
{
	static model_t m;
	static cluster_t c;
	char err[256];
	long bad = 0;
	*n = 0;
	if (plan_load_model(&m, "llama3-405b", paths, err, sizeof err) ||
			plan_load_cluster(&c, "dgx-h100", paths, err, sizeof err))
		return 1;
	for (int k = 0; k < SCHED_COUNT; k++)
		for (int v = 1; v <= (k == SCHED_INTERLEAVED ? 3 : 1); v++)
			for (int p = 1; p <= 64; p++)
				for (int f = 1; f <= fmax_; f *= 2) {
					strategy_t s = strat_default();
					s.dp = 1;
					s.tp = 8;
					s.pp = p;
					s.vpp = p > 1 ? v : 1;
					s.schedule = (uint8_t)k;
					s.seq = 4096;
					s.global_batch = f * p * (k == SCHED_DUALPIPE ? 2 : 1);
					double be, ie;
					if (eval_run(&m, &c, 8 * p, &s, 1e6, &res)) {
						if (getenv("CONS_DEBUG"))
							printf("  %s\n", res.why);
						continue;
					}
					int ok = conserved(&s, &res, &be, &ie);
					if (ok < 0)
						continue;
					(*n)++;
					if (!ok && bad++ < 3) {
						show("conservation (sweep)", "llama3-405b", "dgx-h100", &s, 8 * p);
						printf("    busy off by %.3g, idle off by %.3f stage times\n", be, ie);
					}
				}
	return bad;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint32_t rnd(uint32_t n)
{
	return fixture_rnd(&rng, n);
}
#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

static void show(const char *what, const char *mname, const char *cname, const strategy_t *s, int dev)
{
	printf("  %s: %s on %d x %s: dp %d tp %d pp %d vpp %d cp %d (%s) ep %d etp %d zero %d mbs %d gbs %d seq %d "
			"%s %s %s\n", what, mname, dev, cname, s->dp, s->tp, s->pp, s->vpp, s->cp,
			strat_cp_kind_name(s->cp_kind), s->ep, s->etp, s->zero, s->micro_batch, s->global_batch, s->seq,
			strat_recompute_name(s->recompute), strat_schedule_name(s->schedule),
			strat_precision_name(s->precision));
}

/* ---- the checks one plan at a time, and the smallest plan that shows a violation ---- */
enum { V_FINITE, V_MFU, V_DP1, V_EQUIV, V_MONO, V_CONS };

/* A violation: its check and, for the monotone steps, which rule and link. */
typedef struct {
	int kind, rule, sub;
} viol;

/* 1 when every figure of r is finite and non-negative. */
static int finite_ok(const eval_result *r)
{
	double f[] = {r->step, r->compute, r->recompute, r->bubble, r->optimizer, r->tp, r->cp, r->ep, r->pp,
		r->dp, r->comm_exposed, r->tokens_per_s, r->mfu, r->hfu, r->model_flops, r->hw_flops, r->peak_bytes};
	int ok = 1;
	for (size_t q = 0; q < sizeof f / sizeof f[0]; q++)
		ok = ok && isfinite(f[q]) && f[q] >= 0;
	for (int st = 0; st < r->stages; st++)
		ok = ok && isfinite(eval_stage_mem(r, st).total) && eval_stage_mem(r, st).total >= 0 && isfinite(eval_stage_time_of(r, st).fwd) &&
			eval_stage_time_of(r, st).fwd >= 0 && eval_stage_time_of(r, st).bwd >= 0;
	return ok;
}

/* 1 when MFU <= HFU and each is within its ceiling (eval_mfu_ceiling). */
static int mfu_ok(const cluster_t *c, const strategy_t *s, const eval_result *r)
{
	double hceil, ceil = eval_mfu_ceiling(c, s->precision, &hceil);
	return r->mfu <= r->hfu * (1 + 1e-12) && r->mfu <= ceil * (1 + 1e-12) && r->hfu <= hceil * (1 + 1e-12);
}

/* Issue 17, dp comm at dp = 1: with one replica only the cp ranks and the experts' own
 * data-parallel group sync gradients; without them the part is 0, and with them it is named
 * after them, never "dp comm". 1 when r keeps to that (or dp > 1). */
static int dp1_ok(const model_t *m, const strategy_t *s, const eval_result *r)
{
	if (s->dp != 1)
		return 1;
	long long edp = model_max_experts(m) > 0 ? (long long)s->cp * s->tp / ((long long)s->ep * s->etp) : 1;
	int none = s->cp == 1 && edp <= 1;
	return !(none ? r->dp != 0 : r->dp > 0 && r->dp_group == EVAL_DP);
}

/* 1 when s is valid and shows violation v (res, alt: its evaluations). */
static int violates(const viol *v, const model_t *m, const cluster_t *c, const strategy_t *s)
{
	int dev = s->dp * s->tp * s->pp * s->cp;
	if (eval_run(m, c, dev, s, 0, &res))
		return 0;
	strategy_t o;
	const char *what;
	double be, ie;
	switch (v->kind) {
	case V_FINITE: return !finite_ok(&res);
	case V_MFU: return !mfu_ok(c, s, &res);
	case V_DP1: return !dp1_ok(m, s, &res);
	case V_EQUIV: return equivalent(m, s, &o, &what) && (eval_run(m, c, dev, &o, 0, &alt) || !same(&res, &alt));
	case V_MONO: return monotone(m, c, dev, s, v->rule, v->sub, &what) == 0;
	default: return conserved(s, &res, &be, &ie) == 0;
	}
}

/* Print the smallest plan that still shows v: halve pp, dp, the micro-batch, the global
 * batch, vpp, cp and ep, one at a time, for as long as the violation persists. res and alt
 * are left as they were. */
static void shrink(const viol *v, const model_t *m, const cluster_t *c, const char *mname, const char *cname,
		const strategy_t *s0)
{
	static eval_result keep_res, keep_alt;
	keep_res = res;
	keep_alt = alt;
	strategy_t s = *s0;
	for (int changed = 1, guard = 0; changed && guard < 256; guard++) {
		changed = 0;
		for (int k = 0; k < 7 && !changed; k++) {
			strategy_t t = s;
			int *f[] = {&t.pp, &t.dp, &t.micro_batch, &t.global_batch, &t.vpp, &t.cp, &t.ep};
			if (*f[k] < 2)
				continue;
			*f[k] /= 2;
			if (k == 0 && t.pp == 1)
				t.vpp = 1;
			if (violates(v, m, c, &t)) {
				s = t;
				changed = 1;
			}
		}
	}
	if (memcmp(&s, s0, sizeof s))
		show("    smallest plan that shows it", mname, cname, &s, s.dp * s.tp * s.pp * s.cp);
	else
		printf("    (no smaller plan shows it)\n");
	res = keep_res;
	alt = keep_alt;
}

static strategy_t sample(const model_t *m)
{
	static const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4, 8}, cps[] = {1, 1, 2, 4}, eps[] = {1, 2, 4, 8},
		etps[] = {1, 1, 2, 4}, dps[] = {1, 2, 4, 8, 16}, mbss[] = {1, 2}, vpps[] = {1, 2, 4};
	strategy_t s = strat_default();
	s.tp = PICK(tps);
	s.pp = PICK(pps);
	s.cp = PICK(cps);
	s.dp = PICK(dps);
	s.ep = model_max_experts(m) > 0 ? PICK(eps) : 1;
	s.etp = model_max_experts(m) > 0 ? PICK(etps) : 1;
	s.zero = (int)rnd(4);
	s.micro_batch = PICK(mbss);
	s.seq = 4096;
	s.global_batch = 256;
	s.recompute = (uint8_t)rnd(RC_COUNT);
	s.schedule = (uint8_t)rnd(SCHED_COUNT);
	s.vpp = s.schedule == SCHED_INTERLEAVED ? PICK(vpps) : 1;
	s.cp_kind = (uint8_t)rnd(2);
	s.sp = rnd(2);
	s.precision = (uint8_t)rnd(3);
	s.framework = (uint8_t)rnd(FW_COUNT);
	s.moe_disp = (uint8_t)rnd(MOED_COUNT);
	s.moe_route = (uint8_t)rnd(MOER_COUNT);
	return s;
}

int main(void)
{
	paths_t paths;
	fixture_paths(&paths);
	const char *env = getenv("STRATA_INVARIANT_SAMPLES");
	long samples = env && atol(env) > 0 ? atol(env) : SAMPLES;
	static char models[64][128], clusters[64][128];
	static model_t m;
	static cluster_t c;
	int nmod = fixture_presets(&paths, "models", models, 64);
	int nclu = fixture_presets(&paths, "clusters", clusters, 64);
	char err[512];
	double worst = 0, worst_h = 0;
	long equiv = 0, bad_equiv = 0, mono = 0, bad_mono = 0, cons = 0, bad_cons = 0;
	long bad_dp1 = 0, valid = 0, bad_finite = 0, bad_mfu = 0, bad_flops = 0, checked = 0;
	for (int i = 0; i < nmod; i++) {
		if (plan_load_model(&m, models[i], &paths, err, sizeof err))
			continue;
		for (int j = 0; j < nclu; j++) {
			if (plan_load_cluster(&c, clusters[j], &paths, err, sizeof err))
				continue;
			double flops_ref = 0;
			for (long n = 0; n < samples; n++) {
				strategy_t s = sample(&m);
				int dev = s.dp * s.tp * s.pp * s.cp;
				checked++;
				if (eval_run(&m, &c, dev, &s, 0, &res))
					continue;
				valid++;
				if (!finite_ok(&res) && bad_finite++ < 3) {
					show("not finite or negative", models[i], clusters[j], &s, dev);
					shrink(&(viol){V_FINITE, 0, 0}, &m, &c, models[i], clusters[j], &s);
				}
				double hceil, ceil = eval_mfu_ceiling(&c, s.precision, &hceil);
				worst = fmax(worst, res.mfu / ceil);
				worst_h = fmax(worst_h, res.hfu / hceil);
				if (!mfu_ok(&c, &s, &res) && bad_mfu++ < 3) {
					show("MFU above HFU or above the ceiling", models[i], clusters[j], &s, dev);
					printf("    mfu %.4f hfu %.4f ceilings %.4f, %.4f\n", res.mfu, res.hfu, ceil, hceil);
					shrink(&(viol){V_MFU, 0, 0}, &m, &c, models[i], clusters[j], &s);
				}
				if (!dp1_ok(&m, &s, &res) && bad_dp1++ < 3) {
					show("dp comm at dp = 1", models[i], clusters[j], &s, dev);
					printf("    dp part %.9g s named %s\n", res.dp, eval_dp_group_name(res.dp_group));
					shrink(&(viol){V_DP1, 0, 0}, &m, &c, models[i], clusters[j], &s);
				}
				strategy_t o;
				const char *what = "";
				if (equivalent(&m, &s, &o, &what)) {
					equiv++;
					if ((eval_run(&m, &c, dev, &o, 0, &alt) || !same(&res, &alt)) && bad_equiv++ < 3) {
						show(what, models[i], clusters[j], &s, dev);
						printf("    step %.9g against %.9g, peak %.6g against %.6g\n", res.step, alt.step,
								res.peak_bytes, alt.peak_bytes);
						shrink(&(viol){V_EQUIV, 0, 0}, &m, &c, models[i], clusters[j], &s);
					}
				}
				const char *rule = "";
				int mr = (int)rnd(5), ms = mr == 3 ? (int)rnd(3) : 0;
				int held = monotone(&m, &c, dev, &s, mr, ms, &rule);
				if (held >= 0) {
					mono++;
					if (!held && bad_mono++ < 3) {
						show(rule, models[i], clusters[j], &s, dev);
						printf("    step %.9g -> %.9g, activations %.6g -> %.6g, states %.6g -> %.6g\n", res.step,
								alt.step, acts_max(&res), acts_max(&alt), states_max(&res), states_max(&alt));
						shrink(&(viol){V_MONO, mr, ms}, &m, &c, models[i], clusters[j], &s);
					}
				}
				double be, ie;
				int held_c = n % (env ? CONS_EVERY_LONG : CONS_EVERY) ? -1 : conserved(&s, &res, &be, &ie);
				if (held_c >= 0) {
					cons++;
					if (!held_c && bad_cons++ < 5) {
						show("conservation", models[i], clusters[j], &s, dev);
						printf("    busy off by %.3g, idle off by %.3f stage times (bubble %.6g s)\n", be, ie, res.bubble);
						shrink(&(viol){V_CONS, 0, 0}, &m, &c, models[i], clusters[j], &s);
					}
				}
				if (flops_ref == 0)
					flops_ref = res.model_flops;
				else if (fabs(res.model_flops - flops_ref) > 1e-9 * flops_ref && bad_flops++ < 3) {
					show("model FLOPs depend on the strategy", models[i], clusters[j], &s, dev);
					printf("    %.6e against %.6e\n", res.model_flops, flops_ref);
				}
			}
		}
	}
	if (env)
		printf("  %ld strategies checked (%ld valid, %ld equivalent pairs)\n", checked, valid, equiv);
	CHECK(valid > checked / 20, check_fmt("invariants: %ld of %ld sampled strategies valid", valid, checked));
	CHECK(bad_finite == 0, check_fmt("invariants: every figure finite and non-negative (%ld violations)", bad_finite));
	CHECK(bad_mfu == 0, check_fmt("invariants: MFU <= HFU, each at most the family's ceiling under the FLOP "
			"convention (eval_mfu_ceiling; %ld violations; the highest MFU is %.3f of its ceiling, HFU %.3f)",
			bad_mfu, worst, worst_h));
	CHECK(bad_equiv == 0, check_fmt("invariants: %ld pairs of equivalent plans evaluate identically (%ld "
			"differ)", equiv, bad_equiv));
	CHECK(bad_mono == 0, check_fmt("invariants: %ld monotone steps hold (recompute, micro-batch, ZeRO, DeepEP, a faster "
			"link; %ld violations)", mono, bad_mono));
	gpipe_phases(&paths);
	long nsweep = 0, bad_sweep = cons_sweep(&paths, env ? 4 : 1, &nsweep);
	CHECK(bad_cons == 0 && bad_sweep == 0, check_fmt("invariants: %ld sampled and %ld swept (pp 1..64) timelines "
			"conserve the evaluation: busy = m x the stage's parts, idle = the closed-form bubble within %.1f "
			"stage times when optimistic (zb-h1, zb-h2, zb-v, dualpipe: + %.1f x the imbalance), that + (vpp x) "
			"the imbalance (those: + %.0f + the sum of W) when pessimistic, for every schedule (%ld + %ld violations)", cons,
			nsweep, CONS_TOL, CONS_ZB_OPT, CONS_ZB_PESS, bad_cons,
			bad_sweep));
	if (env || getenv("CONS_DEBUG")) /* the worst gaps (make check-invariants prints them) */
		for (int k = 0; k < SCHED_COUNT; k++)
			printf("  %s: worst %.3f optimistic, %.3f pessimistic beyond the imbalance\n", strat_schedule_name(k),
					cons_opt[k], cons_pess[k]);
	CHECK(bad_dp1 == 0, check_fmt("invariants: at dp = 1 no dp comm without cp ranks or an expert data-parallel "
			"group, and what there is is named after them (%ld violations)", bad_dp1));
	CHECK(bad_flops == 0, check_fmt("invariants: model FLOPs the same for every strategy of a job, expert "
			"tensor parallelism included (%ld violations)", bad_flops));
	return check_done();
}
