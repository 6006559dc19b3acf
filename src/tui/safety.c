/* safety.c - never lose a user's work: the y/n question before a file is overwritten, the
 * recovery file an interrupted session leaves beside its plan (vim's swap file, written
 * only when the session ends on a signal with unsaved changes) and its offer on the next
 * start, and the message log. */
#include "tui/safety.h"
#include "io/plan_write.h"
#include "tui/actions.h"
#include "tui/tasks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* $XDG_STATE_HOME/strata (default ~/.local/state/strata), created; 0 or -1. */
static int state_dir(char *out, size_t n)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char base[1024];
	if (x && x[0] == '/')
		snprintf(base, sizeof base, "%s", x);
	else if (home && home[0])
		snprintf(base, sizeof base, "%s/.local/state", home);
	else
		return -1;
	/* mkdir -p of the last levels: ~/.local and ~/.local/state may not exist yet */
	char *p = base + 1;
	while ((p = strchr(p, '/'))) {
		*p = 0;
		mkdir(base, 0700);
		*p++ = '/';
	}
	mkdir(base, 0700);
	if ((size_t)snprintf(out, n, "%s/strata", base) >= n)
		return -1;
	if (mkdir(out, 0700) && errno != EEXIST)
		return -1;
	return 0;
}

int tui_recover_path(const char *plan_path, char *out, size_t n)
{
	if (!plan_path[0]) {
		/* the default plan has no file to sit beside */
		char dir[1100];
		if (state_dir(dir, sizeof dir))
			return -1;
		return (size_t)snprintf(out, n, "%s/.default-plan.strata-recover", dir) >= n ? -1 : 0;
	}
	const char *slash = strrchr(plan_path, '/');
	int dlen = slash ? (int)(slash - plan_path + 1) : 0;
	const char *base = slash ? slash + 1 : plan_path;
	return (size_t)snprintf(out, n, "%.*s.%s.strata-recover", dlen, plan_path, base) >= n ? -1 : 0;
}

int tui_recover_write(tui_app *a, char *path, size_t n, char *err, size_t errlen)
{
	if (tui_recover_path(a->save_path, path, n)) {
		snprintf(err, errlen, "no place for a recovery file");
		return -1;
	}
	return plan_save(tui_preview_user_plan(a), path, a->paths, err, errlen);
}

void tui_recover_forget(tui_app *a)
{
	char path[1200];
	if (!tui_recover_path(a->save_path, path, sizeof path))
		unlink(path);
}

/* The plan's recovery file into path when there is one; 1, else 0. */
static int recovery_exists(const tui_app *a, char *path, size_t n)
{
	struct stat st;
	return !tui_recover_path(a->save_path, path, n) && !stat(path, &st) && S_ISREG(st.st_mode);
}

void tui_recover_offer(tui_app *a)
{
	char path[1200];
	/* a message, not a question: the keys typed next are never taken as an answer */
	if (recovery_exists(a, path, sizeof path))
		tui_app_msg(a, MSG_ERROR, "unsaved changes of an interrupted session are in %s: :recover restores them, "
				":recover delete removes the file", path);
}

/* The recovered plan replaces the file's (undoable, unsaved). */
static void recover(tui_app *a, const char *path)
{
	plan_t *p = tui_load_plan(a, path, "not recovered: ");
	char err[1024];
	if (!p)
		return;
	snprintf(p->path, sizeof p->path, "%s", a->plan->path);
	strat_resolve(&p->strategy, p->devices, err, sizeof err); /* dp is derived, not written */
	tui_commit_described(a, p, "recovered the unsaved changes (u undoes, w saves them)");
	free(p);
	unlink(path);
}

void tui_recover_command(tui_app *a, const char *arg)
{
	char path[1200];
	if (!recovery_exists(a, path, sizeof path)) {
		tui_app_msg(a, MSG_ERROR, "no recovery file for this plan (%s)", path);
		return;
	}
	if (!arg[0]) {
		recover(a, path);
	} else if (!strcmp(arg, "delete")) {
		unlink(path);
		tui_app_msg(a, MSG_INFO, "deleted %s", path);
	} else {
		tui_app_msg(a, MSG_ERROR, ":recover restores the unsaved changes, :recover delete removes the file");
	}
}

void tui_confirm_ask(tui_app *a, tui_confirm_kind kind, const char *path, int target, int force)
{
	a->confirm.kind = kind;
	a->confirm.target = target;
	a->confirm.force = force;
	snprintf(a->confirm.path, sizeof a->confirm.path, "%s", path);
	char label[1200];
	snprintf(label, sizeof label, "%.1100s exists: overwrite it? (y/n) ", path);
	tui_prompt_open(a, PROMPT_CONFIRM, label, "");
}

void tui_confirm_key(tui_app *a, int key)
{
	tui_confirm c = a->confirm;
	a->mode = MODE_NORMAL;
	if (key != 'y' && key != 'Y') {
		tui_app_msg(a, MSG_INFO, "not overwritten: %s", c.path);
		return;
	}
	if (c.kind == CONFIRM_SAVE)
		tui_save(a, c.path, 1);
	else
		tui_export_to(a, c.target, c.path, c.force, 1);
}

int tui_confirm_needed(const char *path)
{
	struct stat st;
	return !stat(path, &st);
}

/* Append text to buf (size n, used *len), cut into lines of at most width columns at spaces
 * where it can (bytes, not cells: a UTF-8 character is never split). */
static void wrap_append(char *buf, size_t n, size_t *len, const char *prefix, const char *text, int width)
{
	size_t pl = strlen(prefix);
	const char *s = text;
	int first = 1;
	if (width < 20)
		width = 20;
	do {
		size_t room = (size_t)width - pl, take = strlen(s);
		if (take > room) {
			size_t cut = room;
			while (cut > room / 2 && s[cut] != ' ')
				cut--;
			if (s[cut] != ' ')
				for (cut = room; cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80; cut--)
					;
			take = cut;
		}
		if (*len < n)
			*len += (size_t)snprintf(buf + *len, n - *len, "%s%.*s\n", first ? prefix : "", (int)take, s);
		s += take;
		while (*s == ' ')
			s++;
		if (*s && *len < n)
			*len += (size_t)snprintf(buf + *len, n - *len, "%*s", (int)pl, "");
		first = 0;
	} while (*s);
}

void tui_messages_show(tui_app *a, int width)
{
	size_t n = (size_t)a->log_n * (TUI_MSG_LEN + 64) + 256, len = 0;
	char *buf = malloc(n);
	if (!buf)
		return;
	buf[0] = 0;
	if (!a->log_n)
		len += (size_t)snprintf(buf, n, "(no messages yet)\n");
	for (int i = 0; i < a->log_n; i++) {
		int k = (a->log_head + TUI_LOG - a->log_n + i) % TUI_LOG;
		wrap_append(buf, n, &len, a->log_kind[k] == MSG_ERROR ? "error: " : "       ", a->log[k], width - 2);
	}
	char title[80];
	snprintf(title, sizeof title, "messages, oldest first (%d)", a->log_n);
	tui_app_show_text(a, title, buf);
	a->text_top = 1 << 20; /* the newest at the bottom of the screen */
	free(buf);
}

void tui_message_full(tui_app *a, int width)
{
	if (!a->log_n) {
		tui_app_msg(a, MSG_ERROR, "no message yet");
		return;
	}
	int k = (a->log_head + TUI_LOG - 1) % TUI_LOG;
	char buf[TUI_MSG_LEN * 2 + 64];
	size_t len = 0;
	buf[0] = 0;
	wrap_append(buf, sizeof buf, &len, a->log_kind[k] == MSG_ERROR ? "error: " : "", a->log[k], width - 2);
	tui_app_show_text(a, "the last message (:messages lists them all)", buf);
}
