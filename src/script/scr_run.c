/* scr_run.c - one sandboxed Lua state per recipe run: a counting allocator (memory cap),
 * a count hook (instruction budget, wall-clock deadline, cancel; it looks more often while
 * instructions are slow), scr_meter for library work in C (scr_lib.c, scr_pat.c), only the
 * base/table/string/math/utf8 libraries with the file, bytecode and nondeterministic entry
 * points replaced, the `strata` module, and a protected call that turns any failure into
 * "file:line: message" plus a traceback. */
#include "io/paths.h"
#include "script/scr_int.h"

#include <errno.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCR_FILE_MAX ((size_t)16 << 20)   /* a recipe is text a person wrote */
#define SCR_SEED 20240601                 /* math.random is seeded with this */

scr_ctx *scr_ctx_of(lua_State *L)
{
	scr_ctx *c;
	memcpy(&c, lua_getextraspace(L), sizeof c);
	return c;
}

/* ---------- limits ---------- */

static void scr_hook(lua_State *L, lua_Debug *ar);

long long scr_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void scr_trip(scr_ctx *c, int why)
{
	if (c->tripped)
		return;
	c->tripped = why;
	/* count 1: every further instruction, inside pcall or not, raises again */
	if (c->L)
		lua_sethook(c->L, scr_hook, LUA_MASKCOUNT, 1);
	if (c->fin)
		lua_sethook(c->fin, scr_hook, LUA_MASKCOUNT, 1);
}

void scr_sethook(lua_State *L, int count)
{
	lua_sethook(L, scr_hook, LUA_MASKCOUNT, count);
}

int scr_check(scr_ctx *c, long long now)
{
	if (c->tripped)
		return c->tripped;
	if (c->env->cancel && atomic_load(c->env->cancel))
		scr_trip(c, SCR_TRIP_CANCEL);
	else if (c->steps > c->max_steps)
		scr_trip(c, SCR_TRIP_STEPS);
	else if (now && now >= c->deadline_ns)
		scr_trip(c, SCR_TRIP_TIME);
	return c->tripped;
}

/* The message a tripped run dies with; the same text whichever way it surfaces. */
static void scr_trip_message(const scr_ctx *c, char *out, size_t n)
{
	char in[48] = "";
	if (c->trip_in)
		snprintf(in, sizeof in, " in %s", c->trip_in);
	if (c->tripped == SCR_TRIP_STEPS)
		snprintf(out, n, "instruction budget of %lld exceeded%s (raise it with --lua-steps)", c->max_steps, in);
	else if (c->tripped == SCR_TRIP_MEM)
		snprintf(out, n, "memory limit of %zu MiB exceeded%s (raise it with --lua-mem)", c->limit >> 20, in);
	else if (c->tripped == SCR_TRIP_TIME)
		snprintf(out, n, "time limit of %g s exceeded%s (raise it with --lua-time)", c->time_ms / 1e3, in);
	else
		snprintf(out, n, "script cancelled%s", in);
}

int scr_raise_trip(lua_State *L)
{
	char msg[200];
	scr_trip_message(scr_ctx_of(L), msg, sizeof msg);
	/* the nearest Lua line: a library function has none of its own */
	lua_Debug ar;
	for (int level = 0; lua_getstack(L, level, &ar); level++)
		if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
			lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
			return lua_error(L);
		}
	lua_pushstring(L, msg);
	return lua_error(L);
}

void scr_meter(lua_State *L, long long n)
{
	scr_ctx *c = scr_ctx_of(L);
	c->steps += n;
	if (c->steps < c->meter_next && !c->tripped)
		return;
	c->meter_next = c->steps + SCR_METER_EVERY;
	if (scr_check(c, scr_now_ns()))
		scr_raise_trip(L);
}

/* Look at the clock more often while instructions are slow (long library calls between
 * two hook calls would otherwise let a loop of them overrun the deadline by far), and
 * less often again when they are fast. Each thread (the main one, a finalizer's) has its
 * own count. */
static void scr_adapt(lua_State *L, int *every, long long *last, long long now)
{
	long long dt = now - *last;
	int e = *every;
	*last = now;
	if (dt > 2000000)
		e = e > 16 ? e / 16 : 1;
	else if (dt < 250000 && e < SCR_HOOK_EVERY)
		e = e * 4 < SCR_HOOK_EVERY ? e * 4 : SCR_HOOK_EVERY;
	if (e != *every) {
		*every = e;
		lua_sethook(L, scr_hook, LUA_MASKCOUNT, e);
	}
}

static void scr_hook(lua_State *L, lua_Debug *ar)
{
	scr_ctx *c = scr_ctx_of(L);
	if (!c->tripped) {
		int main = L == c->L;
		int *every = main ? &c->every : &c->fin_every;
		c->steps += *every;
		long long now = scr_now_ns();
		if (!scr_check(c, now)) {
			scr_adapt(L, every, main ? &c->last_hook_ns : &c->fin_last_ns, now);
			return;
		}
	}
	char msg[200];
	scr_trip_message(c, msg, sizeof msg);
	/* position of the interrupted Lua code: the hook has no frame of its own */
	if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
		lua_pushfstring(L, "%s:%d: %s", ar->short_src, ar->currentline, msg);
	else
		lua_pushstring(L, msg);
	lua_error(L);
}

#define SCR_ALLOC_CHECK ((size_t)4 << 20) /* bytes allocated between two looks at the clock */

/* Counting allocator. Crossing the soft cap trips the run (the hook then raises with
 * the script's position); the hard cap, a little higher so the error and its traceback
 * can still be built, refuses the allocation (a single huge request, or C code that
 * allocates without returning to the VM). Per lua_Alloc, osize is not a size when ptr
 * is NULL. */
static void *scr_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	scr_ctx *c = ud;
	size_t old = ptr ? osize : 0;
	if (nsize == 0) {
		free(ptr);
		c->used -= old;
		return NULL;
	}
	if (nsize > old) {
		size_t grow = nsize - old;
		if (c->used + grow > c->hard_limit || grow > c->hard_limit) {
			scr_trip(c, SCR_TRIP_MEM);
			return NULL;
		}
		if (c->used + grow > c->limit)
			scr_trip(c, SCR_TRIP_MEM);
		/* library calls that build large strings in a loop: look at the clock every few MiB
		 * (the hook may be a thousand such calls away) */
		c->grown += grow;
		if (c->grown > SCR_ALLOC_CHECK) {
			c->grown = 0;
			scr_check(c, scr_now_ns());
		}
	}
	void *q = realloc(ptr, nsize);
	if (!q)
		return NULL;
	c->used = c->used - old + nsize;
	if (c->used > c->peak)
		c->peak = c->used;
	return q;
}

/* ---------- sandboxed base functions ---------- */

/* print: to the run's output (stdout in batch, a callback in the TUI). */
static int scr_print(lua_State *L)
{
	scr_ctx *c = scr_ctx_of(L);
	int n = lua_gettop(L);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		scr_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_addchar(&b, '\n');
	luaL_pushresult(&b);
	size_t len;
	const char *s = lua_tolstring(L, -1, &len);
	if (c->env->print_fn)
		c->env->print_fn(c->env->user, s, len);
	else if (c->env->out)
		fwrite(s, 1, len, c->env->out);
	return 0;
}

/* load: text chunks only. A reader function's pieces are gathered first (so the reader,
 * Lua code, never runs inside the parser). */
static int scr_load(lua_State *L)
{
	size_t len;
	const char *s;
	int has_env = !lua_isnone(L, 4);
	if (lua_type(L, 1) == LUA_TSTRING) {
		s = lua_tolstring(L, 1, &len);
	} else {
		luaL_checktype(L, 1, LUA_TFUNCTION);
		luaL_Buffer b;
		lua_settop(L, 4);
		luaL_buffinit(L, &b);
		for (;;) {
			lua_pushvalue(L, 1);
			lua_call(L, 0, 1);
			if (lua_isnil(L, -1) || (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) == 0)) {
				lua_pop(L, 1);
				break;
			}
			if (lua_type(L, -1) != LUA_TSTRING)
				return luaL_error(L, "load: the reader function must return a string");
			luaL_addvalue(&b);
		}
		luaL_pushresult(&b);
		lua_replace(L, 1);
		s = lua_tolstring(L, 1, &len);
	}
	const char *name = luaL_optstring(L, 2, lua_type(L, 1) == LUA_TSTRING && s ? s : "=(load)");
	if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
		luaL_pushfail(L);
		lua_pushliteral(L, "load: binary chunks (bytecode) are not allowed in the strata sandbox");
		return 2;
	}
	if (luaL_loadbufferx(L, s, len, name, "t") != LUA_OK) {
		luaL_pushfail(L);
		lua_insert(L, -2);
		return 2;
	}
	if (has_env) {
		lua_pushvalue(L, 4);
		if (!lua_setupvalue(L, -2, 1))
			lua_pop(L, 1);
	}
	return 1;
}

/* pairs: a fixed visiting order (see scr_push_sorted_keys), because Lua seeds its string
 * hash per process and the same recipe must print the same thing every run. */
static int scr_pairs_next(lua_State *L)
{
	/* upvalues: 1 the table, 2 the key array, 3 the position */
	lua_Integer i = lua_tointeger(L, lua_upvalueindex(3));
	for (;;) {
		i++;
		if (lua_rawgeti(L, lua_upvalueindex(2), i) == LUA_TNIL)
			return 1; /* nil: done */
		lua_pushvalue(L, -1);
		if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
			lua_pushinteger(L, i);
			lua_replace(L, lua_upvalueindex(3));
			return 2;
		}
		lua_pop(L, 2); /* removed during the traversal: skip it */
	}
}

static int scr_pairs(lua_State *L)
{
	luaL_checkany(L, 1);
	if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
		lua_pushvalue(L, 1);
		lua_call(L, 1, 3);
		return 3;
	}
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushvalue(L, 1);
	scr_push_sorted_keys(L, 1);
	lua_pushinteger(L, 0);
	lua_pushcclosure(L, scr_pairs_next, 3);
	lua_pushnil(L);
	lua_pushnil(L);
	return 3;
}

/* collectgarbage: the options that cannot switch the collector off. */
static int scr_collectgarbage(lua_State *L)
{
	static const char *const ok[] = {"collect", "count", "step", "isrunning", "incremental", "generational", NULL};
	const char *opt = luaL_optstring(L, 1, "collect");
	int i;
	for (i = 0; ok[i]; i++)
		if (!strcmp(opt, ok[i]))
			break;
	if (!ok[i])
		return luaL_error(L, "collectgarbage('%s') is not allowed in the strata sandbox", opt);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/* math.randomseed(): without arguments the stock one seeds from the clock. */
static int scr_randomseed(lua_State *L)
{
	if (lua_gettop(L) == 0)
		lua_pushinteger(L, SCR_SEED);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/* require: only the built-in module. */
static int scr_require(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	if (strcmp(name, "strata"))
		return luaL_error(L, "require('%s'): only 'strata' can be required in the sandbox (no files)", name);
	lua_getglobal(L, "strata");
	return 1;
}

static int scr_open_strata(lua_State *L)
{
	lua_newtable(L); /* strata */
	scr_open_conv(L);
	scr_open_model(L);
	scr_open_plan(L);
	scr_open_solve(L);
	lua_pushliteral(L, "strata scripting API 1");
	lua_setfield(L, -2, "api");
	return 1;
}

/* Reading a global the sandbox removed says so, instead of "attempt to index a nil value". */
static int scr_missing_global(lua_State *L)
{
	static const char *const gone[] = {"io", "os", "debug", "package", "dofile", "loadfile", "coroutine", NULL};
	const char *k = lua_tostring(L, 2);
	for (int i = 0; k && gone[i]; i++)
		if (!strcmp(k, gone[i]))
			return luaL_error(L, "'%s' is not available in the strata sandbox (recipes have no file, OS or "
					"debug access; see strata-lua(7))", k);
	return 0;
}

/* Build the sandbox in an empty state (run protected: every step allocates). */
static int scr_setup(lua_State *L)
{
	static const struct { const char *name; lua_CFunction open; } libs[] = {
		{LUA_GNAME, luaopen_base}, {LUA_TABLIBNAME, luaopen_table}, {LUA_STRLIBNAME, luaopen_string},
		{LUA_MATHLIBNAME, luaopen_math}, {LUA_UTF8LIBNAME, luaopen_utf8},
	};
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		luaL_requiref(L, libs[i].name, libs[i].open, 1);
		lua_pop(L, 1);
	}
	lua_pushglobaltable(L); /* _G */
	static const char *const removed[] = {"dofile", "loadfile", "warn", NULL};
	for (int i = 0; removed[i]; i++) {
		lua_pushnil(L);
		lua_setfield(L, -2, removed[i]);
	}
	static const luaL_Reg replaced[] = {
		{"print", scr_print}, {"load", scr_load}, {"pairs", scr_pairs}, {"require", scr_require}, {NULL, NULL},
	};
	luaL_setfuncs(L, replaced, 0);
	lua_getfield(L, -1, "collectgarbage");
	lua_pushcclosure(L, scr_collectgarbage, 1);
	lua_setfield(L, -2, "collectgarbage");
	lua_getfield(L, -1, LUA_MATHLIBNAME); /* _G math */
	lua_getfield(L, -1, "randomseed");    /* _G math randomseed */
	lua_pushvalue(L, -1);
	lua_pushinteger(L, SCR_SEED);
	lua_call(L, 1, 0);                    /* a fixed sequence from the start */
	lua_pushcclosure(L, scr_randomseed, 1);
	lua_setfield(L, -2, "randomseed");
	lua_pop(L, 1);                        /* _G */
	scr_open_lib(L);
	lua_getfield(L, -1, LUA_STRLIBNAME);
	scr_open_pattern(L);
	lua_pop(L, 1);
	scr_open_strata(L);
	lua_setfield(L, -2, "strata");
	lua_createtable(L, 0, 2);
	lua_pushcfunction(L, scr_missing_global);
	lua_setfield(L, -2, "__index");
	scr_protect_mt(L, "strata.globals");
	lua_setmetatable(L, -2);
	lua_pop(L, 1);
	return 0;
}

/* Message handler: the message (or a description of a non-string error) plus a
 * traceback. Memory errors never reach it (Lua does not call it for them). */
static int scr_msgh(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (!msg) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* ---------- running ---------- */

static void scr_outcome_reset(scr_outcome *o)
{
	memset(&o->plan, 0, sizeof o->plan); /* only the part `kind` names is filled */
	o->rc = 0;
	o->kind = SCR_NONE;
	o->err[0] = 0;
	o->stopped = SCR_STOP_NONE;
	o->steps = 0;
	o->peak_bytes = 0;
	o->seconds = 0;
}

/* Take what the chunk returned (at the top of the stack) for the caller. */
static void scr_take_result(lua_State *L, scr_outcome *o)
{
	void *u;
	if ((u = luaL_testudata(L, -1, SCR_PLAN_T))) {
		memcpy(&o->plan, u, sizeof o->plan);
		o->kind = SCR_PLAN;
	} else if ((u = luaL_testudata(L, -1, SCR_MODEL_T))) {
		memcpy(&o->plan.model, u, sizeof o->plan.model);
		o->kind = SCR_MODEL;
	} else if ((u = luaL_testudata(L, -1, SCR_CLUSTER_T))) {
		memcpy(&o->plan.cluster, u, sizeof o->plan.cluster);
		o->kind = SCR_CLUSTER;
	}
}

/* Chunk text after a "#!" first line (kept as an empty line so line numbers hold) and a
 * UTF-8 byte order mark. */
static const char *scr_skip_header(const char *text, size_t *len)
{
	if (*len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		*len -= 3;
	}
	if (*len > 0 && text[0] == '#') {
		const char *nl = memchr(text, '\n', *len);
		size_t skip = nl ? (size_t)(nl - text) : *len;
		text += skip;
		*len -= skip;
	}
	return text;
}

static int scr_run_chunk(const scr_env *env, const char *text, size_t len, const char *chunkname,
		int argc, char **argv, scr_outcome *o)
{
	scr_outcome_reset(o);
	scr_ctx *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(o->err, sizeof o->err, "out of memory");
		return o->rc = 2;
	}
	c->env = env;
	c->scratch = malloc(sizeof *c->scratch);
	c->max_steps = env->lim.steps > 0 ? env->lim.steps : SCR_DEFAULT_STEPS;
	c->time_ms = env->lim.time_ms > 0 ? env->lim.time_ms : SCR_DEFAULT_TIME_MS;
	c->t0_ns = c->last_hook_ns = scr_now_ns();
	c->deadline_ns = c->t0_ns + c->time_ms * 1000000LL;
	c->every = SCR_HOOK_EVERY;
	c->meter_next = SCR_METER_EVERY;
	long long mib = env->lim.mem_mib > 0 ? env->lim.mem_mib : SCR_DEFAULT_MIB;
	c->limit = (size_t)mib << 20;
	/* room for the error message and traceback after the soft cap trips */
	c->hard_limit = c->limit + (c->limit / 8 > ((size_t)4 << 20) ? c->limit / 8 : ((size_t)4 << 20));
	lua_State *L = lua_newstate(scr_alloc, c);
	if (!L) {
		snprintf(o->err, sizeof o->err, "cannot create a Lua state within %lld MiB", mib);
		free(c->scratch);
		free(c);
		return o->rc = 2;
	}
	memcpy(lua_getextraspace(L), &c, sizeof c);
	c->L = L;

	int rc = 0;
	lua_pushcfunction(L, scr_msgh);              /* msgh */
	int msgh = lua_gettop(L);
	lua_pushcfunction(L, scr_setup);
	int st = lua_pcall(L, 0, 0, msgh);
	if (st == LUA_OK) {
		text = scr_skip_header(text, &len);
		st = luaL_loadbufferx(L, text, len, chunkname, "t"); /* msgh chunk | msgh err */
	}
	if (st == LUA_OK) {
		/* arg as in lua(1): arg[0] the script, arg[1..n] its arguments; also `...` */
		lua_createtable(L, argc, 1);
		lua_pushstring(L, chunkname[0] == '@' || chunkname[0] == '=' ? chunkname + 1 : chunkname);
		lua_rawseti(L, -2, 0);
		for (int i = 0; i < argc; i++) {
			lua_pushstring(L, argv[i]);
			lua_rawseti(L, -2, i + 1);
		}
		lua_setglobal(L, "arg");
		luaL_checkstack(L, argc + 4, "too many script arguments");
		for (int i = 0; i < argc; i++)
			lua_pushstring(L, argv[i]);
		/* a limit already tripped while setting up keeps its every-instruction hook */
		lua_sethook(L, scr_hook, LUA_MASKCOUNT, c->tripped ? 1 : c->every);
		st = lua_pcall(L, argc, 1, msgh);
		lua_sethook(L, NULL, 0, 0);
	}
	c->closing = 1; /* finalizers still pending are not run (lua_close would run them unmetered) */
	if (st == LUA_OK && !c->tripped) {
		scr_take_result(L, o);
	} else {
		rc = 1;
		char trip[200] = "";
		const char *msg = lua_tostring(L, -1);
		if (c->tripped)
			scr_trip_message(c, trip, sizeof trip);
		if (c->tripped && (st == LUA_OK || st == LUA_ERRMEM || st == LUA_ERRERR || !msg)) {
			/* no position: the limit hit inside C code or the error handler */
			msg = trip;
		} else if (!msg) {
			msg = st == LUA_ERRMEM ? "out of memory" : "error object is not a string";
		}
		snprintf(o->err, sizeof o->err, "%s", msg);
		/* a limit stopped it when its message is what the run died with (an error can
		 * come first, the deadline pass while it unwinds through a solver) */
		o->stopped = c->tripped && strstr(msg, trip) ? c->tripped : SCR_STOP_NONE;
	}
	o->steps = c->steps;
	o->peak_bytes = c->peak;
	o->seconds = (scr_now_ns() - c->t0_ns) / 1e9;
	lua_close(L);
	free(c->scratch);
	free(c);
	return o->rc = rc;
}

int scr_run_string(const scr_env *env, const char *text, const char *name, int argc, char **argv,
		scr_outcome *o)
{
	char chunk[512];
	snprintf(chunk, sizeof chunk, "=%s", name ? name : "(string)");
	return scr_run_chunk(env, text, strlen(text), chunk, argc, argv, o);
}

int scr_run_file(const scr_env *env, const char *path, int argc, char **argv, scr_outcome *o)
{
	scr_outcome_reset(o);
	/* a FIFO or device named *.lua is refused at once, never waited on */
	FILE *f = paths_fopen_regular(path, NULL, o->err, sizeof o->err);
	if (!f)
		return o->rc = 2;
	char *buf = malloc(SCR_FILE_MAX + 1);
	size_t len = buf ? fread(buf, 1, SCR_FILE_MAX + 1, f) : 0;
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad || len > SCR_FILE_MAX) {
		snprintf(o->err, sizeof o->err, "%s: %s", path,
				!buf ? "out of memory" : bad ? "read error (is it a directory?)" : "larger than 16 MiB");
		free(buf);
		return o->rc = 2;
	}
	char chunk[1100];
	snprintf(chunk, sizeof chunk, "@%s", path);
	int rc = scr_run_chunk(env, buf, len, chunk, argc, argv, o);
	free(buf);
	return rc;
}

/* ---------- option values ---------- */

static int scr_parse_ll(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int scr_parse_steps(const char *s, long long *out, char *err, size_t errlen)
{
	if (scr_parse_ll(s, 1000, SCR_MAX_STEPS, out)) {
		snprintf(err, errlen, "--lua-steps needs a whole number of instructions from 1000 to 2^50 (got '%s')", s);
		return -1;
	}
	return 0;
}

int scr_parse_mib(const char *s, long long *out, char *err, size_t errlen)
{
	if (scr_parse_ll(s, 1, SCR_MAX_MIB, out)) {
		snprintf(err, errlen, "--lua-mem needs a whole number of MiB from 1 to %d (got '%s')", SCR_MAX_MIB, s);
		return -1;
	}
	return 0;
}

int scr_parse_time(const char *s, long long *out_ms, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* written as "v * 1000 < 1" so that NaN fails too */
	if (end == s || *end || errno || !(v * 1000 >= 1) || !(v * 1000 <= (double)SCR_MAX_TIME_MS)) {
		snprintf(err, errlen, "--lua-time needs a number of seconds from 0.001 to %lld (got '%s')",
				SCR_MAX_TIME_MS / 1000, s);
		return -1;
	}
	*out_ms = (long long)(v * 1000 + 0.5);
	return 0;
}
