/* safety.h - overwrite questions, recovery files and the message log (safety.c). */
#ifndef STRATA_TUI_SAFETY_H
#define STRATA_TUI_SAFETY_H

#include "tui/app.h"

#include <stddef.h>

/* Recovery file of a plan: `.NAME.strata-recover` beside it, or for the default plan
 * (empty path) `.default-plan.strata-recover` in $XDG_STATE_HOME/strata. 0 or -1. */
int tui_recover_path(const char *plan_path, char *out, size_t n);
/* Write the current plan to its recovery file atomically; 0 and path, or -1 with err. */
int tui_recover_write(tui_app *a, char *path, size_t n, char *err, size_t errlen);
/* Remove the plan's recovery file (after a save made it stale). */
void tui_recover_forget(tui_app *a);
/* When the plan has a recovery file, say so on the message line (:recover restores it). */
void tui_recover_offer(tui_app *a);
/* :recover (restore the recovery file as an unsaved change) and :recover delete. */
void tui_recover_command(tui_app *a, const char *arg);
/* Open the y/n question of a kind about path (export: its target and :export!). */
void tui_confirm_ask(tui_app *a, tui_confirm_kind kind, const char *path, int target, int force);
/* The answer to the open question. */
void tui_confirm_key(tui_app *a, int key);
/* 1 when writing path would replace an existing file. */
int tui_confirm_needed(const char *path);
/* :messages: the log, wrapped to width, in the text view. */
void tui_messages_show(tui_app *a, int width);
/* The last message in full, wrapped to width, in the text view. */
void tui_message_full(tui_app *a, int width);

#endif
