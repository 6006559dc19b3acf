/* complete.h - the prompt's ":" history and Tab completion (complete.c). */
#ifndef STRATA_TUI_COMPLETE_H
#define STRATA_TUI_COMPLETE_H

#include "tui/app.h"

/* Remember a ":" line (a repeat of the last one is kept once). */
void tui_hist_add(tui_app *a, const char *line);
/* Up (dir < 0: older) or Down (newer; past the newest, the line being typed) in the history. */
void tui_hist_step(tui_app *a, int dir);
/* Tab: complete the prompt's last word (commands, keys, names, files); again: the next match. */
void tui_complete(tui_app *a);

#endif
