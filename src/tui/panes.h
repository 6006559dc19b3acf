/* panes.h - drawing each pane of the explorer from the app state. Panes only render: the
 * numbers come from eval_result, the timeline from the simulation in core/timeline. */
#ifndef STRATA_TUI_PANES_H
#define STRATA_TUI_PANES_H

#include "tui/app.h"
#include "tui/layout.h"

/* Job header: model, cluster, devices, parameters, plan file. */
void tui_pane_header(tui_app *a, tui_rect r);
/* Strategy knobs with selection, pins and changed/invalid marks. */
void tui_pane_knobs(tui_app *a, tui_rect r);
/* Memory per stage: stacked bars by component against the budget. */
void tui_pane_memory(tui_app *a, tui_rect r);
/* Rows the time breakdown wants (title + one per non-zero part). */
int tui_time_rows(const tui_app *a);
/* Step-time breakdown with MFU, HFU and tokens/s. */
void tui_pane_time(tui_app *a, tui_rect r);
/* Pipeline timeline: F/B/W blocks per stage over time. */
void tui_pane_timeline(tui_app *a, tui_rect r);
/* Why is it slow: the losses and their measured fixes, the groups' placement. */
void tui_pane_why(tui_app *a, tui_rect r);
/* `W`: the same in the text view (any terminal size). */
void tui_why_show(tui_app *a);
/* `S`: open the sweep view on the current plan; its keys; the view (overlay_sweep.c). */
void tui_sweep_open(tui_app *a);
void tui_sweep_key(tui_app *a, int key);
void tui_overlay_sweep(tui_app *a, int rows, int cols);
/* Message line, or the prompt while one is open. */
void tui_pane_message(tui_app *a, tui_rect r);
/* Debug line: frame timer and terminal facts. */
void tui_pane_debug(tui_app *a, tui_rect r);
/* Screen shown below the minimum size. */
void tui_pane_too_small(tui_app *a, int rows, int cols);
/* Help overlay generated from the key table. */
void tui_overlay_help(tui_app *a, int rows, int cols);
/* Model/cluster/recipe picker overlay. */
void tui_overlay_pick(tui_app *a, int rows, int cols);
/* The last recipe's output and error (MODE_TEXT). */
void tui_overlay_text(tui_app *a, int rows, int cols);
/* The search's candidates table (MODE_CANDS). */
void tui_overlay_cands(tui_app *a, int rows, int cols);
/* Rows of the search table's list on a screen of `rows` (what the page keys move by). */
int tui_cands_list_rows(int rows);

#endif
