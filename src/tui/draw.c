/* draw.c - clipped drawing primitives and the two glyph sets. */
#include "tui/draw.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const tui_glyphs utf8_glyphs = {
	{"\u2588", "\u2593", "\u2592", "\u2591", "\u25aa"}, "\u2588", "\u2502", "\u2502", "\u2500",
	"\u25b8", "\u25cf", "\u00b7", "\u00b7", "\u00d7", "\u2191", "\u2193", "\u2192",
};
/* ASCII: letters for the memory components, so a monochrome terminal still tells them
 * apart, and none that the timeline uses (F forward, B backward, W weight gradients):
 * P parameters (weights), G grads, O optimizer, A activations, C communication buffers */
static const tui_glyphs ascii_glyphs = {
	{"P", "G", "O", "A", "C"}, "#", "|", "|", "-", ">", "*", ".", "-", "x", "^", "v", "->",
};

const tui_glyphs *tui_glyphs_get(int utf8)
{
	return utf8 ? &utf8_glyphs : &ascii_glyphs;
}

int tui_width(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

int tui_text(int y, int x, int w, attr_t a, const char *s)
{
	if (w <= 0)
		return 0;
	/* bytes of the first w code points */
	int cols = 0;
	size_t bytes = 0;
	while (s[bytes]) {
		if (((unsigned char)s[bytes] & 0xC0) != 0x80) {
			if (cols == w)
				break;
			cols++;
		}
		bytes++;
	}
	attrset(a);
	mvaddnstr(y, x, s, (int)bytes);
	return cols;
}

int tui_textf(int y, int x, int w, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return tui_text(y, x, w, a, buf);
}

void tui_fill(int y, int x, int w, attr_t a)
{
	if (w <= 0)
		return;
	attrset(a);
	mvhline(y, x, ' ' | a, w);
}

void tui_repeat(int y, int x, int n, attr_t a, const char *glyph)
{
	/* one addnstr per run: per-cell calls dominate the frame time on wide screens */
	char buf[2048];
	size_t gl = strlen(glyph), len = 0;
	if (n <= 0 || gl == 0)
		return;
	attrset(a);
	move(y, x);
	for (int i = 0; i < n; i++) {
		if (len + gl > sizeof buf) {
			addnstr(buf, (int)len);
			len = 0;
		}
		memcpy(buf + len, glyph, gl);
		len += gl;
	}
	addnstr(buf, (int)len);
}
