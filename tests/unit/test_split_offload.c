/* Unit tests for the uneven pipeline split keys (Megatron's --decoder-first/last-pipeline-
 * num-layers and --account-for-embedding/loss-in-pipeline-split, core/strategy.c) and for
 * CPU offload of the optimizer and of activations (core/cost/memory.c, dp.c, stage.c, the
 * framework tables). Every figure is computed by hand in the comment above its check. */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/context.h"
#include "core/cost/dp.h"
#include "core/cost/memory.h"
#include "core/evaluate.h"
#include "core/framework.h"
#include "core/model.h"
#include "core/strategy.h"

#include <stdio.h>
#include <string.h>

static eval_result ra, rb; /* large: keep them off the stack */

/* An A100-like cluster with every constant fixed, and round host figures. */
static cluster_t test_cluster(void)
{
	cluster_t c = fixture_cluster();
	snprintf(c.name, sizeof c.name, "split/offload test cluster");
	c.host_gbps = 25;
	c.host_mem_gbps = 50;
	return c;
}

/* A Llama-like 8B: 32 layers of hidden 4096. */
static void llama8b(model_t *m)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "llama-like 8B");
	c.hidden = 4096;
	c.ffn = 14336;
	c.layers = 32;
	c.heads = 32;
	c.kv_heads = 8;
	c.vocab = 128256;
	c.gated = true;
	char why[256];
	if (model_from_config(m, &c, why, sizeof why))
		printf("  model_from_config: %s\n", why);
}

static strategy_t strat(int dp, int tp, int pp, int gbs)
{
	strategy_t s = strat_default();
	s.dp = dp;
	s.tp = tp;
	s.pp = pp;
	s.global_batch = gbs;
	s.seq = 4096;
	return s;
}

/* Layers of every chunk (chunk-major) into n[], and their first layers into lo[]. */
static void spans(const strategy_t *s, int layers, int *lo, int *n)
{
	for (int v = 0; v < s->vpp; v++)
		for (int st = 0; st < s->pp; st++)
			strat_chunk_span(s, layers, v, st, &lo[v * s->pp + st], &n[v * s->pp + st]);
}

static int same(const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Megatron's layouts (transformer_block.py get_num_layers_to_build, transformer_layer.py
 * get_transformer_layer_offset) on 32 layers. */
static void test_split_layouts(void)
{
	int lo[16], n[16];
	/* pp 4, first 7, last 7: the middle two ranks take (32 - 14) / 2 = 9 each:
	 * [7, 9, 9, 7] starting at 0, 7, 16, 25 ("one layer fewer on the first and last stage"
	 * than the even 8 is first 7, last 7 with 9 in the middle) */
	strategy_t s = strat(1, 1, 4, 8);
	s.first_layers = s.last_layers = 7;
	spans(&s, 32, lo, n);
	CHECK(same(n, (int[]){7, 9, 9, 7}, 4) && same(lo, (int[]){0, 7, 16, 25}, 4),
			"split: pp 4 first 7 last 7 is [7 9 9 7] at 0 7 16 25");
	/* first only, 5: the other three ranks take 27 / 3 = 9: [5, 9, 9, 9] */
	s.last_layers = 0;
	s.first_layers = 5;
	spans(&s, 32, lo, n);
	CHECK(same(n, (int[]){5, 9, 9, 9}, 4) && same(lo, (int[]){0, 5, 14, 23}, 4), "split: first 5 only");
	/* vpp 2, first 6, last 6: middle ranks (32 - 12) / 2 = 10, 5 a chunk; the first and
	 * last ranks 3 a chunk: row 0 [3 5 5 3] at 0 3 8 13, row 1 the same at 16 19 24 29 */
	s = strat(1, 1, 4, 8);
	s.vpp = 2;
	s.schedule = SCHED_INTERLEAVED;
	s.first_layers = s.last_layers = 6;
	spans(&s, 32, lo, n);
	CHECK(same(n, (int[]){3, 5, 5, 3, 3, 5, 5, 3}, 8) && same(lo, (int[]){0, 3, 8, 13, 16, 19, 24, 29}, 8),
			"split: vpp 2 first 6 last 6 puts 3 5 5 3 in each row");
	/* embedding and loss counted: (32 + 2) / 2 = 17 a stage, one fewer on each end:
	 * [16, 16] at 0, 16 */
	s = strat(1, 1, 2, 8);
	s.acct_embed = s.acct_loss = true;
	spans(&s, 32, lo, n);
	CHECK(same(n, (int[]){16, 16}, 2) && same(lo, (int[]){0, 16}, 2), "split: embedding and loss counted, pp 2");
	/* embedding only with pp 3 and vpp... pp 3: (32 + 1) / 3 = 11: [10, 11, 11] */
	s = strat(1, 1, 3, 6);
	s.acct_embed = true;
	spans(&s, 32, lo, n);
	CHECK(same(n, (int[]){10, 11, 11}, 3) && same(lo, (int[]){0, 10, 21}, 3), "split: embedding counted, pp 3");
	/* embedding and loss with pp 2, vpp 2 on 30 layers: 32 / 4 = 8 a chunk, the model's
	 * first chunk (row 0, rank 0) and last (row 1, rank 1) 7: [7 8 8 7] at 0 7 15 23 */
	s = strat(1, 1, 2, 8);
	s.vpp = 2;
	s.schedule = SCHED_INTERLEAVED;
	s.acct_embed = s.acct_loss = true;
	spans(&s, 30, lo, n);
	CHECK(same(n, (int[]){7, 8, 8, 7}, 4) && same(lo, (int[]){0, 7, 15, 23}, 4),
			"split: embedding and loss counted with vpp 2");
}

/* What Megatron refuses (transformer_config.py __post_init__), in the plan's words. */
static void test_split_refusals(void)
{
	char why[300];
	strategy_t s = strat(1, 1, 4, 8);
	s.first_layers = 7;
	s.last_layers = 8; /* 32 - 15 = 17 over 2 middle ranks */
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "17 middle layers"),
			"split: 17 middle layers over 2 stages refused");
	s.last_layers = 7;
	s.vpp = 2;
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "divisible by vpp = 2"),
			"split: 7 first-stage layers with vpp 2 refused");
	s.vpp = 1;
	s.acct_loss = true;
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "cannot be set with account_for"),
			"split: first/last with account_for_loss refused");
	s = strat(1, 1, 4, 8);
	s.acct_embed = true; /* 33 over 4 */
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "33 layers"),
			"split: 33 counted layers over pp 4 refused");
	s.acct_loss = true; /* 34 over 4 */
	CHECK(strat_split_check(&s, 32, why, sizeof why), "split: 34 counted layers over pp 4 refused");
	s = strat(1, 1, 1, 8);
	s.first_layers = 4;
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "pp > 1"), "split: first/last need pp > 1");
	s = strat(1, 1, 4, 8);
	s.first_layers = 7;
	s.nchunks = 4;
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "stage_layers"),
			"split: stage_layers with the split keys refused");
	s.nchunks = 0;
	CHECK(strat_split_check(&s, 32, why, sizeof why) && strstr(why, "25 middle layers"),
			"split: first 7 alone leaves 25 layers for 3 stages, refused");
}

/* The evaluation follows the split: stage 0 of [7 9 9 7] holds 7/8 of the even split's
 * layer weights. */
static void test_split_eval(void)
{
	model_t m;
	cluster_t c = test_cluster();
	llama8b(&m);
	strategy_t a = strat(2, 1, 4, 16), b = a;
	b.first_layers = b.last_layers = 7;
	if (eval_run(&m, &c, 8, &a, 1e5, &ra) || eval_run(&m, &c, 8, &b, 1e5, &rb)) {
		CHECK(0, "split eval: both plans valid");
		return;
	}
	CHECK(eval_stage_mem(&ra, 0).layers == 8 && eval_stage_mem(&rb, 0).layers == 7 && eval_stage_mem(&rb, 1).layers == 9 && eval_stage_mem(&rb, 3).layers == 7,
			"split eval: stages hold 7 9 9 7 layers");
	/* stage 1 has no embedding: its weights scale with its layers, 9/8 of the even one's */
	CHECK_NEAR(eval_stage_mem(&rb, 1).weights / eval_stage_mem(&ra, 1).weights, 9.0 / 8.0, 1e-12, "split eval: stage 1 weights x 9/8");
	/* the framework table: Megatron and torchtitan run counts, DeepSpeed refuses them */
	char buf[80];
	fw_runners(&b, &m, buf, sizeof buf);
	CHECK(strstr(buf, "megatron") && !strstr(buf, "deepspeed"), "split eval: DeepSpeed does not run the counts");
}

/* ---- optimizer offload: device bytes per parameter (mem_state_bytes) ---- */
static void test_offload_memory(void)
{
	/* Megatron, ZeRO-1 at d = 8, half offloaded: weights 2, main grads 4 stay, optimizer
	 * 12/8 x (1 - 0.5) = 0.75 */
	strategy_t s = strat(8, 1, 1, 8);
	s.framework = FW_MEGATRON;
	s.opt_offload = 0.5;
	mem_state o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 2 && o.gb == 4 && o.ob == 0.75, "offload: megatron ZeRO-1 f=0.5 is 2 + 4 + 0.75 B");
	/* DeepSpeed ZeRO-2, all offloaded: the gradient partition 4/8 and the states leave,
	 * the 16-bit weights stay: 2 + 0 + 0 */
	s.framework = FW_DEEPSPEED;
	s.zero = 2;
	s.opt_offload = 1;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 2 && o.gb == 0 && o.ob == 0, "offload: deepspeed ZeRO-2 keeps the 16-bit weights only");
	/* DeepSpeed ZeRO-3 at ratio 0.5: master shard 0.5 x 4/8 on the device plus the 16-bit
	 * shard of the offloaded half 0.5 x 2/8 = 0.375; grads 0.5 x 4/8 = 0.25; moments
	 * 0.5 x 8/8 = 0.5 */
	s.zero = 3;
	s.opt_offload = 0.5;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 0.375 && o.gb == 0.25 && o.ob == 0.5, "offload: deepspeed ZeRO-3 ratio 0.5");
	/* torchtitan ZeRO-3 with CPUOffloadPolicy: nothing stays (parameters are gathered
	 * per layer into the buffers) */
	s.framework = FW_TORCHTITAN;
	s.opt_offload = 1;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 0 && o.gb == 0 && o.ob == 0, "offload: FSDP2 CPUOffloadPolicy keeps no states on the device");
	/* no offload: the ZeRO paper's 16/d */
	s.opt_offload = 0;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb + o.gb + o.ob == 2.0, "offload: none keeps 16/8 = 2 B");
}

/* ---- optimizer offload: the host part of the step (dp_offload) ---- */
static void test_offload_time(void)
{
	model_t m;
	cluster_t c = test_cluster(); /* host link 25 GB/s, host memory 50 GB/s */
	llama8b(&m);
	strategy_t s = strat(8, 1, 1, 32);
	s.framework = FW_MEGATRON;
	s.opt_offload = 1;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	double n = 1e9;
	/* Megatron (pipelined copies and host steps): max(down 4e9/25e9 = 0.16, host Adam
	 * 30e9/50e9 = 0.6, up 2e9/25e9 = 0.08) = 0.6 s */
	CHECK_NEAR(dp_offload(&x, n), 0.6, 1e-12, "offload time: megatron max(0.16, 0.6, 0.08) = 0.6 s");
	/* DeepSpeed (gradient copies under backward): host 0.6 + up 2e9/25e9 = 0.08 -> 0.68 s */
	s.framework = FW_DEEPSPEED;
	s.zero = 2;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(dp_offload(&x, n), 0.68, 1e-12, "offload time: deepspeed 0.6 + 0.08 = 0.68 s");
	/* torchtitan ZeRO-3, 4 micro-batches, no pipeline: up before each of 2 x 4 gathers
	 * 8 x 4e9/25e9 = 1.28, down after each of 4 reductions 4 x 4e9/25e9 = 0.64, host 0.6:
	 * 2.52 s in series */
	s.framework = FW_TORCHTITAN;
	s.zero = 3;
	ctx_init(&x, &m, &c, &s);
	CHECK(strat_microbatches(&s) == 4, "offload time: 32 / (8 x 1) = 4 micro-batches");
	CHECK_NEAR(dp_offload(&x, n), 2.52, 1e-12, "offload time: FSDP2 1.28 + 0.64 + 0.6 = 2.52 s");
	/* the default host (a cluster file without host:) is PCIe 4.0 x16 and DDR4-3200 */
	c.host_gbps = c.host_mem_gbps = 0;
	CHECK(cluster_host_link_gbps(&c) == 31.5 && cluster_host_mem_gbps(&c) == 51.2, "offload: default host");

	/* end to end: Megatron ZeRO-1, all offloaded: the step's optimizer phase goes from
	 * the device's update to the host's, the optimizer memory to zero */
	c = test_cluster();
	strategy_t a = strat(8, 1, 1, 32), b = a;
	a.framework = b.framework = FW_MEGATRON;
	b.opt_offload = 1;
	if (eval_run(&m, &c, 8, &a, 1e5, &ra) || eval_run(&m, &c, 8, &b, 1e5, &rb)) {
		CHECK(0, "offload eval: both plans valid");
		return;
	}
	CHECK(eval_stage_mem(&ra, 0).optimizer > 0 && eval_stage_mem(&rb, 0).optimizer == 0, "offload eval: no optimizer state on the device");
	/* the host's Adam over the stage's P/8 parameters (its 16-bit weights / 2 / 8) at
	 * 30 B / 50 GB/s dominates the copies */
	double shard = eval_stage_mem(&ra, 0).weights / 2 / 8;
	CHECK_NEAR(rb.optimizer - c.eff.step_ms * 1e-3, shard * 30 / 50e9, 1e-9,
			"offload eval: the optimizer phase is the host's Adam, P/8 x 30 B / 50 GB/s");
}

/* ---- activation offload (Megatron --cpu-offloading-num-layers) ---- */
static void test_act_offload(void)
{
	model_t m;
	cluster_t c = test_cluster();
	llama8b(&m);
	strategy_t a = strat(8, 1, 1, 8), b = a;
	a.framework = b.framework = FW_MEGATRON;
	b.act_offload = 16;
	if (eval_run(&m, &c, 8, &a, 1e5, &ra) || eval_run(&m, &c, 8, &b, 1e5, &rb)) {
		CHECK(0, "act offload eval: both plans valid");
		return;
	}
	/* 16 of 32 layers leave: the stage keeps half its layers' activations (one micro-batch
	 * in flight without a pipeline) */
	double layer = eval_layer_activation(&m, &c, &a, 0, RC_NONE);
	CHECK_NEAR(eval_stage_mem(&ra, 0).activations - eval_stage_mem(&rb, 0).activations, 16 * layer, 1e-3,
			"act offload: 16 layers' activations leave the device");
	/* a layer's copy (its activations over 25 GB/s) against its forward and backward: the
	 * exposed part, 16 layers x micro-batches, is booked as host and in comm_exposed */
	double copy = layer / 25e9, fl = eval_stage_time_of(&ra, 0).fwd / 32, bl = eval_stage_time_of(&ra, 0).bwd / 32;
	double want = ra.microbatches * 16 * ((copy > fl ? copy - fl : 0) + (copy > bl ? copy - bl : 0));
	CHECK_NEAR(rb.host, want, 1e-4 * (want + 1e-6), "act offload: exposed copies = 16 x (copy - layer time)+");
	CHECK_NEAR(rb.comm_exposed, rb.tp + rb.cp + rb.ep + rb.pp + rb.dp + rb.host, 1e-12,
			"act offload: comm_exposed includes host");
	CHECK_NEAR(rb.step, rb.compute + rb.recompute + rb.bubble + rb.optimizer + rb.comm_exposed, 1e-9,
			"act offload: the step's parts add up");
	/* Megatron refuses it with pipelining or recomputation */
	fw_issues is;
	strategy_t p = b;
	p.recompute = RC_FULL;
	CHECK(fw_check(FW_MEGATRON, &p, &m, &is) && strstr(is.text[0], "recomputation"),
			"act offload: megatron refuses it with recomputation");
	CHECK(fw_check(FW_TORCHTITAN, &b, &m, &is) > 0, "act offload: torchtitan has none");
}

/* The frameworks' offload rules. */
static void test_offload_rules(void)
{
	model_t m;
	llama8b(&m);
	fw_issues is;
	strategy_t s = strat(8, 1, 1, 8);
	s.opt_offload = 0.5;
	s.zero = 2;
	CHECK(fw_check(FW_MEGATRON, &s, &m, &is) && strstr(is.text[0], "ZeRO-2"), "rules: megatron offloads ZeRO-1 only");
	CHECK(fw_check(FW_DEEPSPEED, &s, &m, &is) && strstr(is.text[0], "fraction"),
			"rules: deepspeed takes a ratio under ZeRO-3 only");
	s.zero = 3;
	CHECK(!fw_check(FW_DEEPSPEED, &s, &m, &is), "rules: deepspeed ZeRO-3 ratio 0.5 runs");
	s.zero = 1;
	CHECK(!fw_check(FW_MEGATRON, &s, &m, &is), "rules: megatron ZeRO-1 fraction 0.5 runs");
	s.opt_dt[OPT_EXP_AVG] = ODT_BF16;
	CHECK(fw_check(FW_MEGATRON, &s, &m, &is) && strstr(is.text[0], "fp32"),
			"rules: megatron's hybrid optimizer keeps fp32 states");
}

int main(void)
{
	test_split_layouts();
	test_split_refusals();
	test_split_eval();
	test_offload_memory();
	test_offload_time();
	test_act_offload();
	test_offload_rules();
	return check_done();
}
