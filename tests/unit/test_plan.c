/* Unit tests for src/io/plan.c: plan files (DESIGN.md section 3) with file:line:col errors,
 * preset names, Hugging Face config.json models, inline models and clusters, per-layer
 * recompute ranges and explicit stage splits, models listed as blocks (per-block widths and
 * their errors), and plan_set (the command-line overrides).
 * Runs from the repository root with STRATA_DATA pointing there. */
#include "check.h"
#include "core/cluster.h"
#include "core/model.h"
#include "io/paths.h"
#include "io/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERRLEN 1024

static paths_t paths;
static plan_t plan; /* large: keep it off the stack */

static int load(const char *text, char *err)
{
	err[0] = 0;
	return plan_load_text(&plan, text, "p.yaml", &paths, err, ERRLEN);
}

/* Loading TEXT must fail with a code in [lo, hi] and an error containing every needle
 * (NULL-terminated list). */
static void expect_error(const char *text, int lo, int hi, const char *name, ...)
{
	char err[ERRLEN];
	int rc = load(text, err);
	int ok = rc >= lo && rc <= hi;
	va_list ap;
	va_start(ap, name);
	for (const char *needle; (needle = va_arg(ap, const char *));)
		ok &= strstr(err, needle) != NULL;
	va_end(ap);
	if (!CHECK(ok, name))
		printf("  rc %d, err \"%s\"\n", rc, err);
}

#define HEAD "model: llama3-8b\ncluster: dgx-h100\ndevices: 8\n"

static void test_errors(void)
{
	/* a misspelt strategy key is an error that names the key, at its line and column */
	expect_error(HEAD "strategy:\n  tp: 2\n  tpp: 2\n", 2, 2, "error: misspelt strategy key 'tpp' at 6:3",
			"p.yaml:6:3:", "'tpp'", NULL);
	/* same in flow style: the column of the key */
	expect_error(HEAD "strategy: {tp: 2, tpp: 2}\n", 2, 2, "error: misspelt key in a flow mapping at 4:19",
			"p.yaml:4:19:", "unknown strategy key 'tpp'", NULL);
	/* a non-integer degree: reported at the value, naming the key and the text */
	expect_error(HEAD "strategy:\n  tp: 2.5\n", 1, 2, "error: tp: 2.5 is not an integer, at 5:7",
			"p.yaml:5:7:", "tp must be an integer", "2.5", NULL);
	expect_error(HEAD "strategy:\n  tp: 0\n", 1, 2, "error: tp: 0 out of range, at 5:7",
			"p.yaml:5:7:", "tp must be between 1", NULL);
	expect_error(HEAD "strategy:\n  zero: 4\n", 1, 2, "error: zero: 4 out of range", "p.yaml:5:9:", "zero", NULL);
	expect_error(HEAD "strategy:\n  recompute: partial\n", 1, 2, "error: unknown recompute mode lists the choices",
			"p.yaml:5:14:", "none, selective, full", "partial", NULL);
	expect_error(HEAD "strategy:\n  tp: [2]\n", 1, 2, "error: a list where a degree belongs", "p.yaml:5:7:",
			"strategy.tp", NULL);
	expect_error(HEAD "strategy: [tp, 2]\n", 1, 2, "error: strategy is not a mapping", "p.yaml:4:11:",
			"strategy must be a mapping", NULL);
	/* unknown preset names: exit class 2, at the reference */
	expect_error("model: llama9\ncluster: dgx-h100\ndevices: 8\n", 2, 2, "error: unknown model preset",
			"p.yaml:1:8:", "unknown model preset 'llama9'", NULL);
	expect_error("model: llama3-8b\ncluster: dgx-z900\ndevices: 8\n", 2, 2, "error: unknown cluster preset",
			"p.yaml:2:10:", "unknown cluster preset 'dgx-z900'", NULL);
	/* missing keys */
	expect_error("model: llama3-8b\ncluster: dgx-h100\n", 2, 2, "error: missing devices", "p.yaml:1:1:",
			"missing 'devices'", NULL);
	expect_error("cluster: dgx-h100\ndevices: 8\n", 2, 2, "error: missing model", "missing 'model'", NULL);
	expect_error("model: llama3-8b\ndevices: 8\n", 2, 2, "error: missing cluster", "missing 'cluster'", NULL);
	expect_error("model: llama3-8b\ncluster: dgx-h100\ndevices: 0\n", 1, 2, "error: devices: 0",
			"p.yaml:3:10:", "devices", NULL);
	expect_error("model: llama3-8b\ncluster: dgx-h100\ndevices: 8\nbudget_gib: .nan\n", 1, 2,
			"error: NaN budget refused", "p.yaml:4:13:", "budget_gib", NULL);
	/* YAML syntax errors carry the position libyaml reports */
	expect_error("model: [llama3-8b\ncluster: x\n", 2, 2, "error: malformed YAML has file:line:col", "p.yaml:2:",
			NULL);
	expect_error("", 2, 2, "error: empty plan", "a plan must be a mapping", NULL);
	expect_error("- a\n- b\n", 2, 2, "error: a list is not a plan", "p.yaml:1:1:", "a plan must be a mapping", NULL);
	/* inline model errors name the key */
	expect_error("model: {hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4}\n"
			"cluster: dgx-h100\ndevices: 8\n", 2, 2, "error: inline model missing vocab_size",
			"p.yaml:1:8:", "vocab_size", NULL);
	expect_error("model: {hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, vocab_size: 10,"
			" hidden_act: tanh}\ncluster: dgx-h100\ndevices: 8\n", 2, 2, "error: unknown hidden_act",
			"hidden_act 'tanh'", NULL);
	expect_error("model: {hidden_size: sixty, num_hidden_layers: 2, num_attention_heads: 4, vocab_size: 10}\n"
			"cluster: dgx-h100\ndevices: 8\n", 2, 2, "error: non-integer hidden_size", "p.yaml:1:22:",
			"hidden_size", NULL);
	/* inline cluster errors */
	expect_error("model: llama3-8b\ncluster: {device: {memory_gib: 80, peak_tflops: {bf16: 1}, hbm_gbps: 1},"
			" node: {devices: 8, link_gbps: 1}}\ndevices: 8\n", 2, 2, "error: cluster missing network",
			"missing 'network'", NULL);
	expect_error("model: llama3-8b\ncluster: {device: {memory_gib: 80, peak_tflops: {bf16: 1}, hbm_gbps: 1},"
			" node: {devices: 8, link_gbps: 1}, network: {link_gbps: 1},\n  efficiency: {gemm: 0.5, gemmm: 1}}\n"
			"devices: 8\n", 2, 2, "error: unknown efficiency key named at its position", "p.yaml:3:27:",
			"'gemmm'", NULL);
	/* recompute_layers / stage_layers format errors */
	expect_error(HEAD "strategy:\n  recompute_layers: {\"3:1\": full}\n", 1, 2, "error: empty recompute range",
			"p.yaml:5:22:", "recompute_layers", NULL);
	expect_error(HEAD "strategy:\n  stage_layers: [8, x]\n", 1, 2, "error: non-integer stage_layers entry",
			"p.yaml:5:21:", "stage_layers", NULL);
	expect_error(HEAD "strategy:\n  stage_layers: 8\n", 1, 2, "error: stage_layers not a list", "stage_layers",
			NULL);
	/* pins are "key=value" strings */
	expect_error(HEAD "pins: [tp8]\n", 2, 2, "error: pin without '='", "p.yaml:4:8:", "key=value", NULL);

	/* a file that does not exist: class 2, the message names the path */
	char err[ERRLEN];
	int rc = plan_load_file(&plan, "tests/no/such/plan.yaml", &paths, err, sizeof err);
	if (!CHECK(rc == 2 && strstr(err, "tests/no/such/plan.yaml"), "error: missing file is class 2 and named"))
		printf("  rc %d, err \"%s\"\n", rc, err);
}

static void test_good_plans(void)
{
	char err[ERRLEN];
	int rc;

	/* the embedded default plan */
	rc = plan_load_text(&plan, plan_default_text, "(default)", &paths, err, sizeof err);
	if (CHECK(rc == 0, "default plan: loads"))
		CHECK(plan.devices == 512 && plan.strategy.tp == 8 && plan.strategy.pp == 4 && plan.model.layers == 80,
				"default plan: Llama-3-70B on 512 devices, tp 8, pp 4");
	else
		printf("  %s\n", err);

	/* every strategy key of the contract, and the ignored top-level keys of validation cases */
	rc = load("id: case1\nsource: somewhere\nquality: A\nnotes: [x]\ninferred: {a: 1}\nunstated: [zero]\n"
			"model: llama3-8b\ncluster: dgx-h100\ndevices: 16\n"
			"strategy: {dp: 2, tp: 2, pp: 2, vpp: 2, cp: 2, ep: 1, etp: 1, sp: false, zero: 2,\n"
			"  micro_batch: 2, global_batch: 64, seq_length: 2048, recompute: full,\n"
			"  schedule: interleaved, precision: fp8, flash_attention: false, cp_kind: ulysses,\n"
			"  tp_comm_overlap: true, vocab_parallel: false}\n"
			"budget_gib: 70.5\n"
			"pins: [\"tp=2\", \"layers[0:3].recompute=full\"]\n"
			"expect: {step_time_s: 7.9, peak_mem_gib: 61.0, mem_convention: allocated}\n", err);
	if (CHECK(rc == 0, "full plan: loads")) {
		const strategy_t *s = &plan.strategy;
		CHECK(s->dp == 2 && s->tp == 2 && s->pp == 2 && s->vpp == 2 && s->cp == 2 && s->ep == 1 && s->etp == 1,
				"full plan: degrees");
		CHECK(!s->sp && s->zero == 2 && s->micro_batch == 2 && s->global_batch == 64 && s->seq == 2048,
				"full plan: sp, zero, batch, sequence");
		CHECK(s->recompute == RC_FULL && s->schedule == SCHED_INTERLEAVED && s->precision == PREC_FP8 &&
				!s->flash && s->cp_kind == CP_ULYSSES && s->tp_overlap && !s->vocab_parallel,
				"full plan: enums and flags");
		CHECK(plan.budget_gib == 70.5 && plan.devices == 16, "full plan: budget and devices");
		CHECK(plan.npins == 2 && !strcmp(plan.pins[1], "layers[0:3].recompute=full"), "full plan: pins");
		CHECK(plan.has_expect && plan.expect.step_time_s == 7.9 && plan.expect.peak_mem_gib == 61.0 &&
				!strcmp(plan.expect.mem_convention, "allocated"), "full plan: expect block");
		CHECK(!strcmp(plan.id, "case1") && !strcmp(plan.model_ref, "llama3-8b"), "full plan: id and model ref");
	} else {
		printf("  %s\n", err);
	}

	/* schedule aliases */
	rc = load(HEAD "strategy: {schedule: 1f1b-interleaved}\n", err);
	CHECK(rc == 0 && plan.strategy.schedule == SCHED_INTERLEAVED, "plan: schedule alias 1f1b-interleaved");
	rc = load(HEAD "strategy: {schedule: zbv}\n", err);
	CHECK(rc == 0 && plan.strategy.schedule == SCHED_ZBV, "plan: schedule alias zbv");
	/* unset strategy keys keep the defaults (dp derived later) */
	rc = load(HEAD, err);
	CHECK(rc == 0 && plan.strategy.dp == 0 && plan.strategy.tp == 1 && plan.strategy.sp && plan.strategy.flash,
			"plan: no strategy -> defaults (dp derived, tp 1, sp and flash on)");
}

/* recompute_layers {"lo:hi": mode} and stage_layers [counts] */
static void test_ranges_and_stages(void)
{
	char err[ERRLEN];
	int rc = load(HEAD "strategy:\n  pp: 4\n  recompute: selective\n"
			"  recompute_layers: {\"0:3\": full, \"30:32\": none}\n"
			"  stage_layers: [7, 9, 9, 7]\n", err);
	if (!CHECK(rc == 0, "ranges: plan loads")) {
		printf("  %s\n", err);
		return;
	}
	const strategy_t *s = &plan.strategy;
	CHECK(s->nranges == 2 && s->range[0].lo == 0 && s->range[0].hi == 3 && s->range[0].mode == RC_FULL &&
			s->range[1].lo == 30 && s->range[1].hi == 32 && s->range[1].mode == RC_NONE,
			"ranges: two recompute ranges [0:3) full, [30:32) none");
	CHECK(strat_layer_recompute(s, 0) == RC_FULL && strat_layer_recompute(s, 2) == RC_FULL &&
			strat_layer_recompute(s, 3) == RC_SELECTIVE && strat_layer_recompute(s, 31) == RC_NONE,
			"ranges: per-layer modes (ranges override the default)");
	CHECK(s->nchunks == 4 && s->chunk_layers[0] == 7 && s->chunk_layers[1] == 9 && s->chunk_layers[3] == 7,
			"stages: stage_layers [7, 9, 9, 7]");
	int lo, n;
	strat_chunk_span(s, 32, 0, 2, &lo, &n);
	CHECK(lo == 16 && n == 9, "stages: stage 2 starts at layer 16 with 9 layers");
	char why[256];
	strategy_t t = *s;
	CHECK(strat_resolve(&t, plan.devices, why, sizeof why) == 0 &&
			strat_validate(&t, &plan.model, &plan.cluster, plan.devices, why, sizeof why) == 0,
			"stages: the plan validates");
}

/* Hugging Face config.json files load as models, directly or from a plan */
static void test_hf(void)
{
	char err[ERRLEN];
	model_t m;
	int rc = plan_load_model(&m, "tests/fixtures/hf/llama3-8b.json", &paths, err, sizeof err);
	if (CHECK(rc == 0, "hf: llama3-8b config.json loads"))
		CHECK(m.hidden == 4096 && m.layers == 32 && m.kind[0].heads == 32 && m.kind[0].kv_heads == 8 &&
				m.kind[0].ffn == 14336 && m.vocab == 128256 && m.gated && !m.tied,
				"hf: llama3-8b fields (4096, 32 layers, 32/8 heads, 14336, 128256, silu, untied)");
	else
		printf("  %s\n", err);
	rc = plan_load_model(&m, "tests/fixtures/hf/mixtral-8x7b.json", &paths, err, sizeof err);
	CHECK(rc == 0 && m.kind[model_layer_kind(&m, 0)].experts == 8 && m.kind[model_layer_kind(&m, 0)].topk == 2,
			"hf: mixtral num_local_experts 8, top-2");
	rc = plan_load_model(&m, "tests/fixtures/hf/qwen2.5-72b.json", &paths, err, sizeof err);
	CHECK(rc == 0 && m.qkv_bias && !m.biases, "hf: qwen2 model_type gives QKV biases only");
	rc = plan_load_model(&m, "tests/fixtures/hf/deepseek-v3.json", &paths, err, sizeof err);
	CHECK(rc == 0 && m.kind[0].attn == ATTN_MLA && m.mtp_layers == 1 && m.layers == 61,
			"hf: deepseek-v3 MLA, 61 layers + 1 MTP");
	/* Qwen2-MoE: every layer MoE (decoder_sparse_step 1), 64 experts of 2560, top 8, the
	 * 20480-wide shared expert counted as 8 of them, QKV biases, untied by the qwen2 default */
	rc = plan_load_model(&m, "tests/fixtures/hf/qwen2-57b-a14b.json", &paths, err, sizeof err);
	const layer_kind *q = &m.kind[model_layer_kind(&m, 0)];
	CHECK(rc == 0 && m.nruns == 1 && m.layers == 28 && q->experts == 64 && q->topk == 8 && q->expert_ffn == 2560 &&
			q->shared == 8 && q->ffn == 0 && m.qkv_bias && !m.tied,
			"hf: qwen2-57b-a14b all 28 layers MoE, 64 x 2560 top-8, shared 20480 = 8 experts");
	/* Llama 4 Maverick: the text_config of a multimodal file, MoE on odd layers */
	rc = plan_load_model(&m, "tests/fixtures/hf/llama4-maverick.json", &paths, err, sizeof err);
	CHECK(rc == 0 && m.layers == 48 && m.kind[model_layer_kind(&m, 0)].ffn == 16384 &&
			m.kind[model_layer_kind(&m, 47)].experts == 128 && m.kind[model_layer_kind(&m, 47)].shared == 1 &&
			m.nruns == 48 && !m.tied, "hf: llama4-maverick text_config, 24 dense + 24 MoE layers alternating, untied");
	rc = load("model: tests/fixtures/hf/llama3-8b.json\ncluster: dgx-h100\ndevices: 8\n", err);
	CHECK(rc == 0 && plan.model.hidden == 4096, "hf: a plan may name a config.json path");
	rc = plan_load_model(&m, "tests/fixtures/hf/none.json", &paths, err, sizeof err);
	CHECK(rc == 2 && strstr(err, "none.json"), "hf: a missing config.json is class 2, named");
}

/* inline model and cluster mappings */
static void test_inline(void)
{
	char err[ERRLEN];
	int rc = load("model: {name: tiny, hidden_size: 64, intermediate_size: 256, num_hidden_layers: 2,\n"
			"  num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 100, hidden_act: silu,\n"
			"  tie_word_embeddings: true}\n"
			"cluster:\n"
			"  name: Inline\n"
			"  device: {name: Foo-1, memory_gib: 24, peak_tflops: {bf16: 100, fp16: 100, fp8: 0}, hbm_gbps: 1000}\n"
			"  node: {devices: 4, link_gbps: 50}\n"
			"  network: {link_gbps: 10, latency_us: 3}\n"
			"  efficiency: {gemm: 0.5, gemm_half: 32, fp8_gemm: 0.3, flash: 0.3, grouped_gemm: 0.6, hbm: 0.6,\n"
			"    coll_intra: 0.7, coll_inter: 0.6, dp_overlap: 0.5, tp_overlap: 0.4, layer_us: 10,\n"
			"    reserve_gib: 2, context_gib: 0.5, alloc_frag: 0.1}\n"
			"devices: 4\n", err);
	if (!CHECK(rc == 0, "inline: model and cluster mappings load")) {
		printf("  %s\n", err);
		return;
	}
	/* tiny gated GQA tied model: 129600 parameters (see test_model.c) */
	CHECK(model_total_params(&plan.model, false) == 129600, "inline: model counts 129600 params");
	CHECK(!strcmp(plan.model.name, "tiny") && !strcmp(plan.model_ref, "(inline)"), "inline: model name and ref");
	const cluster_t *c = &plan.cluster;
	CHECK(!strcmp(c->name, "Inline") && !strcmp(c->device, "Foo-1") && c->mem_gib == 24 &&
			c->peak_tflops[PREC_BF16] == 100 && c->hbm_gbps == 1000 && c->node_devices == 4 &&
			c->node_gbps == 50 && c->net_gbps == 10 && c->net_lat_us == 3,
			"inline: cluster numbers");
	CHECK(c->eff_set && c->eff.gemm == 0.5 && c->eff.gemm_half == 32 && c->eff.fp8_gemm == 0.3 &&
			c->eff.flash == 0.3 && c->eff.grouped_gemm == 0.6 && c->eff.hbm == 0.6 &&
			c->eff.coll_intra == 0.7 && c->eff.coll_inter == 0.6 && c->eff.dp_overlap == 0.5 &&
			c->eff.tp_overlap == 0.4 && c->eff.layer_us == 10 && c->eff.reserve_gib == 2 &&
			c->eff.context_gib == 0.5 && c->eff.alloc_frag == 0.1,
			"inline: all 14 efficiency constants read");

	/* without an efficiency block, an unknown device family gets the neutral defaults */
	rc = load("model: llama3-8b\n"
			"cluster: {device: {name: Foo-1, memory_gib: 24, peak_tflops: {bf16: 100}, hbm_gbps: 1000},\n"
			"  node: {devices: 4, link_gbps: 50}, network: {link_gbps: 10}}\n"
			"devices: 4\n", err);
	cluster_eff d = cluster_default_eff();
	CHECK(rc == 0 && !plan.cluster.eff_set && !memcmp(&plan.cluster.eff, &d, sizeof d),
			"inline: unknown family without efficiency -> neutral defaults");

	/* Gemma's config.json names gelu but its MLP is gated (GeGLU): Gemma 7B's shape gives
	 * the 7,751,248,896 non-embedding parameters of the Gemma report (arXiv 2403.08295,
	 * Table 2) plus the 256,000 x 3,072 tied embedding */
	rc = load("model: {model_type: gemma, hidden_act: gelu, hidden_size: 3072, intermediate_size: 24576,\n"
			"  num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 16, head_dim: 256,\n"
			"  vocab_size: 256000, tie_word_embeddings: true}\n"
			"cluster: dgx-h100\ndevices: 8\n", err);
	CHECK(rc == 0 && model_total_params(&plan.model, false) == 7751248896.0 + 256000.0 * 3072,
			"hf: model_type gemma with hidden_act gelu is a gated MLP (Gemma 7B: 8.54B params)");

	/* a device on the die of a calibrated family takes that family's constants */
	static const char *const fam[][2] = {
		{"A800-SXM4-80GB", "A100"}, {"NVIDIA H800", "H100"}, {"GH200-480GB", "H100"},
		{"H20", "H100"}, {"Ascend 910B3", "910B"}, {"Ascend-910B2-64GB", "910B"},
		{"Tesla V100S-PCIE-32GB", "V100"}, {"MI300X", "MI300X"}, {"H100-SXM5-80GB", "H100"},
	};
	for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
		char got[64], what[128];
		cluster_family(fam[k][0], got, sizeof got);
		snprintf(what, sizeof what, "family: %s -> %s (got %s)", fam[k][0], fam[k][1], got);
		CHECK(!strcmp(got, fam[k][1]), what);
	}
	rc = load("model: llama3-8b\ncluster: dgx-a100-80g\ndevices: 8\n", err);
	cluster_eff a100 = plan.cluster.eff;
	rc |= load("model: llama3-8b\n"
			"cluster: {device: {name: A800-SXM4-80GB, memory_gib: 80, peak_tflops: {bf16: 312}, hbm_gbps: 2039},\n"
			"  node: {devices: 8, link_gbps: 200}, network: {link_gbps: 25}}\n"
			"devices: 8\n", err);
	CHECK(rc == 0 && !memcmp(&plan.cluster.eff, &a100, sizeof a100) && memcmp(&a100, &d, sizeof d),
			"inline: an A800 without efficiency takes the A100 preset's constants");

	/* a model file relative to the plan file's directory */
	char dir[] = "/tmp/strata-plan-XXXXXX";
	if (CHECK(mkdtemp(dir) != NULL, "relative: temp dir")) {
		char mpath[128], ppath[128];
		snprintf(mpath, sizeof mpath, "%s/m.yaml", dir);
		snprintf(ppath, sizeof ppath, "%s/plan.yaml", dir);
		FILE *f = fopen(mpath, "w");
		if (f) {
			fputs("hidden_size: 64\nintermediate_size: 256\nnum_hidden_layers: 2\nnum_attention_heads: 4\n"
					"vocab_size: 100\nhidden_act: gelu\ntie_word_embeddings: false\n", f);
			fclose(f);
		}
		f = fopen(ppath, "w");
		if (f) {
			fputs("model: m.yaml\ncluster: dgx-h100\ndevices: 8\n", f);
			fclose(f);
		}
		rc = plan_load_file(&plan, ppath, &paths, err, sizeof err);
		if (!CHECK(rc == 0 && model_total_params(&plan.model, false) == 111744,
				"relative: model path resolved next to the plan file"))
			printf("  rc %d: %s\n", rc, err);
		unlink(mpath);
		unlink(ppath);
		rmdir(dir);
	}
}

/* A model listed as blocks: per-block widths and MLP types, model keys as block defaults,
 * and errors at the offending key. */
#define VLM_TOP "model:\n  name: vlm\n  hidden_size: 64\n  vocab_size: 100\n  hidden_act: silu\n" \
	"  tie_word_embeddings: false\n  num_attention_heads: 4\n"
#define TAIL "cluster: dgx-h100\ndevices: 8\n"

static void test_blocks(void)
{
	char err[ERRLEN];
	/* test_model.c's tiny VLM: 2 encoder layers 32 wide (plain MLP 128), 3 decoder layers at
	 * the model's width (GQA 4/2 of 16, gated MLP 256): 222400 parameters */
	int rc = load(VLM_TOP "  blocks:\n"
			"    - {block: dense, layers: 2, hidden_size: 32, hidden_act: gelu, intermediate_size: 128}\n"
			"    - {block: dense, layers: 3, num_key_value_heads: 2, intermediate_size: 256}\n" TAIL, err);
	if (!CHECK(rc == 0, "blocks: a model with blocks loads"))
		printf("  %s\n", err);
	const model_t *m = &plan.model;
	CHECK(rc == 0 && m->hidden == 64 && m->gated && !m->tied && m->layers == 5 && m->nkinds == 2 &&
			m->nruns == 2 && m->kind[0].hidden == 32 && m->kind[0].mlp == MLP_PLAIN && m->kind[0].head_dim == 8 &&
			m->kind[1].hidden == 0 && m->kind[1].mlp == MLP_MODEL && m->kind[1].head_dim == 16 &&
			m->kind[1].kv_heads == 2, "blocks: widths, MLP types, head_dim from the block's own width");
	CHECK(rc == 0 && model_total_params(m, false) == 222400, "blocks: 222400 parameters, as counted by hand");
	/* the same shape twice is one kind; a width equal to the model's is kept as written */
	rc = load(VLM_TOP "  blocks:\n    - {block: dense, layers: 2, intermediate_size: 256}\n"
			"    - {block: dense, layers: 1, hidden_size: 64, intermediate_size: 256}\n"
			"    - {block: dense, layers: 3, intermediate_size: 256}\n" TAIL, err);
	CHECK(rc == 0 && m->nkinds == 2 && m->nruns == 3 && m->run[2].kind == 0 && m->kind[1].hidden == 64 &&
			model_layer_params(m, 0).attn == model_layer_params(m, 1).attn,
			"blocks: equal shapes share a kind; hidden_size = the model's is kept and costs the same");
	/* MoE, MLA and MTP blocks, with model keys as defaults for the MoE ones */
	rc = load(VLM_TOP "  num_experts_per_tok: 2\n  moe_intermediate_size: 64\n  blocks:\n"
			"    - {block: dense, intermediate_size: 256}\n"
			"    - {block: moe, layers: 3, n_routed_experts: 8, hidden_size: 128}\n"
			"    - {block: mla, kv_lora_rank: 32, q_lora_rank: 48, qk_nope_head_dim: 16, qk_rope_head_dim: 8,"
			" v_head_dim: 16, intermediate_size: 256}\n"
			"    - {block: moe, mtp: true, n_routed_experts: 8}\n" TAIL, err);
	if (!CHECK(rc == 0 && m->layers == 5 && m->mtp_layers == 1 && m->nkinds == 4 && m->kind[1].experts == 8 &&
			m->kind[1].topk == 2 && m->kind[1].expert_ffn == 64 && m->kind[1].hidden == 128 &&
			m->kind[2].attn == ATTN_MLA && m->kind[2].experts == 0 && m->kind[3].mtp,
			"blocks: moe, mla and mtp blocks; model keys are the MoE blocks' defaults"))
		printf("  %s\n", err);

	/* errors name the field at its position */
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, hidden_size: 0, intermediate_size: 128}\n" TAIL, 2, 2,
			"blocks error: hidden_size 0", "p.yaml:9:35:", "hidden_size must be between 1", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, hidden_size: -32, intermediate_size: 128}\n" TAIL, 2, 2,
			"blocks error: negative hidden_size", "p.yaml:9:35:", "hidden_size must be between 1", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, hidden_size: 30, intermediate_size: 128}\n" TAIL, 2, 2,
			"blocks error: a width the heads do not divide (head_dim implied)", "p.yaml:9:35:",
			"hidden_size 30 is not divisible by num_attention_heads 4", "head_dim", NULL);
	rc = load(VLM_TOP "  blocks:\n    - {block: dense, hidden_size: 30, head_dim: 8, intermediate_size: 128}\n" TAIL,
			err);
	CHECK(rc == 0 && m->kind[0].hidden == 30 && m->kind[0].head_dim == 8,
			"blocks: a width the heads do not divide is fine with head_dim");
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, hidden_size: 2000000, intermediate_size: 128}\n" TAIL, 2,
			2, "blocks error: implausible hidden_size", "hidden_size", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, hidden_size: wide}\n" TAIL, 2, 2,
			"blocks error: non-integer hidden_size", "p.yaml:9:35:", "hidden_size", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, hidden_act: tanh}\n" TAIL, 2, 2,
			"blocks error: unknown hidden_act", "p.yaml:9:34:", "hidden_act 'tanh'", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, n_routed_experts: 8}\n" TAIL, 2, 2,
			"blocks error: an expert key in a dense block", "p.yaml:9:22:", "unknown key 'n_routed_experts'",
			"dense block", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: conv}\n" TAIL, 2, 2, "blocks error: unknown block kind",
			"p.yaml:9:15:", "dense, moe or mla", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {layers: 2}\n" TAIL, 2, 2, "blocks error: no block kind",
			"p.yaml:9:7:", "no 'block' key", NULL);
	expect_error(VLM_TOP "  blocks:\n    - dense\n" TAIL, 2, 2, "blocks error: a block that is not a mapping",
			"p.yaml:9:7:", "a block must be a mapping", NULL);
	expect_error(VLM_TOP "  blocks: []\n" TAIL, 2, 2, "blocks error: no blocks", "p.yaml:8:11:", "non-empty list",
			NULL);
	expect_error(VLM_TOP "  num_hidden_layers: 5\n  blocks:\n    - {block: dense}\n" TAIL, 2, 2,
			"blocks error: a layout key beside blocks", "p.yaml:8:22:", "num_hidden_layers does not apply", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: moe}\n" TAIL, 2, 2, "blocks error: moe without experts",
			"p.yaml:9:7:", "needs n_routed_experts", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, mtp: true}\n    - {block: dense}\n" TAIL, 2, 2,
			"blocks error: MTP blocks before others", "p.yaml:10:7:", "must come last", NULL);
	expect_error("model:\n  vocab_size: 100\n  blocks:\n    - {block: dense, hidden_size: 64, num_attention_heads: 4}\n"
			TAIL, 2, 2, "blocks error: the model's own hidden_size is required", "p.yaml:2:3:",
			"missing hidden_size", NULL);
	expect_error(VLM_TOP "  blocks:\n    - {block: dense, layers: 0}\n" TAIL, 2, 2, "blocks error: zero layers",
			"p.yaml:9:30:", "layers must be between 1", NULL);
}

/* plan_set: the command-line overrides */
static void test_plan_set(void)
{
	char err[ERRLEN];
	if (load(HEAD, err)) {
		CHECK(0, "plan_set: base plan loads");
		return;
	}
	static const struct { const char *key, *val, *needle; } bad[] = {
		{"tp", "0", "tp"}, {"tp", "-2", "tp"}, {"tp", "2.5", "integer"}, {"tp", "abc", "integer"},
		{"tp", "", "tp"}, {"tp", "4611686018427387904", "between"}, {"pp", "99999999999999999999", "pp"},
		{"zero", "4", "zero"}, {"zero", "-1", "zero"}, {"budget", "nan", "budget"}, {"budget", "-1", "budget"},
		{"budget", "inf", "budget"}, {"budget", "0", "budget"}, {"budget", "12x", "budget"},
		{"recompute", "partial", "none, selective, full"}, {"schedule", "2f2b", "gpipe"},
		{"precision", "fp6", "bf16"}, {"sp", "maybe", "true or false"}, {"devices", "0", "devices"},
		{"frobnicate", "1", "unknown strategy key 'frobnicate'"}, {"vpp", "2048", "vpp"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		int rc = plan_set(&plan, bad[i].key, bad[i].val, err, sizeof err);
		if (!CHECK(rc == -1 && strstr(err, bad[i].needle), check_fmt("plan_set: rejects %s=%s", bad[i].key, bad[i].val)))
			printf("  rc %d, err \"%s\"\n", rc, err);
	}
	CHECK(plan.strategy.tp == 1 && plan.strategy.zero == 1 && plan.budget_gib == 0,
			"plan_set: rejected values leave the plan unchanged");
	CHECK(plan_set(&plan, "tp", "4", err, sizeof err) == 0 && plan.strategy.tp == 4, "plan_set: tp=4");
	CHECK(plan_set(&plan, "mbs", "2", err, sizeof err) == 0 && plan.strategy.micro_batch == 2, "plan_set: mbs alias");
	CHECK(plan_set(&plan, "budget", "70.5", err, sizeof err) == 0 && plan.budget_gib == 70.5, "plan_set: budget");
	CHECK(plan_set(&plan, "sp", "false", err, sizeof err) == 0 && !plan.strategy.sp, "plan_set: sp=false");
	CHECK(plan_set(&plan, "schedule", "zb-h1", err, sizeof err) == 0 && plan.strategy.schedule == SCHED_ZBH1,
			"plan_set: schedule zb-h1");
	CHECK(plan_set(&plan, "devices", "64", err, sizeof err) == 0 && plan.devices == 64, "plan_set: devices");
}

/* Which layers are MoE, in each family's words: DeepSeek counts from zero past the first
 * dense layers (moe_layer_freq), Qwen2/3-MoE and Llama 4 from one ((l + 1) % step == 0)
 * minus mlp_only_layers, Llama 4's moe_layers lists them; a multimodal file nests the
 * language model under text_config. */
#define MOE_TOP "model:\n  name: m\n  hidden_size: 64\n  intermediate_size: 256\n  num_hidden_layers: 8\n" \
	"  num_attention_heads: 4\n  vocab_size: 100\n  hidden_act: silu\n  num_experts: 4\n" \
	"  num_experts_per_tok: 1\n  moe_intermediate_size: 32\n"

/* The layers of the loaded plan's model that are MoE (local: that attend locally), as a
 * bit mask. */
static unsigned layer_mask(bool local)
{
	unsigned mask = 0;
	for (int l = 0; l < plan.model.layers; l++) {
		const layer_kind *t = &plan.model.kind[model_layer_kind(&plan.model, l)];
		if (local ? t->window > 0 || t->chunk > 0 : t->experts > 0)
			mask |= 1u << l;
	}
	return mask;
}

/* Loading text must succeed with the MoE (local: local-attention) layers in want; returns
 * the load's result. */
static int expect_mask(const char *text, bool local, unsigned want, const char *name)
{
	char err[ERRLEN];
	int rc = load(text, err);
	if (!CHECK(rc == 0 && layer_mask(local) == want, name))
		printf("  rc %d, mask %#x, err \"%s\"\n", rc, rc ? 0 : layer_mask(local), err);
	return rc;
}

static void test_moe_layouts(void)
{
	char err[ERRLEN];
	expect_mask(MOE_TOP TAIL, false, 0xff, "moe layout: no layout key makes every layer MoE");
	expect_mask(MOE_TOP "  first_k_dense_replace: 1\n  moe_layer_freq: 2\n" TAIL, false, 0x54,
			"moe layout: DeepSeek rule l >= 1 and l % 2 == 0 gives 2, 4, 6");
	expect_mask(MOE_TOP "  decoder_sparse_step: 2\n" TAIL, false, 0xaa,
			"moe layout: decoder_sparse_step 2 gives 1, 3, 5, 7 ((l + 1) % 2 == 0)");
	expect_mask(MOE_TOP "  interleave_moe_layer_step: 4\n" TAIL, false, 0x88,
			"moe layout: interleave_moe_layer_step 4 gives 3, 7");
	int rc = expect_mask(MOE_TOP "  decoder_sparse_step: 1\n  mlp_only_layers: [0, 5]\n" TAIL, false, 0xde,
			"moe layout: mlp_only_layers [0, 5] are dense");
	if (rc == 0) {
		int dense = model_layer_kind(&plan.model, 5);
		CHECK(plan.model.kind[dense].ffn == 256 && plan.model.kind[model_layer_kind(&plan.model, 1)].expert_ffn == 32,
				"moe layout: a listed dense layer has intermediate_size, the MoE ones moe_intermediate_size");
	}
	expect_mask(MOE_TOP "  moe_layers: [1, 2, 6]\n  decoder_sparse_step: 4\n" TAIL, false, 0x46,
			"moe layout: moe_layers lists the MoE layers, over any step");
	expect_mask(MOE_TOP "  moe_layers: null\n  interleave_moe_layer_step: 2\n" TAIL, false, 0xaa,
			"moe layout: moe_layers null is absent");
	expect_error(MOE_TOP "  mlp_only_layers: [3, 8]\n" TAIL, 2, 2,
			"moe layout: mlp_only_layers past the last layer is an error naming it", "mlp_only_layers",
			"layer 8 of a 8-layer model", NULL);
	expect_error(MOE_TOP "  moe_layers: 3\n" TAIL, 2, 2, "moe layout: moe_layers must be a list", "moe_layers",
			"list of layer indices", "p.yaml:", NULL);
	expect_error(MOE_TOP "  moe_layers: [1]\n  mlp_only_layers: [2]\n" TAIL, 2, 2,
			"moe layout: moe_layers and mlp_only_layers together are refused", "cannot be given with", NULL);
	expect_error(MOE_TOP "  mlp_only_layers: [-1]\n" TAIL, 2, 2, "moe layout: a negative layer index is refused",
			"mlp_only_layers", NULL);
	expect_error(MOE_TOP "  decoder_sparse_step: 0\n" TAIL, 2, 2, "moe layout: decoder_sparse_step 0 is refused",
			"decoder_sparse_step", NULL);
	expect_error(VLM_TOP "  decoder_sparse_step: 2\n  blocks:\n    - {block: dense, layers: 2, intermediate_size: 64}\n"
			TAIL, 2, 2, "moe layout: a layout key does not apply to a model with blocks", "decoder_sparse_step",
			"does not apply", NULL);

	/* Llama 4: intermediate_size is the experts' width, intermediate_size_mlp the dense
	 * layers', one shared expert per MoE layer; the keys nest under text_config */
	rc = load("model:\n  model_type: llama4\n  tie_word_embeddings: false\n  text_config:\n"
			"    model_type: llama4_text\n    hidden_size: 64\n    intermediate_size: 32\n"
			"    intermediate_size_mlp: 256\n    num_hidden_layers: 4\n    num_attention_heads: 4\n"
			"    num_key_value_heads: 2\n    head_dim: 16\n    vocab_size: 100\n    hidden_act: silu\n"
			"    num_local_experts: 8\n    num_experts_per_tok: 1\n    interleave_moe_layer_step: 2\n"
			"  vision_config: {hidden_size: 1408}\n" TAIL, err);
	if (CHECK(rc == 0, "llama4 layout: a text_config model loads")) {
		const model_t *m = &plan.model;
		const layer_kind *moe = &m->kind[model_layer_kind(m, 1)], *dense = &m->kind[model_layer_kind(m, 0)];
		CHECK(layer_mask(false) == 0xa && m->hidden == 64 && !m->tied && moe->experts == 8 && moe->expert_ffn == 32 &&
				moe->shared == 1 && moe->ffn == 0 && dense->ffn == 256 && dense->experts == 0,
				"llama4 layout: layers 1, 3 MoE (32 wide, 1 shared), 0, 2 dense 256 wide, untied");
	} else {
		printf("  %s\n", err);
	}
	/* tie_word_embeddings, when absent, is the family's default: untied for llama/qwen/...,
	 * tied for the others (Hugging Face's base class) */
	rc = load(MOE_TOP "  model_type: qwen3_moe\n" TAIL, err);
	CHECK(rc == 0 && !plan.model.tied, "tie default: qwen3_moe without the key is untied");
	rc = load(MOE_TOP "  model_type: gemma\n" TAIL, err);
	CHECK(rc == 0 && plan.model.tied, "tie default: gemma without the key is tied");
	rc = load(MOE_TOP "  model_type: llama\n  tie_word_embeddings: true\n" TAIL, err);
	CHECK(rc == 0 && plan.model.tied, "tie default: an explicit key wins over the family");
	/* a text_config does not override a top level that is itself a language model */
	rc = load(MOE_TOP "  text_config: {hidden_size: 4096}\n" TAIL, err);
	CHECK(rc == 0 && plan.model.hidden == 64, "text_config: ignored when the top level has hidden_size");
}

/* Which layers attend locally (sliding window or chunks), in each family's words. */
#define LOC_TOP "model:\n  name: m\n  hidden_size: 64\n  intermediate_size: 256\n  num_hidden_layers: 6\n" \
	"  num_attention_heads: 4\n  vocab_size: 100\n  hidden_act: silu\n"

static void test_local_layouts(void)
{
	char err[ERRLEN];
	model_t m;
	int rc = plan_load_model(&m, "mistral-7b", &paths, err, sizeof err);
	CHECK(rc == 0 && m.nkinds == 1 && m.kind[0].window == 4096, "local: mistral-7b has a 4096 window on every layer");
	rc = plan_load_model(&m, "tests/fixtures/hf/mixtral-8x7b.json", &paths, err, sizeof err);
	CHECK(rc == 0 && m.kind[model_layer_kind(&m, 0)].window == 0, "local: mixtral's sliding_window null is full attention");
	rc = plan_load_model(&m, "tests/fixtures/hf/qwen2.5-72b.json", &paths, err, sizeof err);
	CHECK(rc == 0 && m.kind[0].window == 0, "local: qwen2.5's sliding_window without use_sliding_window is off");
	rc = plan_load_model(&m, "tests/fixtures/hf/llama4-scout.json", &paths, err, sizeof err);
	int ok = rc == 0;
	for (int l = 0; ok && l < m.layers; l++)
		ok = m.kind[model_layer_kind(&m, l)].chunk == ((l + 1) % 4 ? 8192 : 0);
	CHECK(ok, "local: llama4-scout chunks 8192 on every layer but each 4th (NoPE, global)");
	/* Gemma 3 27B's real file: its text_config leaves vocab_size and the pattern to the
	 * config class (262,208 tokens; every 6th layer global, window 1024); gpt-oss-120b lists
	 * layer_types, alternating 128-token windows with full attention */
	rc = plan_load_model(&m, "tests/fixtures/hf/gemma3-27b.json", &paths, err, sizeof err);
	ok = rc == 0 && m.layers == 62 && m.vocab == 262208 && m.tied;
	for (int l = 0; ok && l < m.layers; l++)
		ok = m.kind[model_layer_kind(&m, l)].window == ((l + 1) % 6 ? 1024 : 0);
	if (!CHECK(ok, "local: gemma3-27b loads as shipped: vocab 262208, tied, 1024 window but on every 6th layer"))
		printf("  %s\n", err);
	rc = plan_load_model(&m, "tests/fixtures/hf/gpt-oss-120b.json", &paths, err, sizeof err);
	ok = rc == 0 && m.layers == 36 && !m.tied;
	for (int l = 0; ok && l < m.layers; l++) {
		const layer_kind *t = &m.kind[model_layer_kind(&m, l)];
		ok = t->window == (l % 2 ? 0 : 128) && t->experts == 128 && t->topk == 4 && t->expert_ffn == 2880;
	}
	if (!CHECK(ok, "local: gpt-oss-120b alternates 128-token windows and full attention, 128 experts top-4"))
		printf("  %s\n", err);
	expect_mask(LOC_TOP "  sliding_window: 16\n" TAIL, true, 0x3f, "local: a window alone applies to every layer");
	expect_mask(LOC_TOP "  model_type: gemma2\n  sliding_window: 16\n" TAIL, true, 0x15,
			"local: gemma2 alternates, even layers local");
	expect_mask(LOC_TOP "  sliding_window: 16\n  sliding_window_pattern: 3\n" TAIL, true, 0x1b,
			"local: sliding_window_pattern 3 makes layers 2 and 5 global");
	expect_mask(LOC_TOP "  sliding_window: 16\n  layer_types: [sliding_attention, full_attention, sliding_attention,\n"
			"    full_attention, full_attention, chunked_attention]\n" TAIL, true, 0x25, "local: layer_types lists each layer's attention");
	expect_mask(LOC_TOP "  model_type: qwen2\n  sliding_window: 16\n  use_sliding_window: true\n  max_window_layers: 4\n"
			TAIL, true, 0x30, "local: qwen2 use_sliding_window from max_window_layers on");
	rc = load(LOC_TOP "  layer_types: [full_attention]\n" TAIL, err);
	CHECK(rc == 0 && layer_mask(true) == 0, "local: layer_types without a window is full attention (not checked)");
	expect_error(LOC_TOP "  sliding_window: 16\n  layer_types: [full_attention]\n" TAIL, 2, 2,
			"local: layer_types of the wrong length is an error", "layer_types", "one type per layer (6)", NULL);
	expect_error(LOC_TOP "  sliding_window: 16\n  layer_types: [linear_attention, full_attention, full_attention,\n"
			"    full_attention, full_attention, full_attention]\n" TAIL, 2, 2,
			"local: an attention type the model does not know is named", "linear_attention", "not modelled", NULL);
	expect_error(LOC_TOP "  sliding_window: -4\n" TAIL, 2, 2, "local: a negative window is refused", "sliding_window",
			NULL);
	/* blocks carry their own window; 0 turns the model's off */
	expect_mask(VLM_TOP "  sliding_window: 32\n  blocks:\n    - {block: dense, layers: 2, intermediate_size: 64}\n"
			"    - {block: dense, layers: 1, intermediate_size: 64, sliding_window: 0}\n" TAIL, true, 0x3, "local: blocks inherit the model's window, sliding_window 0 is full");
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");

	test_errors();
	test_good_plans();
	test_ranges_and_stages();
	test_hf();
	test_inline();
	test_blocks();
	test_moe_layouts();
	test_local_layouts();
	test_plan_set();
	return check_done();
}
