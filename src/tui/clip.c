/* clip.c - OSC 52 copy (clip.h). */
#include "tui/clip.h"
#include "tui/term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t base64(char *out, const unsigned char *in, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < len ? (unsigned)in[i + 1] << 8 : 0) |
			(i + 2 < len ? in[i + 2] : 0);
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < len ? tab[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? tab[v & 63] : '=';
	}
	return o;
}

size_t tui_osc52(char *out, size_t n, const char *text, size_t len, int tmux)
{
	size_t b64 = (len + 2) / 3 * 4;
	/* plain: ESC ] 52 ; c ; ... BEL (8 + b64); wrapped: ESC P tmux ; (7) ESC ESC ] 52 ; c ;
	 * (8) ... BEL ESC \ (3) */
	size_t need = 8 + b64 + (tmux ? 18 + b64 : 0) + 1;
	if (n < need) {
		if (n)
			out[0] = 0;
		return 0;
	}
	size_t o = 0;
	memcpy(out, "\033]52;c;", 7);
	o = 7 + base64(out + 7, (const unsigned char *)text, len);
	out[o++] = '\a';
	if (tmux) {
		/* tmux passes a DCS "tmux;" body through to the outer terminal, ESCs doubled */
		memcpy(out + o, "\033Ptmux;\033\033]52;c;", 15);
		o += 15;
		memcpy(out + o, out + 7, b64);
		o += b64;
		memcpy(out + o, "\a\033\\", 3);
		o += 3;
	}
	out[o] = 0;
	return o;
}

void tui_copy(tui_app *a, const char *text, const char *what)
{
	size_t len = strlen(text), cut = len > TUI_CLIP_MAX ? TUI_CLIP_MAX : len;
	const char *tmux = getenv("TMUX");
	int wrap = tmux && tmux[0];
	size_t n = 2 * ((cut + 2) / 3 * 4) + 64;
	char *seq = malloc(n);
	if (!seq) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	size_t sl = tui_osc52(seq, n, text, cut, wrap);
	if (a->term && a->term->out && sl) {
		/* after curses' own output, so the sequence is not split by a screen update */
		fflush(a->term->out);
		fwrite(seq, 1, sl, a->term->out);
		fflush(a->term->out);
	}
	free(seq);
	tui_app_msg(a, cut < len ? MSG_ERROR : MSG_INFO, "copied %s (%zu bytes%s) to the terminal's clipboard (OSC 52)",
			what, cut, cut < len ? ", cut: the clipboard takes no more" : "");
}

void tui_strategy_line(const tui_app *a, char *out, size_t n)
{
	knob_job j = tui_app_job(a);
	size_t len = 0;
	out[0] = 0;
	for (int k = 0; k < KNOB_COUNT && len < n; k++) {
		char kv[128];
		knob_pin_text(&j, &a->plan->cluster, knob_at(k), kv, sizeof kv); /* row order */
		len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", kv);
	}
}
