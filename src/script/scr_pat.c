/* scr_pat.c - string.find, match, gmatch and gsub with Lua 5.4's pattern language and
 * results, on a matcher that counts its work. The stock matcher backtracks without limit
 * inside one C call, where the count hook never fires: ("a"):rep(5000):find(".-.-.-.-b")
 * takes about n^4 steps and ("("):rep(1e6):find("%b()") n^2. Here every attempt of a
 * pattern item, every character a repetition, a balance or a character set looks at and
 * every block of bytes compared is a step; steps go to scr_meter, which charges them to the
 * instruction budget and looks at the deadline and the cancel flag every SCR_METER_EVERY
 * steps, so a runaway pattern stops like a runaway loop, with the script's line.
 *
 * The language (manual section 6.4.1): single characters, '.', %a %c %d %g %l %p %s %u %w
 * %x (%z) and their complements, %x for any non-alphanumeric x, [sets] with ranges and
 * classes, the suffixes * + - ?, %1-%9, %bxy, %f[set], () position captures, ^ and $
 * anchors; at most 32 captures and 200 levels of nesting, with Lua's messages. */
#include "script/scr_int.h"

#include <ctype.h>
#include <string.h>

#define PAT_MAXCAP 32
#define PAT_MAXDEPTH 200
#define PAT_ESC '%'
#define CAP_OPEN (-1)       /* a capture still being matched */
#define CAP_POS (-2)        /* a position capture */
#define PAT_SPECIALS "^$*+?.([%-"

typedef struct {
	const char *s0, *s_end;    /* the subject */
	const char *p_end;         /* end of the pattern */
	lua_State *L;
	int depth;                 /* nesting left before "pattern too complex" */
	int level;                 /* captures open or closed so far */
	long long work;            /* steps not yet handed to scr_meter */
	struct {
		const char *at;
		ptrdiff_t len;     /* or CAP_OPEN, CAP_POS */
	} cap[PAT_MAXCAP];
} pat_state;

static void pat_steps(pat_state *m, long long n)
{
	m->work += n;
	if (m->work >= 1024) {
		long long w = m->work;
		m->work = 0;
		scr_meter(m->L, w);
	}
}

static void pat_flush(pat_state *m)
{
	long long w = m->work;
	m->work = 0;
	if (w)
		scr_meter(m->L, w);
}

static void pat_init(pat_state *m, lua_State *L, const char *s, size_t ls, const char *p, size_t lp)
{
	m->L = L;
	m->s0 = s;
	m->s_end = s + ls;
	m->p_end = p + lp;
	m->work = 0;
}

/* Before each attempt at a new subject position. */
static void pat_reset(pat_state *m)
{
	m->level = 0;
	m->depth = PAT_MAXDEPTH;
}

/* Where the single-character item at p ends (its suffix, if any, is there). */
static const char *pat_item_end(pat_state *m, const char *p)
{
	char c = *p++;
	if (c == PAT_ESC) {
		if (p >= m->p_end)
			luaL_error(m->L, "malformed pattern (ends with '%%')");
		return p + 1;
	}
	if (c != '[')
		return p;
	const char *set = p;
	if (*p == '^')
		p++;
	/* a ']' right after '[' or '[^' belongs to the set */
	do {
		if (p >= m->p_end)
			luaL_error(m->L, "malformed pattern (missing ']')");
		if (*p++ == PAT_ESC && p < m->p_end)
			p++;
	} while (*p != ']');
	pat_steps(m, (p - set) / 64 + 1);
	return p + 1;
}

/* Does c belong to class cl (the letter after '%')? */
static int pat_class(int c, int cl)
{
	int r;
	switch (tolower(cl)) {
	case 'a': r = isalpha(c); break;
	case 'c': r = iscntrl(c); break;
	case 'd': r = isdigit(c); break;
	case 'g': r = isgraph(c); break;
	case 'l': r = islower(c); break;
	case 'p': r = ispunct(c); break;
	case 's': r = isspace(c); break;
	case 'u': r = isupper(c); break;
	case 'w': r = isalnum(c); break;
	case 'x': r = isxdigit(c); break;
	case 'z': r = c == 0; break; /* deprecated, still in 5.4 */
	default: return cl == c;
	}
	return isupper(cl) ? !r : r != 0;
}

/* Does c belong to the set [p .. close], p at '[' and close at its ']'? */
static int pat_set(pat_state *m, int c, const char *p, const char *close)
{
	int in = 1;
	const char *first = p;
	if (p[1] == '^') {
		in = 0;
		p++;
	}
	while (++p < close) {
		if (*p == PAT_ESC) {
			p++;
			if (pat_class(c, (unsigned char)*p))
				goto found;
		} else if (p[1] == '-' && p + 2 < close) {
			p += 2;
			if ((unsigned char)p[-2] <= c && c <= (unsigned char)*p)
				goto found;
		} else if ((unsigned char)*p == c) {
			goto found;
		}
	}
	in = !in;
found:
	if (close - first > 64)
		pat_steps(m, (close - first) / 64);
	return in;
}

/* Does the subject character at s match the item [p, ep)? */
static int pat_single(pat_state *m, const char *s, const char *p, const char *ep)
{
	if (s >= m->s_end)
		return 0;
	int c = (unsigned char)*s;
	switch (*p) {
	case '.': return 1;
	case PAT_ESC: return pat_class(c, (unsigned char)p[1]);
	case '[': return pat_set(m, c, p, ep - 1);
	default: return (unsigned char)*p == c;
	}
}

static const char *pat_match(pat_state *m, const char *s, const char *p);

/* %bxy at s (p at x). */
static const char *pat_balance(pat_state *m, const char *s, const char *p)
{
	if (p + 1 >= m->p_end)
		luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
	if (s >= m->s_end || *s != *p)
		return NULL;
	char open = p[0], close = p[1];
	int depth = 1;
	const char *from = s;
	while (++s < m->s_end) {
		if (*s == close) {
			if (--depth == 0) {
				pat_steps(m, s - from);
				return s + 1;
			}
		} else if (*s == open) {
			depth++;
		}
	}
	pat_steps(m, s - from);
	return NULL;
}

/* item* and item+: the longest run first, then shorter ones. */
static const char *pat_greedy(pat_state *m, const char *s, const char *p, const char *ep)
{
	ptrdiff_t n = 0;
	while (pat_single(m, s + n, p, ep))
		n++;
	pat_steps(m, n);
	for (; n >= 0; n--) {
		const char *r = pat_match(m, s + n, ep + 1);
		if (r)
			return r;
	}
	return NULL;
}

/* item-: the shortest run first. */
static const char *pat_lazy(pat_state *m, const char *s, const char *p, const char *ep)
{
	for (;;) {
		const char *r = pat_match(m, s, ep + 1);
		if (r)
			return r;
		if (!pat_single(m, s, p, ep))
			return NULL;
		s++;
	}
}

static const char *pat_open(pat_state *m, const char *s, const char *p, ptrdiff_t what)
{
	if (m->level >= PAT_MAXCAP)
		luaL_error(m->L, "too many captures");
	m->cap[m->level].at = s;
	m->cap[m->level].len = what;
	m->level++;
	const char *r = pat_match(m, s, p);
	if (!r)
		m->level--;
	return r;
}

static const char *pat_close(pat_state *m, const char *s, const char *p)
{
	int l = m->level - 1;
	while (l >= 0 && m->cap[l].len != CAP_OPEN)
		l--;
	if (l < 0)
		luaL_error(m->L, "invalid pattern capture");
	m->cap[l].len = s - m->cap[l].at;
	const char *r = pat_match(m, s, p);
	if (!r)
		m->cap[l].len = CAP_OPEN;
	return r;
}

/* %1-%9 at s: the text of capture d again. */
static const char *pat_backref(pat_state *m, const char *s, int d)
{
	int l = d - '1';
	if (l < 0 || l >= m->level || m->cap[l].len == CAP_OPEN)
		luaL_error(m->L, "invalid capture index %%%d", l + 1);
	size_t len = (size_t)m->cap[l].len; /* a position capture is never long enough */
	pat_steps(m, (long long)(len / 64));
	if ((size_t)(m->s_end - s) >= len && !memcmp(m->cap[l].at, s, len))
		return s + len;
	return NULL;
}

/* Match the pattern from p against the subject from s: the end of the match or NULL. */
static const char *pat_match(pat_state *m, const char *s, const char *p)
{
	if (m->depth-- == 0)
		luaL_error(m->L, "pattern too complex");
	while (s && p < m->p_end) {
		pat_steps(m, 1);
		const char *ep;
		if (*p == '(') {
			s = p[1] == ')' ? pat_open(m, s, p + 2, CAP_POS) : pat_open(m, s, p + 1, CAP_OPEN);
			break;
		}
		if (*p == ')') {
			s = pat_close(m, s, p + 1);
			break;
		}
		if (*p == '$' && p + 1 == m->p_end) {
			if (s != m->s_end)
				s = NULL;
			break;
		}
		if (*p == PAT_ESC && p[1] == 'b') {
			s = pat_balance(m, s, p + 2);
			p += 4;
			continue;
		}
		if (*p == PAT_ESC && p[1] == 'f') {
			p += 2;
			if (*p != '[')
				luaL_error(m->L, "missing '[' after '%%f' in pattern");
			ep = pat_item_end(m, p);
			int prev = s == m->s0 ? 0 : (unsigned char)s[-1];
			int cur = s < m->s_end ? (unsigned char)*s : 0;
			if (pat_set(m, prev, p, ep - 1) || !pat_set(m, cur, p, ep - 1))
				s = NULL;
			p = ep;
			continue;
		}
		if (*p == PAT_ESC && isdigit((unsigned char)p[1])) {
			s = pat_backref(m, s, (unsigned char)p[1]);
			p += 2;
			continue;
		}
		/* a single-character item and its suffix */
		ep = pat_item_end(m, p);
		if (!pat_single(m, s, p, ep)) {
			if (*ep == '*' || *ep == '?' || *ep == '-') {
				p = ep + 1; /* zero repetitions are fine */
				continue;
			}
			s = NULL;
			break;
		}
		if (*ep == '?') {
			const char *r = pat_match(m, s + 1, ep + 1);
			if (r) {
				s = r;
				break;
			}
			p = ep + 1;
		} else if (*ep == '+') {
			s = pat_greedy(m, s + 1, p, ep);
			break;
		} else if (*ep == '*') {
			s = pat_greedy(m, s, p, ep);
			break;
		} else if (*ep == '-') {
			s = pat_lazy(m, s, p, ep);
			break;
		} else {
			s++;
			p = ep;
		}
	}
	m->depth++;
	return s;
}

/* ---------- captures ---------- */

/* Capture i of a match [s, e) (the whole match when the pattern has none and i is 0):
 * its length, or CAP_POS with the position pushed. */
static ptrdiff_t pat_capture(pat_state *m, int i, const char *s, const char *e, const char **at)
{
	if (i >= m->level) {
		if (i != 0)
			luaL_error(m->L, "invalid capture index %%%d", i + 1);
		*at = s;
		return e - s;
	}
	ptrdiff_t len = m->cap[i].len;
	*at = m->cap[i].at;
	if (len == CAP_OPEN)
		luaL_error(m->L, "unfinished capture");
	if (len == CAP_POS)
		lua_pushinteger(m->L, (m->cap[i].at - m->s0) + 1);
	return len;
}

static void pat_push_capture(pat_state *m, int i, const char *s, const char *e)
{
	const char *at;
	ptrdiff_t len = pat_capture(m, i, s, e, &at);
	if (len != CAP_POS)
		lua_pushlstring(m->L, at, (size_t)len);
}

/* Push every capture (the whole match when there are none and s is given). */
static int pat_push_captures(pat_state *m, const char *s, const char *e)
{
	int n = m->level == 0 && s ? 1 : m->level;
	luaL_checkstack(m->L, n, "too many captures");
	for (int i = 0; i < n; i++)
		pat_push_capture(m, i, s, e);
	return n;
}

/* ---------- find and match ---------- */

/* Position from a 1-based, possibly negative index, as Lua's string functions take it. */
static size_t pat_start(lua_Integer pos, size_t len)
{
	if (pos > 0)
		return (size_t)pos;
	if (pos == 0 || pos < -(lua_Integer)len)
		return 1;
	return len + (size_t)pos + 1;
}

static int pat_has_specials(const char *p, size_t lp)
{
	for (size_t i = 0; i < lp; i++)
		if (p[i] && strchr(PAT_SPECIALS, p[i]))
			return 1;
	return 0;
}

/* Plain search: the first occurrence of p (lp bytes) in s (ls bytes), counted. */
static const char *pat_plain(pat_state *m, const char *s, size_t ls, const char *p, size_t lp)
{
	if (lp == 0)
		return s;
	if (lp > ls)
		return NULL;
	const char *end = s + (ls - lp) + 1; /* last possible start + 1 */
	while (s < end) {
		const char *at = memchr(s, *p, (size_t)(end - s));
		if (!at)
			return NULL;
		pat_steps(m, 1 + (long long)(lp / 64));
		if (!memcmp(at + 1, p + 1, lp - 1))
			return at;
		s = at + 1;
	}
	return NULL;
}

static int pat_find_aux(lua_State *L, int find)
{
	size_t ls, lp;
	const char *s = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	size_t init = pat_start(luaL_optinteger(L, 3, 1), ls) - 1;
	if (init > ls) {
		luaL_pushfail(L);
		return 1;
	}
	pat_state m;
	pat_init(&m, L, s, ls, p, lp);
	if (find && (lua_toboolean(L, 4) || !pat_has_specials(p, lp))) {
		const char *at = pat_plain(&m, s + init, ls - init, p, lp);
		pat_flush(&m);
		if (at) {
			lua_pushinteger(L, (at - s) + 1);
			lua_pushinteger(L, (at - s) + (lua_Integer)lp);
			return 2;
		}
		luaL_pushfail(L);
		return 1;
	}
	int anchor = *p == '^';
	if (anchor) {
		p++;
		m.p_end = p + lp - 1;
	}
	const char *from = s + init;
	do {
		pat_reset(&m);
		const char *e = pat_match(&m, from, p);
		if (e) {
			pat_flush(&m);
			if (!find)
				return pat_push_captures(&m, from, e);
			lua_pushinteger(L, (from - s) + 1);
			lua_pushinteger(L, e - s);
			return pat_push_captures(&m, NULL, NULL) + 2;
		}
	} while (from++ < m.s_end && !anchor);
	pat_flush(&m);
	luaL_pushfail(L);
	return 1;
}

static int pat_find(lua_State *L) { return pat_find_aux(L, 1); }
static int pat_match_fn(lua_State *L) { return pat_find_aux(L, 0); }

/* ---------- gmatch ---------- */

/* The iterator's state (upvalue 3; the subject and pattern are upvalues 1 and 2). */
typedef struct {
	size_t at;           /* where the next attempt starts */
	size_t last;         /* end of the last match + 1, 0 when none yet */
} pat_gm;

static int pat_gmatch_next(lua_State *L)
{
	size_t ls, lp;
	const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
	const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
	pat_gm *g = lua_touserdata(L, lua_upvalueindex(3));
	pat_state m;
	pat_init(&m, L, s, ls, p, lp);
	for (const char *from = s + g->at; from <= m.s_end; from++) {
		pat_reset(&m);
		const char *e = pat_match(&m, from, p);
		if (e && (g->last == 0 || e != s + g->last - 1)) {
			g->at = (size_t)(e - s);
			g->last = g->at + 1;
			pat_flush(&m);
			return pat_push_captures(&m, from, e);
		}
	}
	g->at = ls + 1;
	pat_flush(&m);
	return 0;
}

static int pat_gmatch(lua_State *L)
{
	size_t ls;
	luaL_checklstring(L, 1, &ls);
	luaL_checkstring(L, 2);
	size_t init = pat_start(luaL_optinteger(L, 3, 1), ls) - 1;
	lua_settop(L, 2);
	pat_gm *g = lua_newuserdatauv(L, sizeof *g, 0);
	g->at = init > ls ? ls + 1 : init;
	g->last = 0;
	lua_pushcclosure(L, pat_gmatch_next, 3);
	return 1;
}

/* ---------- gsub ---------- */

/* Append the replacement string (argument 3) for the match [s, e), with %0-%9 and %%. */
static void pat_add_string(pat_state *m, luaL_Buffer *b, const char *s, const char *e)
{
	lua_State *L = m->L;
	size_t l;
	const char *r = lua_tolstring(L, 3, &l), *q;
	while ((q = memchr(r, PAT_ESC, l)) != NULL) {
		luaL_addlstring(b, r, (size_t)(q - r));
		q++;
		if (*q == PAT_ESC) {
			luaL_addchar(b, *q);
		} else if (*q == '0') {
			luaL_addlstring(b, s, (size_t)(e - s));
		} else if (isdigit((unsigned char)*q)) {
			const char *at;
			ptrdiff_t len = pat_capture(m, *q - '1', s, e, &at);
			if (len == CAP_POS)
				luaL_addvalue(b);
			else
				luaL_addlstring(b, at, (size_t)len);
		} else {
			luaL_error(L, "invalid use of '%c' in replacement string", PAT_ESC);
		}
		l -= (size_t)(q + 1 - r);
		r = q + 1;
	}
	luaL_addlstring(b, r, l);
}

/* Append the replacement for the match [s, e) (repl of type tr); whether it changed the
 * text (false and nil from a function or table keep the match). */
static int pat_add_value(pat_state *m, luaL_Buffer *b, const char *s, const char *e, int tr)
{
	lua_State *L = m->L;
	if (tr == LUA_TFUNCTION) {
		lua_pushvalue(L, 3);
		int n = pat_push_captures(m, s, e);
		lua_call(L, n, 1);
	} else if (tr == LUA_TTABLE) {
		pat_push_capture(m, 0, s, e);
		lua_gettable(L, 3);
	} else {
		pat_add_string(m, b, s, e);
		return 1;
	}
	if (!lua_toboolean(L, -1)) {
		lua_pop(L, 1);
		luaL_addlstring(b, s, (size_t)(e - s));
		return 0;
	}
	if (!lua_isstring(L, -1))
		return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
	luaL_addvalue(b);
	return 1;
}

static int pat_gsub(lua_State *L)
{
	size_t ls, lp;
	const char *src = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	int tr = lua_type(L, 3);
	lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
	luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
			"string/function/table");
	int anchor = *p == '^';
	if (anchor) {
		p++;
		lp--;
	}
	pat_state m;
	pat_init(&m, L, src, ls, p, lp);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	const char *last = NULL;
	lua_Integer n = 0;
	int changed = 0;
	while (n < max) {
		pat_reset(&m);
		const char *e = pat_match(&m, src, p);
		if (e && e != last) {
			n++;
			changed |= pat_add_value(&m, &b, src, e, tr);
			src = last = e;
		} else if (src < m.s_end) {
			luaL_addchar(&b, *src++);
		} else {
			break;
		}
		if (anchor)
			break;
	}
	pat_flush(&m);
	if (!changed) {
		lua_pushvalue(L, 1);
	} else {
		luaL_addlstring(&b, src, (size_t)(m.s_end - src));
		luaL_pushresult(&b);
	}
	lua_pushinteger(L, n);
	return 2;
}

void scr_open_pattern(lua_State *L)
{
	static const luaL_Reg fns[] = {
		{"find", pat_find}, {"match", pat_match_fn}, {"gmatch", pat_gmatch}, {"gsub", pat_gsub}, {NULL, NULL},
	};
	luaL_setfuncs(L, fns, 0);
}
