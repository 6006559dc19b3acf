/* input.h - one key in, one frame out: the two halves of every explorer cycle. */
#ifndef STRATA_TUI_INPUT_H
#define STRATA_TUI_INPUT_H

#include "tui/app.h"

/* Handle one key (KEY_RESIZE included) in the current mode. */
void tui_handle_key(tui_app *a, int key);
/* Draw the screen for the current state and size and send it to the terminal. */
void tui_render(tui_app *a);

#endif
