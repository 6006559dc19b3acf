/* why.h - the one way the core explains a rejection: a sentence written into a caller's
 * buffer. */
#ifndef STRATA_CORE_WHY_H
#define STRATA_CORE_WHY_H

#include <stddef.h>

/* Format a reason into why (may be NULL); always returns -1 so callers can `return`. */
int why_set(char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#endif
