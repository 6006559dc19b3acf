/* nearest.h - the nearest known word to a mistyped one, for "did you mean ...?" in every
 * place that rejects an unknown name (commands, keys, pins). Pure. */
#ifndef STRATA_CORE_NEAREST_H
#define STRATA_CORE_NEAREST_H

#include <stddef.h>

/* Optimal-string-alignment distance between a and b (insert, delete, substitute, swap of
 * two neighbours; Damerau 1964), ASCII case-insensitive; strings longer than 63 bytes are
 * compared on their first 63. */
int nearest_distance(const char *a, const char *b);
/* The candidate (of n) nearest to word, or NULL when none is within a distance of
 * max(2, strlen(word) / 3) (a guess farther off than that helps nobody). An exact match
 * is returned as it is. */
const char *nearest_word(const char *word, const char *const *cands, size_t n);

#endif
