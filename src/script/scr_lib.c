/* scr_lib.c - the parts of Lua's own library the sandbox replaces, because as shipped
 * they escape its limits or show addresses:
 *  - tostring, print and string.format("%s") name tables and functions "table: #3" (in
 *    the order first shown) and C functions "function: builtin", never an address, and
 *    string.format refuses "%p";
 *  - string.rep checks the result against the memory cap before it builds anything (the
 *    stock one loops math.maxinteger times for rep("", math.maxinteger));
 *  - table.insert, remove and move count every element they shift as a step (their loops
 *    run in C, where the count hook never fires: table.move({}, 1, 2^62, 2) would run for
 *    ever), and table.sort counts every comparison (its default comparison and C
 *    comparators are wrapped; a Lua comparator is counted by the hook);
 *  - setmetatable marks a table with __gc for finalization through a proxy whose C
 *    finalizer runs the table's __gc on a fresh thread, where the count hook (budget,
 *    deadline, cancel) applies: the collector runs Lua finalizers with hooks off;
 *  - xpcall's message handler is skipped once a limit has stopped the run: Lua calls the
 *    handler of an error the count hook raised with hooks off;
 *  - utf8.len and utf8.offset count the bytes they may scan, and every few MiB the
 *    allocator looks at the clock (scr_run.c), so a loop of long library calls cannot run
 *    a thousand of them past the deadline before the next hook call.
 * Pattern matching (find, match, gmatch, gsub) is in scr_pat.c. */
#include "script/scr_int.h"

#include <limits.h>
#include <lualib.h>
#include <string.h>

void scr_protect_mt(lua_State *L, const char *name)
{
	lua_pushstring(L, name);
	lua_setfield(L, -2, "__metatable");
}

/* ---------- tostring without addresses ---------- */

static const char scr_ids_key = 'i', scr_fin_key = 'f';
#define SCR_FIN_T "strata.finalizer"

/* The number of the object at idx, given when first asked for (a weak-keyed table in the
 * registry keeps them, so the same table always prints the same). */
static lua_Integer scr_object_id(lua_State *L, int idx)
{
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, &scr_ids_key) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_createtable(L, 0, 1);
		lua_pushliteral(L, "k");
		lua_setfield(L, -2, "__mode");
		lua_setmetatable(L, -2);
		lua_pushvalue(L, -1);
		lua_rawsetp(L, LUA_REGISTRYINDEX, &scr_ids_key);
	}
	lua_Integer id;
	lua_pushvalue(L, idx);
	if (lua_rawget(L, -2) == LUA_TNUMBER) {
		id = lua_tointeger(L, -1);
	} else {
		id = ++scr_ctx_of(L)->next_id;
		lua_pushvalue(L, idx);
		lua_pushinteger(L, id);
		lua_rawset(L, -4);
	}
	lua_pop(L, 2);
	return id;
}

const char *scr_tolstring(lua_State *L, int idx, size_t *len)
{
	idx = lua_absindex(L, idx);
	if (luaL_callmeta(L, idx, "__tostring")) {
		if (!lua_isstring(L, -1))
			luaL_error(L, "'__tostring' must return a string");
		return lua_tolstring(L, -1, len);
	}
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
	case LUA_TBOOLEAN:
	case LUA_TNUMBER:
	case LUA_TSTRING:
		return luaL_tolstring(L, idx, len); /* no address in these */
	}
	int tt = luaL_getmetafield(L, idx, "__name");
	const char *kind = tt == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx);
	if (lua_iscfunction(L, idx))
		lua_pushfstring(L, "%s: builtin", kind);
	else
		lua_pushfstring(L, "%s: #%I", kind, (LUAI_UACINT)scr_object_id(L, idx));
	if (tt != LUA_TNIL)
		lua_remove(L, -2);
	return lua_tolstring(L, -1, len);
}

static int scr_tostring(lua_State *L)
{
	luaL_checkany(L, 1);
	scr_tolstring(L, 1, NULL);
	return 1;
}

/* Call the stock library function below nargs arguments on top. It runs under a C
 * function, so its own errors have no position and name the function '?': give them the
 * caller's line and the name (all: every error; else only those two kinds, leaving the
 * errors of Lua code it called, which carry their own position). */
static int scr_call_stock(lua_State *L, int nargs, int nres, const char *name, int all)
{
	int fn = lua_gettop(L) - nargs;
	int st = lua_pcall(L, nargs, nres, 0);
	if (st == LUA_OK)
		return nres == LUA_MULTRET ? lua_gettop(L) - fn + 1 : nres;
	const char *m = lua_tostring(L, -1);
	if (lua_type(L, -1) == LUA_TSTRING && !scr_ctx_of(L)->tripped &&
			(all || strstr(m, " to '?'") || !strcmp(m, "invalid order function for sorting"))) {
		char to[40];
		snprintf(to, sizeof to, " to '%s'", name);
		luaL_where(L, 1);
		luaL_gsub(L, m, " to '?'", to);
		lua_concat(L, 2);
	}
	return lua_error(L);
}

/* string.format: "%s" of a table or function through scr_tolstring; no "%p". */
static int scr_format(lua_State *L)
{
	size_t fl;
	const char *f = luaL_checklstring(L, 1, &fl), *end = f + fl;
	int top = lua_gettop(L), arg = 1;
	while (f < end) {
		if (*f++ != '%')
			continue;
		if (f < end && *f == '%') {
			f++;
			continue;
		}
		arg++;
		while (f < end && *f && strchr("-+ #0123456789.", *f))
			f++;
		if (f >= end)
			break;
		char conv = *f++;
		if (conv == 'p')
			return luaL_error(L, "bad argument #%d to 'format' ('%%p' is not available in the strata sandbox: "
					"it shows an address)", arg);
		if (conv == 's' && arg <= top && lua_type(L, arg) != LUA_TSTRING && lua_type(L, arg) != LUA_TNUMBER) {
			scr_tolstring(L, arg, NULL);
			lua_replace(L, arg);
		}
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	return scr_call_stock(L, top, 1, "format", 1);
}

/* ---------- string.rep ---------- */

static int scr_rep(lua_State *L)
{
	size_t l, lsep;
	const char *s = luaL_checklstring(L, 1, &l);
	lua_Integer n = luaL_checkinteger(L, 2);
	const char *sep = luaL_optlstring(L, 3, "", &lsep);
	size_t unit = l + lsep;
	if (n <= 0 || unit == 0 || (n == 1 && l == 0)) {
		lua_pushliteral(L, "");
		return 1;
	}
	if (unit < l || (lua_Unsigned)n > (size_t)INT_MAX / unit)
		return luaL_error(L, "resulting string too large"); /* the stock limit */
	size_t total = (size_t)n * unit - lsep;
	scr_ctx *c = scr_ctx_of(L);
	/* the buffer and the string made from it are both alive for a moment */
	if (total > (c->limit - (c->used < c->limit ? c->used : c->limit)) / 2) {
		scr_trip(c, SCR_TRIP_MEM);
		c->trip_in = "string.rep";
		return scr_raise_trip(L);
	}
	luaL_Buffer b;
	char *p = luaL_buffinitsize(L, &b, total);
	memcpy(p, s, l);
	size_t done = l;
	if (done < total) {
		memcpy(p + done, sep, lsep);
		done += lsep;
	}
	/* done is a whole number of units: copying the text so far doubles it */
	while (done < total) {
		size_t k = done < total - done ? done : total - done;
		memcpy(p + done, p, k);
		done += k;
	}
	luaL_pushresultsize(&b, total);
	return 1;
}

/* ---------- utf8.len, utf8.offset ---------- */

/* They scan the string in C without allocating, so a loop of them on a long string would
 * run long between two hook calls: count a step per 16 bytes they may look at, then call
 * the stock function (upvalue 1). */
static int scr_utf8_scan(lua_State *L, const char *name, lua_Integer bytes)
{
	if (bytes > 0)
		scr_meter(L, bytes / 16);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	return scr_call_stock(L, lua_gettop(L) - 1, LUA_MULTRET, name, 1);
}

/* A 1-based position, negative from the end, in a string of n bytes (0: before it). */
static lua_Integer scr_utf8_pos(lua_Integer pos, lua_Integer n)
{
	if (pos >= 0)
		return pos;
	return pos < -n ? 0 : n + pos + 1;
}

static int scr_utf8_len(lua_State *L)
{
	size_t len;
	luaL_checklstring(L, 1, &len);
	lua_Integer n = (lua_Integer)len;
	lua_Integer i = scr_utf8_pos(luaL_optinteger(L, 2, 1), n);
	lua_Integer j = scr_utf8_pos(luaL_optinteger(L, 3, -1), n);
	return scr_utf8_scan(L, "len", (j < n ? j : n) - i + 1);
}

static int scr_utf8_offset(lua_State *L)
{
	size_t len;
	luaL_checklstring(L, 1, &len);
	lua_Integer n = luaL_checkinteger(L, 2);
	lua_Unsigned far = n < 0 ? 0u - (lua_Unsigned)n : (lua_Unsigned)n; /* characters to walk */
	return scr_utf8_scan(L, "offset", far < len / 4 ? (lua_Integer)far * 4 : (lua_Integer)len);
}

/* ---------- table.insert, remove, move, sort ---------- */

enum { TAB_R = 1, TAB_W = 2, TAB_L = 4 };

/* Steps one shifted element or one comparison counts: about the instructions of the same
 * work written in Lua (t[i + 1] = t[i] in a loop). */
#define SCR_ELEM_STEPS 4

/* The argument is a table, or has a metatable with the metamethods what needs. */
static void scr_checktab(lua_State *L, int arg, int what)
{
	static const char *const ev[] = {"__index", "__newindex", "__len"};
	if (lua_type(L, arg) == LUA_TTABLE)
		return;
	int ok = lua_getmetatable(L, arg);
	if (ok) {
		for (int i = 0; ok && i < 3; i++) {
			if (!(what & (1 << i)))
				continue;
			lua_pushstring(L, ev[i]);
			ok = lua_rawget(L, -2) != LUA_TNIL;
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	if (!ok)
		luaL_checktype(L, arg, LUA_TTABLE);
}

static int scr_tinsert(lua_State *L)
{
	scr_checktab(L, 1, TAB_R | TAB_W | TAB_L);
	lua_Integer e = (lua_Integer)((lua_Unsigned)luaL_len(L, 1) + 1u); /* the first free slot */
	lua_Integer pos = e;
	if (lua_gettop(L) == 3) {
		pos = luaL_checkinteger(L, 2);
		luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
		for (lua_Integer i = e; i > pos; i--) {
			scr_meter(L, SCR_ELEM_STEPS);
			lua_geti(L, 1, i - 1);
			lua_seti(L, 1, i);
		}
	} else if (lua_gettop(L) != 2) {
		return luaL_error(L, "wrong number of arguments to 'insert'");
	}
	lua_seti(L, 1, pos);
	return 0;
}

static int scr_tremove(lua_State *L)
{
	scr_checktab(L, 1, TAB_R | TAB_W | TAB_L);
	lua_Integer size = luaL_len(L, 1);
	lua_Integer pos = luaL_optinteger(L, 2, size);
	if (pos != size)
		luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
	lua_geti(L, 1, pos); /* the result */
	for (; pos < size; pos++) {
		scr_meter(L, SCR_ELEM_STEPS);
		lua_geti(L, 1, pos + 1);
		lua_seti(L, 1, pos);
	}
	lua_pushnil(L);
	lua_seti(L, 1, pos);
	return 1;
}

static int scr_tmove(lua_State *L)
{
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3), t = luaL_checkinteger(L, 4);
	int tt = lua_isnoneornil(L, 5) ? 1 : 5;
	scr_checktab(L, 1, TAB_R);
	scr_checktab(L, tt, TAB_W);
	if (e >= f) {
		luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
		lua_Integer n = e - f + 1;
		luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
		/* overlapping ranges of one table are copied from the end */
		int forward = t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ));
		for (lua_Integer k = 0; k < n; k++) {
			lua_Integer i = forward ? k : n - 1 - k;
			scr_meter(L, SCR_ELEM_STEPS);
			lua_geti(L, 1, f + i);
			lua_seti(L, tt, t + i);
		}
	}
	lua_pushvalue(L, tt);
	return 1;
}

/* The default order of table.sort, counted. */
static int scr_sort_lt(lua_State *L)
{
	scr_meter(L, SCR_ELEM_STEPS);
	lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
	return 1;
}

/* A C function given as the order of table.sort (upvalue 1), counted. */
static int scr_sort_c(lua_State *L)
{
	scr_meter(L, SCR_ELEM_STEPS);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* table.sort: the stock sort (upvalue 1) with a counted comparison. */
static int scr_tsort(lua_State *L)
{
	lua_settop(L, 2);
	if (lua_isnil(L, 2))
		lua_pushcfunction(L, scr_sort_lt);
	else if (lua_iscfunction(L, 2)) {
		lua_pushvalue(L, 2);
		lua_pushcclosure(L, scr_sort_c, 1);
	} else
		lua_pushvalue(L, 2); /* a Lua function (the hook counts it) or a wrong type (sort says so) */
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushvalue(L, 1);
	lua_pushvalue(L, 3);
	return scr_call_stock(L, 2, 0, "sort", 0);
}

/* ---------- finalizers ---------- */

/* Finalizer of a proxy (SCR_FIN_T; the table is its user value): run the table's current
 * __gc on a new thread. The collector calls this with hooks off, but a new thread has its
 * own hook, so the budget, the deadline and the cancel flag apply to the Lua code. An
 * error in a finalizer is dropped, as Lua drops it (as a warning; the sandbox has none). */
static int scr_fin_gc(lua_State *L)
{
	scr_ctx *c = scr_ctx_of(L);
	int *done = luaL_testudata(L, 1, SCR_FIN_T);
	if (!done || *done || c->closing || c->fin)
		return 0;
	*done = 1;
	if (lua_getiuservalue(L, 1, 1) != LUA_TTABLE || !lua_getmetatable(L, -1))
		return 0;
	lua_pushliteral(L, "__gc");
	if (lua_rawget(L, -2) == LUA_TNIL)
		return 0;
	lua_State *T = lua_newthread(L); /* stack: proxy object mt gc T */
	c->fin_every = c->tripped ? 1 : c->every;
	c->fin_last_ns = scr_now_ns();
	scr_sethook(T, c->fin_every);
	lua_pushvalue(L, -2);
	lua_pushvalue(L, -5);
	lua_xmove(L, T, 2);
	c->fin = T;
	int nres;
	lua_resume(T, L, 1, &nres);
	c->fin = NULL;
	return 0;
}

/* Mark the table at idx for finalization (once, as Lua does, until its finalizer ran):
 * registry[fin][table] = proxy, an ephemeron, so the proxy is collected with the table. */
static void scr_fin_mark(lua_State *L, int idx)
{
	lua_rawgetp(L, LUA_REGISTRYINDEX, &scr_fin_key);
	lua_pushvalue(L, idx);
	if (lua_rawget(L, -2) == LUA_TUSERDATA && !*(int *)lua_touserdata(L, -1)) {
		lua_pop(L, 2);
		return;
	}
	lua_pop(L, 1);
	int *done = lua_newuserdatauv(L, sizeof *done, 1);
	*done = 0;
	lua_pushvalue(L, idx);
	lua_setiuservalue(L, -2, 1);
	luaL_setmetatable(L, SCR_FIN_T);
	lua_pushvalue(L, idx);
	lua_insert(L, -2);
	lua_rawset(L, -3);
	lua_pop(L, 1);
}

/* setmetatable: Lua's, except that a __gc is not seen by the collector (which would run it
 * with hooks off) but by a proxy (scr_fin_gc). */
static int scr_setmetatable(lua_State *L)
{
	int t = lua_type(L, 2);
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
	if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
		return luaL_error(L, "cannot change a protected metatable");
	lua_settop(L, 2);
	lua_pushliteral(L, "__gc");                 /* 3 (pushed first: nothing below collects) */
	if (t != LUA_TTABLE || lua_rawget(L, 2) == LUA_TNIL) {
		lua_settop(L, 2);
		lua_setmetatable(L, 1);
		return 1;
	}
	lua_pushliteral(L, "__gc");                 /* 4; the value of __gc is 3 */
	lua_pushvalue(L, 4);
	lua_pushnil(L);
	lua_rawset(L, 2);                           /* hidden while the metatable is set */
	lua_pushvalue(L, 2);
	lua_setmetatable(L, 1);
	lua_pushvalue(L, 3);
	lua_rawset(L, 2);                           /* and back (the same slot: no allocation) */
	scr_fin_mark(L, 1);
	lua_settop(L, 1);
	return 1;
}

/* ---------- xpcall ---------- */

/* The handler xpcall installs: the script's (upvalue 1), unless a limit has stopped the
 * run. Then the error came from the count hook, which runs the handler with hooks off,
 * and the handler may not run at all. */
static int scr_xpcall_msgh(lua_State *L)
{
	if (scr_ctx_of(L)->tripped) {
		lua_settop(L, 1);
		return 1;
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

static int scr_xpcall(lua_State *L)
{
	int n = lua_gettop(L);
	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, scr_xpcall_msgh, 1);
	lua_replace(L, 2);
	lua_pushboolean(L, 1);
	lua_pushvalue(L, 1);
	lua_rotate(L, 3, 2); /* handler true f args... */
	if (lua_pcall(L, n - 2, LUA_MULTRET, 2) != LUA_OK) {
		lua_pushboolean(L, 0);
		lua_pushvalue(L, -2);
		return 2;
	}
	return lua_gettop(L) - 2;
}

/* ---------- registration ---------- */

/* Replace field name of the table on top with fn, the old value as its upvalue. */
static void scr_wrap(lua_State *L, const char *name, lua_CFunction fn)
{
	lua_getfield(L, -1, name);
	lua_pushcclosure(L, fn, 1);
	lua_setfield(L, -2, name);
}

void scr_open_lib(lua_State *L)
{
	/* _G on top */
	luaL_newmetatable(L, SCR_FIN_T);
	lua_pushcfunction(L, scr_fin_gc);
	lua_setfield(L, -2, "__gc");
	scr_protect_mt(L, SCR_FIN_T);
	lua_pop(L, 1);
	lua_newtable(L); /* table -> its proxy, weak keys: an ephemeron */
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &scr_fin_key);

	static const luaL_Reg base[] = {
		{"tostring", scr_tostring}, {"setmetatable", scr_setmetatable}, {"xpcall", scr_xpcall}, {NULL, NULL},
	};
	luaL_setfuncs(L, base, 0);
	lua_getfield(L, -1, LUA_STRLIBNAME);
	scr_wrap(L, "format", scr_format);
	lua_pushcfunction(L, scr_rep);
	lua_setfield(L, -2, "rep");
	lua_pop(L, 1);
	lua_getfield(L, -1, LUA_TABLIBNAME);
	static const luaL_Reg tab[] = {
		{"insert", scr_tinsert}, {"remove", scr_tremove}, {"move", scr_tmove}, {NULL, NULL},
	};
	luaL_setfuncs(L, tab, 0);
	scr_wrap(L, "sort", scr_tsort);
	lua_pop(L, 1);
	lua_getfield(L, -1, LUA_UTF8LIBNAME);
	scr_wrap(L, "len", scr_utf8_len);
	scr_wrap(L, "offset", scr_utf8_offset);
	lua_pop(L, 1);
}
