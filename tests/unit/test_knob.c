/* Unit tests for src/core/knob.c: stepping a knob lands only on strategies the core
 * accepts (divisors, powers of two, wrap-around for names), keeps dp and the device count
 * consistent, couples vpp with the interleaved schedule, respects pins, and explains a
 * refusal in a sentence. Runs from the repository root (presets via STRATA_DATA). */
#include "check.h"
#include "core/evaluate.h"
#include "core/knob.h"
#include "io/paths.h"
#include "io/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static paths_t paths;
static plan_t plan;

/* Load a plan and return its knob state (dp resolved). */
static knob_job load(const char *text)
{
	char err[512];
	knob_job j;
	memset(&j, 0, sizeof j);
	if (plan_load_text(&plan, text, "t.yaml", &paths, err, sizeof err) ||
			strat_resolve(&plan.strategy, plan.devices, err, sizeof err)) {
		printf("  load: %s\n", err);
		return j;
	}
	j.s = plan.strategy;
	j.devices = plan.devices;
	j.budget_gib = plan.budget_gib;
	return j;
}

static int step(knob_job *j, knob_id k, int dir, unsigned pinned, unsigned *changed, char *why)
{
	why[0] = 0;
	return knob_step(&plan.model, &plan.cluster, j, k, dir, pinned, changed, why, 256);
}

static int valid(const knob_job *j)
{
	return strat_validate(&j->s, &plan.model, &plan.cluster, j->devices, NULL, 0) == 0;
}

static void test_names(void)
{
	CHECK(knob_find("tp") == KNOB_TP && knob_find("mbs") == KNOB_MBS && knob_find("micro_batch") == KNOB_MBS &&
			knob_find("gbs") == KNOB_GBS && knob_find("seq") == KNOB_SEQ && knob_find("budget") == KNOB_BUDGET &&
			knob_find("budget_gib") == KNOB_BUDGET && knob_find("nope") == -1,
			"knob_find: keys and aliases");
	int distinct = 1;
	for (int a = 0; a < KNOB_COUNT; a++)
		for (int b = a + 1; b < KNOB_COUNT; b++)
			if (!strcmp(knob_key(a), knob_key(b)))
				distinct = 0;
	CHECK(distinct, "knob keys are distinct");
	int roundtrip = 1;
	for (int k = 0; k < KNOB_COUNT; k++)
		if (knob_find(knob_key(k)) != k)
			roundtrip = 0;
	CHECK(roundtrip, "knob_find(knob_key(k)) == k for every knob");
	CHECK(knob_pin_bit("tp=8") == 1u << KNOB_TP && knob_pin_bit("micro_batch=2") == 1u << KNOB_MBS &&
			knob_pin_bit("experts.ep=8") == 0 && knob_pin_bit("nonsense") == 0, "knob_pin_bit: knob pins only");
}

static void test_format(void)
{
	knob_job j = load(plan_default_text);
	char buf[64];
	knob_format(&j, &plan.cluster, KNOB_TP, buf, sizeof buf);
	CHECK(!strcmp(buf, "8"), "format tp = 8");
	knob_format(&j, &plan.cluster, KNOB_SP, buf, sizeof buf);
	CHECK(!strcmp(buf, "on"), "format sp = on");
	knob_pin_text(&j, &plan.cluster, KNOB_SP, buf, sizeof buf);
	CHECK(!strcmp(buf, "sp=true"), "pin text sp=true (plan syntax)");
	knob_pin_text(&j, &plan.cluster, KNOB_RECOMPUTE, buf, sizeof buf);
	CHECK(!strcmp(buf, "recompute=selective"), "pin text recompute=selective");
	knob_format(&j, &plan.cluster, KNOB_BUDGET, buf, sizeof buf);
	char want[64];
	snprintf(want, sizeof want, "%.1f", eval_default_budget_gib(&plan.cluster));
	CHECK(!strcmp(buf, want), "format budget: the cluster default when unset");
	j.budget_gib = 70;
	knob_pin_text(&j, &plan.cluster, KNOB_BUDGET, buf, sizeof buf);
	CHECK(!strcmp(buf, "budget_gib=70"), "pin text budget_gib=70");
}

static void test_degrees(void)
{
	char why[256];
	unsigned ch;
	knob_job j = load(plan_default_text); /* 512 devices, tp 8, pp 4, dp 16 */
	knob_job j0 = j;
	CHECK(step(&j, KNOB_TP, +1, 0, &ch, why) == 0 && j.s.tp == 16 && j.s.dp == 8 && (ch & (1u << KNOB_DP)),
			"tp 8 -> 16, dp re-derived 16 -> 8");
	CHECK(valid(&j), "tp 16 is valid");
	j = j0;
	CHECK(step(&j, KNOB_TP, -1, 0, &ch, why) == 0 && j.s.tp == 4 && j.s.dp == 32, "tp 8 -> 4, dp -> 32");
	/* up until the heads stop it: 64 heads, 8 KV heads */
	j = j0;
	int n = 0;
	while (step(&j, KNOB_TP, +1, 0, &ch, why) == 0 && n < 20)
		n++;
	CHECK(j.s.tp == 64, check_fmt("tp steps up to 64 (got %d)", j.s.tp));
	CHECK(strstr(why, "no larger tp") && strstr(why, "attention heads"), check_fmt("tp past 64: reason names the heads: %s", why));
	j = j0;
	CHECK(step(&j, KNOB_PP, +1, 0, &ch, why) == 0 && j.s.pp == 8 && j.s.dp == 8, "pp 4 -> 8, dp 16 -> 8");
	j = j0;
	CHECK(step(&j, KNOB_CP, +1, 0, &ch, why) == 0 && j.s.cp == 2 && j.s.dp == 8, "cp 1 -> 2, dp -> 8");
	/* dp adds or removes whole replicas: the device count follows */
	j = j0;
	CHECK(step(&j, KNOB_DP, +1, 0, &ch, why) == 0 && j.s.dp == 32 && j.devices == 1024, "dp 16 -> 32: 1024 devices");
	j = j0;
	CHECK(step(&j, KNOB_DP, -1, 0, &ch, why) == 0 && j.s.dp == 8 && j.devices == 256, "dp 16 -> 8: 256 devices");
	/* ep on a dense model has nowhere to go, and says why */
	j = j0;
	CHECK(step(&j, KNOB_EP, +1, 0, &ch, why) == -1 && j.s.ep == 1, "ep on a dense model: refused");
}

static void test_batch_and_seq(void)
{
	char why[256];
	unsigned ch;
	knob_job j = load(plan_default_text), j0 = j; /* gbs 512, dp 16, mbs 1 */
	CHECK(step(&j, KNOB_GBS, +1, 0, &ch, why) == 0 && j.s.global_batch == 1024, "gbs 512 -> 1024");
	j = j0;
	CHECK(step(&j, KNOB_GBS, -1, 0, &ch, why) == 0 && j.s.global_batch == 256, "gbs 512 -> 256");
	j.s.global_batch = 16;
	CHECK(step(&j, KNOB_GBS, -1, 0, &ch, why) == -1, "gbs at dp*mbs cannot go lower");
	j = j0;
	CHECK(step(&j, KNOB_MBS, +1, 0, &ch, why) == 0 && j.s.micro_batch == 2, "mbs 1 -> 2");
	j.s.global_batch = 48; /* 48/16 = 3 sequences per replica: mbs 2 is not a divisor */
	j.s.micro_batch = 1;
	CHECK(step(&j, KNOB_MBS, +1, 0, &ch, why) == 0 && j.s.micro_batch == 3, "mbs 1 -> 3 when gbs/dp = 3");
	j = j0;
	CHECK(step(&j, KNOB_SEQ, +1, 0, &ch, why) == 0 && j.s.seq == 16384, "seq 8192 -> 16384");
	j = j0;
	CHECK(step(&j, KNOB_SEQ, -1, 0, &ch, why) == 0 && j.s.seq == 4096, "seq 8192 -> 4096");
	j = j0;
	CHECK(step(&j, KNOB_ZERO, +1, 0, &ch, why) == 0 && j.s.zero == 2, "zero 1 -> 2");
	j.s.zero = 3;
	CHECK(step(&j, KNOB_ZERO, +1, 0, &ch, why) == -1 && j.s.zero == 3, "zero 3 is the top");
	j = j0;
	double b0 = eval_default_budget_gib(&plan.cluster);
	CHECK(step(&j, KNOB_BUDGET, +1, 0, &ch, why) == 0 && j.budget_gib == (double)(long)b0 + 1,
			"budget: from the default up to the next whole GiB");
	CHECK(step(&j, KNOB_BUDGET, -1, 0, &ch, why) == 0 && j.budget_gib == (double)(long)b0, "budget: back down");
	j.budget_gib = 1;
	CHECK(step(&j, KNOB_BUDGET, -1, 0, &ch, why) == -1, "budget cannot go below 1 GiB");
}

static void test_enums(void)
{
	char why[256];
	unsigned ch;
	knob_job j = load(plan_default_text);
	CHECK(step(&j, KNOB_RECOMPUTE, +1, 0, &ch, why) == 0 && j.s.recompute == RC_FULL, "recompute selective -> full");
	CHECK(step(&j, KNOB_RECOMPUTE, +1, 0, &ch, why) == 0 && j.s.recompute == RC_NONE, "recompute wraps to none");
	CHECK(step(&j, KNOB_SP, +1, 0, &ch, why) == 0 && !j.s.sp, "sp toggles off");
	CHECK(step(&j, KNOB_SP, -1, 0, &ch, why) == 0 && j.s.sp, "sp toggles on");
	CHECK(step(&j, KNOB_PRECISION, -1, 0, &ch, why) == 0 && j.s.precision == PREC_FP8, "precision bf16 <- wraps to fp8 on H100");
	/* V100 has no bf16 and no fp8: precision only reaches fp16 */
	j = load("model: llama2-7b\ncluster: v100\ndevices: 8\nstrategy: {tp: 8, precision: fp16}\n");
	CHECK(step(&j, KNOB_PRECISION, +1, 0, &ch, why) == -1 && j.s.precision == PREC_FP16, "V100: fp16 only");
	CHECK(strstr(why, "not supported") != NULL, check_fmt("V100 precision: reason from the core: %s", why));
}

static void test_couplings(void)
{
	char why[256];
	unsigned ch;
	knob_job j = load(plan_default_text);
	CHECK(step(&j, KNOB_VPP, +1, 0, &ch, why) == 0 && j.s.vpp == 2 && j.s.schedule == SCHED_INTERLEAVED &&
			(ch & (1u << KNOB_SCHEDULE)), "vpp 1 -> 2 switches to the interleaved schedule");
	CHECK(valid(&j), "vpp 2 interleaved is valid");
	CHECK(step(&j, KNOB_SCHEDULE, +1, 0, &ch, why) == 0 && j.s.schedule != SCHED_INTERLEAVED && j.s.vpp == 1 &&
			(ch & (1u << KNOB_VPP)), "leaving interleaved resets vpp to 1");
	/* the dualpipe schedule needs an even pp: skipped with pp = 5 */
	j = load("model: llama3-70b\ncluster: dgx-h100\ndevices: 320\nstrategy: {tp: 8, pp: 5, global_batch: 80}\n");
	int seen_dual = 0;
	for (int i = 0; i < SCHED_COUNT + 1; i++) {
		if (step(&j, KNOB_SCHEDULE, +1, 0, &ch, why))
			break;
		seen_dual |= j.s.schedule == SCHED_DUALPIPE;
		if (!valid(&j))
			seen_dual = 2;
	}
	CHECK(seen_dual == 0, "schedule stepping skips dualpipe with odd pp");
}

static void test_pins(void)
{
	char why[256];
	unsigned ch;
	knob_job j = load(plan_default_text), j0 = j;
	CHECK(step(&j, KNOB_TP, +1, 1u << KNOB_TP, &ch, why) == -1 && strstr(why, "pinned") && j.s.tp == 8,
			"a pinned knob does not step");
	/* dp pinned: tp may only move where dp stays 16, which is nowhere at 512 devices */
	CHECK(step(&j, KNOB_TP, +1, 1u << KNOB_DP, &ch, why) == -1 && strstr(why, "dp would change") && j.s.tp == 8,
			check_fmt("tp with dp pinned: refused, names dp: %s", why));
	j = j0;
	CHECK(step(&j, KNOB_VPP, +1, 1u << KNOB_SCHEDULE, &ch, why) == -1 && j.s.vpp == 1,
			"vpp with the schedule pinned to 1f1b: refused");
}

/* Property: from several plans, every knob stepped repeatedly either way only ever lands
 * on strategies strat_validate accepts, and stops with a reason. */
static void test_always_valid(void)
{
	const char *plans[] = {
		plan_default_text,
		"model: mixtral-8x7b\ncluster: dgx-h100\ndevices: 64\nstrategy: {tp: 2, pp: 4, ep: 8, global_batch: 256, seq_length: 4096}\n",
		"model: deepseek-v3\ncluster: h800\ndevices: 2048\nstrategy: {tp: 1, pp: 16, ep: 64, sp: false, global_batch: 15360, seq_length: 4096, schedule: dualpipe}\n",
		"model: llama2-7b\ncluster: dgx-a100-80g\ndevices: 8\nstrategy: {tp: 2, pp: 2, global_batch: 64}\n",
	};
	int bad = 0, steps = 0, silent = 0;
	for (size_t pi = 0; pi < sizeof plans / sizeof plans[0]; pi++) {
		knob_job j0 = load(plans[pi]);
		for (int k = 0; k < KNOB_COUNT; k++)
			for (int dir = -1; dir <= 1; dir += 2) {
				knob_job j = j0;
				char why[256];
				unsigned ch;
				for (int n = 0; n < 12; n++) {
					if (step(&j, (knob_id)k, dir, 0, &ch, why)) {
						if (!why[0])
							silent++;
						break;
					}
					steps++;
					if (!valid(&j)) {
						bad++;
						printf("  plan %zu knob %s dir %d: invalid after stepping\n", pi, knob_key(k), dir);
						break;
					}
				}
			}
	}
	CHECK(bad == 0, check_fmt("every step lands on a valid strategy (%d steps)", steps));
	CHECK(silent == 0, "every refusal has a reason");
	/* the MoE plan: ep steps through divisors of 8 experts */
	knob_job j = load(plans[1]);
	char why[256];
	unsigned ch;
	CHECK(step(&j, KNOB_EP, -1, 0, &ch, why) == 0 && j.s.ep == 4, "mixtral ep 8 -> 4");
	j.s.ep = 8;
	CHECK(step(&j, KNOB_EP, +1, 0, &ch, why) == -1 && strstr(why, "no larger ep"), "mixtral ep 8 is the top");
}

/* Devices is a knob of its own: it steps through whole replicas of tp*pp*cp (dp follows),
 * a dp step moves it along (and says so in the mask), and a pin on either holds both. */
static void test_devices(void)
{
	char why[256];
	unsigned ch;
	knob_job j = load(plan_default_text), j0 = j; /* 512 devices, tp 8 x pp 4, dp 16, gbs 512 */
	CHECK(knob_find("devices") == KNOB_DEVICES && knob_find("n") == KNOB_DEVICES, "knob_find: devices and n");
	CHECK(knob_at(0) == KNOB_DEVICES && knob_at(1) == KNOB_DP && knob_row(KNOB_TP) == 2 &&
			knob_at(KNOB_COUNT - 1) == KNOB_BUDGET, "rows: devices first, then dp, tp ... budget last");
	int seen[KNOB_COUNT] = {0}, once = 1;
	for (int r = 0; r < KNOB_COUNT; r++)
		seen[knob_at(r)]++;
	for (int k = 0; k < KNOB_COUNT; k++)
		once &= seen[k] == 1 && knob_at(knob_row((knob_id)k)) == (knob_id)k;
	CHECK(once, "every knob has exactly one row");
	CHECK(step(&j, KNOB_DEVICES, +1, 0, &ch, why) == 0 && j.devices == 1024 && j.s.dp == 32 && j.s.tp == 8 &&
			j.s.pp == 4 && (ch & (1u << KNOB_DP)), "devices 512 -> 1024: dp 16 -> 32, tp and pp stay");
	CHECK(valid(&j), "1024 devices is valid");
	j = j0;
	CHECK(step(&j, KNOB_DEVICES, -1, 0, &ch, why) == 0 && j.devices == 256 && j.s.dp == 8, "devices 512 -> 256: dp 8");
	/* down to one replica (tp 8 x pp 4 = 32 devices), and no further */
	j = j0;
	while (step(&j, KNOB_DEVICES, -1, 0, &ch, why) == 0)
		;
	CHECK(j.devices == 32 && j.s.dp == 1 && strstr(why, "no smaller devices"),
			"devices steps down to one replica of 32, then says why not");
	/* gbs 96 with mbs 1: 96 sequences per step, so dp takes divisors of 96 and devices 32*dp */
	j = load("model: llama3-70b\ncluster: dgx-h100\ndevices: 512\nstrategy: {tp: 8, pp: 4, global_batch: 96}\n");
	CHECK(step(&j, KNOB_DEVICES, +1, 0, &ch, why) == 0 && j.devices == 768 && j.s.dp == 24,
			"gbs 96: devices 512 -> 768 (dp 24)");
	/* dp moves devices along and says so; pinned devices hold dp, pinned dp holds devices */
	j = j0;
	CHECK(step(&j, KNOB_DP, +1, 0, &ch, why) == 0 && j.devices == 1024 && (ch & (1u << KNOB_DEVICES)),
			"dp 16 -> 32: devices in the mask");
	j = j0;
	CHECK(step(&j, KNOB_DP, +1, 1u << KNOB_DEVICES, &ch, why) == -1 && strstr(why, "devices would change") &&
			j.devices == 512, "dp with devices pinned: refused, names devices");
	CHECK(step(&j, KNOB_DEVICES, +1, 1u << KNOB_DP, &ch, why) == -1 && strstr(why, "dp would change"),
			"devices with dp pinned: refused, names dp");
	CHECK(step(&j, KNOB_DEVICES, +1, 1u << KNOB_DEVICES, &ch, why) == -1 && strstr(why, "devices is pinned"),
			"pinned devices do not step");
	/* tp with devices pinned: dp follows, devices stay */
	CHECK(step(&j, KNOB_TP, +1, 1u << KNOB_DEVICES, &ch, why) == 0 && j.devices == 512 && j.s.dp == 8,
			"tp with devices pinned: dp follows");
	char buf[64];
	knob_format(&j0, &plan.cluster, KNOB_DEVICES, buf, sizeof buf);
	CHECK(!strcmp(buf, "512"), "devices shows 512");
	knob_pin_text(&j0, &plan.cluster, KNOB_DEVICES, buf, sizeof buf);
	CHECK(!strcmp(buf, "devices=512") && knob_pin_bit(buf) == 1u << KNOB_DEVICES, "pin text devices=512");
}

static void test_rederive(void)
{
	knob_job j = load(plan_default_text);
	j.devices = 1024;
	CHECK(knob_rederive(&j, -1) == (1u << KNOB_DP) && j.s.dp == 32, "devices 1024: dp re-derived to 32");
	j.s.tp = 6;
	knob_rederive(&j, KNOB_TP);
	CHECK(j.s.dp == 32, "tp 6 does not divide: dp left for the core to explain");
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_names();
	test_format();
	test_degrees();
	test_batch_and_seq();
	test_enums();
	test_couplings();
	test_pins();
	test_always_valid();
	test_devices();
	test_rederive();
	return check_done();
}
