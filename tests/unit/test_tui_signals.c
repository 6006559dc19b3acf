/* Unit tests of the explorer's fatal-signal handler (src/tui/term.c) on a pseudo-terminal:
 * a child process takes the terminal as the explorer does, then overflows its stack, on
 * the main thread and on a background job's worker. The handler must run anyway (on the
 * alternate signal stack), write the restore sequences (leave the alternate screen,
 * cursor visible) and put back the tty modes from before curses, and the child must die
 * of SIGSEGV (a sanitizer build reports the overflow first and dies of SIGABRT). The
 * tmux tests (tests/cli/tui_signals.sh) cover the signals sent with kill. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#endif
#include "check.h"
#include "tui/job.h"
#include "tui/term.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static volatile int depth_stop = -1; /* never reached: the recursion overflows */

/* Recurse until the stack is gone (not a tail call: the frame is used after the call). */
static int deep(int n)
{
	volatile char buf[1024];
	buf[n % 1024] = (char)n;
	if (n == depth_stop)
		return buf[0];
	return deep(n + 1) + buf[n % 1024];
}

static void deep_work(tui_job_run *r, void *arg)
{
	(void)r;
	(void)arg;
	deep(0);
}

static void no_free(void *arg)
{
	(void)arg;
}

static int same_modes(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
		a->c_lflag == b->c_lflag && !memcmp(a->c_cc, b->c_cc, sizeof a->c_cc);
}

/* The child: the explorer's terminal set-up on the pty, a byte on `ready` once curses
 * has the terminal, wait for a byte on `go`, then overflow (on a worker when threaded). */
static void child(const char *slave, int ready, int go, int threaded)
{
	int devnull = open("/dev/null", O_WRONLY);
	if (devnull >= 0)
		dup2(devnull, STDERR_FILENO); /* the handler's line and a sanitizer's report */
	int fd = open(slave, O_RDWR);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL, *in = fd >= 0 ? fdopen(dup(fd), "r") : NULL;
	if (!out || !in)
		_exit(3);
	tui_signals_install();
	tui_term t;
	char err[256];
	if (tui_term_open(&t, out, in, "xterm-256color", 0, err, sizeof err))
		_exit(4);
	refresh();
	char c = 'r';
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(5);
	if (threaded) {
		tui_job j;
		tui_job_init(&j);
		tui_job_start(&j, deep_work, NULL, no_free, 0);
		tui_job_wait(&j, 30000);
		_exit(6);
	}
	deep(0);
	_exit(7);
}

/* Read what the pty holds (the child is gone). */
static size_t drain(int master, char *buf, size_t n)
{
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	size_t len = 0;
	for (;;) {
		ssize_t r = read(master, buf + len, n - 1 - len);
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len + 1 >= n)
			break;
	}
	buf[len] = 0;
	return len;
}

/* The last occurrence of s in buf[0..n), or NULL. */
static const char *last(const char *buf, size_t n, const char *s)
{
	const char *hit = NULL;
	size_t l = strlen(s);
	for (size_t i = 0; i + l <= n; i++)
		if (!memcmp(buf + i, s, l))
			hit = buf + i;
	return hit;
}

static void overflow(int threaded)
{
	const char *where = threaded ? "worker" : "main thread";
	char name[200];
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) || !ptsname(master)) {
		printf("SKIP stack overflow on the %s: no pseudo-terminal\n", where);
		if (master >= 0)
			close(master);
		return;
	}
	char slave[256];
	snprintf(slave, sizeof slave, "%s", ptsname(master));
	int sfd = open(slave, O_RDWR | O_NOCTTY);
	struct termios before, during, after;
	int p_ready[2], p_go[2];
	if (sfd < 0 || tcgetattr(sfd, &before) || pipe(p_ready) || pipe(p_go)) {
		CHECK(0, "pty and pipes");
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(master);
		child(slave, p_ready[1], p_go[0], threaded);
	}
	char c = 0, out[65536];
	int got_ready = read(p_ready[0], &c, 1) == 1;
	snprintf(name, sizeof name, "%s: the child took the terminal (echo off)", where);
	CHECK(got_ready && !tcgetattr(sfd, &during) && !(during.c_lflag & ECHO) && !same_modes(&before, &during), name);
	c = 'g';
	if (write(p_go[1], &c, 1) != 1)
		CHECK(0, "signal the child");
	int status = 0;
	waitpid(pid, &status, 0);
	size_t n = drain(master, out, sizeof out);
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	snprintf(name, sizeof name, "stack overflow on the %s: the child dies of SIGSEGV%s (status %#x)", where,
			SANITIZED ? " (sanitizer: or SIGABRT after its report)" : "", (unsigned)status);
	CHECK(sig == SIGSEGV || (SANITIZED && sig == SIGABRT), name);
	const char *enter = last(out, n, "\033[?1049h"), *leave = last(out, n, "\033[?1049l");
	snprintf(name, sizeof name, "stack overflow on the %s: the alternate screen left after it was entered", where);
	CHECK(enter && leave && leave > enter, name);
	const char *hide = last(out, n, "\033[?25l"), *show = last(out, n, "\033[?25h");
	snprintf(name, sizeof name, "stack overflow on the %s: the cursor shown after it was hidden", where);
	CHECK(show && (!hide || show > hide), name);
	snprintf(name, sizeof name, "stack overflow on the %s: the tty modes from before curses are back", where);
	CHECK(!tcgetattr(sfd, &after) && same_modes(&before, &after), name);
	close(p_ready[0]);
	close(p_ready[1]);
	close(p_go[0]);
	close(p_go[1]);
	close(sfd);
	close(master);
}

int main(void)
{
	overflow(0);
	overflow(1);
	return check_done();
}
