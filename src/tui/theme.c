/* theme.c - built-in theme, theme files, colour names and palette reduction. */
#include "tui/theme.h"
#include "io/ydoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TUI_ROLE_NAME(e, name) name,
static const char *const role_names[ROLE_COUNT] = {TUI_ROLES(TUI_ROLE_NAME)};
#undef TUI_ROLE_NAME

const char *tui_role_name(tui_role r)
{
	return r < ROLE_COUNT ? role_names[r] : "?";
}

enum { BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE, BRIGHT = 8, DEF = TUI_DEFAULT_COLOR };

/* The built-in theme is the dark one: it must be readable on any dark terminal with only
 * the 8 basic colours, and in monochrome through the mono attributes alone. */
#define S(fg, bg, attr, mono) {fg, bg, fg, bg, attr, mono}
static const tui_style builtin[ROLE_COUNT] = {
	[ROLE_NORMAL] = S(DEF, DEF, 0, 0),
	[ROLE_HEADER] = S(BLACK, CYAN, TA_BOLD, TA_REVERSE | TA_BOLD),
	[ROLE_TITLE] = S(CYAN, DEF, TA_BOLD, TA_BOLD | TA_UNDERLINE),
	[ROLE_LABEL] = S(WHITE, DEF, 0, 0),
	[ROLE_VALUE] = S(BRIGHT + WHITE, DEF, TA_BOLD, TA_BOLD),
	[ROLE_SELECTED] = S(BLACK, YELLOW, 0, TA_REVERSE),
	[ROLE_PINNED] = S(MAGENTA, DEF, TA_BOLD, TA_BOLD),
	[ROLE_CHANGED] = S(YELLOW, DEF, TA_BOLD, TA_UNDERLINE),
	[ROLE_INVALID] = S(BRIGHT + RED, DEF, TA_BOLD, TA_BOLD | TA_UNDERLINE),
	[ROLE_MEM_WEIGHTS] = S(BLUE, DEF, 0, 0),
	[ROLE_MEM_GRADS] = S(CYAN, DEF, 0, 0),
	[ROLE_MEM_OPTIM] = S(MAGENTA, DEF, 0, 0),
	[ROLE_MEM_ACTS] = S(GREEN, DEF, 0, 0),
	[ROLE_MEM_BUFS] = S(YELLOW, DEF, 0, 0),
	[ROLE_BUDGET] = S(WHITE, DEF, TA_BOLD, TA_BOLD),
	[ROLE_OVER] = S(BRIGHT + WHITE, RED, TA_BOLD, TA_REVERSE | TA_BOLD),
	[ROLE_OVER_BAR] = S(BRIGHT + RED, DEF, TA_BOLD, TA_REVERSE),
	[ROLE_FITS] = S(GREEN, DEF, TA_BOLD, TA_BOLD),
	[ROLE_T_COMPUTE] = S(GREEN, DEF, 0, 0),
	[ROLE_T_RECOMPUTE] = S(YELLOW, DEF, 0, 0),
	[ROLE_T_BUBBLE] = S(RED, DEF, 0, 0),
	[ROLE_T_COMM] = S(CYAN, DEF, 0, 0),
	[ROLE_T_OPTIM] = S(MAGENTA, DEF, 0, 0),
	[ROLE_TL_F] = S(BLACK, GREEN, 0, 0),
	[ROLE_TL_B] = S(BLACK, CYAN, 0, TA_BOLD),
	[ROLE_TL_W] = S(BLACK, MAGENTA, 0, TA_UNDERLINE),
	[ROLE_TL_IDLE] = S(RED, DEF, 0, TA_DIM),
	[ROLE_MESSAGE] = S(DEF, DEF, 0, 0),
	[ROLE_ERROR] = S(BRIGHT + WHITE, RED, TA_BOLD, TA_REVERSE | TA_BOLD),
	[ROLE_PROMPT] = S(BRIGHT + WHITE, DEF, TA_BOLD, TA_BOLD),
	[ROLE_HELP_KEY] = S(YELLOW, DEF, TA_BOLD, TA_BOLD),
	[ROLE_DEBUG] = S(BLACK, WHITE, 0, TA_REVERSE),
	[ROLE_BORDER] = S(BLUE, DEF, 0, 0),
};
#undef S

void tui_theme_builtin(tui_theme *t)
{
	snprintf(t->name, sizeof t->name, "builtin");
	memcpy(t->role, builtin, sizeof t->role);
}

/* xterm's palette: 16 system colours, the 6x6x6 cube, the grey ramp. */
static void palette_rgb(int c, int *r, int *g, int *b)
{
	static const unsigned char sys[16][3] = {
		{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205},
		{229, 229, 229}, {127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {92, 92, 255},
		{255, 0, 255}, {0, 255, 255}, {255, 255, 255},
	};
	static const unsigned char level[6] = {0, 95, 135, 175, 215, 255};
	if (c < 16) {
		*r = sys[c][0];
		*g = sys[c][1];
		*b = sys[c][2];
	} else if (c < 232) {
		c -= 16;
		*r = level[c / 36];
		*g = level[c / 6 % 6];
		*b = level[c % 6];
	} else {
		*r = *g = *b = 8 + 10 * (c - 232);
	}
}

/* Palette entry in [lo, hi) nearest to an RGB colour. */
static int nearest(int r, int g, int b, int lo, int hi)
{
	int best = lo;
	long bestd = -1;
	for (int c = lo; c < hi; c++) {
		int pr, pg, pb;
		palette_rgb(c, &pr, &pg, &pb);
		long d = (long)(pr - r) * (pr - r) + (long)(pg - g) * (pg - g) + (long)(pb - b) * (pb - b);
		if (bestd < 0 || d < bestd) {
			bestd = d;
			best = c;
		}
	}
	return best;
}

int tui_color_to16(int c)
{
	if (c < 16)
		return c;
	int r, g, b;
	palette_rgb(c, &r, &g, &b);
	return nearest(r, g, b, 0, 16);
}

int tui_color_to8(int c, int *bold)
{
	if (c >= 8 && c < 16) {
		*bold = 1;
		return c - 8;
	}
	return c;
}

int tui_color_parse(const char *s)
{
	static const char *const names[8] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};
	if (!strcmp(s, "default"))
		return TUI_DEFAULT_COLOR;
	int bright = !strncmp(s, "bright-", 7);
	const char *n = bright ? s + 7 : s;
	for (int i = 0; i < 8; i++)
		if (!strcmp(n, names[i]))
			return i + (bright ? 8 : 0);
	if (s[0] == '#' && strlen(s) == 7) {
		char *end;
		long v = strtol(s + 1, &end, 16);
		if (*end)
			return -2;
		/* the cube and the greys only: terminals redefine the 16 system colours */
		return nearest((int)(v >> 16) & 255, (int)(v >> 8) & 255, (int)v & 255, 16, 256);
	}
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < 0 || v > 255)
		return -2;
	return (int)v;
}

/* "bold underline", "none", or a list of those words. */
static int parse_attrs(const yd_doc *d, const yd_node *n, unsigned *out, char *err, size_t errlen)
{
	static const struct { const char *name; unsigned bit; } words[] = {
		{"bold", TA_BOLD}, {"dim", TA_DIM}, {"underline", TA_UNDERLINE}, {"reverse", TA_REVERSE}, {"none", 0},
	};
	unsigned bits = 0;
	size_t items = yd_kind_of(n) == YD_SEQ ? yd_len(n) : 1;
	for (size_t i = 0; i < items; i++) {
		const yd_node *item = yd_kind_of(n) == YD_SEQ ? yd_item(n, i) : n;
		const char *s = yd_str(item);
		if (!s) {
			yd_errat(d, item, err, errlen, "attributes are words: bold, dim, underline, reverse, none");
			return -1;
		}
		char buf[128];
		snprintf(buf, sizeof buf, "%s", s);
		for (char *w = strtok(buf, " ,"); w; w = strtok(NULL, " ,")) {
			size_t k;
			for (k = 0; k < sizeof words / sizeof words[0]; k++)
				if (!strcmp(w, words[k].name))
					break;
			if (k == sizeof words / sizeof words[0]) {
				yd_errat(d, item, err, errlen, "unknown attribute '%s' (bold, dim, underline, reverse, none)", w);
				return -1;
			}
			bits |= words[k].bit;
		}
	}
	*out = bits;
	return 0;
}

/* COLOUR or [PALETTE, BASIC]: the palette colour and the basic one for small terminals. */
static int parse_color(const yd_doc *d, const yd_node *v, const char *what, int *pal, int *basic, char *err,
		size_t errlen)
{
	const char *msg = "%s must be a colour (a name such as red, bright-blue or default, 0..255, #rrggbb) "
		"or [PALETTE, BASIC]";
	const char *s1 = NULL, *s2 = NULL;
	if (yd_kind_of(v) == YD_SEQ && yd_len(v) == 2) {
		s1 = yd_str(yd_item(v, 0));
		s2 = yd_str(yd_item(v, 1));
	} else {
		s1 = yd_str(v);
	}
	*pal = s1 ? tui_color_parse(s1) : -2;
	*basic = s2 ? tui_color_parse(s2) : *pal >= 16 ? tui_color_to16(*pal) : *pal;
	if (*pal == -2 || *basic == -2 || (*basic >= 16 && s2)) {
		yd_errat(d, v, err, errlen, msg, what);
		return -1;
	}
	return 0;
}

static int parse_role(const yd_doc *d, const yd_node *n, tui_style *st, char *err, size_t errlen)
{
	if (yd_kind_of(n) != YD_MAP) {
		yd_errat(d, n, err, errlen, "a role is a mapping {fg: .., bg: .., attr: .., mono: ..}");
		return -1;
	}
	for (size_t i = 0; i < yd_len(n); i++) {
		const char *k = yd_key(n, i);
		const yd_node *v = yd_val(n, i);
		if (!strcmp(k, "fg") || !strcmp(k, "bg")) {
			int pal, basic;
			if (parse_color(d, v, k, &pal, &basic, err, errlen))
				return -1;
			if (k[0] == 'f') {
				st->fg256 = (short)pal;
				st->fg = (short)basic;
			} else {
				st->bg256 = (short)pal;
				st->bg = (short)basic;
			}
		} else if (!strcmp(k, "attr") || !strcmp(k, "mono")) {
			if (parse_attrs(d, v, k[0] == 'a' ? &st->attr : &st->mono, err, errlen))
				return -1;
		} else {
			yd_errat(d, yd_keynode(n, i), err, errlen, "unknown role key '%s' (fg, bg, attr, mono)", k);
			return -1;
		}
	}
	return 0;
}

int tui_theme_load(tui_theme *t, const char *path, char *err, size_t errlen)
{
	tui_theme_builtin(t);
	yd_doc *d = yd_load_file(path, err, errlen);
	if (!d)
		return -1;
	int rc = -1;
	const yd_node *root = yd_root(d), *roles = yd_get(root, "roles");
	if (!root || yd_kind_of(root) != YD_MAP || !roles || yd_kind_of(roles) != YD_MAP) {
		yd_errat(d, roles ? roles : root, err, errlen, "a theme is a mapping with a 'roles' mapping");
		goto out;
	}
	const char *name = yd_str(yd_get(root, "name"));
	if (name) {
		snprintf(t->name, sizeof t->name, "%s", name);
	} else {
		/* the file name is the theme's name, as for presets */
		const char *base = strrchr(path, '/');
		snprintf(t->name, sizeof t->name, "%s", base ? base + 1 : path);
		char *dot = strrchr(t->name, '.');
		if (dot)
			*dot = 0;
	}
	for (size_t i = 0; i < yd_len(roles); i++) {
		const char *k = yd_key(roles, i);
		int r;
		for (r = 0; r < ROLE_COUNT; r++)
			if (!strcmp(k, role_names[r]))
				break;
		if (r == ROLE_COUNT) {
			yd_errat(d, yd_keynode(roles, i), err, errlen, "unknown role '%s'", k);
			goto out;
		}
		if (parse_role(d, yd_val(roles, i), &t->role[r], err, errlen))
			goto out;
	}
	rc = 0;
out:
	yd_free(d);
	return rc;
}
