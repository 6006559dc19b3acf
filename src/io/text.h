/* text.h - text that came from input files, on its way into fixed buffers and onto
 * terminals. Names are cut on UTF-8 character boundaries, so a cut name is still valid
 * UTF-8 (and a plan written with it loads again); every printer of an input string passes
 * it through text_safe(), so a name or a quoted value cannot carry escape sequences (window
 * titles, screen clears) to the terminal. */
#ifndef STRATA_IO_TEXT_H
#define STRATA_IO_TEXT_H

#include <stddef.h>

/* Copy SRC into DST (N bytes, N > 0) as snprintf("%s") does, but when it does not fit cut
 * before the first character that does not fit whole (never inside a UTF-8 sequence).
 * Returns strlen(SRC): a value >= N means the copy was cut. */
size_t text_copy(char *dst, size_t n, const char *src);
/* The terminal-safe form of SRC in DST (N bytes, N > 0): every control character (C0,
 * DEL, and the C1 range U+0080-U+009F in its UTF-8 form) and every byte that is not part
 * of valid UTF-8 becomes '?'; the rest is copied, cut on a character boundary when DST is
 * short. DST may be SRC (sanitise in place). Returns DST, for use as a printf argument. */
char *text_safe(char *dst, size_t n, const char *src);
/* Bytes of the character at S (not at its terminating NUL): a valid UTF-8 sequence (1 to 4
 * bytes; *VALID = 1), or the longest prefix of one that goes wrong (a stray continuation
 * byte, an overlong form, a surrogate, beyond U+10FFFF, cut short: at least 1; *VALID = 0),
 * which Unicode recommends replacing as one character. */
size_t text_utf8_next(const char *s, int *valid);

#endif
