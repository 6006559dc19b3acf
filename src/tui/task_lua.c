/* task_lua.c - `L` and `:lua FILE [ARGS...]`: a Lua recipe on the background job (the
 * sandbox's instruction and memory limits stop a runaway script; Esc stops it sooner, or
 * abandons it where the sandbox cannot interrupt it: the task owns all it touches).
 * A model, cluster or plan it returns becomes the current one (undoable); what it printed
 * and its error with the traceback stay for the output overlay (`O`). */
#include "script/script.h"
#include "tui/actions.h"
#include "tui/tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LUA_MAX_ARGS 16
#define LUA_LOG_MAX (64 * 1024) /* what the overlay keeps of a chatty recipe */

typedef struct {
	scr_env env;
	paths_t paths;              /* the worker's own copy: an abandoned one may outlive the app */
	char path[1024];
	char name[128];             /* the file's base name, for messages */
	char argbuf[512];
	char *argv[LUA_MAX_ARGS];
	int argc;
	plan_t current;             /* the plan on screen: strata.current() (a copy the worker owns) */
	scr_outcome out;            /* written by the worker only */
	char *log;                  /* print() output, written by the worker only */
	size_t len, cap;
	int truncated;
} lua_task;

static void lua_print(void *user, const char *text, size_t len)
{
	lua_task *t = user;
	if (t->len + len > LUA_LOG_MAX) {
		t->truncated = 1;
		return;
	}
	if (t->len + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->len + len + 1)
			cap *= 2;
		char *g = realloc(t->log, cap);
		if (!g) {
			t->truncated = 1;
			return;
		}
		t->log = g;
		t->cap = cap;
	}
	memcpy(t->log + t->len, text, len);
	t->len += len;
	t->log[t->len] = 0;
}

static void lua_work(tui_job_run *r, void *arg)
{
	lua_task *t = arg;
	t->env.cancel = tui_job_cancel_flag(r);
	scr_run_file(&t->env, t->path, t->argc, t->argv, &t->out);
}

static void lua_drop(void *data)
{
	lua_task *t = data;
	free(t->log);
	free(t);
}

static void lua_status(const void *data, const tui_job_progress *p, const char *dot, char *out, size_t n)
{
	const lua_task *t = data; /* the name was set before the start */
	snprintf(out, n, "lua %s running %.1f s %s Esc cancels", t->name, p->elapsed_ms / 1e3, dot);
}

/* Keep the output and the error for the overlay: the printed text, then the error. */
static void keep_text(tui_app *a, lua_task *t)
{
	size_t n = t->len + strlen(t->out.err) + 200;
	char *s = malloc(n);
	if (!s)
		return;
	size_t l = (size_t)snprintf(s, n, "%s%s", t->log ? t->log : "", t->truncated ? "[output truncated]\n" : "");
	if (t->out.rc && l < n)
		snprintf(s + l, n - l, "%serror: %s\n", l ? "\n" : "", t->out.err);
	if (!s[0])
		snprintf(s, n, "(the recipe printed nothing)\n");
	free(a->text);
	a->text = s;
	a->shown = s;
	a->text_top = 0;
	snprintf(a->text_title_lua, sizeof a->text_title_lua, "lua %s: %s", t->name,
			t->out.rc ? "error" : t->len ? "output" : "no output");
	snprintf(a->text_title, sizeof a->text_title, "%s", a->text_title_lua);
}

static void lua_finish(tui_app *a, void *data)
{
	lua_task *t = data;
	keep_text(a, t);
	if (t->out.rc) {
		/* the first line is "file:line: message"; the traceback follows in the overlay */
		size_t first = strcspn(t->out.err, "\n");
		tui_app_msg(a, MSG_ERROR, "lua: %.*s%s", (int)first, t->out.err, t->out.err[first] ? " (O: traceback)" : "");
		lua_drop(t);
		return;
	}
	plan_t *p = malloc(sizeof *p);
	if (!p) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		lua_drop(t);
		return;
	}
	*p = *a->plan;
	char what[256];
	switch (t->out.kind) {
	case SCR_PLAN:
		*p = t->out.plan;
		snprintf(what, sizeof what, "lua %s: its plan is now the current one (u undoes)", t->name);
		break;
	case SCR_MODEL:
		p->model = t->out.plan.model;
		snprintf(p->model_ref, sizeof p->model_ref, "(inline)");
		snprintf(what, sizeof what, "lua %s: model %s is now the current one (u undoes)", t->name, p->model.name);
		break;
	case SCR_CLUSTER:
		p->cluster = t->out.plan.cluster;
		snprintf(p->cluster_ref, sizeof p->cluster_ref, "(inline)");
		snprintf(what, sizeof what, "lua %s: cluster %s is now the current one (u undoes)", t->name, p->cluster.name);
		break;
	default:
		tui_app_msg(a, MSG_INFO, "lua %s ran; it returned no model or plan (O shows its output)", t->name);
		free(p);
		lua_drop(t);
		return;
	}
	if (tui_fix_split(p))
		snprintf(what + strlen(what), sizeof what - strlen(what), " (ILP stage split dropped)");
	tui_commit_described(a, p, what);
	free(p);
	lua_drop(t);
}

static const tui_task_ops lua_ops = {"Lua recipe", lua_work, lua_finish, lua_drop, lua_status};

/* FILE as given when it exists (or names a directory), else lua/FILE or lua/FILE.lua on
 * the data path; when none exists, FILE, so the error names what the user typed. */
static void find_recipe(const tui_app *a, const char *file, char *out, size_t n)
{
	if (!access(file, R_OK) || strchr(file, '/')) {
		snprintf(out, n, "%s", file);
		return;
	}
	char sub[300];
	size_t l = strlen(file);
	snprintf(sub, sizeof sub, "lua/%.200s%s", file, l > 4 && !strcmp(file + l - 4, ".lua") ? "" : ".lua");
	if (paths_find(a->paths, sub, out, n))
		snprintf(out, n, "%s", file);
}

void tui_lua_start(tui_app *a, const char *cmdline)
{
	lua_task *t = calloc(1, sizeof *t);
	if (!t) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	snprintf(t->argbuf, sizeof t->argbuf, "%s", cmdline);
	char *save = NULL, *file = strtok_r(t->argbuf, " \t", &save);
	if (!file) {
		tui_app_msg(a, MSG_ERROR, ":lua needs a recipe file (e.g. :lua lua/vlm.lua)");
		free(t);
		return;
	}
	for (char *w; (w = strtok_r(NULL, " \t", &save)) && t->argc < LUA_MAX_ARGS;)
		t->argv[t->argc++] = w;
	find_recipe(a, file, t->path, sizeof t->path);
	const char *base = strrchr(t->path, '/');
	snprintf(t->name, sizeof t->name, "%.100s", base ? base + 1 : t->path);
	t->paths = *a->paths;
	t->env.paths = &t->paths;
	t->current = *a->plan;
	t->env.current = &t->current;
	t->env.print_fn = lua_print;
	t->env.user = t;
	tui_task_start(a, &lua_ops, t);
}
