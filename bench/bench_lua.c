/* bench_lua.c - the cost of steering the search from Lua, for `make bench`: the two-level
 * search (src/solve/search.h, through strata.search) with a trivial Lua filter (called on
 * every candidate it evaluates) and with a trivial Lua score (a result table built for every
 * fitting candidate) against the same search without hooks on the same job. Both sides run
 * on one thread (a hook forces one: Lua states are single-threaded) and without the ILP
 * level, so the ratio is the hooks' cost alone. The filter runs on DeepSeek-V3 on 2,048
 * H800; the score turns the step-time bound off (a score need not follow the step time),
 * which evaluates tens of millions of candidates there, so it runs on Llama-3-70B on 512
 * H100, against both the pruned search and the same unpruned one (exhaustive = true).
 * Also evaluations per second through strata.eval. Median wall time of 5 runs of each
 * script, state creation included. Prints "bench: NAME VALUE UNIT". */
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

/* DeepSeek-V3 on 2,048 H800: 177 M strategies, most of them pruned in groups */
#define PLAN "local p = strata.plan{model = 'deepseek-v3', cluster = 'h800', devices = 2048,\n" \
	"  strategy = {global_batch = 15360, seq_length = 4096}}\n"
#define PLAN70 "local p = strata.plan{model = 'llama3-70b', cluster = 'dgx-h100', devices = 512,\n" \
	"  strategy = {global_batch = 1024, seq_length = 8192}}\n"
/* one thread, outer level only; the script prints the search's counters */
#define SEARCH(hooks) "local r = strata.search(p, {ilp = false, threads = 1" hooks "})\n" \
	"print(r[1].search.evaluated, r[1].search.fit)"

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
	long long ev = 0, fit = 0, ev70 = 0, fit70 = 0, evx = 0;
	memset(&cap, 0, sizeof cap);
	double c = lua_time(paths, PLAN SEARCH(""), &cap, &bad);
	sscanf(cap.text, "%lld %lld", &ev, &fit);
	double f = lua_time(paths, PLAN SEARCH(", filter = function(s) return true end"), &cap, &bad);
	double c70 = lua_time(paths, PLAN70 SEARCH(""), &cap, &bad);
	double x70 = lua_time(paths, PLAN70 SEARCH(", exhaustive = true"), &cap, &bad);
	sscanf(cap.text, "%lld", &evx);
	double s = lua_time(paths, PLAN70 SEARCH(", score = function(r) return r.throughput.tokens_per_s end"), &cap,
			&bad);
	sscanf(cap.text, "%lld %lld", &ev70, &fit70);
	double e = lua_time(paths, PLAN70 "local q, n = p:with{tp = 8, pp = 4}, 0\nfor i = 1, 20000 do\n"
			"  local r = strata.eval(q, {micro_batch = 1 << (i % 3)})\n  n = n + r.time.step_s\nend\nprint(n)",
			&cap, &bad);
	if (bad)
		return 1;
	printf("bench: search_lua_filter_job deepseek-v3 on 2048 h800, 1 thread, no ilp: %lld evaluated (%lld fit)\n",
			ev, fit);
	printf("bench: search_lua_filter_c_wall %.3f s\n", c);
	printf("bench: search_lua_filter_wall %.3f s\n", f);
	printf("bench: search_lua_filter_ratio %.2f x\n", f / c);
	printf("bench: search_lua_score_job llama3-70b on 512 dgx-h100, 1 thread, no ilp: %lld evaluated (%lld fit) "
			"without the step-time bound\n", ev70, fit70);
	printf("bench: search_lua_score_c_wall %.3f s\n", c70);
	printf("bench: search_lua_score_exhaustive_c_wall %.3f s (%lld evaluated)\n", x70, evx);
	printf("bench: search_lua_score_wall %.3f s\n", s);
	printf("bench: search_lua_score_ratio %.2f x\n", s / c70);
	printf("bench: search_lua_score_exhaustive_ratio %.2f x\n", s / x70);
	printf("bench: lua_eval_per_s %.0f evals/s (strata.eval with an override, llama3-70b pp4)\n", 20000 / e);
	return 0;
}
