/* scr_conv.c - Lua values to and from the forms the rest of strata speaks.
 * Tables go to the loaders as JSON text (which libyaml reads), so a Lua model, cluster or
 * strategy gets exactly the key handling and messages of a file; reports come back through
 * the json_w calls of src/io/report.c (a sink), so a Lua result has exactly the keys of
 * `eval --json`. Nothing here holds malloc'd memory across a call that may raise: growing
 * text lives in userdata. */
#include "script/scr_int.h"
#include "io/report.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCR_TEXT_MAX ((size_t)32 << 20) /* below the YAML loader's 64 MiB */

/* ---------- a fixed key order ---------- */

typedef struct {
	int type;         /* 0 number, 1 string, 2 boolean, 3 other */
	double num;
	const char *str;
	size_t len;
	lua_Integer pos;  /* traversal position: ties and "other" keys */
} scr_key;

static int scr_key_cmp(const void *a, const void *b)
{
	const scr_key *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	switch (x->type) {
	case 0:
		if (x->num != y->num)
			return x->num < y->num ? -1 : 1;
		break;
	case 1: {
		size_t n = x->len < y->len ? x->len : y->len;
		int c = memcmp(x->str, y->str, n);
		if (c)
			return c;
		if (x->len != y->len)
			return x->len < y->len ? -1 : 1;
		break;
	}
	case 2:
		if (x->num != y->num)
			return x->num < y->num ? -1 : 1;
		break;
	}
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void scr_push_sorted_keys(lua_State *L, int idx)
{
	idx = lua_absindex(L, idx);
	lua_Integer n = 0;
	lua_newtable(L); /* keys in traversal order; they anchor the strings below */
	int keys = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		lua_pushvalue(L, -1);
		lua_rawseti(L, keys, ++n);
	}
	if (n == 0)
		return;
	if ((size_t)n > SIZE_MAX / sizeof(scr_key))
		luaL_error(L, "table too large");
	scr_key *k = lua_newuserdatauv(L, (size_t)n * sizeof *k, 0);
	for (lua_Integer i = 0; i < n; i++) {
		lua_rawgeti(L, keys, i + 1);
		scr_key *e = &k[i];
		memset(e, 0, sizeof *e);
		e->pos = i;
		switch (lua_type(L, -1)) {
		case LUA_TNUMBER: e->type = 0; e->num = lua_tonumber(L, -1); break;
		case LUA_TSTRING: e->type = 1; e->str = lua_tolstring(L, -1, &e->len); break;
		case LUA_TBOOLEAN: e->type = 2; e->num = lua_toboolean(L, -1); break;
		default: e->type = 3; break;
		}
		lua_pop(L, 1);
	}
	qsort(k, (size_t)n, sizeof *k, scr_key_cmp);
	lua_createtable(L, (int)(n < 1 << 24 ? n : 0), 0);
	for (lua_Integer i = 0; i < n; i++) {
		lua_rawgeti(L, keys, k[i].pos + 1);
		lua_rawseti(L, -2, i + 1);
	}
	lua_replace(L, keys); /* keys: sorted; the userdata stays above until popped */
	lua_pop(L, 1);
}

/* ---------- Lua table -> JSON text ---------- */

typedef struct {
	lua_State *L;
	int slot;          /* stack slot of the userdata holding the text */
	char *p;
	size_t len, cap;
	const char *what;
} scr_tbuf;

static void tb_add(scr_tbuf *b, const char *s, size_t n)
{
	if (n > b->cap - b->len) {
		if (b->len + n > SCR_TEXT_MAX)
			luaL_error(b->L, "%s: table too large", b->what);
		size_t nc = b->cap * 2 > b->len + n + 256 ? b->cap * 2 : b->len + n + 256;
		char *q = lua_newuserdatauv(b->L, nc, 0);
		if (b->len)
			memcpy(q, b->p, b->len);
		lua_replace(b->L, b->slot);
		b->p = q;
		b->cap = nc;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void tb_str(scr_tbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	tb_add(b, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		tb_add(b, s + run, i - run);
		char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
		if (c == '"' || c == '\\') {
			e[1] = (char)c;
			tb_add(b, e, 2);
		} else {
			tb_add(b, e, 6);
		}
		run = i + 1;
	}
	tb_add(b, s + run, n - run);
	tb_add(b, "\"", 1);
}

/* %.17g with a '.' whatever LC_NUMERIC says (the TUI may have set a locale). */
static void tb_num(scr_tbuf *b, lua_State *L, int idx)
{
	char buf[64];
	if (lua_isinteger(L, idx)) {
		snprintf(buf, sizeof buf, "%lld", (long long)lua_tointeger(L, idx));
	} else {
		double v = lua_tonumber(L, idx);
		if (isnan(v))
			snprintf(buf, sizeof buf, ".nan");
		else if (isinf(v))
			snprintf(buf, sizeof buf, v > 0 ? ".inf" : "-.inf");
		else
			snprintf(buf, sizeof buf, "%.17g", v);
		const char *dp = localeconv()->decimal_point;
		char *q;
		if (dp && strcmp(dp, ".") && (q = strstr(buf, dp))) {
			size_t dl = strlen(dp);
			*q = '.';
			memmove(q + 1, q + dl, strlen(q + dl) + 1);
		}
	}
	tb_add(b, buf, strlen(buf));
}

static void tb_value(scr_tbuf *b, int idx, int depth, const char *key, int top_strings_only);

static void tb_table(scr_tbuf *b, int idx, int depth, int top_strings_only)
{
	lua_State *L = b->L;
	if (depth >= SCR_MAX_DEPTH)
		luaL_error(L, "%s: tables nested deeper than %d levels", b->what, SCR_MAX_DEPTH);
	luaL_checkstack(L, 8, "tables nested too deeply");
	idx = lua_absindex(L, idx);
	lua_Unsigned n = lua_rawlen(L, idx);
	lua_Integer count = 0;
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		count++;
		lua_pop(L, 1);
	}
	if (n > 0 && (lua_Unsigned)count == n && !top_strings_only) {
		/* a sequence 1..n: a list */
		tb_add(b, "[", 1);
		for (lua_Unsigned i = 1; i <= n; i++) {
			if (i > 1)
				tb_add(b, ",", 1);
			lua_rawgeti(L, idx, (lua_Integer)i);
			tb_value(b, -1, depth + 1, NULL, 0);
			lua_pop(L, 1);
		}
		tb_add(b, "]", 1);
		return;
	}
	tb_add(b, "{", 1);
	scr_push_sorted_keys(L, idx);
	int first = 1;
	for (lua_Integer i = 1;; i++) {
		int kt = lua_rawgeti(L, -1, i);
		if (kt == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		if (kt != LUA_TSTRING) {
			if (top_strings_only) {
				lua_pop(L, 1);
				continue;
			}
			luaL_error(L, "%s: keys must be strings (found a %s key)", b->what, luaL_typename(L, -1));
		}
		if (!first)
			tb_add(b, ",", 1);
		first = 0;
		size_t kl;
		const char *k = lua_tolstring(L, -1, &kl);
		tb_str(b, k, kl);
		tb_add(b, ":", 1);
		lua_pushvalue(L, -1);
		lua_rawget(L, idx);
		tb_value(b, -1, depth + 1, k, 0);
		lua_pop(L, 2);
	}
	lua_pop(L, 1); /* key array */
	tb_add(b, "}", 1);
}

static void tb_value(scr_tbuf *b, int idx, int depth, const char *key, int top_strings_only)
{
	lua_State *L = b->L;
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		if (lua_toboolean(L, idx))
			tb_add(b, "true", 4);
		else
			tb_add(b, "false", 5);
		break;
	case LUA_TNUMBER:
		tb_num(b, L, idx);
		break;
	case LUA_TSTRING: {
		size_t n;
		const char *s = lua_tolstring(L, idx, &n);
		tb_str(b, s, n);
		break;
	}
	case LUA_TTABLE:
		tb_table(b, idx, depth, top_strings_only);
		break;
	default:
		luaL_error(L, "%s: %s%s%s cannot be a %s", b->what, key ? "'" : "", key ? key : "a list item",
				key ? "'" : "", luaL_typename(L, idx));
	}
}

void scr_push_text(lua_State *L, int idx, const char *what, int top_strings_only)
{
	idx = lua_absindex(L, idx);
	luaL_checktype(L, idx, LUA_TTABLE);
	scr_tbuf b;
	memset(&b, 0, sizeof b);
	b.L = L;
	b.what = what;
	b.cap = 256;
	b.p = lua_newuserdatauv(L, b.cap, 0);
	b.slot = lua_gettop(L);
	tb_table(&b, idx, 0, top_strings_only);
	lua_pushlstring(L, b.p, b.len);
	lua_replace(L, b.slot);
}

int scr_raise_loader(lua_State *L, const char *what, const char *err)
{
	/* "NAME:LINE:COL: message" -> "message" when NAME is ours */
	size_t wl = strlen(what);
	const char *m = err;
	if (!strncmp(err, what, wl) && err[wl] == ':') {
		const char *q = err + wl + 1;
		for (int field = 0; field < 2 && *q >= '0' && *q <= '9'; field++) {
			while (*q >= '0' && *q <= '9')
				q++;
			if (*q == ':')
				q++;
		}
		while (*q == ' ')
			q++;
		m = q;
	}
	if (!strncmp(m, what, wl) && m[wl] == ':')
		return luaL_error(L, "%s", m); /* the loader named it already */
	return luaL_error(L, "%s: %s", what, m);
}

void scr_check_keys(lua_State *L, int idx, const char *what, const char *const *allowed)
{
	idx = lua_absindex(L, idx);
	scr_push_sorted_keys(L, idx);
	for (lua_Integer i = 1;; i++) {
		int t = lua_rawgeti(L, -1, i);
		if (t == LUA_TNIL)
			break;
		if (t == LUA_TSTRING) {
			const char *k = lua_tostring(L, -1);
			int j;
			for (j = 0; allowed[j]; j++)
				if (!strcmp(k, allowed[j]))
					break;
			if (!allowed[j]) {
				luaL_Buffer bb;
				luaL_buffinit(L, &bb);
				for (j = 0; allowed[j]; j++) {
					if (j)
						luaL_addstring(&bb, ", ");
					luaL_addstring(&bb, allowed[j]);
				}
				luaL_pushresult(&bb);
				luaL_error(L, "%s: unknown key '%s' (known: %s)", what, k, lua_tostring(L, -1));
			}
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
}

long long scr_int_field(lua_State *L, int idx, const char *key, const char *what, long long lo, long long hi,
		long long dflt)
{
	int t = lua_getfield(L, idx, key);
	long long v = dflt;
	if (t != LUA_TNIL) {
		int ok = 0;
		lua_Integer i = lua_tointegerx(L, -1, &ok);
		if (!ok || t != LUA_TNUMBER)
			luaL_error(L, "%s: %s must be an integer (got %s)", what, key,
					t == LUA_TNUMBER ? "a fraction or an out-of-range number" : luaL_typename(L, -1));
		if (i < lo || i > hi)
			luaL_error(L, "%s: %s must be between %I and %I (got %I)", what, key, (LUAI_UACINT)lo,
					(LUAI_UACINT)hi, (LUAI_UACINT)i); /* lua_pushfstring has no %lld */
		v = i;
	}
	lua_pop(L, 1);
	return v;
}

/* ---------- json_w calls -> a Lua table ---------- */

/* Store the value on top into the open container (or leave it as the result). */
static void tb_store(scr_tbuild *b, const char *key)
{
	lua_State *L = b->L;
	if (b->depth == 0)
		return;
	if (b->next[b->depth - 1] > 0)
		lua_rawseti(L, -2, b->next[b->depth - 1]++);
	else
		lua_setfield(L, -2, key ? key : "");
}

static void tbs_open(void *ctx, const char *key, int is_obj)
{
	scr_tbuild *b = ctx;
	if (b->skip || b->depth >= JSON_MAX_DEPTH) {
		b->skip++;
		return;
	}
	luaL_checkstack(b->L, 4, "report nested too deeply");
	if (b->depth > 0 && b->next[b->depth - 1] == 0)
		lua_pushstring(b->L, key ? key : "");
	/* report objects have 4 to 20 members: sized once instead of rehashing as they grow */
	lua_createtable(b->L, 0, is_obj ? 16 : 0);
	b->next[b->depth++] = is_obj ? 0 : 1;
}

static void tbs_close(void *ctx)
{
	scr_tbuild *b = ctx;
	if (b->skip) {
		b->skip--;
		return;
	}
	if (b->depth == 0)
		return;
	b->depth--;
	if (b->depth == 0)
		return;
	lua_State *L = b->L;
	if (b->next[b->depth - 1] > 0)
		lua_rawseti(L, -2, b->next[b->depth - 1]++);
	else
		lua_settable(L, -3); /* parent[key] = table */
}

#define TB_SCALAR(name, type, push)                                              \
	static void name(void *ctx, const char *key, type v)                    \
	{                                                                        \
		scr_tbuild *b = ctx;                                             \
		if (b->skip)                                                     \
			return;                                                  \
		push;                                                            \
		tb_store(b, key);                                                \
	}
TB_SCALAR(tbs_num, double, lua_pushnumber(b->L, v))
TB_SCALAR(tbs_int, long long, lua_pushinteger(b->L, (lua_Integer)v))
TB_SCALAR(tbs_bool, int, lua_pushboolean(b->L, v))

static void tbs_str(void *ctx, const char *key, const char *s)
{
	scr_tbuild *b = ctx;
	if (b->skip || !s)
		return; /* NULL is JSON null: the key is absent */
	lua_pushstring(b->L, s);
	tb_store(b, key);
}

static void tbs_null(void *ctx, const char *key)
{
	(void)ctx;
	(void)key; /* nil: the key is simply absent */
}

void scr_tbuild_init(scr_tbuild *b, lua_State *L, json_w *w)
{
	memset(b, 0, sizeof *b);
	b->L = L;
	b->sink.open = tbs_open;
	b->sink.close = tbs_close;
	b->sink.num = tbs_num;
	b->sink.integer = tbs_int;
	b->sink.str = tbs_str;
	b->sink.boolean = tbs_bool;
	b->sink.null = tbs_null;
	b->sink.ctx = b;
	json_init_sink(w, &b->sink);
}

/* ---------- reports whose per-stage lists are built when first read ---------- */

/* The score function of a search sees one report per fitting candidate; most scores read a
 * few totals, and the per-stage lists (memory.stages, time.stages: 10 values per stage, up
 * to 256 stages) would dominate the cost. Those two lists start as empty tables with the
 * protected metatable SCR_LAZY_T; a snapshot of the stage data waits in one of two
 * registry tables with weak keys (memory lists, time lists), out of the script's reach,
 * and the first read through __index, __len or __pairs fills the list in place, with the
 * same report code, and drops the metatable. (next and rawget see an empty table until
 * then.) */

#define SCR_LAZY_T "strata.lazy"
#define SCR_SNAP_T "strata.snapshot"
static const char scr_lazy_mem = 'm', scr_lazy_time = 't';

/* What eval_stage_mem reads of a result: its stage counts, schedule and logits here, its
 * n spans after the head. */
typedef struct {
	int n, stages, chunks, microbatches, schedule;
	double logits;
} scr_snap_head;

static eval_span *snap_span(scr_snap_head *h) { return (eval_span *)(void *)(h + 1); }

/* Sink that forwards to a builder, except for the parts it is told to leave out or pick. */
typedef struct {
	scr_tbuild *b;
	const char *keys[JSON_MAX_DEPTH]; /* key of each open container of the walk */
	int depth, skip;
	int pick;                         /* 0: build all, stages lists lazily; 1: one container */
	const char *want_parent, *want;   /* pick: its key and its parent's (NULL: top level) */
	int target;                       /* pick: table to fill */
	int snap;                         /* lazy: stack slot of the snapshot, and of the */
	int wmem, wtime;                  /* registry tables waiting lists are noted in */
	int in;                           /* pick: inside the wanted list */
} scr_rsink;

static int rs_is_stages(const scr_rsink *s, const char *key, int is_obj)
{
	return !is_obj && s->depth == 2 && key && !strcmp(key, "stages") && s->keys[1] &&
		(!strcmp(s->keys[1], "memory") || !strcmp(s->keys[1], "time"));
}

static void rs_open(void *ctx, const char *key, int is_obj)
{
	scr_rsink *s = ctx;
	if (s->depth < JSON_MAX_DEPTH)
		s->keys[s->depth] = key;
	if (s->skip) {
		s->skip++;
		s->depth++;
		return;
	}
	if (!s->pick && rs_is_stages(s, key, is_obj)) {
		lua_State *L = s->b->L;
		luaL_checkstack(L, 4, "report nested too deeply");
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_pushvalue(L, s->snap);
		lua_rawset(L, strcmp(s->keys[1], "time") ? s->wmem : s->wtime);
		luaL_setmetatable(L, SCR_LAZY_T);
		tb_store(s->b, key);
		s->skip = 1;
		s->depth++;
		return;
	}
	if (s->pick) {
		if (!s->in && key && !strcmp(key, s->want) &&
				(s->want_parent ? s->depth == 2 && s->keys[1] && !strcmp(s->keys[1], s->want_parent)
						: s->depth == 1)) {
			lua_pushvalue(s->b->L, s->target);
			s->b->depth = 1;
			s->b->next[0] = is_obj ? 0 : 1;
			s->in = s->depth;
		} else if (s->in) {
			s->b->sink.open(s->b, key, is_obj);
		}
		s->depth++;
		return;
	}
	s->b->sink.open(s->b, key, is_obj);
	s->depth++;
}

static void rs_close(void *ctx)
{
	scr_rsink *s = ctx;
	s->depth--;
	if (s->skip) {
		s->skip--;
		return;
	}
	if (s->pick) {
		if (s->in && s->depth == s->in) {
			lua_pop(s->b->L, 1); /* the target, filled in place */
			s->in = 0;
		} else if (s->in) {
			s->b->sink.close(s->b);
		}
		return;
	}
	s->b->sink.close(s->b);
}

#define RS_SCALAR(name, type, call)                                              \
	static void name(void *ctx, const char *key, type v)                    \
	{                                                                        \
		scr_rsink *s = ctx;                                              \
		if (!s->skip && (!s->pick || s->in))                             \
			s->b->sink.call(s->b, key, v);                           \
	}
RS_SCALAR(rs_num, double, num)
RS_SCALAR(rs_int, long long, integer)
RS_SCALAR(rs_str, const char *, str)
RS_SCALAR(rs_bool, int, boolean)

static void rs_null(void *ctx, const char *key)
{
	(void)ctx;
	(void)key;
}

/* Walk the report of (p, r) through a scr_rsink: lazily (snap: the snapshot's slot, with
 * the two registry tables above it) or picking one container (want under want_parent)
 * into the table at target. */
static void rs_walk(lua_State *L, const plan_t *p, const eval_result *r, const char *want_parent, const char *want,
		int target, int snap)
{
	scr_tbuild b;
	scr_rsink s;
	json_w w, inner;
	scr_tbuild_init(&b, L, &inner);
	memset(&s, 0, sizeof s);
	s.b = &b;
	s.pick = want != NULL;
	s.want_parent = want_parent;
	s.want = want;
	s.target = target;
	s.snap = snap;
	s.wmem = snap ? snap + 1 : 0;
	s.wtime = snap ? snap + 2 : 0;
	json_sink sink = {rs_open, rs_close, rs_num, rs_int, rs_str, rs_bool, rs_null, &s};
	json_init_sink(&w, &sink);
	report_json(&w, NULL, p, r);
}

void scr_push_report_lazy(lua_State *L, const plan_t *p, const eval_result *r)
{
	int n = r->valid ? r->nspans : 0;
	if (n < 0 || n > EVAL_MAX_STAGES)
		n = 0;
	scr_snap_head *h = lua_newuserdatauv(L, sizeof *h + (size_t)n * sizeof(eval_span), 0);
	*h = (scr_snap_head){n, n ? r->stages : 0, r->chunks, r->microbatches, r->schedule, r->logits};
	memcpy(snap_span(h), r->span, (size_t)n * sizeof(eval_span));
	luaL_setmetatable(L, SCR_SNAP_T);
	int snap = lua_gettop(L);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &scr_lazy_mem);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &scr_lazy_time);
	rs_walk(L, p, r, NULL, NULL, 0, snap);
	lua_rotate(L, snap, 1); /* the report below the snapshot and the two tables */
	lua_pop(L, 3);
}

/* The report of a plan that was not evaluated: valid = 0, no reason. */
static const eval_result scr_unevaluated;

void scr_push_strategy(lua_State *L, const plan_t *p)
{
	lua_createtable(L, 0, 24);
	rs_walk(L, p, &scr_unevaluated, NULL, "strategy", lua_gettop(L), 0);
}

/* Fill a lazy stages list in place; nothing for a table that is not (or no longer) one. */
static void scr_lazy_fill(lua_State *L, int t)
{
	luaL_checktype(L, t, LUA_TTABLE);
	t = lua_absindex(L, t);
	int is_time;
	for (is_time = 0; is_time < 2; is_time++) {
		lua_rawgetp(L, LUA_REGISTRYINDEX, is_time ? &scr_lazy_time : &scr_lazy_mem);
		lua_pushvalue(L, t);
		if (lua_rawget(L, -2) != LUA_TNIL)
			break;
		lua_pop(L, 2);
	}
	if (is_time == 2)
		return;
	scr_snap_head *h = luaL_testudata(L, -1, SCR_SNAP_T); /* stack: waiting snapshot */
	if (!h || h->n < 0 || h->n > EVAL_MAX_STAGES) {
		lua_pop(L, 2);
		return;
	}
	lua_pushvalue(L, t);
	lua_pushnil(L);
	lua_rawset(L, -4);                    /* no longer waiting; the snapshot stays on the stack */
	lua_pushnil(L);
	lua_setmetatable(L, t);
	/* a report of just these stages: the other numbers are placeholders nobody reads */
	eval_result *r = lua_newuserdatauv(L, sizeof *r, 0);
	memset(r, 0, sizeof *r);
	r->valid = 1;
	r->stages = h->stages;
	r->chunks = h->chunks;
	r->microbatches = h->microbatches;
	r->schedule = h->schedule;
	r->logits = h->logits;
	r->nspans = h->n;
	r->step = 1;
	memcpy(r->span, snap_span(h), (size_t)h->n * sizeof(eval_span));
	plan_t *p = lua_newuserdatauv(L, sizeof *p, 0);
	memset(p, 0, sizeof *p);
	p->devices = 1;
	rs_walk(L, p, r, is_time ? "time" : "memory", "stages", t, 0);
	lua_pop(L, 4);
}

static int scr_lazy_index(lua_State *L)
{
	scr_lazy_fill(L, 1);
	lua_settop(L, 2);
	lua_rawget(L, 1);
	return 1;
}

static int scr_lazy_len(lua_State *L)
{
	scr_lazy_fill(L, 1);
	lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
	return 1;
}

static int scr_lazy_next(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 2);
	if (lua_next(L, 1))
		return 2;
	lua_pushnil(L);
	return 1;
}

static int scr_lazy_pairs(lua_State *L)
{
	scr_lazy_fill(L, 1);
	lua_pushcfunction(L, scr_lazy_next); /* a list: traversal order is 1..n */
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

void scr_open_conv(lua_State *L)
{
	static const luaL_Reg mt[] = {
		{"__index", scr_lazy_index}, {"__len", scr_lazy_len}, {"__pairs", scr_lazy_pairs}, {NULL, NULL},
	};
	luaL_newmetatable(L, SCR_LAZY_T);
	luaL_setfuncs(L, mt, 0);
	scr_protect_mt(L, SCR_LAZY_T);
	lua_pop(L, 1);
	luaL_newmetatable(L, SCR_SNAP_T);
	scr_protect_mt(L, SCR_SNAP_T);
	lua_pop(L, 1);
	for (int k = 0; k < 2; k++) {
		lua_newtable(L); /* list -> snapshot, weak keys */
		lua_createtable(L, 0, 1);
		lua_pushliteral(L, "k");
		lua_setfield(L, -2, "__mode");
		lua_setmetatable(L, -2);
		lua_rawsetp(L, LUA_REGISTRYINDEX, k ? &scr_lazy_time : &scr_lazy_mem);
	}
}
