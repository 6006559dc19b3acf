/* tui.h - the explorer, strata's interactive face (DESIGN.md section 8): every key
 * re-plans and redraws at once. */
#ifndef STRATA_TUI_TUI_H
#define STRATA_TUI_TUI_H

#include "io/paths.h"

#include <stddef.h>

/* `strata [PLAN.yaml] [options]`: run the explorer; returns the exit status (0, 2 when it
 * cannot start, 128 + signal when a signal stopped it). */
int tui_run(int argc, char **argv, const paths_t *paths);

enum { TUI_REPLAY_ASCII = 1 };

/* Headless replay for `make bench` and the tests: the plan (NULL: the default plan) on a
 * virtual rows x cols xterm-256color terminal writing to /dev/null, each key through the
 * same handler and renderer as a session; us[i] gets key i's key-to-screen time (us may be
 * NULL), screen (if not NULL) the final screen as text, one line per row. Stops early at a
 * quit. Returns the keys handled, or -1 with err. */
int tui_replay(const paths_t *paths, const char *plan_text, const int *keys, int nkeys, int rows, int cols,
		int flags, double *us, char *screen, size_t screenlen, char *err, size_t errlen);

#endif
