/* Unit tests for the limits of src/script/script.h in the places the count hook alone does
 * not reach: __gc finalizers, xpcall message handlers, pattern matching and the table
 * library's loops in C, and the solvers (strata.ilp, strata.search). For each, the cancel
 * flag (what Esc, q, SIGTERM, SIGHUP and SIGINT set in the explorer, from its main thread)
 * must stop the recipe within a second, and so must the wall-clock limit; the outcome says
 * which limit stopped it. Runs from the repository root (presets via STRATA_DATA). */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "script/script.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static paths_t paths;
static scr_outcome out;

#define PLAN "local p = strata.plan{model = 'llama3-8b', cluster = 'dgx-h100', devices = 8}\n"

/* Recipes that run for ever unless stopped (with no instruction budget to speak of). */
static const struct {
	const char *name, *text;
} hostile[] = {
	{"__gc loop", "setmetatable({}, {__gc = function() while true do end end}); collectgarbage()"},
	{"__gc calling strata.eval", PLAN "setmetatable({}, {__gc = function() while true do strata.eval(p) end end})\n"
			"collectgarbage()"},
	{"xpcall body and handler loops", "xpcall(function() while true do end end, function() while true do end end)"},
	{"xpcall handler loop", "xpcall(function() error('x') end, function() while true do end end)"},
	{"find backtracking", "string.rep('a', 5000):find('.-.-.-.-b')"},
	{"find %b", "string.find(string.rep('(', 1000000), '%b()')"},
	{"gsub backtracking", "string.rep('ab', 5000):gsub('a.-.-.-c', '')"},
	{"table.move", "table.move({}, 1, math.maxinteger - 1, 2)"},
	{"table.sort with C metamethods",
		"table.sort(setmetatable({}, {__len = function() return 2^31 - 2 end, __index = rawlen, "
		"__newindex = rawequal}))"},
	{"strata.ilp", "strata.ilp(strata.plan{model = 'llama3-405b', cluster = 'dgx-h100', devices = 2048,\n"
			"  strategy = {tp = 8, pp = 16, vpp = 4, schedule = 'interleaved'},\n"
			"  pins = {'layers[60:70].recompute=selective'}})"},
	{"strata.search", "strata.search(strata.plan{model = 'deepseek-v3', cluster = 'h800', devices = 16384,\n"
			"  strategy = {global_batch = 8192, seq_length = 4096}}, {exhaustive = true})"},
	{"strata.search score loop", PLAN "strata.search(p, {score = function() while true do end end})"},
};

typedef struct {
	atomic_int *flag;
	int after_ms;
} canceller;

/* What the explorer's main thread does on Esc: set the job's cancel flag. */
static void *cancel_later(void *arg)
{
	canceller *k = arg;
	struct timespec ts = {k->after_ms / 1000, (k->after_ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	atomic_store(k->flag, 1);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_cancel(void)
{
	char name[200];
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		atomic_int flag;
		atomic_init(&flag, 0);
		scr_env env = {0};
		env.paths = &paths;
		env.lim.steps = 1LL << 50;
		env.lim.mem_mib = 1024;
		env.lim.time_ms = 60000;
		env.cancel = &flag;
		canceller k = {&flag, 150};
		pthread_t th;
		if (pthread_create(&th, NULL, cancel_later, &k))
			continue;
		double t0 = now_s();
		int rc = scr_run_string(&env, hostile[i].text, "h.lua", 0, NULL, &out);
		double dt = now_s() - t0;
		pthread_join(th, NULL);
		snprintf(name, sizeof name, "cancel: %s stops within a second of the flag (%.2f s)", hostile[i].name, dt);
		CHECK(rc == 1 && out.stopped == SCR_STOP_CANCEL && strstr(out.err, "script cancelled") && dt < 1.5, name);
		if (rc != 1 || out.stopped != SCR_STOP_CANCEL)
			printf("  rc %d stopped %d: %.300s\n", rc, out.stopped, out.err);
	}
}

static void test_deadline(void)
{
	char name[200];
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		scr_env env = {0};
		env.paths = &paths;
		env.lim.steps = 1LL << 50;
		env.lim.mem_mib = 1024;
		env.lim.time_ms = 300;
		double t0 = now_s();
		int rc = scr_run_string(&env, hostile[i].text, "h.lua", 0, NULL, &out);
		double dt = now_s() - t0;
		snprintf(name, sizeof name, "time limit: %s stops at 0.3 s (%.2f s), naming --lua-time", hostile[i].name, dt);
		CHECK(rc == 1 && out.stopped == SCR_STOP_TIME && strstr(out.err, "time limit of 0.3 s exceeded") &&
				strstr(out.err, "--lua-time") && dt < 1.5 && out.seconds >= 0.3, name);
		if (rc != 1 || out.stopped != SCR_STOP_TIME)
			printf("  rc %d stopped %d: %.300s\n", rc, out.stopped, out.err);
	}
}

static void test_outcome(void)
{
	scr_env env = {0};
	env.paths = &paths;
	env.lim.steps = 10000000;
	int rc = scr_run_string(&env, "while true do end", "h.lua", 0, NULL, &out);
	CHECK(rc == 1 && out.stopped == SCR_STOP_STEPS && out.steps > 10000000, "outcome: the budget says STEPS");
	env.lim.mem_mib = 8;
	rc = scr_run_string(&env, "local t = {} for i = 1, 1e9 do t[i] = {} end", "h.lua", 0, NULL, &out);
	CHECK(rc == 1 && out.stopped == SCR_STOP_MEM, "outcome: the memory cap says MEM");
	rc = scr_run_string(&env, "error('plain')", "h.lua", 0, NULL, &out);
	CHECK(rc == 1 && out.stopped == SCR_STOP_NONE && out.seconds >= 0, "outcome: an ordinary error stops nothing");
	rc = scr_run_string(&env, "return 1", "h.lua", 0, NULL, &out);
	CHECK(rc == 0 && out.stopped == SCR_STOP_NONE, "outcome: a run that ends stops nothing");

	long long ms = 0;
	char err[200];
	CHECK(!scr_parse_time("1.5", &ms, err, sizeof err) && ms == 1500, "parse: --lua-time 1.5 is 1500 ms");
	CHECK(!scr_parse_time("0.001", &ms, err, sizeof err) && ms == 1, "parse: a millisecond is the least");
	CHECK(scr_parse_time("0", &ms, err, sizeof err) && scr_parse_time("nan", &ms, err, sizeof err) &&
			scr_parse_time("inf", &ms, err, sizeof err) && scr_parse_time("1e12", &ms, err, sizeof err) &&
			scr_parse_time("2s", &ms, err, sizeof err) && strstr(err, "--lua-time"),
			"parse: zero, NaN, infinity, too long and junk are refused with the option's name");
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_outcome();
	test_cancel();
	test_deadline();
	return check_done();
}
