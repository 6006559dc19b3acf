/* app.h - the explorer's state, shared by the TUI's files. One tui_app lives for one
 * session (or one headless replay); nothing here is global. */
#ifndef STRATA_TUI_APP_H
#define STRATA_TUI_APP_H

#include "core/evaluate.h"
#include "core/knob.h"
#include "core/timeline.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/advice.h"
#include "solve/sweep.h"
#include "tui/draw.h"
#include "tui/frames.h"
#include "tui/theme.h"

#include <curses.h>

#define TUI_UNDO 100         /* undo depth */
#define TUI_MAX_THEMES 32
#define TUI_MAX_PICK 256     /* presets listed by the model/cluster picker */
#define TUI_LOG 200          /* messages kept for :messages */
#define TUI_MSG_LEN 320
#define TUI_HIST 50          /* ":" lines remembered */

/* REVIEW: an ILP plan on trial in the panes (keep or discard); CANDS: the search's
 * candidates table; TEXT: the last recipe's output and error. */
typedef enum { MODE_NORMAL, MODE_PROMPT, MODE_HELP, MODE_PICK, MODE_REVIEW, MODE_CANDS, MODE_TEXT, MODE_SWEEP, MODE_PREVIEW } tui_mode;
/* TARGET: one key chooses the export target; EXPORT: the export's file name. */
typedef enum {
	PROMPT_COMMAND, PROMPT_VALUE, PROMPT_OPEN, PROMPT_SAVE, PROMPT_TARGET, PROMPT_EXPORT, PROMPT_CONFIRM
} tui_prompt_kind;
/* What a y at PROMPT_CONFIRM does. */
typedef enum { CONFIRM_SAVE, CONFIRM_EXPORT } tui_confirm_kind;

typedef struct {
	tui_confirm_kind kind;
	char path[1200];         /* the file to overwrite */
	int target, force;       /* CONFIRM_EXPORT: export target and :export! */
} tui_confirm;
typedef enum { MSG_NONE, MSG_INFO, MSG_ERROR } tui_msg_kind;

/* The sweep view (MODE_SWEEP, overlay_sweep.c): a knob, a metric, the evaluated points. */
typedef struct tui_sweep {
	sweep_knob knob;
	sweep_metric metric;
	sweep_spec spec;
	sweep_point pt[SWEEP_MAX];
	int sel;                 /* the selected point */
} tui_sweep;

typedef struct {
	tui_prompt_kind kind;
	char label[1200];        /* ":", "tp = " or a y/n question */
	char buf[256];
	int len;
} tui_prompt;

typedef struct {
	int kind;                /* 0 models, 1 clusters, 2 Lua recipes */
	int nall;                /* entries found */
	int n, sel, top;         /* entries shown (matching the filter), selection, scroll */
	int idx[TUI_MAX_PICK];   /* the shown entries' indices */
	char filter[64];         /* typed text: entries whose name or summary contain it */
	int typing;              /* a filter is being typed: j, k, g, G, q are letters */
	char name[TUI_MAX_PICK][64];
	char info[TUI_MAX_PICK][200];
} tui_picker;

struct tui_job;
struct tui_task_ops;
struct tui_review;
struct tui_cands;

typedef struct tui_app {
	const paths_t *paths;
	plan_t *plan;                 /* what the knobs show (may be invalid) */
	eval_result *res;             /* the last valid evaluation: what the panes show */
	eval_result *scratch;         /* where a new evaluation lands before it is accepted */
	int have_res;                 /* res holds a valid evaluation */
	int cur_valid;                /* plan evaluates (else cur_why says why) */
	char cur_why[256];
	char delta[128];              /* what the last change did to step, MFU and peak (the
	                               * message line shows it after the message); "" when none */
	int res_sched, res_vpp;       /* schedule and vpp of the shown result */
	int res_split;                /* the shown result has an explicit (ILP) stage split */
	plan_t *undo;                 /* ring of TUI_UNDO plans, of this file only */
	int undo_n, undo_head;
	plan_t *redo;                 /* stack of undone plans (Ctrl-R); a new change empties it */
	int redo_n;
	plan_t *saved;                /* the plan as opened or last saved: [+] is the difference */
	tl_result *tl;                /* timeline simulation of res */
	int tl_stale, tl_ok, tl_mb, tl_width, tl_zoomed;
	char tl_why[160];
	int sel;                      /* selected knob */
	unsigned changed;             /* knobs changed by the last key (highlighted) */
	int dirty;                    /* the plan differs from *saved (tui_app_update_dirty) */
	char save_path[1024];         /* where `w` writes (the plan's file once it has one) */
	int quit, quit_armed;
	tui_msg_kind msg_kind;
	char msg[TUI_MSG_LEN];
	char (*log)[TUI_MSG_LEN];     /* ring of the last TUI_LOG messages (:messages) */
	unsigned char *log_kind;
	int log_n, log_head;
	tui_confirm confirm;          /* PROMPT_CONFIRM: what y does */
	char hist[TUI_HIST][256];     /* ring of ":" lines (Up, Down) */
	int hist_n, hist_head, hist_pos;
	char hist_draft[256];         /* the line being typed when Up was first pressed */
	int comp_active, comp_i;      /* Tab pressed last: stepping through matches of comp_base */
	char comp_base[256];
	char export_ok[1024];         /* an export file the user agreed to overwrite */
	tui_mode mode;
	tui_prompt prompt;
	tui_picker *pick;
	int help_top;
	int zoom;                     /* timeline: whole step instead of the first micro-batches */
	int debug;                    /* debug line on */
	int remember;                 /* write preference changes to the config file (prefs.h) */
	/* terminal */
	const struct tui_term_s *term; /* for theme colours; NULL before the screen opens */
	int colors;                   /* 0 monochrome, else 8, 16 or 256 */
	int utf8;
	const tui_glyphs *g;
	attr_t attr[ROLE_COUNT];
	tui_theme theme;
	int ntheme, theme_idx;
	char theme_name[TUI_MAX_THEMES][64];
	char theme_path[TUI_MAX_THEMES][1100];
	tui_frames frames;
	double eval_us;               /* time of the last evaluation */
	/* background work (tasks.c): at most one job at a time */
	struct tui_job *job;
	const struct tui_task_ops *task; /* what the job runs; NULL when idle */
	void *task_data;              /* the job's private inputs and result */
	double task_cancel_us;        /* when Esc cancelled the running job (tui_now_us), or 0 */
	int job_delay_ms;             /* test hook, from TUI_JOB_DELAY_ENV */
	struct tui_review *review;    /* MODE_REVIEW: the ILP plan on trial */
	struct tui_cands *cands;      /* the last search's candidates */
	char *text;                   /* output and error of the last recipe */
	char *shown;                  /* what MODE_TEXT shows: text, or view_text */
	char *view_text;              /* a message log or a long message (MODE_TEXT) */
	char text_title[160];
	char text_title_lua[160];     /* the title of the recipe's output */
	int text_top;
	int export_target;            /* chosen at the PROMPT_TARGET step */
	adv_list *why;                /* "why is it slow" of the current plan (pane_why.c) */
	int why_stale;                /* the evaluation changed since why was computed */
	tui_sweep *sweep;             /* the sweep view's state (S) */
	plan_t *slot[2];              /* the plans kept in A and B (slots.c); NULL when empty */
} tui_app;

/* Allocate the app's buffers around a loaded plan (copied). 0 or -1 (out of memory). */
int tui_app_init(tui_app *a, const plan_t *plan, const paths_t *paths);
/* Release what tui_app_init allocated. */
void tui_app_free(tui_app *a);
/* Evaluate the current plan; keep the result when valid, else remember why. */
void tui_app_eval(tui_app *a);
/* Replace the plan by p (undoable), re-evaluate, mark unsaved. */
void tui_app_commit(tui_app *a, const plan_t *p);
/* Step back to the plan before the last change; 0, or -1 when there is none. */
int tui_app_undo(tui_app *a);
/* Step forward again to the plan the last undo left; 0, or -1 when there is none. */
int tui_app_redo(tui_app *a);
/* A new file's plan: forget the undo and redo history, take p as the saved state. */
void tui_app_reset(tui_app *a, const plan_t *p);
/* The current plan was saved: it becomes the saved state ([+] goes). */
void tui_app_mark_saved(tui_app *a);
/* Recompute a->dirty: does the plan differ from the saved one (as plan files)? */
void tui_app_update_dirty(tui_app *a);
/* Show text (owned by the caller, copied) in the scrolling text view under a title. */
void tui_app_show_text(tui_app *a, const char *title, const char *text);
/* Set the message line (kind MSG_INFO or MSG_ERROR). */
void tui_app_msg(tui_app *a, tui_msg_kind kind, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* Knob state of the current plan. */
knob_job tui_app_job(const tui_app *a);
/* Knobs fixed by the plan's pins. */
unsigned tui_app_pinned(const tui_app *a);

#endif
