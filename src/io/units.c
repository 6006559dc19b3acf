/* units.c - engineering units with four significant digits (units.h). */
#include "io/units.h"

#include <math.h>
#include <stdio.h>

/* x (|x| below 10,000) with four significant digits, fixed decimals. */
static void sig4(char *out, size_t n, double x, const char *unit)
{
	double a = fabs(x);
	int dec = a >= 999.95 ? 0 : a >= 99.995 ? 1 : a >= 9.9995 ? 2 : 3;
	snprintf(out, n, "%.*f%s", dec, x, unit);
}

void units_time(double s, char *out, size_t n)
{
	double a = fabs(s);
	/* 999.96 ms rounds to 1000.0: such values move up a unit first */
	if (!(a > 0))
		snprintf(out, n, "0 s");
	else if (a >= 0.99995)
		a >= 9999.5 ? (void)snprintf(out, n, "%.0f s", s) : sig4(out, n, s, " s");
	else if (a >= 0.99995e-3)
		sig4(out, n, s * 1e3, " ms");
	else
		sig4(out, n, s * 1e6, " us");
}

void units_rate(double v, char *out, size_t n)
{
	double a = fabs(v);
	if (a >= 9999.5e9)
		snprintf(out, n, "%.0fG", v / 1e9);
	else if (a >= 0.99995e9)
		sig4(out, n, v / 1e9, "G");
	else if (a >= 0.99995e6)
		sig4(out, n, v / 1e6, "M");
	else if (a >= 0.99995e3)
		sig4(out, n, v / 1e3, "k");
	else
		sig4(out, n, v, "");
}

void units_count(double v, char *out, size_t n)
{
	if (v < 999.5)
		snprintf(out, n, "%.0f", v);
	else
		units_rate(v, out, n);
}

void units_big(double v, int digits, char *out, size_t n)
{
	static const struct { double m; const char *u; } u[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (v >= u[i].m) {
			snprintf(out, n, "%.*g%s", digits, v / u[i].m, u[i].u);
			return;
		}
	snprintf(out, n, "%.*g", digits, v);
}
