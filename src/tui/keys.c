/* keys.c - the key-binding table. */
#include "tui/keys.h"

#include <curses.h>

#define CTRL(c) ((c) & 0x1f)

static const tui_binding table[] = {
	{{KEY_UP, 'k'}, 0, 0, "k, Up", ACT_UP, "previous knob"},
	{{KEY_DOWN, 'j', '\t'}, 0, 0, "j, Down, Tab", ACT_DOWN, "next knob"},
	{{KEY_HOME, 'g'}, 0, 0, "g, Home", ACT_FIRST, "first knob"},
	{{KEY_END, 'G'}, 0, 0, "G, End", ACT_LAST, "last knob"},
	{{KEY_RIGHT, 'l', '+', '='}, 0, 0, "l, Right, +, =", ACT_INC, "next valid value of the knob"},
	{{KEY_LEFT, 'h', '-'}, 0, 0, "h, Left, -", ACT_DEC, "previous valid value of the knob"},
	{{'\n', '\r', KEY_ENTER}, '0', '9', "Enter, 0-9", ACT_EDIT, "type a value for the knob"},
	{{'p'}, 0, 0, "p", ACT_PIN, "pin or unpin the knob at its value"},
	{{'u'}, 0, 0, "u", ACT_UNDO, "undo the last change (this file's history only)"},
	{{CTRL('r')}, 0, 0, "Ctrl-R", ACT_REDO, "redo what u undid"},
	{{'w'}, 0, 0, "w", ACT_SAVE, "save the plan (atomic; another existing file asks y/n first)"},
	{{'o'}, 0, 0, "o", ACT_OPEN, "open a plan file (refused with unsaved changes: :e! FILE)"},
	{{'m'}, 0, 0, "m", ACT_MODEL, "choose the model from the presets"},
	{{'c'}, 0, 0, "c", ACT_CLUSTER, "choose the cluster from the presets"},
	{{'i'}, 0, 0, "i", ACT_ILP, "bubble ILP: uneven stages, per-layer recompute; keep or discard"},
	{{'s'}, 0, 0, "s", ACT_SEARCH, "search the strategies of this job; Enter applies a candidate"},
	{{'e'}, 0, 0, "e", ACT_EXPORT, "export for Megatron-LM, DeepSpeed or torchtitan"},
	{{'L'}, 0, 0, "L", ACT_LUA, "run a Lua recipe; the model or plan it returns becomes current"},
	{{'O'}, 0, 0, "O", ACT_OUTPUT, "output and error traceback of the last Lua recipe"},
	{{'W'}, 0, 0, "W", ACT_WHY, "why is it slow: losses, measured fixes, group placement"},
	{{'S'}, 0, 0, "S", ACT_SWEEP, "sweep view: step, MFU or memory against one knob"},
	{{27}, 0, 0, "Esc", ACT_CANCEL, "cancel the running ILP, search or recipe"},
	{{'t'}, 0, 0, "t", ACT_THEME, "next colour theme"},
	{{'z'}, 0, 0, "z", ACT_ZOOM, "timeline: first micro-batches / whole step"},
	{{'D'}, 0, 0, "D", ACT_DEBUG, "debug line with the frame timer"},
	{{'y'}, 0, 0, "y", ACT_COPY, "copy the strategy line to the clipboard (OSC 52: SSH, tmux)"},
	{{'M'}, 0, 0, "M", ACT_MESSAGE, "the last message in full (:messages lists them all)"},
	{{'?', KEY_F(1)}, 0, 0, "?, F1", ACT_HELP, "this help"},
	{{':'}, 0, 0, ":", ACT_COMMAND, "command line (:set tp=8, :w FILE, :q)"},
	{{CTRL('l')}, 0, 0, "Ctrl-L", ACT_REDRAW, "redraw the screen"},
	{{'q'}, 0, 0, "q", ACT_QUIT, "quit (twice when there are unsaved changes)"},
	{{'a'}, 0, 0, "a", ACT_KEEP_A, "keep the current plan in slot A"},
	{{'b'}, 0, 0, "b", ACT_KEEP_B, "keep the current plan in slot B"},
	{{'C'}, 0, 0, "C", ACT_COMPARE, "compare the current plan with A and B, component by component"},
};

const tui_binding *tui_bindings(int *n)
{
	*n = (int)(sizeof table / sizeof table[0]);
	return table;
}

tui_action tui_key_action(int key)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const tui_binding *b = &table[i];
		for (int k = 0; k < TUI_KEYS_PER_BINDING && b->key[k]; k++)
			if (b->key[k] == key)
				return b->act;
		if (b->lo && key >= b->lo && key <= b->hi)
			return b->act;
	}
	return ACT_NONE;
}
