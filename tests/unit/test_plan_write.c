/* Unit tests for src/io/plan_write.c: a written plan loads back to the same plan (preset
 * references, inline models and clusters of every preset, every strategy field, pins,
 * expectations, odd strings, layered models as blocks, evaluating identically), file
 * references become absolute, and plan_save replaces a file atomically (no temporary left,
 * permissions kept, symlinks followed, errors said). */
#include "check.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"
#include "io/plan_write.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static paths_t paths;
static plan_t a, b; /* large: keep them off the stack */
static char tmpdir[256];

/* Everything a plan holds except the path it was read from; strategies compared after
 * deriving dp on both sides, as every command does. */
static int same_plan(plan_t *x, plan_t *y, const char **what)
{
	char err[256];
	strat_resolve(&x->strategy, x->devices, err, sizeof err);
	strat_resolve(&y->strategy, y->devices, err, sizeof err);
	/* models layer by layer (model_equal): a config-built model keeps a kind no layer uses,
	 * which the blocks form does not write */
	*what = !model_equal(&x->model, &y->model) ? "model" :
		memcmp(&x->cluster, &y->cluster, sizeof x->cluster) ? "cluster" :
		memcmp(&x->strategy, &y->strategy, sizeof x->strategy) ? "strategy" :
		x->devices != y->devices ? "devices" : x->budget_gib != y->budget_gib ? "budget" :
		strcmp(x->model_ref, y->model_ref) ? "model_ref" : strcmp(x->cluster_ref, y->cluster_ref) ? "cluster_ref" :
		strcmp(x->id, y->id) ? "id" : strcmp(x->source, y->source) ? "source" :
		x->has_expect != y->has_expect || memcmp(&x->expect, &y->expect, sizeof x->expect) ? "expect" :
		x->npins != y->npins || memcmp(x->pins, y->pins, sizeof x->pins) ? "pins" : NULL;
	return *what == NULL;
}

/* eval_run of two plans gives the same bits (both must be valid). */
static int same_eval(const plan_t *x, const plan_t *y)
{
	static eval_result rx, ry; /* large: keep them off the stack */
	strategy_t sx = x->strategy, sy = y->strategy;
	char err[256];
	memset(&rx, 0, sizeof rx);
	memset(&ry, 0, sizeof ry);
	if (strat_resolve(&sx, x->devices, err, sizeof err) || strat_resolve(&sy, y->devices, err, sizeof err))
		return 0;
	int a = eval_run(&x->model, &x->cluster, x->devices, &sx, x->budget_gib, &rx);
	int b = eval_run(&y->model, &y->cluster, y->devices, &sy, y->budget_gib, &ry);
	if (a || b)
		printf("  eval: %s / %s\n", rx.why, ry.why);
	return !a && !b && !memcmp(&rx, &ry, sizeof rx);
}

/* plan_write into a malloc'd string (caller frees); *rc gets plan_write's result. */
static char *written(const plan_t *p, int *rc, char *err, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	*rc = f ? plan_write(f, p, &paths, err, n) : -1;
	if (f)
		fclose(f);
	return text;
}

/* Write a, read it back into b. */
static int roundtrip(const char *label)
{
	char err[1024], name[200];
	snprintf(name, sizeof name, "%s", label); /* check_fmt() below reuses its buffer */
	int rc;
	char *text = written(&a, &rc, err, sizeof err);
	if (!CHECK(rc == 0, check_fmt("%s: written", name))) {
		printf("  %s\n", err);
		free(text);
		return -1;
	}
	rc = plan_load_text(&b, text, "written.yaml", &paths, err, sizeof err);
	if (!CHECK(rc == 0, check_fmt("%s: the written text loads", name))) {
		printf("  %s\n%s\n", err, text);
		free(text);
		return -1;
	}
	const char *what;
	if (!CHECK(same_plan(&a, &b, &what), check_fmt("%s: reads back identically", name)))
		printf("  differs in %s\n%s\n", what, text);
	free(text);
	return 0;
}

static int load(plan_t *p, const char *text)
{
	char err[1024];
	int rc = plan_load_text(p, text, "t.yaml", &paths, err, sizeof err);
	if (rc)
		printf("  load: %s\n", err);
	return rc;
}

static void test_presets_and_fields(void)
{
	if (!load(&a, plan_default_text))
		roundtrip("default plan");
	if (!load(&a, "id: \"odd \\\"id\\\" \\\\ with: colon\"\nsource: 'a # not a comment'\n"
			"model: deepseek-v3\ncluster: h800\ndevices: 2048\nbudget_gib: 70.3\n"
			"strategy: {tp: 2, pp: 16, ep: 64, etp: 1, cp: 2, cp_kind: ulysses, zero: 2, micro_batch: 2,\n"
			"  global_batch: 4096, seq_length: 4096, sp: false, flash_attention: false, tp_comm_overlap: true,\n"
			"  vocab_parallel: false, recompute: full, schedule: dualpipe, precision: fp8, framework: torchtitan,\n"
			"  recompute_modules: [moe, mla_up_proj, layernorm], moe_capacity_factor: 1.25,\n"
			"  exp_avg_dtype: bf16, exp_avg_sq_dtype: fp8, main_grads_dtype: bf16, main_params_dtype: fp16,\n"
			"  loss_fusion: true, fp8_cache: deepseek,\n"
			"  recompute_layers: {\"0:3\": none, \"10:20\": selective}}\n"
			"pins: [\"tp=2\", \"experts.ep=64\", \"layers[0:3].recompute=full\"]\n"
			"expect: {step_time_s: 12.5, peak_mem_gib: 61.25, mem_convention: reserved, mfu: 0.21}\n"))
		roundtrip("every strategy field, pins, expect, quoted strings");
	if (!load(&a, "model: llama3-8b\ncluster: dgx-h100\ndevices: 16\n"
			"strategy: {tp: 2, pp: 4, vpp: 2, schedule: interleaved, global_batch: 64,\n"
			"  stage_layers: [4, 4, 4, 4, 4, 4, 4, 4]}\n"))
		roundtrip("interleaved with explicit stage layers");
	if (!load(&a, "model: llama3-70b\ncluster: dgx-h100\ndevices: 512\n"
			"strategy: {tp: 8, pp: 4, first_stage_layers: 19, last_stage_layers: 19, optimizer_offload: 0.375,\n"
			"  activation_offload: 3}\n"))
		roundtrip("Megatron's first/last split keys and offload");
	if (!load(&a, "model: llama3-70b\ncluster: dgx-h100\ndevices: 512\n"
			"strategy: {tp: 8, pp: 2, account_for_embedding: true, account_for_loss: true}\n"))
		roundtrip("the embedding and the loss counted in the split");
	/* an invalid strategy is saved as it is, dp included, so the reason survives */
	if (!load(&a, "model: llama3-8b\ncluster: dgx-h100\ndevices: 16\nstrategy: {dp: 3, tp: 2}\n"))
		roundtrip("invalid dp kept");
	/* duplicate identical ranges (possible in memory) collapse to the last */
	if (!load(&a, plan_default_text)) {
		a.strategy.range[0] = (rc_range){0, 4, RC_NONE};
		a.strategy.range[1] = (rc_range){0, 4, RC_FULL};
		a.strategy.nranges = 2;
		char err[256];
		int rc;
		char *text = written(&a, &rc, err, sizeof err);
		rc = rc || plan_load_text(&b, text, "w.yaml", &paths, err, sizeof err);
		CHECK(rc == 0 && b.strategy.nranges == 1 && b.strategy.range[0].mode == RC_FULL,
				"repeated identical range: the later one is kept");
		free(text);
	}
}

typedef struct {
	int clusters, n, bad;
} visit_count;

/* Load a preset (models: as the model, clusters: as the cluster of a small plan), make it
 * inline, and round-trip the plan. */
static void visit_preset(const char *name, const char *path, void *arg)
{
	visit_count *c = arg;
	char text[512];
	(void)path;
	if (c->clusters)
		snprintf(text, sizeof text, "model: llama3-8b\ncluster: %s\ndevices: 8\nstrategy: {precision: fp16}\n", name);
	else
		snprintf(text, sizeof text, "model: %s\ncluster: dgx-h100\ndevices: 8\n", name);
	if (load(&a, text)) {
		c->bad++;
		return;
	}
	snprintf(c->clusters ? a.cluster_ref : a.model_ref, sizeof a.model_ref, "(inline)");
	c->n++;
	if (roundtrip(check_fmt("inline %s %s", c->clusters ? "cluster" : "model", name)))
		return;
	if (!c->clusters) {
		/* and prices the same, to the bit (ZeRO-3, where FSDP's unit is the largest layer) */
		a.strategy.zero = b.strategy.zero = 3;
		CHECK(same_eval(&a, &b), check_fmt("inline model %s: evaluates identically after the round trip", name));
		return;
	}
	/* a cluster that inherits its constants writes no efficiency block */
	a.cluster.eff_set = 0;
	char err[256];
	int rc;
	char *t = written(&a, &rc, err, sizeof err);
	if (rc || strstr(t, "efficiency:"))
		c->bad++;
	free(t);
}

static void test_inline(void)
{
	visit_count c = {0, 0, 0};
	paths_each(&paths, "presets/models", visit_preset, &c);
	CHECK(c.n >= 12 && c.bad == 0, check_fmt("every model preset round-trips inline (%d)", c.n));
	visit_count k = {1, 0, 0};
	paths_each(&paths, "presets/clusters", visit_preset, &k);
	CHECK(k.n >= 7 && k.bad == 0, check_fmt("every cluster preset round-trips inline (%d)", k.n));
	/* a model built layer by layer in a pattern no config expresses is written as blocks */
	if (!load(&a, plan_default_text)) {
		a.model.kind[1] = a.model.kind[0];
		a.model.kind[1].ffn *= 2;
		a.model.nkinds = 2;
		a.model.nruns = 0;
		a.model.layers = 0;
		for (int i = 0; i < 6; i++)
			model_append(&a.model, i % 2, 1 + i % 3);
		snprintf(a.model_ref, sizeof a.model_ref, "(inline)");
		a.strategy.pp = 2;
		a.strategy.dp = 0;
		char err[256] = "";
		int rc;
		char *t = written(&a, &rc, err, sizeof err);
		CHECK(rc == 0 && t && strstr(t, "  blocks:\n    - {block: dense, layers: 1,"),
				"layered model: written as blocks");
		free(t);
		roundtrip("layered model (alternating FFN widths) as blocks");
		CHECK(same_eval(&a, &b), "layered model: evaluates identically after save and load");
		/* a shape no block expresses (an MoE layer that also has a dense MLP) is refused,
		 * not mangled */
		a.model.kind[1].experts = 8;
		a.model.kind[1].topk = 2;
		a.model.kind[1].expert_ffn = 1024;
		err[0] = 0;
		free(written(&a, &rc, err, sizeof err));
		CHECK(rc == -1 && strstr(err, "neither config keys nor blocks can express"),
				"inexpressible model refused, naming the reason");
	}
	/* kinds of their own width and MLP type (a ViT encoder in front of a Llama decoder)
	 * survive save and load, and evaluate identically */
	if (!load(&a, "model:\n  name: vlm\n  hidden_size: 4096\n  vocab_size: 128256\n  hidden_act: silu\n"
			"  tie_word_embeddings: false\n  hidden_dropout: 0.1\n  blocks:\n"
			"    - {block: dense, layers: 24, hidden_size: 1024, hidden_act: gelu, num_attention_heads: 16,"
			" intermediate_size: 4096}\n"
			"    - {block: dense, layers: 32, num_attention_heads: 32, num_key_value_heads: 8,"
			" intermediate_size: 14336}\n"
			"    - {block: dense, layers: 1, mtp: true, hidden_size: 4096, hidden_act: silu, num_attention_heads: 32,"
			" num_key_value_heads: 8, intermediate_size: 14336}\n"
			"cluster: dgx-h100\ndevices: 64\n"
			"strategy: {tp: 4, pp: 2, global_batch: 256, seq_length: 4096, stage_layers: [36, 20]}\n")) {
		CHECK(a.model.kind[0].hidden == 1024 && a.model.kind[0].mlp == MLP_PLAIN && a.model.kind[2].hidden == 4096 &&
				a.model.kind[2].mlp == MLP_GATED, "vlm: widths and MLP types as written");
		char err[256] = "";
		int rc;
		char *t = written(&a, &rc, err, sizeof err);
		CHECK(rc == 0 && t && strstr(t, "hidden_size: 1024, hidden_act: gelu") &&
				strstr(t, "mtp: true, hidden_size: 4096, hidden_act: silu"), "vlm: the blocks carry width and MLP type");
		free(t);
		roundtrip("vlm with per-kind widths");
		CHECK(same_eval(&a, &b), "vlm: evaluates identically after save and load");
	}
	/* a vision encoder's patches and projector (the Qwen2-VL-7B preset) survive save and load */
	if (!load(&a, "model: qwen2-vl-7b\ncluster: dgx-h100\ndevices: 16\n"
			"strategy: {tp: 2, pp: 2, global_batch: 64, seq_length: 4096, stage_layers: [46, 14]}\n")) {
		char err[256] = "";
		int rc;
		snprintf(a.model_ref, sizeof a.model_ref, "(inline)"); /* written out, not named */
		char *t = written(&a, &rc, err, sizeof err);
		CHECK(rc == 0 && t && strstr(t, "image_tokens: 1024, images_per_sample: 1, projector_intermediate_size: 5120, "
				"projector_merge: 4"), "encoder: the block carries its patches and projector");
		free(t);
		roundtrip("encoder with projector");
		CHECK(same_eval(&a, &b), "encoder: evaluates identically after save and load");
	}
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

static void test_save(void)
{
	char path[700], err[1024];
	snprintf(path, sizeof path, "%s/plan.yaml", tmpdir);
	if (load(&a, plan_default_text))
		return;
	a.strategy.tp = 4;
	a.npins = 1;
	snprintf(a.pins[0], sizeof a.pins[0], "tp=4");
	CHECK(plan_save(&a, path, &paths, err, sizeof err) == 0, "save: new file");
	CHECK(plan_load_file(&b, path, &paths, err, sizeof err) == 0 && b.strategy.tp == 4 && b.npins == 1 &&
			!strcmp(b.pins[0], "tp=4"), "save: the file loads with the changes");
	CHECK(count_files(tmpdir) == 1, "save: no temporary file left");
	struct stat st;
	chmod(path, 0600);
	a.strategy.tp = 2;
	CHECK(plan_save(&a, path, &paths, err, sizeof err) == 0 && !stat(path, &st) && (st.st_mode & 0777) == 0600,
			"save: replacing keeps the permissions");
	char link[512];
	snprintf(link, sizeof link, "%s/link.yaml", tmpdir);
	if (!symlink("plan.yaml", link)) {
		a.strategy.tp = 8;
		CHECK(plan_save(&a, link, &paths, err, sizeof err) == 0 && !lstat(link, &st) && S_ISLNK(st.st_mode) &&
				plan_load_file(&b, path, &paths, err, sizeof err) == 0 && b.strategy.tp == 8,
				"save: through a symlink, which stays a symlink");
		unlink(link);
	}
	char bad[600];
	snprintf(bad, sizeof bad, "%s/no/such/dir/plan.yaml", tmpdir);
	err[0] = 0;
	CHECK(plan_save(&a, bad, &paths, err, sizeof err) == -1 && strstr(err, "no/such/dir/plan.yaml"),
			check_fmt("save: a missing directory is an error naming the file: %s", err));
	/* a relative model path is written absolute, so the plan loads from anywhere */
	char model[600], sub[300];
	snprintf(sub, sizeof sub, "%s/sub", tmpdir);
	mkdir(sub, 0755);
	snprintf(model, sizeof model, "%s/m.json", sub);
	FILE *mf = fopen(model, "w");
	if (mf) {
		fputs("{\"hidden_size\": 512, \"num_hidden_layers\": 4, \"num_attention_heads\": 8, "
				"\"vocab_size\": 1000, \"intermediate_size\": 1024}\n", mf);
		fclose(mf);
	}
	snprintf(path, sizeof path, "%s/rel.yaml", sub);
	FILE *pf = fopen(path, "w");
	if (pf) {
		fputs("model: m.json\ncluster: dgx-h100\ndevices: 8\n", pf);
		fclose(pf);
	}
	if (!plan_load_file(&a, path, &paths, err, sizeof err)) {
		snprintf(path, sizeof path, "%s/moved.yaml", tmpdir);
		int ok = plan_save(&a, path, &paths, err, sizeof err) == 0 &&
			plan_load_file(&b, path, &paths, err, sizeof err) == 0;
		CHECK(ok && b.model_ref[0] == '/' && b.model.hidden == 512, "save: a relative model path becomes absolute");
		unlink(path);
	}
	unlink(model);
	snprintf(path, sizeof path, "%s/rel.yaml", sub);
	unlink(path);
	rmdir(sub);
	snprintf(path, sizeof path, "%s/plan.yaml", tmpdir);
	unlink(path);
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	snprintf(tmpdir, sizeof tmpdir, "%s/strata-pw.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		CHECK(0, "mkdtemp");
		return 1;
	}
	test_presets_and_fields();
	test_inline();
	test_save();
	rmdir(tmpdir);
	return check_done();
}
