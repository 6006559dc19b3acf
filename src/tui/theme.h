/* theme.h - colour themes: semantic roles (what a thing is: a knob, a memory component, a
 * forward block) mapped to colours and attributes, read from themes/NAME.yaml. Pure data
 * and parsing, no curses: colour.c puts a theme on the terminal. */
#ifndef STRATA_TUI_THEME_H
#define STRATA_TUI_THEME_H

#include <stddef.h>

/* X(enum, yaml name): every role the panes draw with. */
#define TUI_ROLES(X) \
	X(ROLE_NORMAL, "normal") X(ROLE_HEADER, "header") X(ROLE_TITLE, "title") \
	X(ROLE_LABEL, "label") X(ROLE_VALUE, "value") X(ROLE_SELECTED, "selected") \
	X(ROLE_PINNED, "pinned") X(ROLE_CHANGED, "changed") X(ROLE_INVALID, "invalid") \
	X(ROLE_MEM_WEIGHTS, "mem_weights") X(ROLE_MEM_GRADS, "mem_grads") \
	X(ROLE_MEM_OPTIM, "mem_optimizer") X(ROLE_MEM_ACTS, "mem_activations") \
	X(ROLE_MEM_BUFS, "mem_buffers") X(ROLE_BUDGET, "budget") X(ROLE_OVER, "over_budget") \
	X(ROLE_OVER_BAR, "over_budget_bar") \
	X(ROLE_FITS, "fits") X(ROLE_T_COMPUTE, "time_compute") X(ROLE_T_RECOMPUTE, "time_recompute") \
	X(ROLE_T_BUBBLE, "time_bubble") X(ROLE_T_COMM, "time_comm") X(ROLE_T_OPTIM, "time_optimizer") \
	X(ROLE_TL_F, "timeline_forward") X(ROLE_TL_B, "timeline_backward") \
	X(ROLE_TL_W, "timeline_wgrad") X(ROLE_TL_IDLE, "timeline_idle") \
	X(ROLE_MESSAGE, "message") X(ROLE_ERROR, "error") X(ROLE_PROMPT, "prompt") \
	X(ROLE_HELP_KEY, "help_key") X(ROLE_DEBUG, "debug") X(ROLE_BORDER, "border")

#define TUI_ROLE_ENUM(e, name) e,
typedef enum { TUI_ROLES(TUI_ROLE_ENUM) ROLE_COUNT } tui_role;
#undef TUI_ROLE_ENUM

/* Attribute bits of a role (mapped onto curses attributes by colour.c). */
enum { TA_BOLD = 1, TA_DIM = 2, TA_UNDERLINE = 4, TA_REVERSE = 8 };

#define TUI_DEFAULT_COLOR (-1) /* the terminal's own foreground or background */

/* A theme file writes a colour as one value (a basic colour, or a palette colour that
 * smaller terminals replace by the nearest basic one) or as [PALETTE, BASIC], choosing the
 * basic colour itself, since nearest-RGB often turns muted palette colours grey. */
typedef struct {
	short fg, bg;          /* basic colour 0..15 or TUI_DEFAULT_COLOR: 8/16-colour terminals */
	short fg256, bg256;    /* palette colour 0..255 or TUI_DEFAULT_COLOR: 256-colour terminals */
	unsigned attr;         /* TA_* with colour */
	unsigned mono;         /* TA_* without colour (NO_COLOR, monochrome terminals) */
} tui_style;

typedef struct {
	char name[64];
	tui_style role[ROLE_COUNT];
} tui_theme;

/* YAML name of a role. */
const char *tui_role_name(tui_role r);
/* The built-in theme (used when no theme file is found, and under every file's roles). */
void tui_theme_builtin(tui_theme *t);
/* Load a theme file over the built-in one. 0, or -1 with "file:line:col: message". */
int tui_theme_load(tui_theme *t, const char *path, char *err, size_t errlen);
/* Parse a colour: a name (red, bright-blue, default), 0..255, or #rrggbb (nearest of the
 * 256 palette). The value or -2 when it is not a colour. */
int tui_color_parse(const char *s);
/* Nearest of the 16 basic colours to a 256-palette colour (for 16-colour terminals). */
int tui_color_to16(int c);
/* A 16-colour value on an 8-colour terminal: bright colours lose their brightness, which
 * *bold gets (set to 1) when it is a foreground. */
int tui_color_to8(int c, int *bold);

#endif
