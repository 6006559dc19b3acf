/* picker.c - choosing the model or the cluster from the presets (`m`, `c`) or a Lua recipe
 * (`L`): the list with a one-line summary of each, and applying the choice (a :set, or
 * running the recipe). */
#include "io/paths.h"
#include "tui/actions.h"
#include "tui/tasks.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static void pick_visit(const char *name, const char *path, void *arg)
{
	tui_app *a = arg;
	tui_picker *p = a->pick;
	if (p->nall >= TUI_MAX_PICK)
		return;
	char err[256];
	snprintf(p->name[p->nall], sizeof p->name[0], "%s", name);
	if (p->kind == 0) {
		model_t m;
		if (plan_load_model(&m, path, a->paths, err, sizeof err))
			snprintf(p->info[p->nall], sizeof p->info[0], "(unreadable: %.80s)", err);
		else
			snprintf(p->info[p->nall], sizeof p->info[0], "%-24s %7.1fB params, %d layers", m.name,
					model_total_params(&m, true) / 1e9, m.layers);
	} else {
		cluster_t c;
		if (plan_load_cluster(&c, path, a->paths, err, sizeof err))
			snprintf(p->info[p->nall], sizeof p->info[0], "(unreadable: %.80s)", err);
		else
			snprintf(p->info[p->nall], sizeof p->info[0], "%-28s %dx %s, %.0f GiB", c.name, c.node_devices, c.device,
					c.mem_gib);
	}
	if (!strcmp(name, p->kind ? a->plan->cluster_ref : a->plan->model_ref))
		p->sel = p->nall;
	p->nall++;
}

/* A recipe's summary: its first comment line without the "-- NAME.lua: " in front. */
static void recipe_visit(const char *name, const char *path, void *arg)
{
	tui_app *a = arg;
	tui_picker *p = a->pick;
	if (p->nall >= TUI_MAX_PICK)
		return;
	char line[256] = "", err[64];
	FILE *f = paths_fopen_regular(path, NULL, err, sizeof err); /* never a FIFO that blocks */
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	line[strcspn(line, "\r\n")] = 0;
	const char *info = strncmp(line, "--", 2) ? "" : line + 2;
	const char *colon = strstr(info, ": ");
	info = colon ? colon + 2 : info + strspn(info, " ");
	snprintf(p->name[p->nall], sizeof p->name[0], "%s", name);
	snprintf(p->info[p->nall], sizeof p->info[0], "%s", info);
	p->nall++;
}

/* Does hay contain needle, ASCII case ignored? */
static int contains(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, nl))
			return 1;
	return nl == 0;
}

void tui_pick_filter(tui_app *a)
{
	tui_picker *p = a->pick;
	int was = p->sel >= 0 && p->sel < p->n ? p->idx[p->sel] : -1;
	p->n = 0;
	for (int i = 0; i < p->nall; i++)
		if (contains(p->name[i], p->filter) || contains(p->info[i], p->filter))
			p->idx[p->n++] = i;
	/* keep the selected entry when it still matches, else the first one */
	p->sel = 0;
	for (int k = 0; k < p->n; k++)
		if (p->idx[k] == was)
			p->sel = k;
	p->top = 0;
}

void tui_pick_open(tui_app *a, int kind)
{
	a->pick->kind = kind;
	a->pick->nall = a->pick->n = a->pick->sel = a->pick->top = 0;
	a->pick->filter[0] = 0;
	a->pick->typing = 0;
	if (kind == 2)
		paths_each_ext(a->paths, "lua", ".lua", recipe_visit, a);
	else
		paths_each(a->paths, kind ? "presets/clusters" : "presets/models", pick_visit, a);
	int sel = a->pick->sel;
	tui_pick_filter(a);
	a->pick->sel = sel; /* the current model or cluster stays selected */
	a->mode = MODE_PICK;
}

void tui_pick_apply(tui_app *a)
{
	tui_picker *p = a->pick;
	a->mode = MODE_NORMAL;
	if (p->sel < 0 || p->sel >= p->n)
		return;
	const char *name = p->name[p->idx[p->sel]];
	if (p->kind == 2) {
		tui_lua_start(a, name);
		return;
	}
	char set[128];
	snprintf(set, sizeof set, "%s=%s", p->kind ? "cluster" : "model", name);
	tui_set(a, set);
}
