/* term.c - terminal set-up and restore, signals, theme colours.
 *
 * Restore on every path: the signal handlers only set a flag (no curses call is safe in a
 * handler); the main loop polls it at least every 250 ms, leaves, and the one exit path
 * calls tui_term_close(). Handlers are installed before newterm(), so curses sees them
 * and does not install its own exit-on-signal ones. */
#include "tui/term.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

/* The one piece of global mutable state: written by the signal handler, read by the loop. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void tui_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns so the loop sees the flag */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

int tui_signal_pending(void)
{
	return stop_signal;
}

const char *tui_term_refusal(void)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return "standard input and output are not a terminal";
	const char *term = getenv("TERM");
	if (!term || !term[0])
		return "TERM is not set";
	if (!strcmp(term, "dumb"))
		return "TERM=dumb cannot position the cursor";
	return NULL;
}

int tui_term_open(tui_term *t, FILE *out, FILE *in, const char *type, int want_color, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->scr = newterm(type, out, in);
	if (!t->scr) {
		const char *name = type ? type : getenv("TERM");
		snprintf(err, errlen, "unknown terminal type '%s'", name ? name : "");
		return -1;
	}
	set_term(t->scr);
	/* a terminal that cannot address the cursor would only print blanks */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		tui_term_close(t);
		snprintf(err, errlen, "this terminal cannot position the cursor");
		return -1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* Esc must feel immediate over SSH; a user's ESCDELAY still wins */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	if (want_color && has_colors() && start_color() == OK) {
		t->default_colors = use_default_colors() == OK;
		t->colors = COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : COLORS >= 8 ? 8 : 0;
		if (COLOR_PAIRS <= ROLE_COUNT)
			t->colors = 0; /* not enough pairs for one per role: monochrome is clearer */
	}
	return 0;
}

void tui_term_close(tui_term *t)
{
	if (!t->scr)
		return;
	curs_set(1);
	endwin();
	delscreen(t->scr);
	t->scr = NULL;
}

static attr_t curses_attrs(unsigned a)
{
	return (a & TA_BOLD ? A_BOLD : 0) | (a & TA_DIM ? A_DIM : 0) | (a & TA_UNDERLINE ? A_UNDERLINE : 0) |
		(a & TA_REVERSE ? A_REVERSE : 0);
}

void tui_term_apply_theme(const tui_term *t, const tui_theme *theme, attr_t out[ROLE_COUNT])
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		const tui_style *st = &theme->role[r];
		if (!t->colors) {
			out[r] = curses_attrs(st->mono);
			continue;
		}
		int fg = t->colors >= 256 ? st->fg256 : st->fg, bg = t->colors >= 256 ? st->bg256 : st->bg;
		int bold = 0, unused = 0;
		if (t->colors < 16) {
			fg = fg >= 0 ? tui_color_to8(fg, &bold) : fg;
			bg = bg >= 0 ? tui_color_to8(bg, &unused) : bg;
		}
		if (!t->default_colors) {
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		init_pair((short)(r + 1), (short)fg, (short)bg);
		out[r] = COLOR_PAIR(r + 1) | curses_attrs(st->attr) | (bold ? A_BOLD : 0);
	}
}
