/* clip.h - copying to the clipboard of the terminal the user sits at, through OSC 52
 * (xterm's "manipulate selection data"), which travels over SSH; inside tmux, also wrapped
 * in tmux's DCS passthrough for a tmux whose set-clipboard is off. */
#ifndef STRATA_TUI_CLIP_H
#define STRATA_TUI_CLIP_H

#include "tui/app.h"

#include <stddef.h>

#define TUI_CLIP_MAX 74994 /* bytes copied at most: 100,000 base64 characters (xterm's and
                              tmux's limits are of that order) */

/* The escape sequence that puts text (len bytes) on the clipboard: ESC ] 52 ; c ; BASE64
 * BEL, and when tmux is 1, the same wrapped as ESC P tmux; ... ESC \ with every ESC
 * doubled. Returns the length written (out always ends with NUL), or 0 when n is too small. */
size_t tui_osc52(char *out, size_t n, const char *text, size_t len, int tmux);
/* Copy text to the clipboard of the terminal (nothing is written in a headless replay)
 * and say so on the message line, naming what was copied. */
void tui_copy(tui_app *a, const char *text, const char *what);
/* The strategy as `:set` assignments ("dp=8 tp=8 pp=4 ... precision=bf16"). */
void tui_strategy_line(const tui_app *a, char *out, size_t n);

#endif
