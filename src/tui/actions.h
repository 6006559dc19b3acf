/* actions.h - what keys and commands do to the plan. Each change goes through
 * tui_app_commit (undoable, re-evaluated at once); refusals go to the message line. */
#ifndef STRATA_TUI_ACTIONS_H
#define STRATA_TUI_ACTIONS_H

#include "tui/app.h"

/* Step the selected knob to its next valid value (dir +1 or -1). */
void tui_step(tui_app *a, int dir);
/* Pin the selected knob at its value, or unpin it. */
void tui_pin(tui_app *a);
/* Apply "key=value ..." assignments (knobs, other strategy keys, devices, model, cluster)
 * as one undoable change. 0, or -1 with the reason on the message line. */
int tui_set(tui_app *a, const char *assignments);
/* Save the plan to path (NULL: where it was loaded from or last saved); another existing
 * file is overwritten only after a y/n question, unless force. */
void tui_save(tui_app *a, const char *path, int force);
/* Load a plan file in place of the current one, with a history of its own; refused while
 * there are unsaved changes unless force (:e!). */
void tui_open(tui_app *a, const char *path, int force);
/* A newly allocated plan loaded from path, or NULL after saying why on the message line,
 * the reason after `what` ("" or e.g. "not recovered: "). */
plan_t *tui_load_plan(tui_app *a, const char *path, const char *what);
/* Open the preset picker: kind 0 models, 1 clusters. */
void tui_pick_open(tui_app *a, int kind);
/* Show only the picker's entries that contain its filter text (name or summary). */
void tui_pick_filter(tui_app *a);
/* Use the picker's selection. */
void tui_pick_apply(tui_app *a);
/* Find the themes on the search path (themes/NAME.yaml). */
void tui_themes_scan(tui_app *a);
/* Switch to a theme by name; 0, or -1 with the reason on the message line. */
int tui_theme_use(tui_app *a, const char *name);
/* Switch to the next theme. */
void tui_theme_next(tui_app *a);
/* Quit; with unsaved changes only on the second request unless forced. */
void tui_request_quit(tui_app *a, int force);
/* Open the prompt of a kind with a label and initial text. */
void tui_prompt_open(tui_app *a, tui_prompt_kind kind, const char *label, const char *init);
/* Knobs whose shown value differs between two jobs (bit k for knob k). */
unsigned tui_knobs_changed(const tui_app *a, const knob_job *from, const knob_job *to);
/* Commit p (undoable) and say on the message line what moved: "prefix: tp 8 -> 2, ...",
 * or why the new strategy is invalid. */
void tui_commit_described(tui_app *a, const plan_t *p, const char *prefix);
/* Drop an explicit stage split (and recompute ranges) that no longer matches the plan's
 * pp, vpp or layer count; returns 1 when something was dropped. */
int tui_fix_split(plan_t *p);
/* Keep the current plan in slot 0 (A) or 1 (B) (slots.c). */
void tui_slot_keep(tui_app *a, int slot);
/* Show the current plan against the kept ones, side by side, component by component. */
void tui_slot_compare(tui_app *a);
#define TUI_NCOMMANDS 28
/* The ":" commands' names (for suggestions and completion). */
extern const char *const tui_command_names[TUI_NCOMMANDS];
/* Run a ":" command line. */
void tui_command(tui_app *a, const char *line);

#endif
