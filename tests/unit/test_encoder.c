/* Unit tests for a vision encoder in front of the decoder (model.h: enc_tokens, enc_images,
 * proj_ffn, proj_merge): parameters, FLOPs, activations per image, stage-boundary bytes,
 * the validity rules, and the Qwen2-VL-7B preset's parameter count. Every figure is worked
 * out by hand in the comment beside it.
 *
 * The encoder: 3 layers of a ViT-L/14-shaped block (width 1024, 16 heads of 64, GELU MLP
 * 4096, biases), 2 images of 576 patches per sample (336-pixel CLIP images), a LLaVA-1.5
 * projector 1024 -> 4096 -> 4096; the decoder: 2 Llama-style layers (4096, GQA 32/8 of 128,
 * SwiGLU 14336). Dropout 0.1 as in Korthikanti's GPT-3, so Table 2's form applies. */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/comm.h"
#include "core/evaluate.h"
#include "core/model.h"
#include "core/strategy.h"
#include "io/export.h"
#include "io/plan.h"

#include <stdio.h>
#include <string.h>

static eval_result res, res2; /* large: keep them off the stack */

static void vlm(model_t *m, bool with_encoder, int proj_ffn)
{
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "vlm-enc");
	m->hidden = 4096;
	m->vocab = 32000;
	m->gated = true;
	m->hidden_dropout = m->attention_dropout = 0.1;
	m->kind[0] = (layer_kind){.hidden = 1024, .mlp = MLP_PLAIN, .heads = 16, .kv_heads = 16, .head_dim = 64,
		.ffn = 4096, .enc_tokens = 576, .enc_images = 2, .proj_ffn = proj_ffn};
	m->kind[1] = (layer_kind){.heads = 32, .kv_heads = 8, .head_dim = 128, .ffn = 14336};
	m->nkinds = 2;
	if (with_encoder)
		model_append(m, 0, 3);
	model_append(m, 1, 2);
}

static strategy_t strat(int tp, int pp, int seq)
{
	strategy_t s = strat_default();
	s.dp = 1;
	s.tp = tp;
	s.pp = pp;
	s.global_batch = 1;
	s.seq = seq;
	return s;
}

static void test_params(void)
{
	static model_t m, d;
	vlm(&m, true, 4096);
	vlm(&d, false, 4096);
	/* per encoder layer: QKV 1024 x 3072 + 3072 and out 1024 x 1024 + 1024 = 4,198,400;
	 * MLP 2 x 1024 x 4096 + 4096 + 1024 = 8,393,728; two LayerNorms 4 x 1024 = 4,096:
	 * 12,596,224. Projector 1024 x 4096 + 4096 + 4096 x 4096 + 4096 = 20,979,712.
	 * 3 x 12,596,224 + 20,979,712 = 58,768,384 */
	CHECK(model_projector_params(&m, 0) == 20979712.0, "encoder: projector 1024 -> 4096 -> 4096 has 20,979,712 parameters");
	CHECK(model_total_params(&m, true) - model_total_params(&d, true) == 58768384.0,
			"encoder: 3 ViT-L layers and the projector add 58,768,384 parameters");
	CHECK(model_kind_count(&m, 0) == 3 && model_kind_count(&m, 1) == 2, "encoder: layers counted per kind");
	CHECK(!model_uniform(&m), "encoder: a model with an encoder is not uniform");
}

/* Korthikanti et al. 2022 Table 2 per image: the encoder sees b x images sequences of
 * s = 576 patches; attention scores are per image (5as/h with s = 576, not 1152). */
static void test_activations(void)
{
	static model_t m;
	cluster_t c = fixture_cluster();
	vlm(&m, true, 0);
	strategy_t st = strat(1, 1, 4096);
	st.flash = false;
	st.sp = false;
	/* s b h (34 + 5 a s / h) = 576 x 2 x 1024 x (34 + 5 x 16 x 576 / 1024) = 1,179,648 x 79 */
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_NONE) == 93192192.0,
			"encoder: activations sbh(34 + 5as/h) per image: 93,192,192 bytes");
	/* full recompute keeps the 1024-wide input of both images: 2 s b h */
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_FULL) == 2.0 * 576 * 2 * 1024,
			"encoder: full recompute keeps 2sbh of the patches");
	/* the projector's third on each layer: its input (1152 x 1024) and the GELU's input and
	 * output (1152 x 4096, 2 + 2 bytes) in 16 bits, / 3 = 1152 x 18432 / 3 = 7,077,888 */
	vlm(&m, true, 4096);
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_NONE) == 93192192.0 + 7077888.0,
			"encoder: each layer keeps a third of the projector's activations (7,077,888 bytes)");
}

/* Model FLOPs: 3 x forward; forward = 2 x parameters x tokens + the attention core, which
 * for an encoder is the whole 576 x 576 score matrix per image (no causal half). */
static void test_flops(void)
{
	static model_t m, d;
	cluster_t c = fixture_cluster();
	vlm(&m, true, 4096);
	vlm(&d, false, 4096);
	strategy_t st = strat(1, 1, 4096);
	int ok = eval_run(&m, &c, 1, &st, 0, &res) == 0 && eval_run(&d, &c, 1, &st, 0, &res2) == 0;
	/* per layer: linear 2 x 1152 x 12,592,128 = 29,012,262,912 (norms excluded, as for
	 * the decoder); core 4 x 2 x 576 x 576 x 16 x 64 = 2,717,908,992; three layers:
	 * 95,190,515,712. Projector: 2 x 1152 x 20,971,520 = 48,318,382,080. Forward
	 * 143,508,897,792, x 3 = 430,526,693,376 */
	double want = 430526693376.0;
	CHECK(ok, "encoder: the model and its decoder alone evaluate");
	CHECK_NEAR(res.model_flops - res2.model_flops, want, 1e-12, "encoder: adds 430,526,693,376 model FLOPs per sample");
	/* projector_merge 4 (Qwen2-VL): 288 merged tokens of width 4096 through 4096 -> 4096:
	 * 2 x 288 x (4096 x 4096 + 4096 x 4096) = 19,327,352,832 forward, against the unmerged
	 * 48,318,382,080 */
	m.kind[0].proj_merge = 4;
	ok = eval_run(&m, &c, 1, &st, 0, &res) == 0;
	double merged = 3.0 * (95190515712.0 + 19327352832.0);
	CHECK(ok, "encoder: the merged projector evaluates");
	CHECK_NEAR(res.model_flops - res2.model_flops, merged, 1e-12, "encoder: a 2 x 2 merge projects 288 tokens of 4096");
}

/* A stage boundary inside the encoder carries both images' patches at width 1024; the one
 * between encoder and decoder the wider side (the decoder's 4096 tokens x 4096). */
static void test_p2p(void)
{
	static model_t m;
	cluster_t c = fixture_cluster();
	vlm(&m, true, 0);
	strategy_t s = strat(1, 2, 4096);
	s.sp = false;
	comm_link intra = {.bw = c.node_gbps * 1e9 * c.eff.coll_intra, .lat = 2e-6, .inter = 0};
	struct { int first; double bytes; const char *name; } cut[] = {
		{2, 2.0 * 576 * 1024 * 2, "encoder: a boundary inside the encoder sends 2 x 576 x 1024 x 2 bytes"},
		{3, 4096.0 * 4096 * 2, "encoder: the encoder/decoder boundary is priced at the decoder's side"},
	};
	for (int i = 0; i < 2; i++) {
		s.nchunks = 2;
		s.chunk_layers[0] = (int16_t)cut[i].first;
		s.chunk_layers[1] = (int16_t)(5 - cut[i].first);
		int ok = eval_run(&m, &c, 2, &s, 0, &res) == 0;
		CHECK(ok && eval_stage_time_of(&res, 0).pp == 2 * comm_p2p(intra, cut[i].bytes), cut[i].name);
	}
}

/* Flash attention: a decoder's causal kernel does half the score matrix at n/(n+1) of the
 * kernel's efficiency (n = 2048/128 key tiles, the diagonal tiles), an encoder's the whole
 * matrix at the full efficiency. One image of 2048 patches against a causal layer of the
 * same shape over seq 2048: the forward differs by
 * F/(peak x flash) x (1 - (1/2)(n + 1)/n), F = 4 x 2048^2 x 16 x 64 = 17,179,869,184. */
static void test_bidirectional(void)
{
	static model_t m, d;
	static eval_costs ea, eb;
	cluster_t c = fixture_cluster();
	vlm(&m, true, 0);
	m.kind[0].enc_tokens = 2048;
	m.kind[0].enc_images = 1;
	d = m;
	d.kind[0].enc_tokens = d.kind[0].enc_images = 0;
	d.nruns = d.layers = 0;
	model_append(&d, 0, 3); /* the same layers, causal over the text: a decoder's */
	model_append(&d, 1, 2);
	strategy_t st = strat(1, 1, 2048);
	char why[256];
	int ok = eval_costs_get(&m, &c, 1, &st, 0, &ea, why, sizeof why) == 0 &&
		eval_costs_get(&d, &c, 1, &st, 0, &eb, why, sizeof why) == 0;
	double n = 2048.0 / 128, F = 4.0 * 2048 * 2048 * 16 * 64;
	double want = F / (c.peak_tflops[PREC_BF16] * 1e12 * c.eff.flash) * (1 - 0.5 * (n + 1) / n);
	CHECK(ok, "encoder: both layer tables price");
	CHECK_NEAR(ea.kind[0].fwd - eb.kind[0].fwd, want, 1e-9, "encoder: flash runs the whole score matrix, not the causal half");
	CHECK_NEAR(ea.kind[0].bwd - eb.kind[0].bwd, 2.5 * want, 1e-9, "encoder: backward 2.5x the forward's difference");
}

static void expect_model_error(const model_t *m, const char *needle, const char *name)
{
	char why[256] = "";
	int rc = model_check(m, why, sizeof why);
	if (!CHECK(rc != 0 && strstr(why, needle), name))
		printf("  rc %d, why \"%s\"\n", rc, why);
}

static void test_rules(void)
{
	static model_t m;
	cluster_t c = fixture_cluster();
	char why[256];
	vlm(&m, true, 4096);
	CHECK(model_check(&m, why, sizeof why) == 0, "encoder: the model checks");
	model_append(&m, 0, 1);
	expect_model_error(&m, "must come before the decoder", "encoder: a layer after the decoder is refused");
	vlm(&m, true, 0);
	m.nruns = m.layers = 0;
	model_append(&m, 0, 3);
	expect_model_error(&m, "needs a decoder", "encoder: an encoder alone is refused");
	vlm(&m, true, 4096);
	m.kind[0].proj_merge = 5;
	expect_model_error(&m, "does not divide image_tokens", "encoder: a merge not dividing the patches is refused");
	vlm(&m, true, 0);
	m.kind[1].proj_ffn = 64;
	expect_model_error(&m, "belongs to an encoder", "encoder: a projector on a decoder block is refused");
	vlm(&m, true, 0);
	m.kind[0].enc_images = 0;
	expect_model_error(&m, "both or neither", "encoder: image_tokens without images is refused");
	vlm(&m, true, 0);
	m.kind[0].window = 128;
	expect_model_error(&m, "full attention", "encoder: a windowed encoder is refused");
	/* CP deals images out whole: 2 images per micro-batch over cp 4 do not split */
	vlm(&m, true, 0);
	strategy_t s = strat(1, 1, 4096);
	s.cp = 4;
	int rc = eval_run(&m, &c, 4, &s, 0, &res);
	CHECK(rc == -1 && strstr(res.why, "does not divide the 2 images"), "encoder: cp 4 over 2 images is refused");
	s.cp = 2;
	CHECK(eval_run(&m, &c, 2, &s, 0, &res) == 0, "encoder: cp 2 over 2 images is valid");
}

/* The preset: Qwen2-VL-7B counts 8,289,867,776 (the safetensors' 8,291,375,616 less the
 * patch embedding's 1,505,280 and the merger's LayerNorm 2,560): the decoder 7,615,616,512,
 * 32 ViT blocks of 19,677,440 (629,678,080) and the merger's MLP 44,573,184. */
static void test_preset(void)
{
	static plan_t p;
	paths_t paths;
	fixture_paths(&paths);
	int ok = fixture_load(&p, &paths, "model: qwen2-vl-7b\ncluster: dgx-h100\ndevices: 8\n"
			"strategy: {tp: 2, pp: 2, global_batch: 16, seq_length: 4096}\n") == 0;
	CHECK(ok && model_total_params(&p.model, true) == 8289867776.0, "encoder: Qwen2-VL-7B counts 8,289,867,776");
	CHECK(ok && model_projector_params(&p.model, 0) == 44573184.0, "encoder: Qwen2-VL's merger MLP has 44,573,184");
	CHECK(ok && eval_run(&p.model, &p.cluster, p.devices, &p.strategy, 0, &res) == 0 && res.valid,
			"encoder: the Qwen2-VL-7B preset evaluates");
	/* no export target writes it, not even the nearest (the explorer's :export!) */
	for (int t = 0; ok && t < EXPORT_COUNT; t++) {
		char err[512] = "";
		FILE *f = tmpfile();
		int rc = f ? export_write(f, (export_target)t, &p, err, sizeof err) : 0;
		if (f)
			fclose(f);
		const char *why = "no launch for a model with a vision encoder: ";
		CHECK(rc == -1 && !strncmp(err, why, strlen(why)) && strlen(err) > strlen(why) + 20,
				check_fmt("encoder: export target %d refuses to write it, with the reason", t));
	}
}

int main(void)
{
	test_params();
	test_activations();
	test_flops();
	test_p2p();
	test_bidirectional();
	test_rules();
	test_preset();
	return check_done();
}
