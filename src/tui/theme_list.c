/* theme_list.c - the themes on the data path and switching between them (`t`, :theme,
 * --theme): load the file, then give its roles to the terminal. */
#include "core/nearest.h"
#include "tui/actions.h"
#include "tui/term.h"

#include <stdio.h>
#include <string.h>

static void theme_visit(const char *name, const char *path, void *arg)
{
	tui_app *a = arg;
	if (a->ntheme >= TUI_MAX_THEMES)
		return;
	snprintf(a->theme_name[a->ntheme], sizeof a->theme_name[0], "%s", name);
	snprintf(a->theme_path[a->ntheme], sizeof a->theme_path[0], "%s", path);
	a->ntheme++;
}

void tui_themes_scan(tui_app *a)
{
	a->ntheme = 0;
	paths_each(a->paths, "themes", theme_visit, a);
}

int tui_theme_use(tui_app *a, const char *name)
{
	tui_theme t;
	char err[512];
	int idx = -1;
	for (int i = 0; i < a->ntheme; i++)
		if (!strcmp(a->theme_name[i], name))
			idx = i;
	if (idx < 0 && strcmp(name, "builtin")) {
		const char *names[TUI_MAX_THEMES + 1];
		for (int i = 0; i < a->ntheme; i++)
			names[i] = a->theme_name[i];
		names[a->ntheme] = "builtin";
		const char *near = nearest_word(name, names, (size_t)a->ntheme + 1);
		char list[TUI_MAX_THEMES * 20] = "builtin";
		for (int i = 0; i < a->ntheme; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), ", %.16s", a->theme_name[i]);
		tui_app_msg(a, MSG_ERROR, "no theme '%s' (themes/%s.yaml not found)%s%s%s; themes: %s", name, name,
				near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", list);
		return -1;
	}
	if (idx < 0)
		tui_theme_builtin(&t);
	else if (tui_theme_load(&t, a->theme_path[idx], err, sizeof err)) {
		tui_app_msg(a, MSG_ERROR, "%s", err);
		return -1;
	}
	a->theme = t;
	a->theme_idx = idx;
	if (a->term)
		tui_term_apply_theme(a->term, &a->theme, a->attr);
	tui_app_msg(a, MSG_INFO, "theme %s%s", t.name, a->colors ? "" : " (monochrome terminal: attributes only)");
	return 0;
}

void tui_theme_next(tui_app *a)
{
	if (a->ntheme == 0) {
		tui_app_msg(a, MSG_ERROR, "no themes found (themes/*.yaml on the data path)");
		return;
	}
	tui_theme_use(a, a->theme_name[(a->theme_idx + 1) % a->ntheme]);
}
