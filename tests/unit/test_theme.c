/* Unit tests for src/tui/theme.c: the shipped themes load and name every role, colour
 * names and palette reduction for 16- and 8-colour terminals, and theme-file errors with
 * file:line:col. Runs from the repository root. */
#include "check.h"
#include "io/ydoc.h"
#include "tui/theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* Write text to a theme file in the temporary directory; returns its path. */
static const char *theme_file(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s.yaml", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static void test_shipped(void)
{
	const char *names[] = {"dark", "light", "mono"};
	tui_theme t[3];
	for (int i = 0; i < 3; i++) {
		char path[128], err[512] = "";
		snprintf(path, sizeof path, "themes/%s.yaml", names[i]);
		int rc = tui_theme_load(&t[i], path, err, sizeof err);
		if (!CHECK(rc == 0, check_fmt("theme %s loads", names[i])))
			printf("  %s\n", err);
		CHECK(!strcmp(t[i].name, names[i]), check_fmt("theme %s is named %s", names[i], names[i]));
		/* a shipped theme names every role, so none silently falls back to the built-in */
		yd_doc *d = yd_load_file(path, err, sizeof err);
		const yd_node *roles = d ? yd_get(yd_root(d), "roles") : NULL;
		int missing = 0;
		for (int r = 0; r < ROLE_COUNT; r++)
			if (!yd_get(roles, tui_role_name((tui_role)r))) {
				printf("  %s lacks role %s\n", names[i], tui_role_name((tui_role)r));
				missing++;
			}
		CHECK(d && missing == 0, check_fmt("theme %s names every role", names[i]));
		yd_free(d);
		int mono_ok = 1;
		for (int r = 0; r < ROLE_COUNT; r++)
			if (t[i].role[r].fg > 15 || t[i].role[r].bg > 15)
				mono_ok = 0;
		CHECK(mono_ok, check_fmt("theme %s: basic colours are 0..15", names[i]));
	}
	CHECK(memcmp(t[0].role, t[1].role, sizeof t[0].role) != 0, "dark and light differ");
	int colourless = 1;
	for (int r = 0; r < ROLE_COUNT; r++)
		if (t[2].role[r].fg != TUI_DEFAULT_COLOR || t[2].role[r].bg != TUI_DEFAULT_COLOR ||
				t[2].role[r].fg256 != TUI_DEFAULT_COLOR || t[2].role[r].bg256 != TUI_DEFAULT_COLOR)
			colourless = 0;
	CHECK(colourless, "mono uses no colour at all");
	/* the states that must stand out without colour do */
	CHECK(t[0].role[ROLE_SELECTED].mono && t[0].role[ROLE_OVER].mono && t[0].role[ROLE_ERROR].mono &&
			t[0].role[ROLE_HEADER].mono, "dark: selection, over-budget, errors, header visible in monochrome");
	CHECK(t[0].role[ROLE_HEADER].fg256 == 255 && t[0].role[ROLE_HEADER].fg == 15, "[PALETTE, BASIC] pairs read");
}

static void test_builtin(void)
{
	tui_theme t;
	tui_theme_builtin(&t);
	CHECK(!strcmp(t.name, "builtin"), "builtin theme name");
	int distinct = 1;
	for (int a = 0; a < ROLE_COUNT; a++)
		for (int b = a + 1; b < ROLE_COUNT; b++)
			if (!strcmp(tui_role_name((tui_role)a), tui_role_name((tui_role)b)))
				distinct = 0;
	CHECK(distinct, "role names are distinct");
	CHECK(!strcmp(tui_role_name(ROLE_TL_F), "timeline_forward") && !strcmp(tui_role_name(ROLE_OVER), "over_budget"),
			"role names as theme files write them");
}

static void test_colors(void)
{
	CHECK(tui_color_parse("red") == 1 && tui_color_parse("bright-red") == 9 && tui_color_parse("white") == 7 &&
			tui_color_parse("bright-white") == 15 && tui_color_parse("default") == TUI_DEFAULT_COLOR,
			"colour names");
	CHECK(tui_color_parse("0") == 0 && tui_color_parse("255") == 255 && tui_color_parse("256") == -2 &&
			tui_color_parse("-1") == -2 && tui_color_parse("rouge") == -2 && tui_color_parse("12x") == -2,
			"colour numbers and junk");
	CHECK(tui_color_parse("#ff0000") == 196 && tui_color_parse("#000000") == 16 && tui_color_parse("#ffffff") == 231,
			"#rrggbb to the nearest cube colour");
	CHECK(tui_color_parse("#808080") == 244, "#808080 to the grey ramp");
	CHECK(tui_color_parse("#12345") == -2 && tui_color_parse("#gg0000") == -2, "bad #rrggbb");
	CHECK(tui_color_to16(196) == 9 && tui_color_to16(16) == 0 && tui_color_to16(231) == 15 && tui_color_to16(3) == 3,
			"palette to 16: bright red, black, white, basics unchanged");
	CHECK(tui_color_to16(244) == 8, "palette grey to bright black");
	int bold = 0;
	CHECK(tui_color_to8(9, &bold) == 1 && bold == 1, "16 to 8: bright red is bold red");
	bold = 0;
	CHECK(tui_color_to8(4, &bold) == 4 && bold == 0, "16 to 8: blue stays blue, not bold");
}

static void expect_error(const char *text, const char *needle, const char *name)
{
	tui_theme t;
	char err[512] = "";
	int rc = tui_theme_load(&t, theme_file("bad", text), err, sizeof err);
	if (!CHECK(rc == -1 && strstr(err, needle), name))
		printf("  rc %d err '%s'\n", rc, err);
}

static void test_errors(void)
{
	expect_error("roles:\n  nonsense: {fg: red}\n", "bad.yaml:2:3: unknown role 'nonsense'", "error: unknown role at 2:3");
	expect_error("roles:\n  header: {fg: rouge}\n", "bad.yaml:2:16: fg must be a colour", "error: bad colour at 2:16");
	expect_error("roles:\n  header: {attr: blink}\n", "unknown attribute 'blink'", "error: unknown attribute");
	expect_error("roles:\n  header: {colour: red}\n", "unknown role key 'colour'", "error: unknown role key");
	expect_error("name: x\n", "a theme is a mapping with a 'roles' mapping", "error: no roles");
	expect_error("roles:\n  header: {fg: [196, 200]}\n", "must be a colour", "error: a basic colour must be 0..15");
	expect_error("roles: [\n", "bad.yaml:", "error: YAML syntax, with the position");
	tui_theme t;
	char err[512];
	CHECK(tui_theme_load(&t, "no/such/theme.yaml", err, sizeof err) == -1 && strstr(err, "no/such/theme.yaml"),
			"error: a missing file is named");
	/* a partial theme keeps the built-in roles it does not name; its name is the file's */
	tui_theme b;
	tui_theme_builtin(&b);
	int rc = tui_theme_load(&t, theme_file("partial", "roles:\n  header: {fg: 196, attr: [bold, underline]}\n"), err,
			sizeof err);
	CHECK(rc == 0 && !strcmp(t.name, "partial") && t.role[ROLE_HEADER].fg256 == 196 && t.role[ROLE_HEADER].fg == 9 &&
			t.role[ROLE_HEADER].attr == (TA_BOLD | TA_UNDERLINE) &&
			!memcmp(&t.role[ROLE_TITLE], &b.role[ROLE_TITLE], sizeof b.role[0]),
			"partial theme: named roles change, others stay built-in; name from the file");
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/strata-theme.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return 1;
	test_shipped();
	test_builtin();
	test_colors();
	test_errors();
	char path[600];
	snprintf(path, sizeof path, "%s/bad.yaml", tmpdir);
	unlink(path);
	snprintf(path, sizeof path, "%s/partial.yaml", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	return check_done();
}
