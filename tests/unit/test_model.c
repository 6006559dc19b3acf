/* Unit tests for src/core/model.c: parameter counts against hand-computed values for tiny
 * models (also one whose layer kinds have their own widths and MLP types), against the
 * published figures of every preset, and layer-kind placement of MoE models. Presets are read from presets/models/ (the tests run from the repository root;
 * STRATA_DATA is pointed there so preset names resolve). */
#include "check.h"
#include "core/model.h"
#include "io/paths.h"
#include "io/plan.h"
#include "io/ydoc.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static paths_t paths;

/* A tiny dense config: h=64, 2 layers, 4 heads of 16, vocab 100, ffn 256. */
static model_config tiny(void)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "tiny");
	c.hidden = 64;
	c.ffn = 256;
	c.layers = 2;
	c.heads = 4;
	c.kv_heads = 4;
	c.vocab = 100;
	return c;
}

static int build(model_t *m, const model_config *c)
{
	char why[256];
	int rc = model_from_config(m, c, why, sizeof why);
	if (rc)
		printf("  model_from_config: %s\n", why);
	return rc;
}

/* ---- hand-computed counts ---------------------------------------------------------------
 * Conventions pinned here: attention = Q,K,V,O matrices (h x heads*hd, 2 x h x kv*hd,
 * heads*hd x h); plain MLP = 2 matrices, gated (SwiGLU) = 3; GELU models use LayerNorm
 * (scale + bias = 2h per norm), gated models RMSNorm (h per norm); two norms per layer plus
 * a final norm; embedding V*h, plus an LM head V*h unless tied. */
static void test_tiny_dense(void)
{
	model_t m;
	model_config c = tiny();

	/* plain MLP, MHA, untied, no biases:
	 *   attn 4h^2 = 16384, mlp 2*h*ffn = 32768, norms 2*2h = 256 -> 49408 per layer;
	 *   embedding + head 2*V*h = 12800, final LayerNorm 2h = 128;
	 *   total 2*49408 + 12800 + 128 = 111744. Active = total (no experts). */
	c.tied = false;
	if (CHECK(build(&m, &c) == 0, "tiny plain: builds")) {
		layer_params p = model_layer_params(&m, 0);
		CHECK(p.attn == 16384, "tiny plain: attention params 4h^2");
		CHECK(p.mlp_dense == 32768, "tiny plain: MLP params 2*h*ffn");
		CHECK(p.norms == 256, "tiny plain: two LayerNorms 4h");
		CHECK(p.experts_routed == 0 && p.experts_shared == 0 && p.router == 0 && p.extra == 0,
				"tiny plain: no expert/router/extra params");
		CHECK(model_params_sum(&p) == 49408, "tiny plain: layer sum 49408");
		CHECK(model_total_params(&m, false) == 111744, "tiny plain: total 111744");
		CHECK(model_active_params(&m) == 111744, "tiny plain: active == total for dense");
		CHECK(m.layers == 2 && m.mtp_layers == 0 && m.nkinds == 1, "tiny plain: 2 layers of one kind");
	}

	/* tied: the head shares the embedding -> 111744 - V*h = 105344 */
	c.tied = true;
	if (CHECK(build(&m, &c) == 0, "tiny tied: builds"))
		CHECK(model_total_params(&m, false) == 105344, "tiny tied: total 105344 (one V*h less)");

	/* GPT-style biases: + (qd + 2kvd + h) = 256 in attention, + (ffn + h) = 320 in the MLP
	 *   layer 49408 + 576 = 49984; untied total 2*49984 + 12800 + 128 = 112896 */
	c.tied = false;
	c.biases = true;
	if (CHECK(build(&m, &c) == 0, "tiny biases: builds")) {
		layer_params p = model_layer_params(&m, 0);
		CHECK(p.attn == 16384 + 256, "tiny biases: attention + QKV and output biases");
		CHECK(p.mlp_dense == 32768 + 320, "tiny biases: MLP + two biases");
		CHECK(model_total_params(&m, false) == 112896, "tiny biases: total 112896");
	}

	/* Qwen2-style: only the QKV projection has a bias: + qd + 2kvd = 192 per layer */
	c.biases = false;
	c.qkv_bias = true;
	if (CHECK(build(&m, &c) == 0, "tiny qkv bias: builds"))
		CHECK(model_total_params(&m, false) == 111744 + 2 * 192, "tiny qkv bias: total +2*192");
	c.qkv_bias = false;

	/* gated (SwiGLU, RMSNorm), GQA with 2 KV heads, tied:
	 *   attn h*(64 + 2*32) + 64*h = 12288, mlp 3*h*ffn = 49152, norms 2h = 128 -> 61568;
	 *   embedding V*h = 6400 (tied), final RMSNorm h = 64; total 2*61568 + 6464 = 129600 */
	c.gated = true;
	c.tied = true;
	c.kv_heads = 2;
	if (CHECK(build(&m, &c) == 0, "tiny gated GQA: builds")) {
		layer_params p = model_layer_params(&m, 0);
		CHECK(p.attn == 12288, "tiny gated GQA: attention with 2 KV heads 12288");
		CHECK(p.mlp_dense == 49152, "tiny gated GQA: three MLP matrices 49152");
		CHECK(p.norms == 128, "tiny gated GQA: two RMSNorms 2h");
		CHECK(model_total_params(&m, false) == 129600, "tiny gated GQA tied: total 129600");
	}
	/* same, untied: + V*h */
	c.tied = false;
	if (CHECK(build(&m, &c) == 0, "tiny gated GQA untied: builds"))
		CHECK(model_total_params(&m, false) == 136000, "tiny gated GQA untied: total 136000");

	/* MQA (one KV head): attn h*(64 + 2*16) + 64*h = 10240 */
	c.kv_heads = 1;
	if (CHECK(build(&m, &c) == 0, "tiny MQA: builds"))
		CHECK(model_layer_params(&m, 0).attn == 10240, "tiny MQA: attention 10240");

	/* explicit head_dim different from h/heads (Gemma/Qwen3 style): 4 heads of 32, kv 2:
	 * attn h*(128 + 2*64) + 128*h = 24576 */
	c.kv_heads = 2;
	c.head_dim = 32;
	if (CHECK(build(&m, &c) == 0, "tiny head_dim 32: builds"))
		CHECK(model_layer_params(&m, 0).attn == 24576, "tiny head_dim 32: attention 24576");
}

/* Invalid configs are refused with a reason naming the key. */
static void test_config_errors(void)
{
	model_t m;
	char why[256];
	model_config c = tiny();

	c.kv_heads = 3; /* does not divide 4 heads */
	why[0] = 0;
	CHECK(model_from_config(&m, &c, why, sizeof why) == -1 && strstr(why, "num_key_value_heads"),
			"config: kv heads not dividing heads is refused, naming the key");
	c = tiny();
	c.layers = 0;
	why[0] = 0;
	CHECK(model_from_config(&m, &c, why, sizeof why) == -1 && strstr(why, "num_hidden_layers"),
			"config: zero layers refused, naming the key");
	c = tiny();
	c.layers = MODEL_MAX_LAYERS + 1;
	CHECK(model_from_config(&m, &c, why, sizeof why) == -1, "config: too many layers refused");
	c = tiny();
	c.experts = 4;
	c.topk = 5;
	why[0] = 0;
	CHECK(model_from_config(&m, &c, why, sizeof why) == -1 && strstr(why, "num_experts_per_tok"),
			"config: top-k above the expert count refused");
}

/* ---- layer kinds of their own width and MLP type ------------------------------------------
 * A tiny vision-language shape: the model (embedding, head, final norm) is 64 wide and
 * gated; 2 encoder layers of width 32, 4 heads of 8, plain MLP 128 (LayerNorms), then 3
 * decoder layers at the model's width, GQA 4/2 heads of 16, gated MLP 256 (RMSNorms). */
static void two_widths(model_t *m)
{
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "tiny-vlm");
	m->hidden = 64;
	m->vocab = 100;
	m->gated = true;
	m->tied = false;
	m->kind[0] = (layer_kind){.hidden = 32, .mlp = MLP_PLAIN, .heads = 4, .kv_heads = 4, .head_dim = 8, .ffn = 128};
	m->kind[1] = (layer_kind){.heads = 4, .kv_heads = 2, .head_dim = 16, .ffn = 256};
	m->nkinds = 2;
	model_append(m, 0, 2);
	model_append(m, 1, 3);
}

static void test_kind_width(void)
{
	model_t m;
	char why[256];
	two_widths(&m);
	if (!CHECK(model_check(&m, why, sizeof why) == 0, "widths: a model with two widths is valid"))
		printf("  %s\n", why);
	CHECK(model_kind_hidden(&m, 0) == 32 && model_kind_hidden(&m, 1) == 64 && !model_kind_gated(&m, 0) &&
			model_kind_gated(&m, 1) && !model_uniform(&m), "widths: kind widths and MLP types resolve");
	CHECK(model_layer_hidden(&m, 1) == 32 && model_layer_hidden(&m, 2) == 64 && model_layer_hidden(&m, 5) == 0,
			"widths: layer widths by position (0 past the end)");
	/* encoder: attention h(qd + 2kvd) + qd h = 32*(32 + 64) + 32*32 = 4096 (= 4h^2);
	 *   MLP 2*32*128 = 8192; two LayerNorms 2*2*32 = 128 -> 12416 per layer */
	layer_params e = model_layer_params(&m, 0);
	CHECK(e.attn == 4096 && e.mlp_dense == 8192 && e.norms == 128 && model_params_sum(&e) == 12416,
			"widths: encoder layer 4096 + 8192 + 128 = 12416 at width 32, plain MLP");
	/* decoder: attention 64*(64 + 64) + 64*64 = 12288; gated MLP 3*64*256 = 49152; two
	 *   RMSNorms 2*64 = 128 -> 61568 per layer */
	layer_params d = model_layer_params(&m, 1);
	CHECK(d.attn == 12288 && d.mlp_dense == 49152 && d.norms == 128 && model_params_sum(&d) == 61568,
			"widths: decoder layer 12288 + 49152 + 128 = 61568 at the model's width, gated");
	/* embedding + untied head 2*V*h = 12800 and the final RMSNorm 64, at the model's width:
	 *   2*12416 + 3*61568 + 12864 = 222400 */
	CHECK(model_total_params(&m, false) == 222400 && model_active_params(&m) == 222400,
			"widths: total 2*12416 + 3*61568 + 12864 = 222400");

	/* the same layers in a model of the encoder's own width and type count the same */
	model_t v;
	memset(&v, 0, sizeof v);
	v.hidden = 32;
	v.vocab = 100;
	v.kind[0] = m.kind[0];
	v.kind[0].hidden = 0;
	v.kind[0].mlp = MLP_MODEL;
	v.nkinds = 1;
	model_append(&v, 0, 2);
	layer_params ve = model_layer_params(&v, 0);
	CHECK(!memcmp(&ve, &e, sizeof e), "widths: an encoder kind counts as a plain 32-wide model's layer");

	/* a width equal to the model's, or an MLP type equal to the model's, changes nothing */
	model_t u = m;
	u.kind[1].hidden = 64;
	u.kind[1].mlp = MLP_GATED;
	layer_params ud = model_layer_params(&u, 1);
	CHECK(!memcmp(&ud, &d, sizeof d) && model_total_params(&u, true) == model_total_params(&m, true),
			"widths: hidden = hidden_size and mlp = the model's type count as unset");
	CHECK(!model_kind_equal(&u.kind[1], &m.kind[1]) && !model_equal(&u, &m) && model_equal(&m, &m),
			"widths: kinds that set their width differ from kinds that do not (for saving)");

	/* out-of-range widths and types are refused, naming the kind */
	u = m;
	u.kind[0].hidden = -1;
	why[0] = 0;
	CHECK(model_check(&u, why, sizeof why) == -1 && strstr(why, "hidden_size") && strstr(why, "kind 0"),
			"widths: a negative kind width is refused, naming the field and the kind");
	u.kind[0].hidden = (1 << 20) + 1;
	CHECK(model_check(&u, why, sizeof why) == -1 && strstr(why, "hidden_size"), "widths: an implausible width is refused");
	u = m;
	u.kind[1].mlp = 7;
	CHECK(model_check(&u, why, sizeof why) == -1 && strstr(why, "MLP type"), "widths: an unknown MLP type is refused");
}

/* ---- MoE: counts and layer placement ------------------------------------------------------ */
static void test_tiny_moe(void)
{
	model_t m;
	model_config c = tiny();

	/* gated, MHA, untied; 4 experts of width 32, top-2, one shared expert;
	 * 6 layers, first_k_dense_replace = 1, moe_layer_freq = 2 (DeepSeek/HF rule: layer l is
	 * MoE when l >= first_k and l % freq == 0) -> kinds D D M D M D */
	c.gated = true;
	c.layers = 6;
	c.experts = 4;
	c.topk = 2;
	c.moe_ffn = 32;
	c.shared = 1;
	c.first_k_dense = 1;
	c.moe_freq = 2;
	if (!CHECK(build(&m, &c) == 0, "tiny MoE: builds"))
		return;
	static const int want[6] = {0, 0, 1, 0, 1, 0};
	int ok = 1;
	for (int l = 0; l < 6; l++)
		ok &= model_layer_kind(&m, l) == want[l];
	CHECK(ok, "tiny MoE: layer kinds D D M D M D (first_k_dense 1, freq 2)");
	CHECK(model_layer_kind(&m, 6) == -1, "tiny MoE: layer kind past the last layer is -1");
	CHECK(model_layer_kind(&m, -1) == -1, "tiny MoE: layer kind of a negative index is -1");
	int cnt[MODEL_MAX_KINDS];
	model_count_kinds(&m, 1, 5, cnt);
	CHECK(cnt[0] == 2 && cnt[1] == 2, "tiny MoE: count kinds in [1,5) = 2 dense, 2 MoE");

	/* MoE layer: attn 4h^2 = 16384; routed 4*3*h*32 = 24576; shared 3*h*32 = 6144;
	 * router h*4 = 256; norms 2h = 128. Dense layer: 16384 + 3*h*256 + 128 = 65664. */
	layer_params p = model_layer_params(&m, 1);
	CHECK(p.attn == 16384 && p.mlp_dense == 0, "tiny MoE: MoE layer has attention, no dense MLP");
	CHECK(p.experts_routed == 24576, "tiny MoE: routed experts 4*3*h*32");
	CHECK(p.experts_shared == 6144, "tiny MoE: shared expert 3*h*32");
	CHECK(p.router == 256, "tiny MoE: router h*experts");
	CHECK(model_params_sum(&p) == 47488, "tiny MoE: MoE layer sum 47488");
	/* active MoE layer: only top-2 of 4 routed experts: 47488 - 24576/2 = 35200 */
	CHECK(model_layer_active(&m, 1) == 35200, "tiny MoE: active MoE layer 35200");
	CHECK(model_layer_active(&m, 0) == 65664, "tiny MoE: active dense layer = its params");
	/* total: 4 dense + 2 MoE + 2*V*h + h = 4*65664 + 2*47488 + 12800 + 64 = 370496 */
	CHECK(model_total_params(&m, false) == 370496, "tiny MoE: total 370496");
	CHECK(model_active_params(&m) == 370496 - 2 * 12288, "tiny MoE: active = total - 2 layers x half the experts");

	/* Mixtral-like: no first_k/freq -> every layer MoE */
	c.first_k_dense = 0;
	c.moe_freq = 0;
	c.shared = 0;
	if (CHECK(build(&m, &c) == 0, "tiny all-MoE: builds")) {
		int all = 1;
		for (int l = 0; l < 6; l++)
			all &= model_layer_kind(&m, l) == 1;
		CHECK(all && m.nruns == 1, "tiny all-MoE: every layer MoE, one run");
	}

	/* MTP modules: counted only with with_mtp, placed after the main layers, not in layers */
	c.mtp = 1;
	if (CHECK(build(&m, &c) == 0, "tiny MTP: builds")) {
		CHECK(m.layers == 6 && m.mtp_layers == 1, "tiny MTP: 6 main layers + 1 MTP module");
		int k = model_layer_kind(&m, 6);
		CHECK(k >= 0 && m.kind[k].mtp, "tiny MTP: layer 6 is the MTP module");
		/* MTP module = a MoE layer + eh_proj 2h*h + two norms 2h */
		double extra = model_total_params(&m, true) - model_total_params(&m, false);
		CHECK(extra == 47488 - 6144 + 2.0 * 64 * 64 + 2 * 64, "tiny MTP: module = MoE layer + 2h^2 + 2h");
		CHECK(model_active_params(&m) < model_total_params(&m, false), "tiny MTP: active excludes MTP");
	}
}

/* ---- presets against published figures ----------------------------------------------------- */

/* published.<key> of a preset file, or -1 when absent. */
static double published(const char *path, const char *key)
{
	char err[512];
	yd_doc *d = yd_load_file(path, err, sizeof err);
	double v = -1;
	if (!d) {
		printf("  %s\n", err);
		return -1;
	}
	const yd_node *pub = yd_get(yd_root(d), "published");
	const yd_node *n = yd_get(pub, key);
	if (n && yd_double(d, n, key, 0, 1e6, &v, err, sizeof err))
		v = -1;
	yd_free(d);
	return v;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void test_presets_published(void)
{
	DIR *dir = opendir("presets/models");
	if (!CHECK(dir != NULL, "presets: presets/models is readable"))
		return;
	char names[64][64];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) && n < 64) {
		size_t l = strlen(e->d_name);
		if (l > 5 && l < 64 && !strcmp(e->d_name + l - 5, ".yaml")) {
			memcpy(names[n], e->d_name, l - 5);
			names[n][l - 5] = 0;
			n++;
		}
	}
	closedir(dir);
	qsort(names, n, sizeof names[0], cmp_str);
	CHECK(n >= 12, "presets: at least the 12 model presets of DESIGN.md");

	int moe = 0;
	for (int i = 0; i < n; i++) {
		char path[256], err[512];
		const char *name;
		model_t m;
		snprintf(path, sizeof path, "presets/models/%.63s.yaml", names[i]);
		name = check_fmt("preset %s: loads by name", names[i]);
		if (!CHECK(plan_load_model(&m, names[i], &paths, err, sizeof err) == 0, name)) {
			printf("  %s\n", err);
			continue;
		}
		double tot = published(path, "total_params_b");
		/* parameters the published total counts that the language model does not have (a
		 * multimodal checkpoint's vision tower), counted in the preset's comment */
		double other = published(path, "other_params_b");
		name = check_fmt("preset %s: has published.total_params_b", names[i]);
		if (CHECK(tot > 0, name)) {
			/* total without MTP modules (published totals count the main model) */
			name = check_fmt("preset %s: total params%s within 0.5%% of published %.2fB",
					names[i], other > 0 ? " and other_params_b" : "", tot);
			CHECK_NEAR(model_total_params(&m, false) / 1e9 + (other > 0 ? other : 0), tot, 0.005, name);
		}
		int is_moe = 0;
		for (int k = 0; k < m.nkinds; k++)
			is_moe |= m.kind[k].experts > 0;
		if (is_moe) {
			moe++;
			/* The published active figures are rounded to two or three significant digits
			 * (DeepSeek-V3's "37B" is a rounding of what we count as 37.5B; Mixtral's
			 * "13B"/"39B" likewise), hence the looser 2 % tolerance. */
			double act = published(path, "active_params_b");
			name = check_fmt("preset %s: MoE preset has published.active_params_b", names[i]);
			if (CHECK(act > 0, name)) {
				name = check_fmt("preset %s: active params within 2%% of published %.1fB",
						names[i], act);
				CHECK_NEAR(model_active_params(&m) / 1e9, act, 0.02, name);
			}
		}
	}
	CHECK(moe >= 3, "presets: at least three MoE presets (mixtral-8x7b, mixtral-8x22b, deepseek-v3)");

	/* every preset name of the contract (DESIGN.md section 3) exists */
	static const char *const want[] = {"gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b",
		"llama3-70b", "llama3-405b", "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-72b",
		"deepseek-v3"};
	int all = 1;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int found = 0;
		for (int j = 0; j < n; j++)
			found |= !strcmp(names[j], want[i]);
		if (!found)
			printf("  missing preset %s\n", want[i]);
		all &= found;
	}
	CHECK(all, "presets: all 12 contract model names present");
}

/* Exact checkpoint parameter counts (Hugging Face safetensors totals, quoted in the preset
 * comments). Llama-family layouts have no biases and RMSNorm, so the count is exact. */
static void test_exact_checkpoints(void)
{
	static const struct { const char *name; double params; } ck[] = {
		{"llama2-7b", 6738415616.0},   {"llama2-13b", 13015864320.0},
		{"llama2-70b", 68976648192.0}, {"llama3-8b", 8030261248.0},
		{"llama3-70b", 70553706496.0}, {"llama3-405b", 405853388800.0},
		{"mistral-7b", 7241732096.0},
	};
	for (size_t i = 0; i < sizeof ck / sizeof ck[0]; i++) {
		model_t m;
		char err[512];
		const char *name;
		name = check_fmt("checkpoint %s: exactly %.0f parameters", ck[i].name, ck[i].params);
		if (plan_load_model(&m, ck[i].name, &paths, err, sizeof err)) {
			CHECK(0, name);
			printf("  %s\n", err);
			continue;
		}
		if (!CHECK(model_total_params(&m, false) == ck[i].params, name))
			printf("  got %.0f\n", model_total_params(&m, false));
	}
}

/* DeepSeek-V3 (arXiv:2412.19437): 671B total for the main model (MTP excluded), 37B
 * activated per token; README_WEIGHTS.md: the MTP module adds 11.5B unique parameters
 * (it shares the embedding and the output head with the main model). */
static void test_deepseek_v3(void)
{
	model_t m;
	char err[512];
	if (!CHECK(plan_load_model(&m, "deepseek-v3", &paths, err, sizeof err) == 0, "deepseek-v3: loads")) {
		printf("  %s\n", err);
		return;
	}
	CHECK(m.layers == 61 && m.mtp_layers == 1, "deepseek-v3: 61 layers + 1 MTP module");
	CHECK(m.kind[model_layer_kind(&m, 0)].attn == ATTN_MLA, "deepseek-v3: MLA attention");
	CHECK(m.kind[model_layer_kind(&m, 2)].experts == 0 && m.kind[model_layer_kind(&m, 3)].experts == 256 &&
			m.kind[model_layer_kind(&m, 60)].experts == 256,
			"deepseek-v3: layers 0-2 dense (first_k_dense_replace 3), 3-60 MoE with 256 experts");
	CHECK_NEAR(model_total_params(&m, false), 671e9, 0.001, "deepseek-v3: 671B total without MTP (0.1%)");
	/* we count 37.5-37.6B; the paper rounds to 37B */
	CHECK_NEAR(model_active_params(&m), 37e9, 0.02, "deepseek-v3: ~37B active (2%, published figure rounded)");
	CHECK(model_active_params(&m) > 37e9 && model_active_params(&m) < 38e9,
			"deepseek-v3: active count between 37B and 38B");
	double mtp = model_total_params(&m, true) - model_total_params(&m, false);
	CHECK_NEAR(mtp, 11.5e9, 0.03, "deepseek-v3: MTP module ~11.5B (README_WEIGHTS.md)");
	/* MLA attention per layer, by hand (Q down 7168x1536 + norm + up 1536x128x192; KV down
	 * 7168x(512+64) + norm + up 512x128x(128+128); O 128x128x7168) = 187,107,328 */
	CHECK(model_layer_params(&m, model_layer_kind(&m, 0)).attn == 187107328.0,
			"deepseek-v3: MLA attention params per layer 187,107,328");
}

/* Hugging Face config.json fixtures load as models and match the YAML presets. */
static void test_hf_fixtures(void)
{
	static const char *const names[] = {"llama3-8b", "mixtral-8x7b", "qwen2.5-72b", "deepseek-v3", "llama4-scout",
		"llama4-maverick", "qwen3-30b-a3b"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		model_t hf, yaml;
		char path[256], err[512];
		const char *name;
		snprintf(path, sizeof path, "tests/fixtures/hf/%s.json", names[i]);
		name = check_fmt("hf %s: config.json loads", names[i]);
		if (!CHECK(plan_load_model(&hf, path, &paths, err, sizeof err) == 0, name)) {
			printf("  %s\n", err);
			continue;
		}
		if (plan_load_model(&yaml, names[i], &paths, err, sizeof err)) {
			printf("  %s\n", err);
			continue;
		}
		name = check_fmt("hf %s: total params equal the preset's", names[i]);
		CHECK(model_total_params(&hf, true) == model_total_params(&yaml, true), name);
		name = check_fmt("hf %s: active params equal the preset's", names[i]);
		CHECK(model_active_params(&hf) == model_active_params(&yaml), name);
		name = check_fmt("hf %s: same layers, kinds and vocab", names[i]);
		CHECK(hf.layers == yaml.layers && hf.mtp_layers == yaml.mtp_layers && hf.nkinds == yaml.nkinds &&
				hf.nruns == yaml.nruns && hf.vocab == yaml.vocab && hf.hidden == yaml.hidden &&
				hf.gated == yaml.gated && hf.tied == yaml.tied, name);
	}
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");

	test_tiny_dense();
	test_config_errors();
	test_kind_width();
	test_tiny_moe();
	test_presets_published();
	test_exact_checkpoints();
	test_deepseek_v3();
	test_hf_fixtures();
	return check_done();
}
