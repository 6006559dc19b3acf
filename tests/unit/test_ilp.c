/* Unit tests for the bubble ILP against the core: the even split priced from
 * eval_costs_get matches eval_run stage by stage for every schedule; the idle split adds
 * up; pins parse; an impossible budget names the stage; time limits and cancellation
 * return promptly; a refined plan written back into a strategy evaluates as predicted.
 * (Optimality against exhaustive enumeration is in test_ilp_brute.c.) */
#include "check.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/ilp.h"
#include "solve/ilp_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static paths_t paths;
static plan_t plan;
static eval_result ev, ev2;
static eval_costs ec;
static ilp_result res;

static int load(const char *text)
{
	return fixture_load(&plan, &paths, text);
}

#define PLAN(model, cluster, n, strat) \
	"model: " model "\ncluster: " cluster "\ndevices: " #n "\nstrategy: {" strat "}\n"

static const struct {
	const char *name, *text;
} plans[] = {
	{"llama3-70b 1f1b selective", PLAN("llama3-70b", "dgx-h100", 512,
		"tp: 8, pp: 4, global_batch: 512, seq_length: 8192, recompute: selective")},
	{"deepseek-v3 pp16 1f1b", PLAN("deepseek-v3", "h800", 2048,
		"tp: 1, pp: 16, ep: 64, sp: false, global_batch: 15360, seq_length: 4096")},
	{"llama3-405b pp16 vpp2", PLAN("llama3-405b", "dgx-h100", 2048,
		"tp: 8, pp: 16, vpp: 2, schedule: interleaved, global_batch: 2048, seq_length: 8192, recompute: full")},
	{"gpt3-175b gpipe zero2", PLAN("gpt3-175b", "dgx-a100-80g", 1024,
		"tp: 8, pp: 8, zero: 2, schedule: gpipe, global_batch: 512, seq_length: 2048")},
	{"llama2-70b zb-h1", PLAN("llama2-70b", "dgx-h100", 256,
		"tp: 8, pp: 8, schedule: zb-h1, global_batch: 256, seq_length: 4096")},
	{"llama2-70b zb-h2", PLAN("llama2-70b", "dgx-h100", 256,
		"tp: 8, pp: 8, schedule: zb-h2, global_batch: 256, seq_length: 4096")},
	{"mixtral-8x7b zb-v", PLAN("mixtral-8x7b", "dgx-h100", 256,
		"tp: 2, pp: 4, ep: 8, schedule: zb-v, global_batch: 256, seq_length: 4096")},
	{"deepseek-v3 dualpipe", PLAN("deepseek-v3", "h800", 2048,
		"tp: 1, pp: 16, ep: 64, sp: false, global_batch: 15360, seq_length: 4096, schedule: dualpipe")},
	{"llama3-8b pp1", PLAN("llama3-8b", "dgx-h100", 8, "tp: 1, pp: 1, global_batch: 32, seq_length: 8192")},
	{"qwen2.5-72b zero3 pp4", PLAN("qwen2.5-72b", "dgx-h100", 256,
		"tp: 4, pp: 4, zero: 3, global_batch: 256, seq_length: 4096")},
	/* a vision encoder: its kind's own tokens, width and projector in the kind tables (one
	 * stage: with several, the tables price P2P at the narrowest width and buffers at the
	 * widest for any split, eval_costs.c, so a model of several widths differs there) */
	{"qwen2-vl-7b encoder pp1", PLAN("qwen2-vl-7b", "dgx-h100", 16,
		"tp: 2, pp: 1, global_batch: 256, seq_length: 4096, recompute: selective")},
};

/* The plan's own split and recompute, priced by the ILP's pricing, against eval_run. */
static void test_consistency(void)
{
	char name[160], why[256];
	for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
		if (!CHECK(load(plans[i].text) == 0, plans[i].name))
			continue;
		const model_t *m = &plan.model;
		const strategy_t *s = &plan.strategy;
		int ok = eval_run(m, &plan.cluster, plan.devices, s, 0, &ev) == 0 &&
			eval_costs_get(m, &plan.cluster, plan.devices, s, 0, &ec, why, sizeof why) == 0;
		snprintf(name, sizeof name, "%s: eval_run and eval_costs_get accept it", plans[i].name);
		if (!CHECK(ok, name))
			continue;
		ilp_price pr[EVAL_MAX_STAGES];
		int fmatch = 1, mmatch = 1, P = s->pp * s->vpp;
		for (int st = 0; st < s->pp; st++) {
			ilp_mix x;
			memset(&x, 0, sizeof x);
			for (int c = st; c < P; c += s->pp) {
				int lo, n;
				strat_chunk_span(s, m->layers, c / s->pp, st, &lo, &n);
				int hi = lo + n + (c == P - 1 ? m->mtp_layers : 0);
				for (int l = lo; l < hi; l++)
					x.n[model_layer_kind(m, l)][l < m->layers ? strat_layer_recompute(s, l) : s->recompute]++;
			}
			ilp_price_stage(&ec, m->nkinds, st, &x, &pr[st]);
			double z3 = eval_stage_time_of(&ev, st).dp_exposed; /* ZeRO-3 gathers: not in the ILP's stage time */
			if (fabs(pr[st].f - (eval_stage_time_of(&ev, st).fwd - (s->zero == 3 ? 0 : z3))) > 1e-9 * eval_stage_time_of(&ev, st).fwd ||
					fabs(pr[st].w - eval_stage_time_of(&ev, st).wgrad) > 1e-9 * eval_stage_time_of(&ev, st).wgrad)
				fmatch = s->zero == 3 ? fmatch : 0;
			if (s->zero < 3 && fabs(pr[st].b - eval_stage_time_of(&ev, st).bwd) > 1e-9 * eval_stage_time_of(&ev, st).bwd)
				fmatch = 0;
			if (fabs(pr[st].mem - eval_stage_mem(&ev, st).total) > 1e-9 * eval_stage_mem(&ev, st).total)
				mmatch = 0;
		}
		snprintf(name, sizeof name, "%s: memory of every stage matches eval_run", plans[i].name);
		CHECK(mmatch, name);
		if (s->zero == 3)
			continue;
		snprintf(name, sizeof name, "%s: fwd, bwd, wgrad of every stage match eval_run", plans[i].name);
		CHECK(fmatch, name);
		ilp_form f;
		ilp_form_init(&ec, &f);
		/* no ZeRO-3 part here: r->dp is the sync; the tied embedding's all-reduce is once a step */
		double pipe = ev.step - ev.optimizer - ev.dp - ev.pp_once;
		snprintf(name, sizeof name, "%s: makespan = eval step less optimizer and gradient sync", plans[i].name);
		CHECK_NEAR(ilp_makespan(&f, pr), pipe, 1e-9, name);
		/* the solver's comparison figures are the same numbers */
		ilp_params prm = {0};
		prm.time_limit_ms = 20000;
		ilp_solve(m, &plan.cluster, plan.devices, s, 0, NULL, &prm, &res);
		snprintf(name, sizeof name, "%s: ilp even_step is eval_run's step", plans[i].name);
		CHECK_NEAR(res.even_step, ev.step, 1e-12, name);
		snprintf(name, sizeof name, "%s: ilp finds a plan", plans[i].name);
		if (CHECK(res.have_plan, name)) {
			double idle = res.bubble_prep + res.bubble_imb + res.bubble_rc;
			snprintf(name, sizeof name, "%s: preparation + imbalance + recompute = idle time", plans[i].name);
			CHECK_NEAR(idle, res.makespan - res.useful, 1e-9, name);
			snprintf(name, sizeof name, "%s: idle parts are not negative", plans[i].name);
			CHECK(res.bubble_prep >= 0 && res.bubble_imb >= -1e-12 && res.bubble_rc >= 0, name);
			if (ev.fits) {
				snprintf(name, sizeof name, "%s: no slower than the even split that fits", plans[i].name);
				CHECK(res.step <= ev.step * (1 + 1e-9), name);
			}
			int mfit = 1;
			for (int st = 0; st < res.stages; st++)
				mfit &= res.st[st].mem <= ev.budget_bytes * (1 + 1e-12);
			snprintf(name, sizeof name, "%s: every refined stage fits", plans[i].name);
			CHECK(mfit, name);
		}
		ilp_free(&res);
	}
}

static int progress_calls;
static void on_progress(void *user, double ms, double best, double gap)
{
	(void)user;
	(void)ms;
	(void)best;
	(void)gap;
	progress_calls++;
}

/* A refined plan written back into the strategy evaluates to the predicted stages. */
static void test_apply(void)
{
	if (load(plans[0].text))
		return;
	strategy_t s = plan.strategy;
	ilp_params prm = {0};
	prm.progress = on_progress;
	ilp_solve(&plan.model, &plan.cluster, plan.devices, &s, 30, NULL, &prm, &res);
	CHECK(progress_calls > 0, "progress: the callback hears of the solve");
	CHECK(res.status == ILP_OPTIMAL, "apply: a 30 GiB budget is solved to optimality");
	int rc = ilp_apply(&res, &s);
	CHECK(rc == 0, "apply: the recompute pattern fits in the strategy's ranges");
	if (rc == 0 && eval_run(&plan.model, &plan.cluster, plan.devices, &s, 30, &ev2) == 0) {
		int same = 1;
		for (int st = 0; st < res.stages; st++)
			same &= eval_stage_mem(&ev2, st).layers == res.st[st].layers &&
				fabs(eval_stage_mem(&ev2, st).total - res.st[st].mem) <= 1e-9 * res.st[st].mem &&
				fabs(eval_stage_time_of(&ev2, st).bwd - res.st[st].bwd) <= 1e-9 * res.st[st].bwd;
		CHECK(same, "apply: eval_run of the applied plan has the ILP's layers, memory and time");
		CHECK(ev2.fits, "apply: the applied plan fits its budget in eval_run");
		CHECK_NEAR(ev2.step, res.step, 1e-3, "apply: eval_run's step is the ILP's step (within 0.1%)");
	}
	ilp_free(&res);
}

static void test_infeasible(void)
{
	if (load(plans[0].text))
		return;
	ilp_params prm = {0};
	int st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, 8, NULL, &prm, &res);
	CHECK(st == ILP_INFEASIBLE, "infeasible: an 8 GiB budget cannot hold llama3-70b on 4 stages");
	CHECK(res.bad_stage >= 0 && res.bad_over > 0, "infeasible: names a stage and how far over");
	CHECK(strstr(res.why, "even with full recomputation") != NULL, "infeasible: says full recompute does not help");
	CHECK(!res.have_plan, "infeasible: no plan");
	ilp_free(&res);
	/* a pin that makes the budget impossible though the even split would fit */
	ilp_pins pins = {1, {{ILP_PIN_STAGE, 0, 60, 0, 0}}};
	st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, 40, &pins, &prm, &res);
	CHECK(st == ILP_INFEASIBLE, "infeasible: 60 layers pinned to stage 0 do not fit in 40 GiB");
	CHECK(strstr(res.why, "pins") != NULL, "infeasible: blames the pins");
	ilp_free(&res);
	pins.pin[0] = (ilp_pin){ILP_PIN_STAGE, 0, 4, 9, 0};
	st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, 0, &pins, &prm, &res);
	CHECK(st == ILP_ERROR && strstr(res.why, "stage=9"), "pins: a stage beyond pp is an error naming the pin");
	ilp_free(&res);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* DeepSeek-V3 with vpp > 1 (dense-then-MoE layers): the chunk model. The chunk DP solves
 * it exactly and GLPK confirms at the root; the plan written back evaluates as predicted. */
static void test_chunk_model(void)
{
	static const char *strats[] = {
		"tp: 1, pp: 16, vpp: 2, ep: 64, micro_batch: 1, schedule: interleaved, global_batch: 4096, seq_length: 4096",
		"tp: 1, pp: 8, vpp: 3, ep: 64, micro_batch: 1, schedule: interleaved, global_batch: 4096, seq_length: 4096",
		"tp: 1, pp: 8, vpp: 2, ep: 64, micro_batch: 1, schedule: interleaved, global_batch: 4096, seq_length: 4096",
	};
	char text[512], name[200];
	for (size_t i = 0; i < sizeof strats / sizeof strats[0]; i++) {
		snprintf(text, sizeof text, "model: deepseek-v3\ncluster: h800\ndevices: 2048\nstrategy: {%s}\n", strats[i]);
		if (load(text))
			continue;
		strategy_t s = plan.strategy;
		ilp_params prm = {0};
		prm.time_limit_ms = 60000;
		int st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &s, 0, NULL, &prm, &res);
		snprintf(name, sizeof name, "chunk model: deepseek-v3 pp%d vpp%d is proven optimal with no gap", s.pp, s.vpp);
		if (!CHECK(st == ILP_OPTIMAL && res.gap == 0, name))
			printf("  status %s (%s), gap %g, %.1f ms\n", ilp_status_name(st), res.why, res.gap, res.solve_ms);
		/* the even split with no recomputation does not fit these budgets: the plan must */
		int fit = res.have_plan && eval_costs_get(&plan.model, &plan.cluster, plan.devices, &s, 0, &ec, name,
				sizeof name) == 0;
		for (int k = 0; k < res.stages && fit; k++)
			fit = res.st[k].mem <= ec.budget;
		snprintf(name, sizeof name, "chunk model: deepseek-v3 pp%d vpp%d plan fits where the even split does not", s.pp,
				s.vpp);
		CHECK(fit && !res.even_fits, name);
		int rc = ilp_apply(&res, &s);
		snprintf(name, sizeof name, "chunk model: deepseek-v3 pp%d vpp%d plan writes back", s.pp, s.vpp);
		CHECK(rc == 0, name);
		if (rc == 0 && eval_run(&plan.model, &plan.cluster, plan.devices, &s, 0, &ev2) == 0) {
			int same = 1;
			for (int k = 0; k < res.stages; k++)
				same &= eval_stage_mem(&ev2, k).layers == res.st[k].layers &&
					fabs(eval_stage_mem(&ev2, k).total - res.st[k].mem) <= 1e-9 * res.st[k].mem &&
					fabs(eval_stage_time_of(&ev2, k).bwd - res.st[k].bwd) <= 1e-9 * res.st[k].bwd &&
					fabs(eval_stage_time_of(&ev2, k).fwd - res.st[k].fwd) <= 1e-9 * res.st[k].fwd;
			snprintf(name, sizeof name, "chunk model: deepseek-v3 pp%d vpp%d eval_run has the ILP's layers, memory and time",
					s.pp, s.vpp);
			CHECK(same, name);
			snprintf(name, sizeof name, "chunk model: deepseek-v3 pp%d vpp%d applied plan fits in eval_run", s.pp, s.vpp);
			CHECK(ev2.fits, name);
			snprintf(name, sizeof name, "chunk model: deepseek-v3 pp%d vpp%d eval_run's step is the ILP's (within 0.1%%)",
					s.pp, s.vpp);
			CHECK_NEAR(ev2.step, res.step, 1e-3, name);
		}
		ilp_free(&res);
	}
}

/* The plain chunk model of DeepSeek-V3 with vpp=2 (no DP) is the slow case: limits must
 * hold; and a limit too short even for the DP stops the solve too. */
static void test_limits(void)
{
	if (load(PLAN("deepseek-v3", "h800", 2048, "tp: 1, pp: 16, vpp: 2, ep: 64, sp: false, "
				"schedule: interleaved, global_batch: 16384, seq_length: 4096")))
		return;
	ilp_params prm = {0};
	prm.time_limit_ms = 1;
	double t1 = now_ms();
	int s1 = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, 0, NULL, &prm, &res);
	CHECK(s1 == ILP_TIMEOUT || s1 == ILP_OPTIMAL, "time limit: 1 ms stops the DP-assisted solve (or it is done)");
	CHECK(now_ms() - t1 < 1500, "time limit: 1 ms returns promptly");
	ilp_free(&res);
	prm.no_dp = 1;
	prm.time_limit_ms = 300;
	prm.progress = on_progress;
	double t0 = now_ms();
	int st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, 0, NULL, &prm, &res);
	double t = now_ms() - t0;
	CHECK(st == ILP_TIMEOUT || st == ILP_OPTIMAL, "time limit: stops with timeout (or done)");
	CHECK(t < 300 + 1500, "time limit: returns within the limit plus set-up");
	CHECK(res.solve_ms <= t + 1, "time limit: solve_ms is the time spent");
	if (res.have_plan) {
		int fit = 1;
		for (int s = 0; s < res.stages; s++)
			fit &= res.st[s].mem <= ev.budget_bytes * 2 && res.st[s].layers >= 2;
		CHECK(fit, "time limit: a returned plan has every chunk filled");
	}
	ilp_free(&res);
	atomic_int cancel;
	atomic_init(&cancel, 1);
	prm.time_limit_ms = 0;
	prm.cancel = &cancel;
	t0 = now_ms();
	st = ilp_solve(&plan.model, &plan.cluster, plan.devices, &plan.strategy, 0, NULL, &prm, &res);
	CHECK(st == ILP_CANCELLED || st == ILP_FEASIBLE, "cancel: a raised flag stops the solve");
	CHECK(now_ms() - t0 < 2000, "cancel: promptly");
	ilp_free(&res);
}

static void test_pins_parse(void)
{
	ilp_pin p;
	char why[256];
	CHECK(ilp_pin_parse("layers[0:3].recompute=full", &p, why, sizeof why) == 0 && p.kind == ILP_PIN_RECOMPUTE &&
			p.lo == 0 && p.hi == 3 && p.value == RC_FULL, "pins: layers[0:3].recompute=full");
	CHECK(ilp_pin_parse("layers[60:61].stage=15", &p, why, sizeof why) == 0 && p.kind == ILP_PIN_STAGE &&
			p.lo == 60 && p.hi == 61 && p.stage == 15, "pins: layers[60:61].stage=15");
	CHECK(ilp_pin_parse("layers[7].stage=2", &p, why, sizeof why) == 0 && p.lo == 7 && p.hi == 8,
			"pins: a single layer index");
	CHECK(ilp_pin_parse("stages[3].layers=5", &p, why, sizeof why) == 0 && p.kind == ILP_PIN_LAYERS &&
			p.stage == 3 && p.value == 5, "pins: stages[3].layers=5");
	CHECK(ilp_pin_parse(" layers[1:2].recompute = selective ", &p, why, sizeof why) == 0 &&
			p.value == RC_SELECTIVE, "pins: spaces around = are fine");
	CHECK(ilp_pin_parse("tp=8", &p, why, sizeof why) == 1, "pins: macro pins are not the ILP's");
	CHECK(ilp_pin_parse("experts.ep=8", &p, why, sizeof why) == 1, "pins: operator-group pins are not the ILP's");
	CHECK(ilp_pin_parse("layers[3:1].stage=0", &p, why, sizeof why) == -1 && strstr(why, "empty"),
			"pins: an empty range is refused");
	CHECK(ilp_pin_parse("layers[0:2].recompute=most", &p, why, sizeof why) == -1,
			"pins: an unknown recompute mode is refused");
	CHECK(ilp_pin_parse("layers[0:2].colour=red", &p, why, sizeof why) == -1, "pins: an unknown field is refused");
	CHECK(ilp_pin_parse("layers[a:b].stage=1", &p, why, sizeof why) == -1 && strstr(why, "malformed"),
			"pins: non-numbers are refused");
	CHECK(ilp_pin_parse("stages[1].layers=x", &p, why, sizeof why) == -1, "pins: a non-numeric count is refused");
	char list[3][128] = {"tp=8", "layers[0:2].stage=0", "stages[1].layers=4"};
	ilp_pins ps;
	CHECK(ilp_pins_from_strings(list, 3, &ps, why, sizeof why) == 0 && ps.n == 2,
			"pins: a plan's list keeps the layer and stage pins");
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd)) /* the runner starts tests at the repository root */
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_pins_parse();
	test_consistency();
	test_apply();
	test_infeasible();
	test_chunk_model();
	test_limits();
	return check_done();
}
