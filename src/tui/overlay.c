/* overlay.c - full-screen overlays: the help screen, generated from the key table (so it
 * lists exactly the keys that work), the model/cluster/recipe picker and the text of the
 * last Lua recipe (its output and error traceback). */
#include "tui/keys.h"
#include "tui/panes.h"

#include <stdio.h>
#include <string.h>

static const char *const commands[] = {
	":set KEY=VALUE ...   set knobs or other strategy keys (tp=8 pp=2, flash_attention=false)",
	":w [FILE]  :wq  :q  :q!   write the plan, quit",
	":e FILE   open a plan    :model NAME|FILE   :cluster NAME|FILE   :theme NAME",
	":pin KEY=VALUE   :unpin KEY   :undo   :even (drop the ILP stage split)",
	":export TARGET [FILE]   :lua FILE [ARGS...]   :ilp   :search",
	"after i: Enter or y keeps the ILP plan, n or Esc discards it",
	"search table: j/k move, Enter applies (pins kept, u undoes), Esc closes",
	"  a row's ! : unvalidated regime; +N : N strategies with identical results merged",
};

/* Lines of the help text: the bindings, then the commands. */
static int help_lines(void)
{
	int n;
	tui_bindings(&n);
	return n + 1 + (int)(sizeof commands / sizeof commands[0]);
}

void tui_overlay_help(tui_app *a, int rows, int cols)
{
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	tui_text(0, 0, cols, a->attr[ROLE_HEADER], " strata keys (j/k scroll, any other key closes)");
	int nb;
	const tui_binding *b = tui_bindings(&nb);
	int total = help_lines(), avail = rows - 1;
	if (a->help_top > total - avail)
		a->help_top = total - avail;
	if (a->help_top < 0)
		a->help_top = 0;
	for (int i = 0; i < avail; i++) {
		int line = a->help_top + i, y = 1 + i;
		if (line >= total)
			break;
		if (line < nb) {
			tui_textf(y, 1, 16, a->attr[ROLE_HELP_KEY], "%-15s", b[line].names);
			tui_text(y, 17, cols - 17, a->attr[ROLE_NORMAL], b[line].help);
		} else if (line > nb) {
			tui_text(y, 1, cols - 1, a->attr[ROLE_LABEL], commands[line - nb - 1]);
		}
	}
}

void tui_overlay_pick(tui_app *a, int rows, int cols)
{
	tui_picker *p = a->pick;
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	tui_textf(0, 0, cols, a->attr[ROLE_HEADER], " Choose a %s (%s%s move, Enter %s, Esc cancels)",
			p->kind == 2 ? "Lua recipe" : p->kind ? "cluster" : "model", a->g->up, a->g->down,
			p->kind == 2 ? "runs it" : "picks");
	int avail = rows - 1;
	tui_list_scroll(p->sel, &p->top, avail);
	for (int i = 0; i < avail && p->top + i < p->n; i++) {
		int k = p->top + i, y = 1 + i;
		attr_t at = a->attr[k == p->sel ? ROLE_SELECTED : ROLE_NORMAL];
		tui_fill(y, 0, cols, at);
		tui_textf(y, 0, cols, at, "%s %-16s %s", k == p->sel ? a->g->sel : " ", p->name[k], p->info[k]);
	}
	if (p->n == 0)
		tui_text(1, 1, cols - 1, a->attr[ROLE_ERROR], p->kind == 2 ? "no recipes found in lua/ (:lua FILE runs any file)" :
				"no presets found (see STRATA_DATA in strata(1))");
}

void tui_overlay_text(tui_app *a, int rows, int cols)
{
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	tui_textf(0, 0, cols, a->attr[ROLE_HEADER], " %s (j/k scroll, any other key closes)", a->text_title);
	const char *s = a->shown ? a->shown : "";
	int total = 0;
	for (const char *c = s; *c; c++)
		total += *c == '\n';
	if (a->text_top > total - (rows - 1))
		a->text_top = total - (rows - 1);
	if (a->text_top < 0)
		a->text_top = 0;
	for (int line = 0; *s && line < a->text_top + rows - 1; line++) {
		size_t len = strcspn(s, "\n");
		if (line >= a->text_top) {
			char buf[1024];
			snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), s);
			/* tabs of Lua's traceback would jump past the clipping */
			for (char *t = buf; *t; t++)
				if (*t == '\t')
					*t = ' ';
			tui_text(1 + line - a->text_top, 1, cols - 1,
					a->attr[!strncmp(buf, "error: ", 7) ? ROLE_ERROR : ROLE_NORMAL], buf);
		}
		s += len + (s[len] == '\n');
	}
}
