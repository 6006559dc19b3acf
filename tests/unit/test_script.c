/* Unit tests for src/script/script.h, the C API the CLI and the explorer run recipes with:
 * what a recipe returns (plan, model, cluster), where print() goes, errors with file:line
 * and a traceback, the limits and the cancel flag, file errors, and the JSON sink that
 * feeds Lua tables (src/io/json.h). Runs from the repository root (presets via STRATA_DATA). */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "core/evaluate.h"
#include "io/json.h"
#include "io/plan.h"
#include "io/plan_write.h"
#include "script/script.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static paths_t paths;
static scr_outcome out;

/* Collected print() output. */
typedef struct {
	char buf[4096];
	size_t len;
	int calls;
} sink_buf;

static void collect(void *user, const char *text, size_t len)
{
	sink_buf *b = user;
	b->calls++;
	if (b->len + len < sizeof b->buf) {
		memcpy(b->buf + b->len, text, len);
		b->len += len;
		b->buf[b->len] = 0;
	}
}

static int run(const char *text, scr_env *env)
{
	return scr_run_string(env, text, "t.lua", 0, NULL, &out);
}

static void test_returns(void)
{
	scr_env env = {0};
	env.paths = &paths;
	int rc = run("return strata.plan{model = 'llama3-8b', cluster = 'dgx-h100', devices = 16,\n"
			"  strategy = {tp = 4, pp = 2, global_batch = 64}}", &env);
	CHECK(rc == 0 && out.kind == SCR_PLAN, "returns: a plan comes back as SCR_PLAN");
	CHECK(out.plan.devices == 16 && out.plan.strategy.tp == 4 && out.plan.strategy.pp == 2 &&
			out.plan.strategy.dp == 2 && out.plan.strategy.global_batch == 64,
			"returns: the plan carries devices and the resolved strategy");
	CHECK(!strcmp(out.plan.model.name, "Llama-3-8B") && out.plan.model.layers == 32 &&
			!strcmp(out.plan.cluster.name, "DGX H100"), "returns: with its model and cluster");
	CHECK(!strcmp(out.plan.model_ref, "llama3-8b"), "returns: a preset model keeps its name as reference");

	rc = run("return strata.layers{hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,\n"
			"  strata.dense{layers = 3, intermediate_size = 4096}, strata.moe{layers = 5, n_routed_experts = 8,\n"
			"  num_experts_per_tok = 2, moe_intermediate_size = 1024}}", &env);
	CHECK(rc == 0 && out.kind == SCR_MODEL, "returns: a model comes back as SCR_MODEL");
	CHECK(out.plan.model.layers == 8 && out.plan.model.nkinds == 2 && out.plan.model.nruns == 2 &&
			out.plan.model.kind[1].experts == 8 && out.plan.model.kind[0].ffn == 4096,
			"returns: the model has the blocks' layers and shapes");
	rc = run("return strata.preset('h800')", &env);
	CHECK(rc == 0 && out.kind == SCR_CLUSTER && out.plan.cluster.node_devices == 8,
			"returns: a cluster comes back as SCR_CLUSTER");
	rc = run("return 42", &env);
	CHECK(rc == 0 && out.kind == SCR_NONE, "returns: anything else is SCR_NONE");
	CHECK(out.steps >= 0 && out.peak_bytes > 0, "returns: steps and peak heap are reported");
}

static void test_print(void)
{
	sink_buf b;
	memset(&b, 0, sizeof b);
	scr_env env = {0};
	env.paths = &paths;
	env.print_fn = collect;
	env.user = &b;
	int rc = run("print('a', 1, true, nil)\nprint(2.5)", &env);
	CHECK(rc == 0 && b.calls == 2 && !strcmp(b.buf, "a\t1\ttrue\tnil\n2.5\n"),
			"print: each call reaches the callback, tab-separated, newline-terminated");
	env.print_fn = NULL;
	rc = run("print('discarded')", &env);
	CHECK(rc == 0, "print: without a callback or FILE output is discarded");
}

static void test_errors(void)
{
	scr_env env = {0};
	env.paths = &paths;
	int rc = run("local x = 1\nlocal function f() return nil + x end\nf()", &env);
	CHECK(rc == 1 && !strncmp(out.err, "t.lua:2: attempt to perform arithmetic on a nil value", 53),
			"errors: a runtime error gives file:line first");
	CHECK(strstr(out.err, "stack traceback:") && strstr(out.err, "t.lua:3: in main chunk"),
			"errors: followed by a traceback");
	rc = run("x = = 1", &env);
	CHECK(rc == 1 && !strncmp(out.err, "t.lua:1:", 8), "errors: a syntax error gives file:line");
	rc = scr_run_file(&env, "tests/does-not-exist.lua", 0, NULL, &out);
	CHECK(rc == 2 && strstr(out.err, "does-not-exist.lua"), "errors: a missing file is rc 2 and names it");
	rc = scr_run_file(&env, "tests", 0, NULL, &out);
	CHECK(rc == 2, "errors: a directory is rc 2");
	rc = run("error(setmetatable({}, {__tostring = function() return 'custom' end}))", &env);
	CHECK(rc == 1 && !strncmp(out.err, "custom", 6), "errors: an error object with __tostring is shown");
}

static void test_limits(void)
{
	scr_env env = {0};
	env.paths = &paths;
	env.lim.steps = 200000;
	int rc = run("local i = 0\nwhile true do i = i + 1 end", &env);
	CHECK(rc == 1 && strstr(out.err, "t.lua:2: instruction budget of 200000 exceeded"),
			"limits: the step budget stops a loop at its line");
	CHECK(out.steps > 200000 && out.steps <= 201000, "limits: within one hook interval of the budget");
	env.lim.steps = 0;
	env.lim.mem_mib = 4;
	rc = run("local t = {}\nfor i = 1, 1e9 do t[i] = i end", &env);
	CHECK(rc == 1 && strstr(out.err, "memory limit of 4 MiB exceeded"), "limits: the heap cap stops a bomb");
	CHECK(out.peak_bytes <= (size_t)5 << 20 && out.peak_bytes > (size_t)3 << 20,
			"limits: the heap stays near the cap (+ room for the error)");
	rc = run("return string.rep('x', 1 << 30)", &env);
	CHECK(rc == 1 && strstr(out.err, "memory limit of 4 MiB exceeded"), "limits: one huge allocation is refused");
	env.lim.mem_mib = 0;
	atomic_int cancel;
	atomic_init(&cancel, 1);
	env.cancel = &cancel;
	rc = run("while true do end", &env);
	CHECK(rc == 1 && strstr(out.err, "script cancelled"), "limits: the cancel flag stops a script");
	env.cancel = NULL;
	rc = run("return 1", &env);
	CHECK(rc == 0, "limits: the next run starts afresh");
}

/* What the explorer does on `:lua FILE`: run a shipped recipe, take the plan it returns. */
static void test_recipe_file(void)
{
	sink_buf b;
	memset(&b, 0, sizeof b);
	scr_env env = {0};
	env.paths = &paths;
	env.print_fn = collect;
	env.user = &b;
	int rc = scr_run_file(&env, "lua/max_micro_batch.lua", 0, NULL, &out);
	CHECK(rc == 0 && out.kind == SCR_PLAN && out.plan.strategy.micro_batch == 8 && out.plan.devices == 32,
			"recipe file: lua/max_micro_batch.lua returns its plan (micro-batch 8)");
	CHECK(strstr(b.buf, "largest micro-batch that fits: 8") != NULL, "recipe file: its output reaches the callback");
	rc = scr_run_file(&env, "lua/vlm.lua", 0, NULL, &out);
	CHECK(rc == 0 && out.kind == SCR_PLAN && out.plan.model.layers == 56 && out.plan.model.nkinds == 2,
			"recipe file: lua/vlm.lua returns a plan with its Lua-built model");
	CHECK(rc == 0 && out.plan.model.hidden == 4096 && out.plan.model.gated && out.plan.model.kind[0].hidden == 1024 &&
			out.plan.model.kind[0].mlp == MLP_PLAIN && out.plan.model.kind[1].hidden == 0 &&
			out.plan.model.kind[1].mlp == MLP_MODEL,
			"recipe file: lua/vlm.lua's encoder is 1024 wide with a plain MLP, its decoder the model's");
}

/* Blocks of their own width: errors name the field, blocks() gives the width back, and a
 * plan with such a model survives save and load. */
static void test_block_width(void)
{
	scr_env env = {0};
	env.paths = &paths;
	static const struct { const char *code, *want, *name; } bad[] = {
		{"strata.dense{hidden_size = 0}", "t.lua:1: strata.dense: hidden_size must be between 1 and 1048576 (got 0)",
		 "block width: 0 is refused, naming the field"},
		{"strata.moe{hidden_size = -1024}", "t.lua:1: strata.moe: hidden_size must be between 1 and 1048576 (got -1024)",
		 "block width: a negative width is refused"},
		{"strata.mla{hidden_size = 1024.5}", "t.lua:1: strata.mla: hidden_size must be an integer (got a fraction",
		 "block width: a fraction is refused"},
		{"strata.dense{hidden_size = 'wide'}", "t.lua:1: strata.dense: hidden_size must be an integer (got string)",
		 "block width: a string is refused"},
		{"strata.dense{hidden_act = 2}", "t.lua:1: strata.dense: hidden_act must be a string",
		 "block MLP type: a number is refused"},
		{"strata.layers{hidden_size = 4096, vocab_size = 100, num_attention_heads = 16,\n"
		 "  strata.dense{hidden_size = 1000, intermediate_size = 4000}}",
		 "t.lua:1: strata.layers: block 1: hidden_size 1000 is not divisible by num_attention_heads 16 (give head_dim)",
		 "block width: a width the heads do not divide, with head_dim implied"},
		{"strata.layers{hidden_size = 4096, vocab_size = 100, num_attention_heads = 16,\n"
		 "  strata.dense{intermediate_size = 4000}, strata.dense{hidden_act = 'tanh', intermediate_size = 10}}",
		 "t.lua:1: strata.layers: block 2: hidden_act 'tanh' is not known",
		 "block MLP type: an unknown activation names the block"},
		{"strata.layers{vocab_size = 100, num_attention_heads = 16,\n"
		 "  strata.dense{hidden_size = 1024, intermediate_size = 4000}}",
		 "t.lua:1: strata.layers: block 1: model is missing hidden_size",
		 "block width: the model's own hidden_size is still required"},
		{"strata.layers{hidden_size = 64, vocab_size = 100, num_attention_heads = 4, blocks = {},\n"
		 "  strata.dense{intermediate_size = 64}}", "t.lua:1: strata.layers: 'blocks' does not apply here",
		 "block width: a blocks key in strata.layers is refused"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = run(bad[i].code, &env);
		if (!CHECK(rc == 1 && !strncmp(out.err, bad[i].want, strlen(bad[i].want)), bad[i].name))
			printf("  rc %d: %s\n", rc, out.err);
	}
	int rc = run("local m = strata.layers{hidden_size = 4096, vocab_size = 100, hidden_act = 'silu',\n"
			"  num_attention_heads = 16, strata.dense{hidden_size = 1000, head_dim = 64, hidden_act = 'gelu',\n"
			"  intermediate_size = 4000}, strata.dense{intermediate_size = 11008}}\n"
			"local b = m:blocks()\n"
			"assert(b[1].hidden_size == 1000 and b[1].hidden_act == 'gelu' and b[2].hidden_size == nil)\n"
			"assert(m.hidden_size == 4096 and m.gated)\n"
			"return strata.layers{hidden_size = 4096, vocab_size = 100, hidden_act = 'silu', table.unpack(b)}", &env);
	CHECK(rc == 0 && out.kind == SCR_MODEL && out.plan.model.hidden == 4096 && out.plan.model.gated &&
			out.plan.model.kind[0].hidden == 1000 && out.plan.model.kind[0].head_dim == 64 &&
			out.plan.model.kind[0].mlp == MLP_PLAIN && out.plan.model.kind[1].hidden == 0 &&
			out.plan.model.kind[1].mlp == MLP_MODEL, "block width: model:blocks() gives widths back; rebuilt alike");

	/* the recipe's plan, saved and loaded again, is the same plan and evaluates the same */
	rc = scr_run_file(&env, "lua/vlm.lua", 0, NULL, &out);
	char *text = NULL, err[512] = "";
	size_t len = 0;
	FILE *f = rc == 0 ? open_memstream(&text, &len) : NULL;
	int wrc = f ? plan_write(f, &out.plan, &paths, err, sizeof err) : -1;
	if (f)
		fclose(f);
	static plan_t back;
	int lrc = wrc == 0 ? plan_load_text(&back, text, "saved.yaml", &paths, err, sizeof err) : -1;
	if (!CHECK(lrc == 0 && model_equal(&back.model, &out.plan.model) && strstr(text, "blocks:"),
			"block width: lua/vlm.lua's plan saves its model as blocks and loads back the same model"))
		printf("  %d %d %s\n%s\n", wrc, lrc, err, text ? text : "");
	free(text);
	static eval_result ra, rb;
	memset(&ra, 0, sizeof ra);
	memset(&rb, 0, sizeof rb);
	strategy_t sb = back.strategy;
	int ok = lrc == 0 && !strat_resolve(&sb, back.devices, err, sizeof err) &&
		!eval_run(&out.plan.model, &out.plan.cluster, out.plan.devices, &out.plan.strategy, out.plan.budget_gib, &ra) &&
		!eval_run(&back.model, &back.cluster, back.devices, &sb, back.budget_gib, &rb);
	CHECK(ok && !memcmp(&ra, &rb, sizeof ra), "block width: the saved plan evaluates bit-identically");
}

static void test_args(void)
{
	scr_env env = {0};
	env.paths = &paths;
	char *argv[] = {"x", "y"};
	int rc = scr_run_string(&env, "assert(arg[1] == 'x' and arg[2] == 'y' and select('#', ...) == 2)\n"
			"assert(arg[0] == 'args')", "args", 2, argv, &out);
	CHECK(rc == 0, "args: arg[] and ... hold the arguments, arg[0] the name");
}

/* The sink mode of the JSON writer: calls arrive unrounded; NaN is kept. */
typedef struct {
	char log[512];
} jlog;

static void jl_add(jlog *l, const char *s)
{
	size_t n = strlen(l->log);
	snprintf(l->log + n, sizeof l->log - n, "%s;", s);
}

static void jl_open(void *c, const char *k, int o)
{
	char b[64];
	snprintf(b, sizeof b, "open %s %d", k ? k : "-", o);
	jl_add(c, b);
}

static void jl_close(void *c) { jl_add(c, "close"); }

static void jl_num(void *c, const char *k, double v)
{
	char b[64];
	snprintf(b, sizeof b, "num %s %.17g", k ? k : "-", v);
	jl_add(c, b);
}

static void jl_int(void *c, const char *k, long long v)
{
	char b[64];
	snprintf(b, sizeof b, "int %s %lld", k ? k : "-", v);
	jl_add(c, b);
}

static void jl_str(void *c, const char *k, const char *s)
{
	char b[64];
	snprintf(b, sizeof b, "str %s %s", k ? k : "-", s ? s : "(null)");
	jl_add(c, b);
}

static void jl_bool(void *c, const char *k, int v)
{
	char b[64];
	snprintf(b, sizeof b, "bool %s %d", k ? k : "-", v);
	jl_add(c, b);
}

static void jl_null(void *c, const char *k)
{
	char b[64];
	snprintf(b, sizeof b, "null %s", k ? k : "-");
	jl_add(c, b);
}

static void test_json_sink(void)
{
	jlog l;
	memset(&l, 0, sizeof l);
	json_sink s = {jl_open, jl_close, jl_num, jl_int, jl_str, jl_bool, jl_null, &l};
	json_w w;
	json_init_sink(&w, &s);
	json_obj_begin(&w, NULL);
	json_num(&w, "pi", 3.14159265358979311);
	json_arr_begin(&w, "a");
	json_int(&w, NULL, 7);
	json_bool(&w, NULL, 1);
	json_null(&w, NULL);
	json_arr_end(&w);
	json_str(&w, "s", "x");
	json_obj_end(&w);
	json_end(&w);
	CHECK(!strcmp(l.log, "open - 1;num pi 3.1415926535897931;open a 0;int - 7;bool - 1;null -;close;"
			"str s x;close;"), "json sink: every call forwarded in order, numbers unrounded");
	CHECK(!json_failed(&w), "json sink: json_failed is safe without a stream");
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_returns();
	test_print();
	test_errors();
	test_limits();
	test_args();
	test_recipe_file();
	test_block_width();
	test_json_sink();
	return check_done();
}
