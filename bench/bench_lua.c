/* bench_lua.c - the cost of steering the search from Lua, for `make bench`: the same
 * steered search (built-in space, every candidate evaluated) run from a recipe with no Lua
 * function (the loop stays in C), with a trivial Lua filter (called on every candidate)
 * and with a trivial Lua score (a result table built for every fitting candidate); the
 * two-level C search (src/solve/search.h) on a smaller job for scale; evaluations per
 * second through strata.eval. Median wall time of 5 runs of each script, state creation
 * included. Prints "bench: NAME VALUE UNIT". */
#include "bench.h"
#include "io/paths.h"
#include "script/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char text[256];
	size_t len;
} lua_capture;

static void lua_keep(void *user, const char *s, size_t n)
{
	lua_capture *c = user;
	if (n >= sizeof c->text)
		n = sizeof c->text - 1;
	memcpy(c->text, s, n);
	c->text[n] = 0;
	c->len = n;
}

/* DeepSeek-V3 on 2,048 H800: the built-in space has 75,804 strategies (ep multiplies it) */
#define PLAN "local p = strata.plan{model = 'deepseek-v3', cluster = 'h800', devices = 2048,\n" \
	"  strategy = {global_batch = 15360, seq_length = 4096}}\n"
#define PLAN70 "local p = strata.plan{model = 'llama3-70b', cluster = 'dgx-h100', devices = 512,\n" \
	"  strategy = {global_batch = 1024, seq_length = 8192}}\n"

/* Median wall seconds of 5 runs; the script's last print() lands in cap. */
static double lua_time(const paths_t *paths, const char *text, lua_capture *cap, int *bad)
{
	double t[5];
	scr_env env;
	memset(&env, 0, sizeof env);
	env.paths = paths;
	env.print_fn = lua_keep;
	env.user = cap;
	env.lim.steps = 1LL << 40;
	env.lim.mem_mib = 1024;
	scr_outcome *o = malloc(sizeof *o);
	if (!o) {
		*bad = 1;
		return 0;
	}
	for (int i = 0; i < 5; i++) {
		double t0 = bench_now();
		if (scr_run_string(&env, text, "bench", 0, NULL, o)) {
			fprintf(stderr, "bench: lua: %s\n", o->err);
			*bad = 1;
		}
		t[i] = bench_now() - t0;
	}
	free(o);
	qsort(t, 5, sizeof t[0], bench_dcmp);
	return t[2];
}

int bench_lua(const paths_t *paths)
{
	lua_capture cap;
	int bad = 0;
	memset(&cap, 0, sizeof cap);
	double c = lua_time(paths, PLAN "local r = strata.search(p, {exhaustive = true})\n"
			"print(r[1].search.enumerated, r[1].search.fit)", &cap, &bad);
	long long cands = 0, fit = 0;
	sscanf(cap.text, "%lld %lld", &cands, &fit);
	double f = lua_time(paths, PLAN "strata.search(p, {filter = function(s) return true end})", &cap, &bad);
	double s = lua_time(paths, PLAN "strata.search(p, {score = function(r) return r.throughput.tokens_per_s end})",
			&cap, &bad);
	double e = lua_time(paths, PLAN70 "local q, n = p:with{tp = 8, pp = 4}, 0\nfor i = 1, 20000 do\n"
			"  local r = strata.eval(q, {micro_batch = 1 << (i % 3)})\n  n = n + r.time.step_s\nend\nprint(n)",
			&cap, &bad);
	double two = lua_time(paths, PLAN70 "strata.search(p, {ilp = false, threads = 1})", &cap, &bad);
	double two_f = lua_time(paths, PLAN70 "strata.search(p, {exhaustive = true})", &cap, &bad);
	if (bad)
		return 1;
	printf("bench: search_steered_candidates %lld strategies (%lld fit; deepseek-v3 on 2048 h800)\n", cands, fit);
	printf("bench: search_steered_c_wall %.3f s\n", c);
	printf("bench: search_lua_filter_wall %.3f s\n", f);
	printf("bench: search_lua_filter_ratio %.2f x\n", f / c);
	printf("bench: search_lua_score_wall %.3f s\n", s);
	printf("bench: search_lua_score_ratio %.2f x\n", s / c);
	printf("bench: search_llama3-70b_two_level_no_ilp_1thread_wall %.3f s\n", two);
	printf("bench: search_llama3-70b_steered_c_wall %.3f s\n", two_f);
	printf("bench: lua_eval_per_s %.0f evals/s (strata.eval with an override, llama3-70b pp4)\n", 20000 / e);
	return 0;
}
