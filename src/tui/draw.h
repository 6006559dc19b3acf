/* draw.h - clipped text and glyphs on stdscr. Every pane draws through these, so nothing
 * ever writes past its rectangle (a long model name must not wrap onto the next row). */
#ifndef STRATA_TUI_DRAW_H
#define STRATA_TUI_DRAW_H

#include <curses.h>

/* Glyphs for one character set: UTF-8 block elements, or plain ASCII. */
typedef struct {
	const char *seg[5];     /* memory components: weights grads optimizer activations buffers */
	const char *bar;        /* time bars */
	const char *budget;     /* budget marker in the memory bars */
	const char *vline, *hline;
	const char *sel;        /* selected knob */
	const char *pin;        /* pinned knob */
	const char *idle;       /* idle time in the timeline */
	const char *dot;        /* separator in titles */
	const char *times;      /* multiplication sign */
	const char *up, *down;  /* arrows in the hint line */
	const char *arrow;      /* "becomes" in messages */
} tui_glyphs;

/* The glyph set for UTF-8 terminals (utf8 != 0) or ASCII ones. */
const tui_glyphs *tui_glyphs_get(int utf8);
/* Columns a UTF-8 string takes (one per code point: strata only draws narrow characters). */
int tui_width(const char *s);
/* Draw s at (y, x), at most w columns; returns the columns drawn. */
int tui_text(int y, int x, int w, attr_t a, const char *s);
/* printf-style tui_text. */
int tui_textf(int y, int x, int w, attr_t a, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
/* Fill w columns of row y from x with blanks in attribute a. */
void tui_fill(int y, int x, int w, attr_t a);
/* Draw one glyph n times from (y, x). */
void tui_repeat(int y, int x, int n, attr_t a, const char *glyph);

#endif
