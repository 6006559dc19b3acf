/* tui.c - the explorer's entry: options, refusing terminals it cannot drive, the main
 * loop (one key, one frame, timed), and the terminal restored on every way out. */
#include "tui/tui.h"
#include "cli/cli.h"
#include "tui/actions.h"
#include "tui/input.h"
#include "tui/job.h"
#include "tui/prefs.h"
#include "tui/safety.h"
#include "tui/tasks.h"
#include "tui/term.h"

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int no_color, ascii;
	const char *theme;
} tui_opts;

/* Take the explorer's own options out of argv; the rest is for cli_parse. */
static int split_options(int argc, char **argv, tui_opts *t, char **rest, int *nrest)
{
	memset(t, 0, sizeof *t);
	*nrest = 0;
	rest[(*nrest)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour")) {
			t->no_color = 1;
		} else if (!strcmp(a, "--ascii")) {
			t->ascii = 1;
		} else if (!strcmp(a, "--theme") || !strncmp(a, "--theme=", 8)) {
			if (a[7] == '=') {
				t->theme = a + 8;
			} else if (i + 1 < argc) {
				t->theme = argv[++i];
			} else {
				fprintf(stderr, "strata: --theme needs a name (see `strata presets`)\n");
				return 2;
			}
		} else {
			rest[(*nrest)++] = argv[i];
		}
	}
	rest[*nrest] = NULL;
	const char *nc = getenv("NO_COLOR");
	if (nc && nc[0]) /* no-color.org: any non-empty value */
		t->no_color = 1;
	return 0;
}

/* The theme to start with: the one asked for, else dark, else the built-in one. 0 when
 * the one asked for is used. */
static int first_theme(tui_app *a, const char *want)
{
	tui_themes_scan(a);
	int ok = -1;
	if (want)
		ok = tui_theme_use(a, want);
	if (ok && tui_theme_use(a, "dark"))
		tui_theme_use(a, "builtin");
	if (!want || !ok)
		a->msg_kind = MSG_NONE; /* no "theme dark" message at start */
	return ok;
}

/* A theme that does not exist is an error before anything else, with the words of
 * `:theme NAME`. 0, or -1 (message printed). */
static int check_theme(const char *name, const paths_t *paths)
{
	tui_app *a = calloc(1, sizeof *a);
	if (!a)
		return -1;
	a->paths = paths;
	tui_themes_scan(a);
	int rc = tui_theme_use(a, name);
	if (rc)
		fprintf(stderr, "strata: %s\n", cli_safe(a->msg));
	free(a);
	return rc;
}

static int loop(tui_app *a)
{
	tui_render(a);
	double drawn = 0; /* when the progress line was last drawn */
	while (!a->quit && !tui_signal_pending()) {
		/* poll the signal flag even when no key comes; while a job runs, every 10 ms, so
		 * its result shows within 10 ms of the end (and a cancelled job that does not stop
		 * is let go of on time), redrawing its progress line 10 times a second */
		int busy = tui_task_busy(a);
		wtimeout(stdscr, busy ? 10 : 250);
		int ch = wgetch(stdscr);
		if (ch == ERR) {
			if (busy && (tui_task_poll(a) || tui_now_us() - drawn > 1e5)) {
				tui_render(a);
				drawn = tui_now_us();
			}
			continue;
		}
		double t0 = tui_now_us();
		tui_handle_key(a, ch);
		if (a->quit)
			break;
		tui_task_poll(a);
		tui_render(a);
		tui_frames_add(&a->frames, tui_now_us() - t0);
	}
	/* quit or a signal while a worker runs: cancel it and wait TUI_JOB_STOP_MS at most; one
	 * that does not stop is abandoned (it owns its copies) and dies with the process */
	tui_task_stop(a);
	return tui_signal_pending();
}

int tui_run(int argc, char **argv, const paths_t *paths)
{
	tui_opts t;
	char *rest[300];
	int nrest;
	if (argc > 290) {
		fprintf(stderr, "strata: too many arguments\n");
		return 2;
	}
	if (split_options(argc, argv, &t, rest, &nrest))
		return 2;
	cli_opts o;
	int rc = cli_parse(&o, nrest, rest, 1, "explorer");
	if (rc)
		return rc == 3 ? 0 : 2;
	if (o.json || o.csv || o.top || o.nfiles) {
		fprintf(stderr, "strata: --json, --csv, --top and extra files belong to a command (strata eval ...)\n");
		return 2;
	}
	if (t.theme && check_theme(t.theme, paths))
		return 2;
	const char *refusal = tui_term_refusal();
	if (refusal) {
		fprintf(stderr, "strata: cannot open the explorer: %s.\n"
				"  For batch output use `strata eval [PLAN.yaml] [options]` (add --json or --csv).\n", refusal);
		return 2;
	}
	plan_t *plan = malloc(sizeof *plan);
	if (!plan) {
		fprintf(stderr, "strata: out of memory\n");
		return 2;
	}
	rc = cli_load(&o, paths, plan);
	if (rc == 2) {
		free(plan);
		return 2;
	}
	char why[256] = "", start[640] = "";
	int start_bad = 0;
	if (rc == 1)
		strat_resolve(&plan->strategy, plan->devices, why, sizeof why);
	else if (cli_job_first(&o)) /* job first (cli/start.c): open on the search's best plan */
		start_bad = cli_start_search(plan, start, sizeof start);
	/* the user's locale for UTF-8 output, but C numbers: plan files must read back */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	tui_app a;
	if (tui_app_init(&a, plan, paths)) {
		free(plan);
		fprintf(stderr, "strata: out of memory\n");
		return 2;
	}
	free(plan);
	tui_signals_install();
	tui_term term;
	char err[256];
	if (tui_term_open(&term, stdout, stdin, NULL, !t.no_color, err, sizeof err)) {
		tui_app_free(&a);
		fprintf(stderr, "strata: cannot open the explorer: %s.\n"
				"  For batch output use `strata eval [PLAN.yaml] [options]`.\n", err);
		return 2;
	}
	a.term = &term;
	a.colors = term.colors;
	a.utf8 = !t.ascii && !strcmp(nl_langinfo(CODESET), "UTF-8");
	a.g = tui_glyphs_get(a.utf8);
	a.job_delay_ms = tui_job_delay_parse(getenv(TUI_JOB_DELAY_ENV));
	/* remembered preferences: the theme unless --theme names one, the timeline's zoom */
	tui_prefs prefs;
	char warn[600];
	int prc = tui_prefs_load(&prefs, warn, sizeof warn);
	const char *want = t.theme ? t.theme : prefs.theme[0] ? prefs.theme : NULL;
	if (first_theme(&a, want) && want && !t.theme) /* a remembered theme that is gone */
		snprintf(warn, sizeof warn, "config: no theme '%s' any more; using %s", prefs.theme, a.theme.name);
	else if (!prc)
		warn[0] = 0;
	a.zoom = prefs.zoom;
	a.remember = 1;
	if (warn[0])
		tui_app_msg(&a, MSG_ERROR, "%s", warn);
	if (why[0])
		tui_app_msg(&a, MSG_ERROR, "invalid strategy: %s", why);
	else if (start[0] && start_bad)
		tui_app_msg(&a, MSG_ERROR, "%s", start);
	else if (start[0])
		tui_app_msg(&a, MSG_INFO, "%s; press s for the list", start);
	tui_recover_offer(&a);
	int sig = loop(&a);
	tui_term_close(&term);
	char rpath[1200] = "", rerr[1024] = "";
	/* Ctrl-C, SIGHUP (the SSH session dropped) or SIGTERM with unsaved changes: keep them
	 * beside the plan, offered on the next start (no curses left: the loop has ended) */
	int kept = sig && a.dirty ? tui_recover_write(&a, rpath, sizeof rpath, rerr, sizeof rerr) : 1;
	tui_app_free(&a);
	if (sig) {
		fprintf(stderr, "strata: stopped by signal %d; terminal restored\n", sig);
		if (!kept)
			fprintf(stderr, "strata: unsaved changes kept in %s (the next `strata` on the plan offers them)\n",
					cli_safe(rpath));
		else if (rerr[0])
			fprintf(stderr, "strata: unsaved changes lost: %s\n", cli_safe(rerr));
		return 128 + sig;
	}
	return 0;
}
