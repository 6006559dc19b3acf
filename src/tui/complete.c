/* complete.c - the prompt's comforts: the ":" history (Up and Down, as in vim and a
 * shell) and Tab completion of the word before the cursor: command names, plan and pin
 * keys, theme, model and cluster names, export targets and file paths. Tab again steps
 * through the other matches. */
#include "tui/complete.h"
#include "core/knob.h"
#include "io/plan.h"
#include "solve/pins.h"
#include "tui/actions.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tui_hist_add(tui_app *a, const char *line)
{
	if (!line[0])
		return;
	int last = (a->hist_head + TUI_HIST - 1) % TUI_HIST;
	if (a->hist_n && !strcmp(a->hist[last], line))
		return; /* a repeated line is kept once */
	snprintf(a->hist[a->hist_head], sizeof a->hist[0], "%s", line);
	a->hist_head = (a->hist_head + 1) % TUI_HIST;
	if (a->hist_n < TUI_HIST)
		a->hist_n++;
}

void tui_hist_step(tui_app *a, int dir)
{
	tui_prompt *p = &a->prompt;
	int pos = a->hist_pos + (dir < 0 ? 1 : -1); /* entries back from the newest; 0 is the draft */
	if (pos < 0 || pos > a->hist_n)
		return;
	if (a->hist_pos == 0)
		snprintf(a->hist_draft, sizeof a->hist_draft, "%s", p->buf);
	a->hist_pos = pos;
	const char *s = pos ? a->hist[(a->hist_head + TUI_HIST - pos) % TUI_HIST] : a->hist_draft;
	snprintf(p->buf, sizeof p->buf, "%s", s);
	p->len = (int)strlen(p->buf);
}

typedef struct {
	const char *prefix;
	size_t plen;
	int n;
	char (*match)[256];
} matches;

#define MAX_MATCH 256

static void add(matches *m, const char *word, const char *suffix)
{
	if (m->n >= MAX_MATCH || strncmp(word, m->prefix, m->plen))
		return;
	char w[256];
	snprintf(w, sizeof w, "%s%s", word, suffix);
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->match[i], w))
			return;
	snprintf(m->match[m->n++], sizeof m->match[0], "%s", w);
}

static void add_preset(const char *name, const char *path, void *arg)
{
	(void)path;
	add(arg, name, "");
}

/* File names that start with the prefix: its directory read, directories get '/'. */
static void add_files(matches *m)
{
	char dir[256];
	const char *slash = strrchr(m->prefix, '/');
	const char *base = slash ? slash + 1 : m->prefix;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - m->prefix + 1) : 0, m->prefix);
	DIR *d = opendir(dir[0] ? dir : ".");
	if (!d)
		return;
	struct dirent *e;
	size_t bl = strlen(base);
	while ((e = readdir(d)) && m->n < MAX_MATCH) {
		if (strncmp(e->d_name, base, bl) || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_name[0] == '.' && base[0] != '.')
			continue; /* hidden files (recovery files among them) only when asked for */
		char full[600];
		struct stat st;
		snprintf(full, sizeof full, "%s%s", dir, e->d_name);
		int isdir = !stat(full, &st) && S_ISDIR(st.st_mode);
		add(m, full, isdir ? "/" : "");
	}
	closedir(d);
}

static int is_one_of(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return 1;
	return 0;
}

/* Candidates for the word at the end of the prompt (word index wi, the command cmd). */
static void candidates(tui_app *a, matches *m, const char *cmd, int wi)
{
	static const char *const file_cmds[] = {"e", "e!", "edit", "edit!", "o", "o!", "open", "open!", "w", "w!",
		"write", "write!", "wq", "x", "lua", NULL};
	static const char *const key_cmds[] = {"set", "s", NULL};
	if (a->prompt.kind != PROMPT_COMMAND) {
		add_files(m);
		return;
	}
	size_t nk;
	const char *const *keys = plan_set_keys(&nk);
	if (wi == 0) {
		for (int i = 0; i < TUI_NCOMMANDS; i++)
			add(m, tui_command_names[i], "");
		if (!strchr(m->prefix, '='))
			for (size_t i = 0; i < nk; i++)
				add(m, keys[i], "="); /* ":tp=8" is :set */
	} else if (is_one_of(cmd, file_cmds) || (!strncmp(cmd, "export", 6) && wi >= 2)) {
		add_files(m);
	} else if (is_one_of(cmd, key_cmds)) {
		for (size_t i = 0; i < nk; i++)
			add(m, keys[i], "=");
		add(m, "model", "=");
		add(m, "cluster", "=");
	} else if (!strcmp(cmd, "pin") || !strcmp(cmd, "unpin")) {
		const char *names[64];
		size_t n = pin_names(names, 64);
		for (size_t i = 0; i < n; i++)
			add(m, names[i], cmd[0] == 'p' ? "=" : "");
	} else if (!strcmp(cmd, "theme")) {
		for (int i = 0; i < a->ntheme; i++)
			add(m, a->theme_name[i], "");
		add(m, "builtin", "");
	} else if (!strcmp(cmd, "model") || !strcmp(cmd, "cluster")) {
		paths_each(a->paths, cmd[0] == 'm' ? "presets/models" : "presets/clusters", add_preset, m);
	} else if (!strncmp(cmd, "export", 6)) {
		add(m, "megatron", "");
		add(m, "deepspeed", "");
		add(m, "torchtitan", "");
	}
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(x, y);
}

/* Replace the last word of the prompt (from byte `at`) with w. */
static void put_word(tui_prompt *p, size_t at, const char *w)
{
	snprintf(p->buf + at, sizeof p->buf - at, "%s", w);
	p->len = (int)strlen(p->buf);
}

void tui_complete(tui_app *a)
{
	tui_prompt *p = &a->prompt;
	if (!a->comp_active) {
		/* first Tab: remember the typed text, the matches are made from it */
		snprintf(a->comp_base, sizeof a->comp_base, "%s", p->buf);
		a->comp_i = -1;
	}
	char line[256];
	snprintf(line, sizeof line, "%s", a->comp_base);
	/* the word being completed starts after the last blank (a whole prompt that is not a
	 * ":" line is one file name) */
	size_t at = 0;
	if (p->kind == PROMPT_COMMAND)
		for (size_t i = 0; line[i]; i++)
			if (line[i] == ' ')
				at = i + 1;
	int wi = 0;
	char cmd[64] = "";
	for (size_t i = 0; i < at; i++)
		if (line[i] == ' ' && (i + 1 == at || line[i + 1] != ' '))
			wi++;
	sscanf(line, "%63s", cmd);
	matches m = {line + at, strlen(line + at), 0, malloc(MAX_MATCH * sizeof *m.match)};
	if (!m.match)
		return;
	candidates(a, &m, cmd, wi);
	qsort(m.match, (size_t)m.n, sizeof m.match[0], cmp_str);
	if (m.n == 0) {
		tui_app_msg(a, MSG_ERROR, "no completion for '%s'", line + at);
	} else if (m.n == 1) {
		put_word(p, at, m.match[0]);
		a->comp_active = 0;
	} else if (!a->comp_active) {
		/* the longest common prefix first; Tab again goes through the matches */
		size_t l = strlen(m.match[0]);
		for (int i = 1; i < m.n; i++) {
			size_t k = 0;
			while (k < l && m.match[i][k] == m.match[0][k])
				k++;
			l = k;
		}
		char lcp[256];
		snprintf(lcp, sizeof lcp, "%.*s", (int)l, m.match[0]);
		put_word(p, at, lcp);
		a->comp_active = 1;
	} else {
		a->comp_i = (a->comp_i + 1) % m.n;
		put_word(p, at, m.match[a->comp_i]);
	}
	free(m.match);
}
