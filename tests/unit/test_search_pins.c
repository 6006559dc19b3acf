/* Unit tests for pins (strategy injection): the syntax of every pin family, conflicts,
 * what "honoured" means for a strategy, and the explanation of an unsatisfiable set: the
 * pin named is the one that breaks it, with the core's reason. */
#include "check.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static paths_t paths;
static plan_t plan;

static int load(const char *text)
{
	return fixture_load(&plan, &paths, text);
}

static void test_parse(void)
{
	static const struct {
		const char *expr;
		int key, value;
	} ok[] = {
		{"tp=8", PIN_TP, 8}, {"  dp = 16 ", PIN_DP, 16}, {"pp=4", PIN_PP, 4}, {"vpp=2", PIN_VPP, 2},
		{"cp=2", PIN_CP, 2}, {"cp_kind=ulysses", PIN_CP_KIND, CP_ULYSSES}, {"ep=8", PIN_EP, 8},
		{"etp=1", PIN_ETP, 1}, {"zero=3", PIN_ZERO, 3}, {"mbs=2", PIN_MBS, 2}, {"micro_batch=4", PIN_MBS, 4},
		{"sp=false", PIN_SP, 0}, {"sp=on", PIN_SP, 1}, {"recompute=full", PIN_RECOMPUTE, RC_FULL},
		{"schedule=zb-v", PIN_SCHEDULE, SCHED_ZBV}, {"schedule=interleaved-1f1b", PIN_SCHEDULE, SCHED_INTERLEAVED},
		{"precision=fp8", PIN_PRECISION, PREC_FP8}, {"experts.ep=8", PIN_EP, 8}, {"experts.etp=1", PIN_ETP, 1},
		{"attention.tp=4", PIN_TP, 4}, {"attention.cp=2", PIN_CP, 2},
		{"attention.cp_kind=ring", PIN_CP_KIND, CP_RING},
		{"embedding.vocab_parallel=true", PIN_VOCAB_PARALLEL, 1}, {"vocab_parallel=false", PIN_VOCAB_PARALLEL, 0},
		{"global_batch=1024", PIN_GBS, 1024}, {"seq_length=8192", PIN_SEQ, 8192}, {"budget_gib=70", PIN_BUDGET, 70 * 1024},
		{"devices=512", PIN_DEVICES, 512},
	};
	char name[160], why[256];
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		pin_t p;
		int rc = pin_parse(ok[i].expr, &p, why, sizeof why);
		snprintf(name, sizeof name, "parse '%s'", ok[i].expr);
		if (!CHECK(rc == 0 && p.key == ok[i].key && p.value == ok[i].value, name))
			printf("  rc %d key %d value %d: %s\n", rc, p.key, p.value, rc ? why : "");
	}
	pin_t p;
	CHECK(pin_parse("layers[0:3].recompute=full", &p, why, sizeof why) == 0 && p.key == PIN_LAYER &&
			p.layer.kind == ILP_PIN_RECOMPUTE && p.layer.lo == 0 && p.layer.hi == 3 && p.layer.value == RC_FULL,
			"parse layers[0:3].recompute=full (a layer pin for the ILP)");
	CHECK(pin_parse("layers[60:61].stage=15", &p, why, sizeof why) == 0 && p.key == PIN_LAYER &&
			p.layer.kind == ILP_PIN_STAGE && p.layer.stage == 15, "parse layers[60:61].stage=15");
	CHECK(pin_parse("stages[3].layers=5", &p, why, sizeof why) == 0 && p.layer.kind == ILP_PIN_LAYERS &&
			p.layer.stage == 3 && p.layer.value == 5, "parse stages[3].layers=5");
	static const struct {
		const char *expr, *says;
	} bad[] = {
		{"tp", "key=value"}, {"tp=", "no value"}, {"tp=x", "integer"}, {"tp=0", "between"},
		{"zero=4", "between"}, {"foo=1", "unknown key 'foo'"}, {"experts.tp=2", "operator-group pins"},
		{"recompute=some", "none, selective, full"}, {"schedule=zz", "gpipe"}, {"sp=maybe", "true or false"},
		{"layers[3:1].recompute=full", "empty"}, {"layers[0:2].color=red", "a layer range pins"},
		{"budget_gib=-3", "positive"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = 0;
		int rc = pin_parse(bad[i].expr, &p, why, sizeof why);
		snprintf(name, sizeof name, "reject '%s' saying '%s'", bad[i].expr, bad[i].says);
		if (!CHECK(rc == -1 && strstr(why, bad[i].says) && strstr(why, bad[i].expr), name))
			printf("  rc %d: %s\n", rc, why);
	}
}

static void test_fixed_and_honoured(void)
{
	pin_set s;
	char why[256];
	s.n = 0;
	pin_add(&s, "tp=8", why, sizeof why);
	pin_add(&s, "attention.tp=8", why, sizeof why);
	int v = 0;
	CHECK(pin_fixed(&s, PIN_TP, &v, why, sizeof why) == 1 && v == 8, "fixed: agreeing twins fix tp=8");
	CHECK(pin_fixed(&s, PIN_PP, &v, why, sizeof why) == 0, "fixed: pp is free");
	pin_add(&s, "attention.tp=4", why, sizeof why);
	CHECK(pin_fixed(&s, PIN_TP, &v, why, sizeof why) == -1 && strstr(why, "'tp=8'") && strstr(why, "'attention.tp=4'"),
			"fixed: disagreeing pins are named");

	if (!CHECK(load("model: llama2-7b\ncluster: dgx-a100-80g\ndevices: 16\n"
			"strategy: {tp: 2, pp: 4, global_batch: 32, seq_length: 4096, recompute: selective}\n") == 0,
			"honoured: plan loads"))
		return;
	strategy_t t = plan.strategy;
	s.n = 0;
	pin_add(&s, "tp=2", why, sizeof why);
	pin_add(&s, "recompute=selective", why, sizeof why);
	CHECK(pin_honoured(&s, &plan.model, &t, why, sizeof why), "honoured: tp=2 selective");
	pin_add(&s, "layers[0:2].recompute=full", why, sizeof why);
	CHECK(!pin_honoured(&s, &plan.model, &t, why, sizeof why) && strstr(why, "layers[0:2]"),
			"honoured: a recompute range the strategy lacks is named");
	pin_set only;
	only.n = 0;
	pin_add(&only, "layers[0:2].recompute=full", why, sizeof why);
	pin_add(&only, "recompute=selective", why, sizeof why);
	CHECK(pin_apply_ranges(&only, &t, why, sizeof why) == 0 && pin_honoured(&only, &plan.model, &t, why, sizeof why),
			"honoured: once applied as a range, with the rest selective");
	s.n = 0;
	pin_add(&s, "stages[0].layers=8", why, sizeof why);
	pin_add(&s, "layers[31:32].stage=3", why, sizeof why);
	CHECK(pin_honoured(&s, &plan.model, &plan.strategy, why, sizeof why), "honoured: the even split's stage 0 holds 8");
	pin_add(&s, "layers[8:9].stage=0", why, sizeof why);
	CHECK(!pin_honoured(&s, &plan.model, &plan.strategy, why, sizeof why) && strstr(why, "stage 1"),
			"honoured: layer 8 on stage 1 breaks layers[8:9].stage=0");
	CHECK(pin_min_pp(&s) == 4 && pin_needs_ilp(&s), "stage pins need pp >= 4 and the ILP");
	CHECK(!pin_layers_valid(&s, &plan.model, 2, why, sizeof why) && strstr(why, "stage 3"),
			"a stage pin beyond pp is named");
}

/* Explain an empty search: the pin index named and a phrase of the reason. */
static void unsat(const char *title, const char *const *exprs, int n, int want, const char *says)
{
	pin_set s;
	char why[512], name[200];
	s.n = 0;
	for (int i = 0; i < n; i++)
		pin_add(&s, exprs[i], why, sizeof why);
	search_job j = {&plan.model, &plan.cluster, plan.devices, plan.strategy, plan.budget_gib};
	search_opts o;
	memset(&o, 0, sizeof o);
	o.top = 3;
	search_result r;
	search_run(&j, &s, &o, &r);
	snprintf(name, sizeof name, "unsat %s: nothing found", title);
	CHECK(r.n == 0, name);
	search_free(&r);
	int bad = search_explain(&j, &s, &o, why, sizeof why);
	snprintf(name, sizeof name, "unsat %s: names %s%s%s and says '%s'", title, want >= 0 ? "pin '" : "no pin",
			want >= 0 ? exprs[want] : "", want >= 0 ? "'" : "", says);
	if (!CHECK(bad == want && (want < 0 || strstr(why, exprs[want])) && strstr(why, says), name))
		printf("  got %d: %s\n", bad, why);
}

static void test_unsatisfiable(void)
{
	if (!CHECK(load("model: llama2-7b\ncluster: dgx-a100-80g\ndevices: 24\n"
			"strategy: {tp: 1, global_batch: 48, seq_length: 4096}\n") == 0, "unsat: plan loads"))
		return;
	static const char *const a[] = {"pp=2", "tp=3"};
	unsat("tp=3 (heads)", a, 2, 1, "does not divide 32 attention heads");
	static const char *const b[] = {"tp=8", "attention.tp=4"};
	unsat("tp twins disagree", b, 2, 1, "different values");
	static const char *const c[] = {"experts.ep=8"};
	unsat("experts on a dense model", c, 1, 0, "no experts");
	static const char *const d[] = {"pp=2", "layers[28:32].stage=3"};
	unsat("stage beyond pp", d, 2, 1, "'pp=2'");
	static const char *const e[] = {"mbs=64"};
	unsat("micro-batch over the batch", e, 1, 0, "not divisible");
	static const char *const f[] = {"tp=1", "pp=1", "cp=1", "recompute=none", "zero=0"};
	unsat("memory: plain data parallelism", f, 5, 4, "fits");
	static const char *const g[] = {"layers[0:40].recompute=full"};
	unsat("a layer range outside the model", g, 1, 0, "32 layers");
	static const char *const h[] = {"tp=7"};
	unsat("no split of the devices", h, 1, 0, "no split of 24 devices");
	static const char *const dv[] = {"tp=2", "devices=16"};
	unsat("devices other than the job's", dv, 2, 1, "the job has 24 devices");
	/* a job nothing fits: no pin is to blame */
	plan.budget_gib = 0.5;
	static const char *const z[] = {"tp=2"};
	unsat("budget too small for anything", z, 1, -1, "no strategy fits");
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd)) /* the runner starts tests at the repository root */
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_parse();
	test_fixed_and_honoured();
	test_unsatisfiable();
	return check_done();
}
