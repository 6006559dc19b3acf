/* cmdline.c - the ":" command line: vi-like words for the things keys do, plus :set for
 * typing several values at once. */
#include "core/nearest.h"
#include "solve/pins.h"
#include "io/paths.h"
#include "tui/actions.h"
#include "tui/clip.h"
#include "tui/prefs.h"
#include "tui/safety.h"
#include "tui/tasks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Add a pin; a knob pin also sets the knob to the pinned value first. */
static void pin_command(tui_app *a, const char *expr)
{
	if (!strchr(expr, '=')) {
		tui_app_msg(a, MSG_ERROR, "a pin is written key=value (e.g. tp=8, experts.ep=8)");
		return;
	}
	/* checked now, not when the search or the ILP first reads it */
	pin_t parsed;
	char why[512];
	if (pin_parse(expr, &parsed, why, sizeof why)) {
		tui_app_msg(a, MSG_ERROR, "%s", why);
		return;
	}
	unsigned bit = knob_pin_bit(expr);
	if (bit) {
		for (int i = 0; i < a->plan->npins; i++)
			if (knob_pin_bit(a->plan->pins[i]) == bit) {
				tui_app_msg(a, MSG_ERROR, "already pinned: %s (:unpin first)", a->plan->pins[i]);
				return;
			}
		if (tui_set(a, expr))
			return;
	}
	plan_t p = *a->plan;
	if (p.npins >= PLAN_MAX_PINS) {
		tui_app_msg(a, MSG_ERROR, "at most %d pins", PLAN_MAX_PINS);
		return;
	}
	snprintf(p.pins[p.npins++], sizeof p.pins[0], "%s", expr);
	tui_app_commit(a, &p);
	tui_app_msg(a, MSG_INFO, "pinned %s", expr);
}

static void unpin_command(tui_app *a, const char *key)
{
	plan_t p = *a->plan;
	size_t kl = strlen(key);
	int removed = 0;
	for (int i = 0; i < p.npins;) {
		/* "tp" removes "tp=8"; a full "tp=8" too */
		if (!strncmp(p.pins[i], key, kl) && (p.pins[i][kl] == '=' || p.pins[i][kl] == 0)) {
			memmove(p.pins[i], p.pins[i + 1], (size_t)(p.npins - i - 1) * sizeof p.pins[0]);
			p.npins--;
			removed++;
		} else {
			i++;
		}
	}
	if (!removed) {
		tui_app_msg(a, MSG_ERROR, "no pin on '%s'", key);
		return;
	}
	tui_app_commit(a, &p);
	tui_app_msg(a, MSG_INFO, "unpinned %s", key);
}

/* Back to the core's even split and uniform recompute (after keeping an ILP plan). */
static void even_command(tui_app *a)
{
	if (!a->plan->strategy.nchunks && !a->plan->strategy.nranges && !strat_split_keys(&a->plan->strategy)) {
		tui_app_msg(a, MSG_ERROR, "the plan already has the even split");
		return;
	}
	plan_t p = *a->plan;
	p.strategy.nchunks = 0;
	p.strategy.nranges = 0;
	p.strategy.first_layers = p.strategy.last_layers = 0;
	p.strategy.acct_embed = p.strategy.acct_loss = false;
	tui_commit_described(a, &p, "even split again (u undoes)");
}

const char *const tui_command_names[TUI_NCOMMANDS] = {"set", "write", "wq", "quit", "quit!", "edit", "edit!",
	"open", "model", "cluster", "theme", "pin", "unpin", "undo", "redo", "messages", "help", "export", "export!",
	"lua", "ilp", "search", "even", "w!", "q!", "e!", "yank", "recover"};

/* :yank (the strategy line) and :yank export (the text of the last export). */
static void yank_command(tui_app *a, const char *what)
{
	if (!what[0] || !strcmp(what, "strategy")) {
		char line[1200];
		tui_strategy_line(a, line, sizeof line);
		tui_copy(a, line, "the strategy");
		return;
	}
	if (strcmp(what, "export")) {
		tui_app_msg(a, MSG_ERROR, ":yank copies the strategy, :yank export the last export's text");
		return;
	}
	if (!a->export_ok[0]) {
		tui_app_msg(a, MSG_ERROR, "nothing exported yet (e exports)");
		return;
	}
	char err[1200];
	FILE *f = paths_fopen_regular(a->export_ok, NULL, err, sizeof err);
	char *buf = f ? malloc(TUI_CLIP_MAX + 2) : NULL;
	if (!buf) {
		tui_app_msg(a, MSG_ERROR, "%s", f ? "out of memory" : err);
		if (f)
			fclose(f);
		return;
	}
	size_t n = fread(buf, 1, TUI_CLIP_MAX + 1, f);
	fclose(f);
	buf[n] = 0;
	char what_s[1100];
	snprintf(what_s, sizeof what_s, "%s", a->export_ok);
	tui_copy(a, buf, what_s);
	free(buf);
}

void tui_command(tui_app *a, const char *line)
{
	char buf[300];
	while (isspace((unsigned char)*line))
		line++;
	snprintf(buf, sizeof buf, "%s", line);
	size_t l = strlen(buf);
	while (l > 0 && isspace((unsigned char)buf[l - 1]))
		buf[--l] = 0;
	if (!buf[0])
		return;
	char *rest = buf + strcspn(buf, " \t");
	if (*rest) {
		*rest++ = 0;
		while (isspace((unsigned char)*rest))
			rest++;
	}
	const char *cmd = buf;
	if (strchr(cmd, '=')) {
		/* ":tp=8 pp=2" is :set */
		char all[sizeof buf + 2];
		snprintf(all, sizeof all, "%s %s", cmd, rest);
		tui_set(a, all);
	} else if (!strcmp(cmd, "set") || !strcmp(cmd, "s")) {
		tui_set(a, rest);
	} else if (!strcmp(cmd, "w") || !strcmp(cmd, "write") || !strcmp(cmd, "w!") || !strcmp(cmd, "write!")) {
		tui_save(a, rest, cmd[strlen(cmd) - 1] == '!');
	} else if (!strcmp(cmd, "wq") || !strcmp(cmd, "x") || !strcmp(cmd, "wq!")) {
		tui_save(a, rest, cmd[2] == '!');
		if (!a->dirty && a->mode != MODE_PROMPT)
			a->quit = 1;
	} else if (!strcmp(cmd, "q") || !strcmp(cmd, "quit")) {
		tui_request_quit(a, 0);
	} else if (!strcmp(cmd, "q!") || !strcmp(cmd, "quit!")) {
		tui_request_quit(a, 1);
	} else if (!strcmp(cmd, "e") || !strcmp(cmd, "edit") || !strcmp(cmd, "o") || !strcmp(cmd, "open") ||
			!strcmp(cmd, "e!") || !strcmp(cmd, "edit!") || !strcmp(cmd, "o!") || !strcmp(cmd, "open!")) {
		if (*rest)
			tui_open(a, rest, cmd[strlen(cmd) - 1] == '!');
		else
			tui_app_msg(a, MSG_ERROR, ":%s needs a plan file", cmd);
	} else if (!strcmp(cmd, "model") || !strcmp(cmd, "cluster")) {
		char set[sizeof buf + 2];
		snprintf(set, sizeof set, "%s=%s", cmd, rest);
		if (*rest)
			tui_set(a, set);
		else
			tui_pick_open(a, cmd[0] == 'c');
	} else if (!strcmp(cmd, "theme")) {
		if (*rest ? !tui_theme_use(a, rest) : (tui_theme_next(a), 1))
			tui_prefs_remember(a);
	} else if (!strcmp(cmd, "pin")) {
		pin_command(a, rest);
	} else if (!strcmp(cmd, "unpin")) {
		unpin_command(a, rest);
	} else if (!strcmp(cmd, "undo") || !strcmp(cmd, "u")) {
		if (tui_app_undo(a))
			tui_app_msg(a, MSG_ERROR, "nothing to undo");
	} else if (!strcmp(cmd, "redo") || !strcmp(cmd, "red")) {
		if (tui_app_redo(a))
			tui_app_msg(a, MSG_ERROR, "nothing to redo");
	} else if (!strcmp(cmd, "recover")) {
		tui_recover_command(a, rest);
	} else if (!strcmp(cmd, "yank") || !strcmp(cmd, "y")) {
		yank_command(a, rest);
	} else if (!strcmp(cmd, "messages") || !strcmp(cmd, "mes")) {
		tui_messages_show(a, COLS);
	} else if (!strcmp(cmd, "help") || !strcmp(cmd, "h")) {
		a->mode = MODE_HELP;
	} else if (!strcmp(cmd, "export") || !strcmp(cmd, "export!")) {
		tui_export_command(a, rest, cmd[6] == '!');
	} else if (!strcmp(cmd, "lua")) {
		tui_lua_start(a, rest);
	} else if (!strcmp(cmd, "ilp")) {
		tui_ilp_start(a);
	} else if (!strcmp(cmd, "search")) {
		tui_search_start(a);
	} else if (!strcmp(cmd, "even")) {
		even_command(a);
	} else {
		const char *near = nearest_word(cmd, tui_command_names, TUI_NCOMMANDS);
		char hint[80] = "";
		if (near)
			snprintf(hint, sizeof hint, "; did you mean ':%s'?", near);
		tui_app_msg(a, MSG_ERROR, "unknown command ':%s'%s (set, w, w!, wq, q, q!, e, e!, model, cluster, theme, pin, "
				"unpin, undo, redo, messages, yank, recover, export, lua, ilp, search, even, help)", cmd, hint);
	}
}
