/* term.h - the terminal: the checks before taking it over, curses set-up and the
 * guaranteed restore, signal flags, and colours for a theme. */
#ifndef STRATA_TUI_TERM_H
#define STRATA_TUI_TERM_H

#include "tui/theme.h"

#include <curses.h>
#include <stddef.h>
#include <stdio.h>

typedef struct tui_term_s {
	SCREEN *scr;
	FILE *out;           /* where curses writes (for sequences curses does not know: OSC 52) */
	int colors;          /* 0 (monochrome), 8, 16 or 256 */
	int default_colors;  /* the terminal's own colours can be used (-1) */
} tui_term;

/* Why the explorer cannot run on this terminal (no tty, TERM unset or dumb), or NULL. */
const char *tui_term_refusal(void);
/* Catch SIGTERM, SIGHUP and SIGINT in a flag (a second one restores and exits at once), and
 * SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL to restore the terminal before dying of them, on
 * an alternate stack; before curses, which then leaves them to us. */
void tui_signals_install(void);
/* The signal that asked us to stop, or 0. */
int tui_signal_pending(void);
/* Take over the terminal: curses on out/in with terminal type `type` (NULL: $TERM), keypad,
 * no echo, short Esc delay, colours unless want_color is 0; the tty modes from before and
 * the restore sequences are kept for the fatal-signal handler. 0, or -1 with a reason. */
int tui_term_open(tui_term *t, FILE *out, FILE *in, const char *type, int want_color, char *err, size_t errlen);
/* Give the terminal back as it was; safe to call twice. */
void tui_term_close(tui_term *t);
/* Curses attributes for every role of a theme on this terminal. */
void tui_term_apply_theme(const tui_term *t, const tui_theme *theme, attr_t out[ROLE_COUNT]);

#endif
