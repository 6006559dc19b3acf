/* term.c - terminal set-up and restore, signals, theme colours.
 *
 * Restore on every path. SIGTERM, SIGHUP and SIGINT only set a flag (no curses call is
 * safe in a handler); the main loop polls it at least every 250 ms, leaves (waiting for a
 * worker TUI_JOB_STOP_MS at most), and the one exit path calls tui_term_close(). A second
 * such signal while the first is being handled does not wait for that: it restores the
 * terminal the async-signal-safe way below and exits at once with 128 + n.
 *
 * Fatal signals (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) cannot wait for the loop: their
 * handler writes the terminal-restore sequences (attributes off, keypad off, leave the
 * alternate screen, cursor visible: precomputed from terminfo when the screen opened) and
 * puts back the tty modes saved before curses took over, using only write() and
 * tcsetattr(); then it lets the signal take its default action (a fault raised by the
 * kernel goes first to the handler installed before ours, such as a sanitizer's report),
 * so the exit status and core dump are the signal's. It runs on an alternate signal stack
 * (this thread's here, each worker's in job.c), so a stack overflow restores too.
 *
 * Handlers are installed before newterm(), so curses sees them and does not install its
 * own exit-on-signal ones. */
#include "tui/term.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#define ALTSTACK_BYTES (64 * 1024)

/* Global state, because signal handlers can reach nothing else. stop_signal: written by
 * the handler, read by the loop. The rest is the emergency restore: written by
 * tui_term_open and tui_term_close only while term_live is 0, read by the handlers. */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t term_live;  /* the explorer owns the terminal */
static int term_out_fd = -1;             /* where curses writes */
static int term_tty_fd = -1;             /* whose modes were saved (-1: none) */
static struct termios term_saved;        /* the tty modes before curses */
static char term_seq[512];               /* sgr0 rmkx rmcup cnorm, padding removed */
static size_t term_seq_len;
static const int fatal_sig[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
#define NFATAL (sizeof fatal_sig / sizeof fatal_sig[0])
static struct sigaction fatal_prev[NFATAL]; /* what was installed before us (a sanitizer's) */
static _Alignas(16) char main_altstack[ALTSTACK_BYTES];

/* write() all of s, as far as the terminal takes it (async-signal-safe). */
static void put(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static size_t cstrlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* Give the terminal back without curses, from a signal handler: once, whichever thread. */
static void emergency_restore(void)
{
	if (!term_live)
		return;
	term_live = 0;
	if (term_seq_len)
		put(term_out_fd, term_seq, term_seq_len);
	if (term_tty_fd >= 0)
		tcsetattr(term_tty_fd, TCSANOW, &term_saved);
}

/* "strata: <what> <signal name>; terminal restored\n" on stderr (async-signal-safe). */
static void say(const char *what, int sig)
{
	const char *name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT" :
		sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL" : sig == SIGTERM ? "SIGTERM" :
		sig == SIGHUP ? "SIGHUP" : sig == SIGINT ? "SIGINT" : "a signal";
	put(STDERR_FILENO, "strata: ", cstrlen("strata: "));
	put(STDERR_FILENO, what, cstrlen(what));
	put(STDERR_FILENO, name, cstrlen(name));
	put(STDERR_FILENO, "; terminal restored\n", cstrlen("; terminal restored\n"));
}

static void on_signal(int sig)
{
	if (!stop_signal) {
		stop_signal = sig;
		return;
	}
	/* a second one: the first is taking too long to be handled (or the user insists) */
	emergency_restore();
	say("second stop signal, exiting at once: ", sig);
	_exit(128 + sig);
}

static void on_fatal(int sig, siginfo_t *info, void *ctx)
{
	emergency_restore();
	say("fatal signal ", sig);
	/* SA_RESETHAND made the action the default one again. A fault the kernel raised (not
	 * a kill) goes first to the handler that was there before ours, if any. */
	for (size_t i = 0; i < NFATAL; i++) {
		const struct sigaction *p = &fatal_prev[i];
		if (fatal_sig[i] != sig || !info || info->si_code <= 0 || p->sa_sigaction == on_fatal)
			continue;
		if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction)
			p->sa_sigaction(sig, info, ctx);
		else if (!(p->sa_flags & SA_SIGINFO) && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN)
			p->sa_handler(sig);
	}
	raise(sig); /* SA_NODEFER: delivered now, with the default action */
}

void tui_signals_install(void)
{
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_sp = main_altstack;
	ss.ss_size = sizeof main_altstack;
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns so the loop sees the flag */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fatal;
	sigemptyset(&sa.sa_mask);
	/* once (the re-raise is the default action), at once (not deferred until the handler
	 * returns), on the alternate stack */
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_sig[i], &sa, &fatal_prev[i]);
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

/* Append terminfo capability cap to the emergency sequence, without "$<..>" padding. */
static void seq_add(const char *cap)
{
	const char *s = tigetstr(cap);
	if (!s || s == (char *)-1)
		return;
	for (; *s; s++) {
		if (s[0] == '$' && s[1] == '<' && strchr(s, '>')) {
			s = strchr(s, '>');
			continue;
		}
		if (term_seq_len + 1 < sizeof term_seq)
			term_seq[term_seq_len++] = *s;
	}
}

/* Prepare what a fatal signal writes to give the terminal back, then arm it (a terminal
 * only: the headless replay writes to /dev/null). */
static void emergency_arm(FILE *out)
{
	term_live = 0;
	term_seq_len = 0;
	seq_add("sgr0");
	seq_add("rmkx");
	seq_add("rmcup");
	seq_add("cnorm");
	term_out_fd = fileno(out);
	term_live = isatty(term_out_fd);
}

int tui_term_open(tui_term *t, FILE *out, FILE *in, const char *type, int want_color, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	/* the tty modes to put back should a fatal signal leave no time for endwin() */
	term_live = 0;
	term_tty_fd = -1;
	if (isatty(fileno(in)) && !tcgetattr(fileno(in), &term_saved))
		term_tty_fd = fileno(in);
	else if (isatty(fileno(out)) && !tcgetattr(fileno(out), &term_saved))
		term_tty_fd = fileno(out);
	t->scr = newterm(type, out, in);
	t->out = out;
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
	emergency_arm(out);
	return 0;
}

void tui_term_close(tui_term *t)
{
	if (!t->scr)
		return;
	curs_set(1);
	endwin();
	term_live = 0; /* given back: a later fatal signal has nothing to restore */
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
