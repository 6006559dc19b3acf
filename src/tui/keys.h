/* keys.h - the one key-binding table. The key handler dispatches through it and the help
 * screen is generated from it, so the two cannot disagree. Later features (search, ILP,
 * export, Lua) add their rows here. */
#ifndef STRATA_TUI_KEYS_H
#define STRATA_TUI_KEYS_H

typedef enum {
	ACT_NONE = -1,
	ACT_UP, ACT_DOWN, ACT_FIRST, ACT_LAST, ACT_INC, ACT_DEC, ACT_EDIT, ACT_PIN, ACT_UNDO, ACT_REDO, ACT_MESSAGE, ACT_COPY,
	ACT_SAVE, ACT_OPEN, ACT_MODEL, ACT_CLUSTER, ACT_ILP, ACT_SEARCH, ACT_EXPORT, ACT_LUA, ACT_OUTPUT,
	ACT_WHY, ACT_SWEEP, ACT_CANCEL, ACT_THEME, ACT_ZOOM, ACT_DEBUG, ACT_HELP, ACT_COMMAND, ACT_REDRAW, ACT_QUIT,
	ACT_KEEP_A, ACT_KEEP_B, ACT_COMPARE, ACT_COUNT
} tui_action;

#define TUI_KEYS_PER_BINDING 5

typedef struct {
	int key[TUI_KEYS_PER_BINDING]; /* curses key codes; 0 ends the list */
	int lo, hi;                    /* and/or a range of characters (0, 0: none) */
	const char *names;             /* how the help screen writes the keys */
	tui_action act;
	const char *help;
} tui_binding;

/* The table and its length. */
const tui_binding *tui_bindings(int *n);
/* Action bound to a key in the normal mode, or ACT_NONE. */
tui_action tui_key_action(int key);

#endif
