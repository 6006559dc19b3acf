/* why.c - rejection reasons. */
#include "core/why.h"

#include <stdarg.h>
#include <stdio.h>

int why_set(char *why, size_t n, const char *fmt, ...)
{
	if (!why || !n)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}
