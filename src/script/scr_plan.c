/* scr_plan.c - plans in Lua: strata.plan (the keys of a plan file), plan:with (a copy
 * with some keys changed, for sweeps) and strata.eval (the report of `eval --json` as a
 * table). Strategy keys go through the plan loader's own key handling as text, so the
 * names, aliases, ranges and messages are those of a plan file. */
#include "script/scr_int.h"
#include "io/report.h"

#include <stdlib.h>
#include <string.h>

/* A plan userdata: the plan, and whether its global batch is derived (then it follows dp
 * and the micro-batch when a sweep changes them, as it would in a fresh plan). */
typedef struct {
	plan_t plan;
	int gbs_auto;
} scr_plan_ud;

plan_t *scr_new_plan(lua_State *L)
{
	scr_plan_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
	memset(u, 0, sizeof *u);
	u->plan.strategy = strat_default();
	u->gbs_auto = 1;
	luaL_setmetatable(L, SCR_PLAN_T);
	return &u->plan;
}

plan_t *scr_check_plan(lua_State *L, int idx)
{
	scr_plan_ud *u = luaL_checkudata(L, idx, SCR_PLAN_T);
	return &u->plan;
}

static scr_plan_ud *scr_plan_of(plan_t *p)
{
	return (scr_plan_ud *)(void *)p; /* plan is the first member */
}

plan_t *scr_copy_plan(lua_State *L, int idx)
{
	scr_plan_ud *src = luaL_checkudata(L, idx, SCR_PLAN_T);
	plan_t *p = scr_new_plan(L);
	memcpy(scr_plan_of(p), src, sizeof *src);
	return p;
}

/* A Lua scalar as the text plan_set expects; raises for other types. */
static const char *scr_scalar_text(lua_State *L, int idx, const char *key, char *buf, size_t n)
{
	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(buf, n, "%lld", (long long)lua_tointeger(L, idx));
		else
			snprintf(buf, n, "%.17g", lua_tonumber(L, idx));
		return buf;
	case LUA_TSTRING:
		snprintf(buf, n, "%s", lua_tostring(L, idx));
		return buf;
	case LUA_TBOOLEAN:
		return lua_toboolean(L, idx) ? "true" : "false";
	default:
		luaL_error(L, "%s must be a number (got %s)", key, luaL_typename(L, idx));
		return NULL;
	}
}

static void scr_set_pins(lua_State *L, int idx, plan_t *p)
{
	if (lua_type(L, idx) != LUA_TTABLE)
		luaL_error(L, "pins must be a list of \"key=value\" strings (got %s)", luaL_typename(L, idx));
	lua_Unsigned n = lua_rawlen(L, idx);
	if (n > PLAN_MAX_PINS)
		luaL_error(L, "pins: at most %d pins", PLAN_MAX_PINS);
	p->npins = 0;
	for (lua_Unsigned i = 1; i <= n; i++) {
		lua_rawgeti(L, idx, (lua_Integer)i);
		size_t len;
		const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
		if (!s || !strchr(s, '=') || len >= sizeof p->pins[0])
			luaL_error(L, "pins[%d]: a pin is a string \"key=value\" (e.g. \"tp=8\") shorter than %d characters",
					(int)i, (int)sizeof p->pins[0]);
		snprintf(p->pins[p->npins++], sizeof p->pins[0], "%s", s);
		lua_pop(L, 1);
	}
}

int scr_apply_overrides(lua_State *L, int idx, plan_t *p, char *why, size_t whylen)
{
	idx = lua_absindex(L, idx);
	luaL_checktype(L, idx, LUA_TTABLE);
	scr_plan_ud *u = scr_plan_of(p);
	int tp = p->strategy.tp, pp = p->strategy.pp, cp = p->strategy.cp, devices = p->devices;
	int dp_given = 0, gbs_given = 0;
	char err[1024], buf[64];
	lua_newtable(L); /* strategy keys, flat ones over those of a strategy table */
	int strat = lua_gettop(L);
	lua_getfield(L, idx, "strategy");
	if (!lua_isnil(L, -1)) {
		if (!lua_istable(L, -1))
			luaL_error(L, "strategy must be a table (got %s)", luaL_typename(L, -1));
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pushvalue(L, -2);
			lua_insert(L, -2);
			lua_rawset(L, strat);
		}
	}
	lua_pop(L, 1);
	scr_push_sorted_keys(L, idx);
	for (lua_Integer i = 1;; i++) {
		int kt = lua_rawgeti(L, -1, i);
		if (kt == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		if (kt != LUA_TSTRING)
			luaL_error(L, "plan keys must be strings (found a %s key)", luaL_typename(L, -1));
		const char *k = lua_tostring(L, -1);
		lua_pushvalue(L, -1);
		lua_rawget(L, idx); /* keys k v */
		int v = lua_gettop(L);
		if (!strcmp(k, "strategy")) {
			/* merged above */
		} else if (!strcmp(k, "model")) {
			scr_get_model(L, v, &p->model, p->model_ref, sizeof p->model_ref);
		} else if (!strcmp(k, "cluster")) {
			scr_get_cluster(L, v, &p->cluster, p->cluster_ref, sizeof p->cluster_ref);
		} else if (!strcmp(k, "pins")) {
			scr_set_pins(L, v, p);
		} else if (!strcmp(k, "devices") || !strcmp(k, "n") || !strcmp(k, "budget") || !strcmp(k, "budget_gib")) {
			if (plan_set(p, k, scr_scalar_text(L, v, k, buf, sizeof buf), err, sizeof err))
				luaL_error(L, "%s", err);
		} else {
			lua_pushvalue(L, v);
			lua_setfield(L, strat, k);
		}
		lua_pop(L, 2);
	}
	lua_pop(L, 1); /* sorted keys */
	lua_getfield(L, strat, "dp");
	dp_given = !lua_isnil(L, -1);
	lua_getfield(L, strat, "global_batch");
	lua_getfield(L, strat, "gbs");
	gbs_given = !lua_isnil(L, -1) || !lua_isnil(L, -2);
	lua_pop(L, 3);
	scr_push_text(L, strat, "strategy", 0);
	if (plan_strategy_from_text(&p->strategy, lua_tostring(L, -1), "strategy", err, sizeof err))
		scr_raise_loader(L, "strategy", err);
	lua_pop(L, 2);
	if (gbs_given)
		u->gbs_auto = 0;
	if (!dp_given && (tp != p->strategy.tp || pp != p->strategy.pp || cp != p->strategy.cp || devices != p->devices))
		p->strategy.dp = 0;
	if (u->gbs_auto)
		p->strategy.global_batch = 0;
	return strat_resolve(&p->strategy, p->devices, why, whylen);
}

/* ---------- strata.plan ---------- */

static int scr_plan(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	static const char *const ok[] = {"model", "cluster", "devices", "strategy", "pins", "budget_gib", "id", "source",
		NULL};
	scr_check_keys(L, 1, "strata.plan", ok);
	lua_getfield(L, 1, "model");
	lua_getfield(L, 1, "cluster");
	lua_getfield(L, 1, "devices");
	if (lua_isnil(L, -3) || lua_isnil(L, -2) || lua_isnil(L, -1))
		return luaL_error(L, "strata.plan: %s is required", lua_isnil(L, -3) ? "model" :
				lua_isnil(L, -2) ? "cluster" : "devices");
	lua_pop(L, 3);
	lua_newtable(L); /* the keys the override path knows */
	int t = lua_gettop(L);
	static const char *const take[] = {"model", "cluster", "devices", "strategy", "pins", "budget_gib", NULL};
	for (int i = 0; take[i]; i++) {
		lua_getfield(L, 1, take[i]);
		lua_setfield(L, t, take[i]);
	}
	plan_t *p = scr_new_plan(L);
	char why[512];
	if (scr_apply_overrides(L, t, p, why, sizeof why))
		return luaL_error(L, "strata.plan: %s", why);
	const char *id = NULL;
	if (lua_getfield(L, 1, "id") == LUA_TSTRING)
		id = lua_tostring(L, -1);
	snprintf(p->id, sizeof p->id, "%s", id ? id : "");
	lua_pop(L, 1);
	return 1;
}

/* plan:with{key = value, ...}: a copy with strategy keys (flat or under strategy=),
 * devices, budget_gib, model, cluster or pins changed; nil and the reason when the new
 * shape does not resolve (tp*pp*cp not dividing the devices). */
static int scr_plan_with(lua_State *L)
{
	scr_check_plan(L, 1);
	luaL_checktype(L, 2, LUA_TTABLE);
	plan_t *p = scr_copy_plan(L, 1);
	char why[256];
	if (scr_apply_overrides(L, 2, p, why, sizeof why)) {
		luaL_pushfail(L);
		lua_pushstring(L, why);
		return 2;
	}
	return 1;
}

/* ---------- reports ---------- */

void scr_push_report(lua_State *L, const plan_t *p, const eval_result *r)
{
	json_w w;
	scr_tbuild b;
	scr_tbuild_init(&b, L, &w);
	report_json(&w, NULL, p, r);
}

/* strata.eval(plan [, overrides]) -> the eval report; valid = false and error when the
 * strategy is rejected (as in `eval --json`). */
static int scr_eval(lua_State *L)
{
	plan_t *p = scr_check_plan(L, 1);
	if (!lua_isnoneornil(L, 2)) {
		p = scr_copy_plan(L, 1);
		char why[256];
		if (scr_apply_overrides(L, 2, p, why, sizeof why)) {
			eval_result *bad = lua_newuserdatauv(L, sizeof *bad, 0);
			bad->valid = 0;
			snprintf(bad->why, sizeof bad->why, "%s", why);
			scr_push_report(L, p, bad);
			return 1;
		}
	}
	scr_ctx *c = scr_ctx_of(L);
	int mine = c->scratch && !c->scratch_busy;
	eval_result *r = mine ? c->scratch : lua_newuserdatauv(L, sizeof *r, 0);
	c->scratch_busy |= mine;
	eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r);
	scr_push_report(L, p, r); /* if this raises, later calls use userdata: slower, still right */
	if (mine)
		c->scratch_busy = 0;
	return 1;
}

/* ---------- plan fields ---------- */

static int scr_plan_index(lua_State *L)
{
	plan_t *p = scr_check_plan(L, 1);
	const char *k = luaL_checkstring(L, 2);
	if (!strcmp(k, "model")) {
		memcpy(scr_new_model(L), &p->model, sizeof p->model);
	} else if (!strcmp(k, "cluster")) {
		memcpy(scr_new_cluster(L), &p->cluster, sizeof p->cluster);
	} else if (!strcmp(k, "devices")) {
		lua_pushinteger(L, p->devices);
	} else if (!strcmp(k, "budget_gib")) {
		lua_pushnumber(L, p->budget_gib > 0 ? p->budget_gib : eval_default_budget_gib(&p->cluster));
	} else if (!strcmp(k, "strategy")) {
		scr_push_strategy(L, p);
	} else if (!strcmp(k, "pins")) {
		lua_createtable(L, p->npins, 0);
		for (int i = 0; i < p->npins; i++) {
			lua_pushstring(L, p->pins[i]);
			lua_rawseti(L, -2, i + 1);
		}
	} else if (!strcmp(k, "with")) {
		lua_pushcfunction(L, scr_plan_with);
	} else if (!strcmp(k, "eval")) {
		lua_pushcfunction(L, scr_eval);
	} else {
		lua_pushnil(L);
	}
	return 1;
}

static int scr_plan_tostring(lua_State *L)
{
	const plan_t *p = scr_check_plan(L, 1);
	const strategy_t *s = &p->strategy;
	lua_pushfstring(L, "plan %s on %d x %s: dp=%d tp=%d pp=%d cp=%d ep=%d mbs=%d", p->model.name, p->devices,
			p->cluster.device, s->dp, s->tp, s->pp, s->cp, s->ep, s->micro_batch);
	return 1;
}

/* strata.current(): a copy of the plan the recipe was started on (the explorer's plan on
 * screen, or `strata run --plan FILE`), or nil when there is none. Its global batch is the
 * plan's, not derived. */
static int scr_current(lua_State *L)
{
	const scr_env *env = scr_ctx_of(L)->env;
	if (!env || !env->current) {
		lua_pushnil(L);
		return 1;
	}
	plan_t *p = scr_new_plan(L);
	*p = *env->current;
	scr_plan_of(p)->gbs_auto = 0;
	return 1;
}

void scr_open_plan(lua_State *L)
{
	static const luaL_Reg mt[] = {{"__index", scr_plan_index}, {"__tostring", scr_plan_tostring}, {NULL, NULL}};
	luaL_newmetatable(L, SCR_PLAN_T);
	luaL_setfuncs(L, mt, 0);
	lua_pushliteral(L, SCR_PLAN_T);
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
	static const luaL_Reg fns[] = {{"plan", scr_plan}, {"eval", scr_eval}, {"current", scr_current},
		{NULL, NULL}};
	luaL_setfuncs(L, fns, 0);
}
