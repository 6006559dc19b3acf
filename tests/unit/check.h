/* check.h: minimal assertions for the C unit tests.
 *
 * Each check prints one line, "PASS name" or "FAIL name (file:line)", which
 * the project test runner counts. Header-only with file-static counters:
 * every test program is a single translation unit with its own main(). */
#ifndef STRATA_CHECK_H
#define STRATA_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int check_npass;
static int check_nfail;

/* Record one result; returns ok so a test can skip checks that depend on it. */
static inline int
check_report(int ok, const char *name, const char *file, int line)
{
	if (ok) {
		check_npass++;
		printf("PASS %s\n", name);
	} else {
		check_nfail++;
		printf("FAIL %s (%s:%d)\n", name, file, line);
	}
	fflush(stdout); /* keep PASS/FAIL lines in order with a crash report */
	return ok;
}

/* Relative closeness; equal values (including two zeros) always pass. On
 * failure both values go on an indented line the runner does not count. */
static inline int
check_near_report(double a, double b, double rel, const char *name,
		  const char *file, int line)
{
	double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
	int ok = a == b || fabs(a - b) <= rel * scale;

	if (!check_report(ok, name, file, line))
		printf("  got %.17g, want %.17g\n", a, b);
	return ok;
}

/* CHECK(cond, name): pass when cond is true. */
#define CHECK(cond, name) check_report(!!(cond), (name), __FILE__, __LINE__)

/* CHECK_NEAR(a, b, rel, name): pass when |a-b| <= rel * max(|a|, |b|). */
#define CHECK_NEAR(a, b, rel, name) \
	check_near_report((a), (b), (rel), (name), __FILE__, __LINE__)

/* printf-style check name, in one static buffer: pass it to CHECK before calling again. */
static inline const char *
check_fmt(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
static inline const char *
check_fmt(const char *fmt, ...)
{
	static char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

/* Exit status for main: 1 if any check failed, else 0. */
static inline int
check_done(void)
{
	return check_nfail > 0 ? 1 : 0;
}

#endif
