/* input.c - key handling per mode: the knobs (through the key table), the prompt line
 * editor, the help screen and the picker. */
#include "tui/input.h"
#include "tui/actions.h"
#include "tui/clip.h"
#include "tui/complete.h"
#include "tui/keys.h"
#include "tui/layout.h"
#include "tui/panes.h"
#include "tui/prefs.h"
#include "tui/safety.h"
#include "tui/tasks.h"

#include <string.h>

#define KEY_ESC 27
#define CTRL(c) ((c) & 0x1f)

static int is_enter(int key)
{
	return key == '\n' || key == '\r' || key == KEY_ENTER;
}

static void prompt_submit(tui_app *a)
{
	tui_prompt *p = &a->prompt;
	char text[sizeof p->buf];
	snprintf(text, sizeof text, "%s", p->buf);
	a->mode = MODE_NORMAL;
	switch (p->kind) {
	case PROMPT_COMMAND:
		tui_hist_add(a, text);
		tui_command(a, text);
		break;
	case PROMPT_VALUE: {
		if (!text[0])
			return;
		char set[320];
		snprintf(set, sizeof set, "%s=%s", knob_key((knob_id)a->sel), text);
		tui_set(a, set);
		break;
	}
	case PROMPT_OPEN:
		if (text[0])
			tui_open(a, text, 0);
		break;
	case PROMPT_SAVE:
		if (text[0])
			tui_save(a, text, 0);
		break;
	case PROMPT_EXPORT:
		if (text[0])
			tui_export_to(a, a->export_target, text, 0, 0);
		break;
	case PROMPT_CONFIRM:
	case PROMPT_TARGET:
		break;
	}
}

static void prompt_key(tui_app *a, int key)
{
	tui_prompt *p = &a->prompt;
	if (p->kind == PROMPT_CONFIRM) {
		tui_confirm_key(a, key); /* y, n (and d for a recovery file); anything else is no */
		return;
	}
	if (key != '\t')
		a->comp_active = 0;
	if (key == KEY_ESC || key == CTRL('c') || key == CTRL('g')) {
		a->mode = MODE_NORMAL;
		tui_app_msg(a, MSG_INFO, "cancelled");
	} else if (p->kind == PROMPT_TARGET) {
		tui_export_choose(a, key); /* one key chooses; the file name prompt follows */
	} else if (is_enter(key)) {
		prompt_submit(a);
	} else if (key == '\t' && p->kind != PROMPT_VALUE) {
		tui_complete(a);
	} else if ((key == KEY_UP || key == KEY_DOWN) && p->kind == PROMPT_COMMAND) {
		tui_hist_step(a, key == KEY_UP ? -1 : 1);
	} else if (key == KEY_BACKSPACE || key == 127 || key == CTRL('h')) {
		/* drop one UTF-8 character */
		while (p->len > 0 && ((unsigned char)p->buf[--p->len] & 0xC0) == 0x80)
			;
		p->buf[p->len] = 0;
		if (p->len == 0 && p->kind == PROMPT_COMMAND && key != CTRL('h'))
			a->mode = MODE_NORMAL; /* backspace on an empty ":" leaves, as in vi */
	} else if (key == CTRL('u')) {
		p->len = 0;
		p->buf[0] = 0;
	} else if (key >= 32 && key < 256 && key != 127 && p->len < (int)sizeof p->buf - 1) {
		p->buf[p->len++] = (char)key;
		p->buf[p->len] = 0;
	}
}

/* The picker: typing filters (j, k, g, G and q move and close until a filter is typed;
 * / starts one with any letter), arrows move, Backspace shortens the filter, Esc clears it
 * or closes. */
static void pick_key(tui_app *a, int key)
{
	tui_picker *p = a->pick;
	size_t fl = strlen(p->filter);
	int nav = !p->typing && (key == 'j' || key == 'k' || key == 'g' || key == 'G');
	if ((nav || key > 255) && tui_list_key(key, &p->sel, p->n, LINES > 3 ? LINES - 2 : 1))
		return;
	if (key == KEY_ESC && p->typing) {
		p->filter[0] = 0;
		p->typing = 0;
		tui_pick_filter(a);
	} else if (key == KEY_ESC || (key == 'q' && !p->typing)) {
		a->mode = MODE_NORMAL;
	} else if (is_enter(key)) {
		tui_pick_apply(a);
	} else if (key == KEY_BACKSPACE || key == 127 || key == CTRL('h')) {
		if (fl) {
			p->filter[fl - 1] = 0;
			tui_pick_filter(a);
		}
	} else if (key == '/' && !p->typing) {
		p->typing = 1; /* the next letters filter, whatever they are */
	} else if (key > 32 && key < 127 && fl + 1 < sizeof p->filter) {
		p->typing = 1;
		p->filter[fl] = (char)key;
		p->filter[fl + 1] = 0;
		tui_pick_filter(a);
	}
}

static void help_key(tui_app *a, int key)
{
	int page = LINES > 4 ? LINES - 3 : 1;
	if (key == KEY_DOWN || key == 'j')
		a->help_top++;
	else if (key == KEY_UP || key == 'k')
		a->help_top -= a->help_top > 0;
	else if (key == KEY_NPAGE || key == ' ')
		a->help_top += page; /* the overlay clamps it to the end */
	else if (key == KEY_PPAGE)
		a->help_top = a->help_top > page ? a->help_top - page : 0;
	else if (key == 'G' || key == KEY_END)
		a->help_top = 1 << 20;
	else if (key == 'g' || key == KEY_HOME)
		a->help_top = 0;
	else
		a->mode = MODE_NORMAL;
}

static void text_key(tui_app *a, int key)
{
	if (key == KEY_DOWN || key == 'j')
		a->text_top++;
	else if (key == KEY_UP || key == 'k')
		a->text_top -= a->text_top > 0;
	else if (key == KEY_NPAGE || key == ' ')
		a->text_top += LINES > 4 ? LINES - 3 : 1;
	else if (key == KEY_PPAGE)
		a->text_top = a->text_top > LINES - 3 ? a->text_top - (LINES - 3) : 0;
	else
		a->mode = MODE_NORMAL;
}

/* Keys that only change the view: they work while a job runs and while an ILP plan is
 * on trial. */
static int view_only(tui_action act)
{
	return act == ACT_THEME || act == ACT_ZOOM || act == ACT_DEBUG || act == ACT_REDRAW;
}

static void view_key(tui_app *a, tui_action act)
{
	switch (act) {
	case ACT_THEME:
		tui_theme_next(a);
		tui_prefs_remember(a);
		break;
	case ACT_ZOOM:
		a->zoom = !a->zoom;
		tui_app_msg(a, MSG_INFO, "timeline: %s", a->zoom ? "the whole step" : "the first micro-batches");
		tui_prefs_remember(a);
		break;
	case ACT_DEBUG:
		a->debug = !a->debug;
		break;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		break;
	default:
		break;
	}
}

static void review_key(tui_app *a, int key)
{
	tui_action act = tui_key_action(key);
	a->quit_armed = 0;
	if (is_enter(key) || key == 'y') {
		tui_review_keep(a);
	} else if (key == 'n' || key == KEY_ESC) {
		tui_review_discard(a);
	} else if (act == ACT_QUIT) {
		tui_review_discard(a);
		tui_request_quit(a, 0);
	} else if (view_only(act)) {
		view_key(a, act);
	} else {
		tui_app_msg(a, MSG_ERROR, "the ILP plan is on trial: Enter or y keeps it, n or Esc discards it");
	}
}

/* While a job runs: moving, viewing, help, cancel and quit; nothing that changes the
 * plan, since the job's result belongs to the plan it started from. */
static int allowed_while_busy(tui_action act)
{
	return view_only(act) || act == ACT_UP || act == ACT_DOWN || act == ACT_FIRST || act == ACT_LAST ||
		act == ACT_HELP || act == ACT_CANCEL || act == ACT_QUIT || act == ACT_EXPORT || act == ACT_OUTPUT ||
		act == ACT_MESSAGE || act == ACT_COPY || act == ACT_WHY || act == ACT_NONE;
}

static void normal_key(tui_app *a, int key)
{
	a->msg_kind = MSG_NONE;
	a->delta[0] = 0;
	a->changed = 0;
	tui_action act = tui_key_action(key);
	if (act != ACT_QUIT)
		a->quit_armed = 0;
	if ((LINES < TUI_MIN_ROWS || COLS < TUI_MIN_COLS) && act != ACT_QUIT && act != ACT_REDRAW &&
			act != ACT_CANCEL)
		return; /* nothing to act on while the panes are not visible */
	if (tui_task_busy(a) && !allowed_while_busy(act)) {
		tui_app_msg(a, MSG_ERROR, "busy: the %s is running (Esc cancels it)", a->task->name);
		return;
	}
	if (view_only(act)) {
		view_key(a, act);
		return;
	}
	switch (act) {
	case ACT_UP: /* in the order of the rows: devices, dp, tp, ... budget */
		a->sel = knob_at((knob_row((knob_id)a->sel) + KNOB_COUNT - 1) % KNOB_COUNT);
		break;
	case ACT_DOWN:
		a->sel = knob_at((knob_row((knob_id)a->sel) + 1) % KNOB_COUNT);
		break;
	case ACT_FIRST:
		a->sel = knob_at(0);
		break;
	case ACT_LAST:
		a->sel = knob_at(KNOB_COUNT - 1);
		break;
	case ACT_INC:
	case ACT_DEC:
		tui_step(a, act == ACT_INC ? 1 : -1);
		break;
	case ACT_EDIT: {
		char label[64], init[2] = {0, 0};
		snprintf(label, sizeof label, "%s = ", knob_label((knob_id)a->sel));
		if (key >= '0' && key <= '9')
			init[0] = (char)key;
		tui_prompt_open(a, PROMPT_VALUE, label, init);
		break;
	}
	case ACT_PIN:
		tui_pin(a);
		break;
	case ACT_UNDO:
		if (tui_app_undo(a))
			tui_app_msg(a, MSG_ERROR, "nothing to undo");
		else if (a->cur_valid)
			tui_app_msg(a, MSG_INFO, "undone%s", a->dirty ? " (Ctrl-R redoes)" : ": back to the saved plan");
		break;
	case ACT_REDO:
		if (tui_app_redo(a))
			tui_app_msg(a, MSG_ERROR, "nothing to redo");
		else if (a->cur_valid)
			tui_app_msg(a, MSG_INFO, "redone");
		break;
	case ACT_SAVE:
		tui_save(a, NULL, 0);
		break;
	case ACT_OPEN:
		if (a->dirty)
			tui_app_msg(a, MSG_ERROR, "unsaved changes: w saves them, :e! FILE opens another plan and drops them");
		else
			tui_prompt_open(a, PROMPT_OPEN, "open plan: ", "");
		break;
	case ACT_MESSAGE:
		tui_message_full(a, COLS);
		break;
	case ACT_COPY: {
		char line[1200];
		tui_strategy_line(a, line, sizeof line);
		tui_copy(a, line, "the strategy");
		break;
	}
	case ACT_MODEL:
	case ACT_CLUSTER:
		tui_pick_open(a, act == ACT_CLUSTER);
		break;
	case ACT_ILP:
		tui_ilp_start(a);
		break;
	case ACT_SEARCH:
		tui_search_start(a);
		break;
	case ACT_EXPORT:
		tui_export_begin(a);
		break;
	case ACT_LUA:
		tui_pick_open(a, 2);
		break;
	case ACT_OUTPUT:
		if (!a->text) {
			tui_app_msg(a, MSG_ERROR, "no recipe has run yet (L runs one)");
			break;
		}
		a->mode = MODE_TEXT;
		a->shown = a->text;
		snprintf(a->text_title, sizeof a->text_title, "%s", a->text_title_lua);
		a->text_top = 0;
		break;
	case ACT_WHY:
		tui_why_show(a);
		break;
	case ACT_SWEEP:
		tui_sweep_open(a);
		break;
	case ACT_CANCEL:
		tui_task_cancel(a);
		break;
	case ACT_HELP:
		a->mode = MODE_HELP;
		a->help_top = 0;
		break;
	case ACT_COMMAND:
		tui_prompt_open(a, PROMPT_COMMAND, ":", "");
		break;
	case ACT_QUIT:
		tui_request_quit(a, 0);
		break;
	case ACT_KEEP_A:
	case ACT_KEEP_B:
		tui_slot_keep(a, act == ACT_KEEP_B);
		break;
	case ACT_COMPARE:
		tui_slot_compare(a);
		break;
	default:
		break;
	}
}

void tui_handle_key(tui_app *a, int key)
{
	if (key == KEY_RESIZE || key == ERR)
		return; /* the next frame lays out for the new size */
	switch (a->mode) {
	case MODE_PROMPT:
		prompt_key(a, key);
		break;
	case MODE_HELP:
		help_key(a, key);
		break;
	case MODE_PICK:
		pick_key(a, key);
		break;
	case MODE_REVIEW:
		review_key(a, key);
		break;
	case MODE_CANDS:
		tui_cands_key(a, key);
		break;
	case MODE_PREVIEW:
		tui_preview_key(a, key);
		break;
	case MODE_TEXT:
		text_key(a, key);
		break;
	case MODE_SWEEP:
		tui_sweep_key(a, key);
		break;
	default:
		normal_key(a, key);
		break;
	}
}
