/* Unit tests for src/core/framework.c: each framework's rules with their reasons, the
 * rule that a plan naming its framework must be one it runs (and that `auto` stays free),
 * and, over a random sample of plans on every model preset, that the framework tables
 * and the exporters agree: an export has a "not expressible" line exactly when
 * fw_check says the target's framework cannot run the plan. */
#include "check.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "core/framework.h"
#include "io/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 400 /* per model preset */

static paths_t paths;
static plan_t plan; /* large: off the stack */
static eval_result res;
static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint32_t rnd(uint32_t n)
{
	return fixture_rnd(&rng, n);
}
#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

/* The reason framework fw gives for s on the loaded plan's model that contains what, or
 * "" (the first reason when what is NULL). */
static const char *reason_with(int fw, const strategy_t *s, const char *what)
{
	static fw_issues is;
	fw_check(fw, s, &plan.model, &is);
	for (int i = 0; i < is.n; i++)
		if (!what || strstr(is.text[i], what))
			return is.text[i];
	return "";
}
#define reason(fw, s) reason_with((fw), (s), NULL)

static void test_rules(void)
{
	if (fixture_load(&plan, &paths, "model: llama3-70b\ncluster: dgx-h100\ndevices: 512\nstrategy: {tp: 8, pp: 4, zero: 1, global_batch: 512, seq_length: 8192, recompute: selective}\n")) {
		CHECK(0, "rules: the plan loads");
		return;
	}
	strategy_t s = plan.strategy;
	CHECK(!fw_check(FW_MEGATRON, &s, &plan.model, NULL), "rules: megatron runs the default plan");
	s.schedule = SCHED_ZBV;
	CHECK(strstr(reason(FW_MEGATRON, &s), "megatron cannot run schedule zb-v (it runs 1f1b, interleaved)") != NULL,
			"rules: megatron refuses zb-v and names what it runs");
	CHECK(!fw_check(FW_TORCHTITAN, &s, &plan.model, NULL) || strstr(reason(FW_TORCHTITAN, &s), "zb-v") == NULL,
			"rules: torchtitan runs zb-v (ZBVZeroBubble)");
	s = plan.strategy;
	s.zero = 1;
	CHECK(strstr(reason(FW_TORCHTITAN, &s), "torchtitan cannot run ZeRO-1") != NULL, "rules: torchtitan has no ZeRO-1");
	s.zero = 2;
	CHECK(*reason_with(FW_DEEPSPEED, &s, "ZeRO-2 with pipeline parallelism"),
			"rules: DeepSpeed's pipeline engine refuses ZeRO-2");
	s = plan.strategy;
	s.cp = 2;
	s.dp /= 2;
	s.cp_kind = CP_RING;
	CHECK(*reason_with(FW_DEEPSPEED, &s, "ring context parallelism"), "rules: DeepSpeed's cp is Ulysses");
	s.cp_kind = CP_ULYSSES;
	CHECK(*reason_with(FW_TORCHTITAN, &s, "ulysses context parallelism"), "rules: torchtitan's cp is ring attention");
	s = plan.strategy;
	s.nranges = 4; /* 80 layers on 4 stages: the first 3 of each */
	for (int i = 0; i < 4; i++)
		s.range[i] = (rc_range){20 * i, 20 * i + 3, RC_FULL};
	s.recompute = RC_NONE;
	CHECK(strstr(reason(FW_MEGATRON, &s), "layer by layer") == NULL,
			"rules: megatron runs full recompute of the first layers of a stage (block method)");
	s.range[3] = (rc_range){65, 67, RC_FULL};
	CHECK(strstr(reason(FW_MEGATRON, &s), "layer by layer") != NULL,
			"rules: megatron refuses recompute of layers in the middle of a stage");
	char buf[80];
	fw_runners(&plan.strategy, &plan.model, buf, sizeof buf);
	CHECK(!strcmp(buf, "megatron"), check_fmt("rules: the default plan runs on megatron only (ZeRO-1 with pp) (got %s)", buf));
}

static void test_validate(void)
{
	strategy_t s = plan.strategy;
	char why[256] = "";
	s.schedule = SCHED_ZBV;
	CHECK(!strat_validate(&s, &plan.model, &plan.cluster, plan.devices, why, sizeof why), check_fmt("validate: an auto plan may use any schedule (%s)", why));
	s.framework = FW_MEGATRON;
	CHECK(strat_validate(&s, &plan.model, &plan.cluster, plan.devices, why, sizeof why) &&
			strstr(why, "megatron cannot run schedule zb-v"), check_fmt("validate: a megatron plan may not use zb-v (%s)", why));
	s.framework = FW_DEEPSPEED;
	s.schedule = SCHED_1F1B;
	CHECK(eval_run(&plan.model, &plan.cluster, plan.devices, &s, 0, &res) && strstr(res.why, "deepspeed"), check_fmt("validate: eval_run refuses what deepspeed cannot run (%s)", res.why));
}

/* A random plan the cost model accepts for model m on the loaded cluster. */
static int sample(strategy_t *s)
{
	static const int two[] = {1, 2, 4, 8}, cps[] = {1, 1, 2}, vpps[] = {1, 2, 3};
	*s = strat_default();
	s->tp = PICK(two);
	s->pp = PICK(two);
	s->cp = PICK(cps);
	s->ep = model_max_experts(&plan.model) > 0 ? PICK(two) : 1;
	s->etp = model_max_experts(&plan.model) > 0 ? (rnd(3) ? 1 : s->tp) : 1;
	s->zero = (int)rnd(4);
	s->seq = 4096;
	s->global_batch = 512;
	s->recompute = (uint8_t)rnd(RC_COUNT);
	s->schedule = (uint8_t)rnd(SCHED_COUNT);
	s->vpp = s->schedule == SCHED_INTERLEAVED ? PICK(vpps) : 1;
	s->cp_kind = (uint8_t)rnd(2);
	s->sp = rnd(4) != 0;
	s->tp_overlap = rnd(4) == 0;
	s->vocab_parallel = rnd(8) != 0;
	s->flash = rnd(8) != 0;
	s->precision = (uint8_t)rnd(PREC_COUNT);
	if (rnd(4) == 0) {
		s->nranges = 1;
		int lo = (int)rnd((uint32_t)plan.model.layers);
		s->range[0] = (rc_range){lo, lo + 1 + (int)rnd(4), (uint8_t)rnd(RC_COUNT)};
		if (s->range[0].hi > plan.model.layers)
			s->range[0].hi = plan.model.layers;
	}
	/* the precision-aware optimizer: now and then each tensor in one of Megatron's dtypes */
	for (int k = 0; rnd(4) == 0 && k < OPT_KEYS; k++) {
		uint32_t d = rnd(ODT_COUNT);
		s->opt_dt[k] = (uint8_t)(strat_opt_dtypes(k) >> d & 1 ? d : ODT_BF16 * (k != OPT_MAIN_PARAMS));
	}
	/* Megatron's split keys and CPU offload, now and then (invalid draws are skipped) */
	if (rnd(5) == 0 && s->pp > 1) {
		int mid = plan.model.layers / s->pp + (int)rnd(2), ends = plan.model.layers - mid * (s->pp - 2);
		s->first_layers = (int16_t)(ends / 2 + (int)rnd(2));
		s->last_layers = (int16_t)(rnd(3) ? ends - s->first_layers : 0);
	} else if (rnd(5) == 0) {
		s->acct_embed = rnd(2);
		s->acct_loss = !s->acct_embed || rnd(2);
	}
	if (rnd(5) == 0)
		s->opt_offload = rnd(2) ? 1.0 : 0.5;
	if (rnd(8) == 0)
		s->act_offload = 1 + (int)rnd(4);
	/* now and then the fused loss, and in fp8 DeepSeek-V3's activation caching */
	s->loss_fusion = rnd(8) == 0;
	s->fp8_cache = s->precision == PREC_FP8 && rnd(4) == 0 ? FP8C_DEEPSEEK : FP8C_NONE;
	plan.devices = 1024;
	s->dp = 0;
	return strat_resolve(s, plan.devices, NULL, 0) ||
		eval_run(&plan.model, &plan.cluster, plan.devices, s, 0, &res);
}

static int count_not_expressible(export_target t)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	int rc = export_write(f, t, &plan, err, sizeof err);
	fclose(f);
	int n = 0;
	for (const char *p = buf; !rc && p && (p = strstr(p, "not expressible")); p++)
		n++;
	free(buf);
	/* a write refused outright (a model with a vision encoder: no nearest launch) is a
	 * refusal too, as much as a "not expressible" line */
	return rc ? 1 : n;
}

static void test_exports_agree(void)
{
	static char models[64][128];
	int nmod = fixture_presets(&paths, "models", models, 64);
	long plans = 0, bad = 0, refused = 0;
	for (int i = 0; i < nmod; i++) {
		char text[512];
		snprintf(text, sizeof text, "model: %.200s\ncluster: h800\ndevices: 1024\n", models[i]);
		if (fixture_load(&plan, &paths, text))
			continue;
		for (int k = 0; k < SAMPLES; k++) {
			if (sample(&plan.strategy))
				continue;
			plans++;
			for (int t = 0; t < EXPORT_COUNT; t++) {
				int ne = count_not_expressible((export_target)t);
				fw_issues is;
				int fw = fw_check(export_framework((export_target)t), &plan.strategy, &plan.model, &is);
				refused += fw > 0;
				if ((ne > 0) != (fw > 0) && bad++ == 0) {
					const strategy_t *s = &plan.strategy;
					printf("  %s --to %s: %d not-expressible lines, %d framework reasons (%s); tp %d pp %d vpp %d "
							"cp %d (%s) ep %d etp %d zero %d sp %d rc %s sched %s prec %s flash %d vp %d ovl %d "
							"ranges %d opt %s/%s/%s/%s\n", models[i], t == 0 ? "megatron" : t == 1 ? "deepspeed" : "torchtitan", ne,
							fw, fw ? is.text[0] : "", s->tp, s->pp, s->vpp, s->cp, strat_cp_kind_name(s->cp_kind),
							s->ep, s->etp, s->zero, s->sp, strat_recompute_name(s->recompute),
							strat_schedule_name(s->schedule), strat_precision_name(s->precision), s->flash,
							s->vocab_parallel, s->tp_overlap, s->nranges, strat_opt_dtype_name(s->opt_dt[0]),
							strat_opt_dtype_name(s->opt_dt[1]), strat_opt_dtype_name(s->opt_dt[2]),
							strat_opt_dtype_name(s->opt_dt[3]));
				}
			}
		}
	}
	CHECK(plans > 1000 && refused > 0 && refused < 3 * plans, check_fmt("exports agree: the sample has many valid plans, some each target refuses (%ld plans, %ld refusals)",
			plans, refused));
	CHECK(bad == 0, check_fmt("exports agree: a \"not expressible\" line exactly when the framework table refuses "
			"(%ld of %ld exports disagree)", bad, 3 * plans));
}

int main(void)
{
	fixture_paths(&paths);
	test_rules();
	test_validate();
	test_exports_agree();
	return check_done();
}
