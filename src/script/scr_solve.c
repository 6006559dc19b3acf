/* scr_solve.c - the solvers from Lua: strata.ilp (the bubble ILP of src/solve/ilp.h)
 * and strata.search; and the writer of the "ilp" object, here because script is the
 * lowest layer that sees both io (json_w) and solve (ilp_result), and `strata ilp --json`
 * prints the same object. The solvers are C code that may hold memory, so a Lua error never
 * unwinds through them: every Lua object is made before a solve starts, and the solver's
 * own memory is released before the result is turned into tables. */
#include "script/scr_int.h"
#include "io/report.h"
#include "solve/ilp.h"
#include "solve/pins.h"
#include "solve/search.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define SCR_SOLVE_SLACK_MS 100 /* the solvers' own time limit runs out this long after the run's */

void scr_ilp_json(json_w *w, const ilp_result *x)
{
	json_obj_begin(w, "ilp");
	json_str(w, "status", ilp_status_name(x->status));
	json_num(w, "solve_ms", x->solve_ms);
	if (x->why[0])
		json_str(w, "message", x->why);
	if (x->have_plan) {
		json_num(w, "step_s", x->step);
		json_num(w, "makespan_s", x->makespan);
		json_num(w, "even_step_s", x->even_step);
		json_num(w, "speedup", x->speedup);
		json_num(w, "gap", x->gap);
		json_obj_begin(w, "bubble");
		json_num(w, "preparation_s", x->bubble_prep);
		json_num(w, "imbalance_s", x->bubble_imb);
		json_num(w, "recompute_s", x->bubble_rc);
		json_num(w, "useful_s", x->useful);
		json_obj_end(w);
		json_arr_begin(w, "stages");
		for (int s = 0; s < x->stages; s++) {
			const ilp_stage *t = &x->st[s];
			json_obj_begin(w, NULL);
			json_int(w, "stage", s);
			json_int(w, "layers", t->layers);
			json_arr_begin(w, "chunk_layers");
			for (int c = 0; c < x->vpp; c++)
				json_int(w, NULL, x->chunk_layers[c * x->stages + s]);
			json_arr_end(w);
			json_obj_begin(w, "recompute");
			json_int(w, "none", t->rc[RC_NONE]);
			json_int(w, "selective", t->rc[RC_SELECTIVE]);
			json_int(w, "full", t->rc[RC_FULL]);
			json_obj_end(w);
			json_num(w, "memory_gib", t->mem / GIB);
			json_num(w, "fwd_s", t->fwd);
			json_num(w, "bwd_s", t->bwd);
			json_num(w, "recompute_s", t->recompute);
			json_obj_end(w);
		}
		json_arr_end(w);
	}
	json_obj_end(w);
}

/* strata.ilp(plan [, {time_limit_ms = N}]) -> the report of `ilp --json` as a table (the
 * plan's evaluation plus an `ilp` object), with `plan` set to the refined plan when the
 * ILP found one. */
static int scr_ilp(lua_State *L)
{
	plan_t *p = scr_check_plan(L, 1);
	long long limit = 0;
	if (!lua_isnoneornil(L, 2)) {
		luaL_checktype(L, 2, LUA_TTABLE);
		static const char *const ok[] = {"time_limit_ms", NULL};
		scr_check_keys(L, 2, "strata.ilp", ok);
		limit = scr_int_field(L, 2, "time_limit_ms", "strata.ilp", 1, 86400000, 0);
	}
	lua_settop(L, 1);
	eval_result *ev = lua_newuserdatauv(L, sizeof *ev, 0);   /* 2 */
	ilp_result *x = lua_newuserdatauv(L, sizeof *x, 0);      /* 3 */
	memset(x, 0, sizeof *x);
	plan_t *q = scr_copy_plan(L, 1);                         /* 4: the refined plan */
	if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, ev)) {
		scr_push_report(L, p, ev); /* valid = false and the reason, no ilp object */
		return 1;
	}
	ilp_pins pins;
	char why[256];
	if (ilp_pins_from_strings(p->pins, p->npins, &pins, why, sizeof why))
		return luaL_error(L, "strata.ilp: %s", why);
	ilp_params prm;
	memset(&prm, 0, sizeof prm);
	/* the recipe's time limit bounds the solve (a little later than the watchdog, which
	 * then stops it first and with the reason); the watchdog also bounds memory and Esc */
	long long left = scr_left_ms(scr_ctx_of(L)) + SCR_SOLVE_SLACK_MS;
	prm.time_limit_ms = (int)(limit > 0 && limit < left ? limit : left < INT_MAX ? left : INT_MAX);
	scr_watch wd;
	scr_watch_begin(L, &wd, "strata.ilp");
	prm.cancel = scr_watch_flag(&wd);
	/* from here to ilp_free nothing may raise: the result owns malloc'd memory */
	ilp_solve(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &pins, &prm, x);
	int stopped = scr_watch_end(L, &wd);
	int have = x->have_plan;
	if (have)
		ilp_apply(x, &q->strategy);
	ilp_free(x);
	if (stopped)
		return scr_raise_trip(L);

	json_w w;
	scr_tbuild b;
	scr_tbuild_init(&b, L, &w);
	json_obj_begin(&w, NULL);
	report_json_members(&w, p, ev);
	scr_ilp_json(&w, x);
	json_obj_end(&w);
	if (have) {
		lua_pushvalue(L, 4);
		lua_setfield(L, -2, "plan");
	}
	return 1;
}

/* ---------- strata.search ---------- */

/* One kept result of the steered search. */
typedef struct {
	double score;
	long long seq;     /* enumeration order: ties keep the earlier candidate */
} scr_kept;

/* State of one steered search; lives in a userdata (nothing to free on an error). */
typedef struct {
	int top, n, worst;
	long long seq, enumerated, filtered, unpinned, evaluated, valid, fit, scored;
	pin_set pins;
	scr_kept kept[SEARCH_MAX_TOP];
	eval_result r;
} scr_steer;

/* Stack slots of a steered search. */
enum { S_PLAN = 1, S_OPTS, S_STATE, S_KEPT, S_FILTER, S_SCORE, S_ENUM, S_CAND };

/* Re-raise an error from a filter, score or enumerate function with the search's context;
 * a tripped limit keeps its own message (the script is stopped either way). */
static int scr_hook_failed(lua_State *L, const char *fn)
{
	const char *msg = lua_tostring(L, -1);
	return luaL_error(L, "strata.search: %s function failed: %s", fn, msg ? msg : "(error object is not a string)");
}

/* Body of a protected hook call: (function, plan, eval or NULL) -> the function's result
 * for the strategy table of plan (filter) or the report of plan and eval (score). Building
 * the argument may raise too, which must not unwind through search_run. */
static int scr_hook_body(lua_State *L)
{
	/* only ever called from scr_hook_call, but a C function must not trust its arguments */
	luaL_checktype(L, 1, LUA_TFUNCTION);
	luaL_checktype(L, 2, LUA_TLIGHTUSERDATA);
	const plan_t *p = lua_touserdata(L, 2);
	const eval_result *r = lua_touserdata(L, 3);
	lua_settop(L, 1);
	if (r)
		scr_push_report_lazy(L, p, r);
	else
		scr_push_strategy(L, p);
	lua_call(L, 1, 1);
	return 1;
}

/* Call the Lua function at slot fn on the candidate p (a filter; a score when r, its
 * evaluation, is given) without raising: leaves the result or the error object on the
 * stack and returns lua_pcall's status. */
static int scr_hook_call(lua_State *L, int fn, const plan_t *p, const eval_result *r)
{
	lua_pushcfunction(L, scr_hook_body);
	lua_pushvalue(L, fn);
	lua_pushlightuserdata(L, (void *)p);
	lua_pushlightuserdata(L, (void *)r);
	return lua_pcall(L, 3, 1, 0);
}

/* Pop a score function's result: 0 with *score set (NAN: nil or false, which drop the
 * candidate), or -1 with the reason in why (not a number, or NaN). Never raises. */
static int scr_score_result(lua_State *L, double *score, char *why, size_t n)
{
	int t = lua_type(L, -1), ok = 1;
	*score = NAN;
	if (t == LUA_TNUMBER) {
		*score = lua_tonumber(L, -1);
		ok = !isnan(*score);
	} else if (t != LUA_TNIL && !(t == LUA_TBOOLEAN && !lua_toboolean(L, -1))) {
		ok = 0;
	}
	if (!ok)
		snprintf(why, n, "the score function must return a number, or nil to drop the candidate (got %s)",
				t == LUA_TNUMBER ? "NaN" : lua_typename(L, t));
	lua_pop(L, 1);
	return ok ? 0 : -1;
}

/* Offer the candidate in slot S_CAND with its score to the kept set. */
static void scr_offer(lua_State *L, scr_steer *st, double score)
{
	long long seq = st->seq;
	int slot;
	if (st->n < st->top) {
		slot = st->n++;
	} else {
		const scr_kept *w = &st->kept[st->worst];
		if (score < w->score || (score == w->score && seq > w->seq))
			return;
		slot = st->worst;
	}
	st->kept[slot].score = score;
	st->kept[slot].seq = seq;
	scr_copy_plan(L, S_CAND);
	lua_rawseti(L, S_KEPT, slot + 1);
	if (st->n == st->top) {
		int w = 0;
		for (int i = 1; i < st->n; i++) {
			const scr_kept *a = &st->kept[i], *b = &st->kept[w];
			if (a->score < b->score || (a->score == b->score && a->seq > b->seq))
				w = i;
		}
		st->worst = w;
	}
}

/* Filter, evaluate, score and keep the candidate plan in slot S_CAND. */
static void scr_consider(lua_State *L, scr_steer *st)
{
	plan_t *p = scr_check_plan(L, S_CAND);
	st->seq++;
	st->enumerated++;
	char why[256];
	if (st->pins.n && !pin_honoured(&st->pins, &p->model, &p->strategy, why, sizeof why)) {
		st->unpinned++;
		return;
	}
	if (!lua_isnil(L, S_FILTER)) {
		if (scr_hook_call(L, S_FILTER, p, NULL) != LUA_OK)
			scr_hook_failed(L, "filter");
		int keep = lua_toboolean(L, -1);
		lua_pop(L, 1);
		if (!keep) {
			st->filtered++;
			return;
		}
	}
	st->evaluated++;
	if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &st->r))
		return;
	st->valid++;
	if (!st->r.fits)
		return;
	st->fit++;
	double score = st->r.tokens_per_s;
	if (!lua_isnil(L, S_SCORE)) {
		if (scr_hook_call(L, S_SCORE, p, &st->r) != LUA_OK)
			scr_hook_failed(L, "score");
		if (scr_score_result(L, &score, why, sizeof why))
			luaL_error(L, "strata.search: %s", why);
		if (isnan(score))
			return;
		st->scored++;
	}
	scr_offer(L, st, score);
}

/* Call enumerate(job) and consider every strategy (a table of plan:with keys) it lists. */
static void scr_enumerate_lua(lua_State *L, scr_steer *st)
{
	plan_t *base = scr_check_plan(L, S_PLAN);
	const model_t *m = &base->model;
	lua_pushvalue(L, S_ENUM);
	lua_createtable(L, 0, 12); /* job */
	struct { const char *k; long long v; } f[] = {
		{"devices", base->devices}, {"node_devices", base->cluster.node_devices}, {"layers", m->layers},
		{"heads", m->kind[0].heads}, {"kv_heads", m->kind[0].kv_heads},
		{"global_batch", base->strategy.global_batch}, {"seq_length", base->strategy.seq},
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		lua_pushinteger(L, f[i].v);
		lua_setfield(L, -2, f[i].k);
	}
	int experts = 0;
	for (int k = 0; k < m->nkinds; k++)
		if (m->kind[k].experts > experts)
			experts = m->kind[k].experts;
	lua_pushinteger(L, experts);
	lua_setfield(L, -2, "experts");
	lua_pushvalue(L, S_PLAN);
	lua_setfield(L, -2, "plan");
	scr_push_strategy(L, base);
	lua_setfield(L, -2, "strategy");
	if (lua_pcall(L, 1, 1, 0) != LUA_OK)
		scr_hook_failed(L, "enumerate");
	if (!lua_istable(L, -1))
		luaL_error(L, "strata.search: enumerate must return a list of strategy tables (got %s)",
				luaL_typename(L, -1));
	int list = lua_gettop(L);
	lua_Unsigned n = lua_rawlen(L, list);
	for (lua_Unsigned i = 1; i <= n; i++) {
		if (lua_rawgeti(L, list, (lua_Integer)i) != LUA_TTABLE)
			luaL_error(L, "strata.search: enumerate: item %d is a %s, not a table of strategy keys", (int)i,
					luaL_typename(L, -1));
		plan_t *p = scr_check_plan(L, S_CAND);
		if (scr_check(scr_ctx_of(L), scr_now_ns())) /* C work per item, no instructions */
			scr_raise_trip(L);
		memcpy(p, base, sizeof *p);
		char why[256];
		int bad = scr_apply_overrides(L, -1, p, why, sizeof why);
		lua_pop(L, 1);
		if (bad) {
			st->seq++;
			st->enumerated++;
			st->evaluated++; /* counted as evaluated and invalid, like a rejected strategy */
			continue;
		}
		scr_consider(L, st);
	}
	lua_pop(L, 1);
}

static int scr_kept_cmp(const void *a, const void *b)
{
	const scr_kept *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The enumerated search: the strategies enumerate lists, Lua filter and score, no ILP. */
static int scr_search_steered(lua_State *L, int top)
{
	lua_settop(L, S_OPTS);
	scr_steer *st = lua_newuserdatauv(L, sizeof *st, 0);                /* S_STATE */
	memset(st, 0, sizeof *st);
	st->top = top;
	lua_createtable(L, top, 0);                                          /* S_KEPT */
	lua_getfield(L, S_OPTS, "filter");                                   /* S_FILTER */
	lua_getfield(L, S_OPTS, "score");                                    /* S_SCORE */
	lua_getfield(L, S_OPTS, "enumerate");                                /* S_ENUM */
	plan_t *base = scr_check_plan(L, S_PLAN);
	char why[512];
	if (pin_set_from_strings(&st->pins, base->pins, base->npins, why, sizeof why))
		luaL_error(L, "strata.search: %s", why);
	if (pin_needs_ilp(&st->pins))
		luaL_error(L, "strata.search: stage pins need the ILP level, which a search with enumerate does not "
				"run: drop them or enumerate");
	scr_copy_plan(L, S_PLAN);                                            /* S_CAND */
	scr_enumerate_lua(L, st);

	/* rank: score descending, then enumeration order */
	int n = st->n;
	scr_kept *order = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *order, 0);
	int *slot = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *slot, 0);
	for (int i = 0; i < n; i++) {
		order[i] = st->kept[i];
		order[i].seq = st->kept[i].seq * SEARCH_MAX_TOP + i; /* keep the slot with the order */
	}
	qsort(order, (size_t)n, sizeof *order, scr_kept_cmp);
	for (int i = 0; i < n; i++)
		slot[i] = (int)(order[i].seq % SEARCH_MAX_TOP);
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_rawgeti(L, S_KEPT, slot[i] + 1);
		plan_t *p = scr_check_plan(L, -1);
		eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &st->r);
		scr_push_report(L, p, &st->r);
		lua_insert(L, -2);
		lua_setfield(L, -2, "plan");
		lua_createtable(L, 0, 12);
		struct { const char *k; long long v; } c[] = {
			{"rank", i + 1}, {"enumerated", st->enumerated}, {"filtered", st->filtered},
			{"unpinned", st->unpinned}, {"evaluated", st->evaluated}, {"valid", st->valid}, {"fit", st->fit},
		};
		for (size_t j = 0; j < sizeof c / sizeof c[0]; j++) {
			lua_pushinteger(L, c[j].v);
			lua_setfield(L, -2, c[j].k);
		}
		lua_pushnumber(L, order[i].score);
		lua_setfield(L, -2, "score");
		lua_pushliteral(L, "steered");
		lua_setfield(L, -2, "engine");
		lua_setfield(L, -2, "search");
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/* Stack slots of the C search. */
enum { E_PLAN = 1, E_OPTS, E_PINS, E_EV, E_RES, E_LIST, E_ITEMS, E_META, E_FILTER, E_SCORE, E_ERR, E_CAND };

/* The Lua filter and score as search hooks (search.h). They run inside search_run, so
 * they never raise: a failed call parks its error object in slot E_ERR and aborts the
 * search, and strata.search raises it once the search's memory is released. */
typedef struct {
	lua_State *L;
	plan_t *cand;              /* the job with the candidate's strategy (slot E_CAND) */
	const char *failed;        /* "filter" or "score" when one raised */
} scr_hooks;

static void scr_hook_abort(scr_hooks *h, const char *fn, char *why, size_t n)
{
	lua_replace(h->L, E_ERR);
	h->failed = fn;
	snprintf(why, n, "%s function failed", fn);
}

static int scr_filter_hook(void *user, const strategy_t *s, char *why, size_t n)
{
	scr_hooks *h = user;
	h->cand->strategy = *s;
	if (scr_hook_call(h->L, E_FILTER, h->cand, NULL) != LUA_OK) {
		scr_hook_abort(h, "filter", why, n);
		return -1;
	}
	int keep = lua_toboolean(h->L, -1);
	lua_pop(h->L, 1);
	return keep;
}

/* Lua scores are higher-is-better and nil drops; the search wants lower-is-better and
 * INFINITY drops (so does a Lua score of -math.huge). */
static double scr_score_hook(void *user, const strategy_t *s, const eval_result *r, char *why, size_t n)
{
	scr_hooks *h = user;
	h->cand->strategy = *s;
	if (scr_hook_call(h->L, E_SCORE, h->cand, r) != LUA_OK) {
		scr_hook_abort(h, "score", why, n);
		return NAN;
	}
	double v;
	if (scr_score_result(h->L, &v, why, n))
		return NAN;
	return isnan(v) ? INFINITY : -v;
}

/* The C search (src/solve/search.h): two levels with the ILP, threads, pins; the Lua
 * filter and score as its hooks. */
static int scr_search_engine(lua_State *L, int top)
{
	plan_t *p = scr_check_plan(L, 1);
	int threads = (int)scr_int_field(L, 2, "threads", "strata.search", 1, SEARCH_MAX_THREADS, 0);
	int limit = (int)scr_int_field(L, 2, "time_limit_ms", "strata.search", 1, 86400000, 0);
	lua_getfield(L, 2, "ilp");
	int no_ilp = !lua_isnil(L, -1) && !lua_toboolean(L, -1);
	lua_getfield(L, 2, "exhaustive");
	int exhaustive = lua_toboolean(L, -1);
	lua_settop(L, 2);
	pin_set *pins = lua_newuserdatauv(L, sizeof *pins, 0);                /* 3 */
	eval_result *ev = lua_newuserdatauv(L, sizeof *ev, 0);               /* 4 */
	search_result *r = lua_newuserdatauv(L, sizeof *r, 0);              /* 5 */
	memset(r, 0, sizeof *r);
	char why[512];
	if (pin_set_from_strings(pins, p->pins, p->npins, why, sizeof why))
		return luaL_error(L, "strata.search: %s", why);
	if (no_ilp && pin_needs_ilp(pins))
		return luaL_error(L, "strata.search: stage pins need the ILP level (ilp = false drops it)");
	lua_createtable(L, top, 0);                                          /* 6: results */
	/* copies of the item strategies, made before the search so nothing raises after it */
	strategy_t *items = lua_newuserdatauv(L, sizeof *items * (size_t)top, 0); /* 7 */
	search_item *meta = lua_newuserdatauv(L, sizeof *meta * (size_t)top, 0);  /* 8 */
	const char *fns[] = {"filter", "score"};
	for (int i = 0; i < 2; i++)                                          /* E_FILTER, E_SCORE */
		if (lua_getfield(L, 2, fns[i]) != LUA_TFUNCTION) {
			lua_pop(L, 1);
			lua_pushnil(L);
		}
	lua_pushnil(L);                                                      /* E_ERR */
	scr_hooks hooks = {L, scr_copy_plan(L, 1), NULL};                    /* E_CAND */
	luaL_checkstack(L, 8, "strata.search"); /* a hook call pushes 4 values */
	search_job job = {&p->model, &p->cluster, p->devices, p->strategy, p->budget_gib};
	search_opts opt;
	memset(&opt, 0, sizeof opt);
	opt.top = top;
	opt.threads = threads;
	opt.no_ilp = no_ilp;
	opt.exhaustive = exhaustive;
	/* the recipe's time limit bounds the ILP level; the watchdog the whole search, its
	 * memory and Esc */
	long long left = scr_left_ms(scr_ctx_of(L)) + SCR_SOLVE_SLACK_MS;
	int per = limit > 0 ? limit : SEARCH_ILP_MS;
	opt.ilp_time_limit_ms = (int)(per < left ? per : left);
	opt.ilp_budget_ms = (int)(SEARCH_ILP_BUDGET_MS < left ? SEARCH_ILP_BUDGET_MS : left);
	opt.filter = lua_isnil(L, E_FILTER) ? NULL : scr_filter_hook;
	opt.score = lua_isnil(L, E_SCORE) ? NULL : scr_score_hook;
	opt.hook_user = &hooks;
	scr_watch wd;
	scr_watch_begin(L, &wd, "strata.search");
	opt.cancel = scr_watch_flag(&wd);
	/* from here to search_free nothing may raise: the result owns malloc'd memory */
	int rc = search_run(&job, pins, &opt, r);
	int stopped = scr_watch_end(L, &wd);
	int n = rc ? 0 : (r->n < top ? r->n : top);
	for (int i = 0; i < n; i++) {
		items[i] = r->item[i].s;
		meta[i] = r->item[i];
	}
	search_result counts = *r;
	search_free(r);
	if (hooks.failed && (stopped || (rc && counts.aborted))) {
		lua_pushvalue(L, E_ERR); /* a limit hit inside filter or score: with that line */
		return scr_hook_failed(L, hooks.failed);
	}
	if (stopped)
		return scr_raise_trip(L);
	if (rc)
		return luaL_error(L, "strata.search: %s", counts.why);
	for (int i = 0; i < n; i++) {
		plan_t *q = scr_copy_plan(L, 1);
		q->strategy = items[i];
		eval_run(&q->model, &q->cluster, q->devices, &q->strategy, q->budget_gib, ev);
		scr_push_report(L, q, ev);
		lua_insert(L, -2);
		lua_setfield(L, -2, "plan");
		const search_item *it = &meta[i];
		lua_createtable(L, 0, 16);
		struct { const char *k; double v; } num[] = {
			{"step_s", it->step}, {"peak_gib", it->peak_gib}, {"mfu", it->mfu},
			{"tokens_per_s", it->tokens_per_s}, {"even_step_s", it->even_step},
			{"even_peak_gib", it->even_peak_gib}, {"outer_s", counts.outer_s}, {"inner_s", counts.inner_s},
		};
		for (size_t j = 0; j < sizeof num / sizeof num[0]; j++) {
			lua_pushnumber(L, num[j].v);
			lua_setfield(L, -2, num[j].k);
		}
		struct { const char *k; long long v; } cnt[] = {
			{"rank", i + 1}, {"enumerated", counts.enumerated}, {"pruned", counts.pruned},
			{"evaluated", counts.evaluated}, {"valid", counts.valid}, {"fit", counts.fit},
			{"filtered", counts.filtered}, {"threads", counts.threads},
		};
		for (size_t j = 0; j < sizeof cnt / sizeof cnt[0]; j++) {
			lua_pushinteger(L, cnt[j].v);
			lua_setfield(L, -2, cnt[j].k);
		}
		if (opt.score) {
			lua_pushnumber(L, -it->score); /* back to the script's higher-is-better */
			lua_setfield(L, -2, "score");
		}
		/* the strategies with identical results merged into this one, as search --json */
		lua_pushinteger(L, it->alike);
		lua_setfield(L, -2, "alike");
		lua_createtable(L, it->alike < SEARCH_MAX_ALIKE ? it->alike : SEARCH_MAX_ALIKE, 0);
		for (int a = 0; a < it->alike && a < SEARCH_MAX_ALIKE; a++) {
			strategy_t t = it->s;
			search_knobs_apply(&it->alike_k[a], &t);
			json_w w;
			scr_tbuild b;
			scr_tbuild_init(&b, L, &w); /* the keys of search --json's alike_strategies */
			json_obj_begin(&w, NULL);
			report_degrees_json(&w, &t);
			json_str(&w, "recompute", strat_recompute_name(t.recompute));
			json_str(&w, "schedule", strat_schedule_name(t.schedule));
			json_obj_end(&w);
			lua_rawseti(L, -2, a + 1);
		}
		lua_setfield(L, -2, "alike_strategies");
		lua_pushliteral(L, "two-level");
		lua_setfield(L, -2, "engine");
		lua_setfield(L, -2, "search");
		lua_createtable(L, 0, 5);
		lua_pushstring(L, it->ilp_status < 0 ? "skipped" : ilp_status_name(it->ilp_status));
		lua_setfield(L, -2, "status");
		if (it->ilp_status >= 0) {
			lua_pushnumber(L, it->ilp_ms);
			lua_setfield(L, -2, "solve_ms");
			lua_pushnumber(L, it->ilp_gain);
			lua_setfield(L, -2, "gain");
			lua_pushboolean(L, it->ilp_applied);
			lua_setfield(L, -2, "applied");
		}
		lua_setfield(L, -2, "ilp");
		lua_rawseti(L, E_LIST, i + 1);
	}
	lua_pushvalue(L, E_LIST);
	if (n == 0) {
		lua_pushstring(L, counts.why[0] ? counts.why : "no strategy fits");
		return 2;
	}
	return 1;
}

/* strata.search(plan [, opts]) -> a list of results, best first (eval report + search +
 * plan). With enumerate the steered search runs the script's list (its own space, so none
 * of the C search's bounds hold); otherwise the two-level C search does, with filter and
 * score as its hooks. */
static int scr_search(lua_State *L)
{
	scr_check_plan(L, 1);
	if (lua_isnoneornil(L, 2)) {
		lua_settop(L, 1);
		lua_newtable(L);
	}
	luaL_checktype(L, 2, LUA_TTABLE);
	static const char *const ok[] = {"top", "filter", "score", "enumerate", "exhaustive", "ilp", "threads",
		"time_limit_ms", NULL};
	scr_check_keys(L, 2, "strata.search", ok);
	int top = (int)scr_int_field(L, 2, "top", "strata.search", 1, SEARCH_MAX_TOP, 10);
	static const char *const fns[] = {"filter", "score", "enumerate"};
	for (int i = 0; i < 3; i++) {
		lua_getfield(L, 2, fns[i]);
		if (!lua_isnil(L, -1) && !lua_isfunction(L, -1))
			luaL_error(L, "strata.search: %s must be a function (got %s)", fns[i], luaL_typename(L, -1));
		lua_pop(L, 1);
	}
	lua_getfield(L, 2, "enumerate");
	int steered = !lua_isnil(L, -1);
	lua_pop(L, 1);
	return steered ? scr_search_steered(L, top) : scr_search_engine(L, top);
}

void scr_open_solve(lua_State *L)
{
	static const luaL_Reg fns[] = {{"ilp", scr_ilp}, {"search", scr_search}, {NULL, NULL}};
	luaL_setfuncs(L, fns, 0);
}
