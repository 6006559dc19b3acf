/* overlay.c - full-screen overlays: the help screen, generated from the key table (so it
 * lists exactly the keys that work), the model/cluster/recipe picker and the text of the
 * last Lua recipe (its output and error traceback). */
#include "tui/keys.h"
#include "tui/panes.h"

#include <stdio.h>
#include <string.h>

static const char *const commands[] = {
	":set KEY=VALUE ...   set knobs or other strategy keys (tp=8 pp=2, flash_attention=false)",
	":w [FILE]  :w! FILE  :wq  :q  :q!   write the plan (w! without the overwrite question), quit",
	":e FILE  :e! FILE (drop unsaved changes)  :model NAME|FILE  :cluster NAME|FILE  :theme NAME",
	":pin KEY=VALUE   :unpin KEY   :undo   :redo   :even (drop the ILP stage split)",
	":messages   the message log (M: the last message in full)",
	":export TARGET [FILE]   :lua FILE [ARGS...]   :ilp   :search",
	"after i: Enter or y keeps the ILP plan, n or Esc discards it",
	"search table: j/k move, Enter applies (pins kept, u undoes), Esc closes",
	"  a row's ! : unvalidated regime; +N : N strategies with identical results merged",
	"  o sorts by the next column, O reverses; / filters (tp<=8 pp=4 step<10 recompute=full);",
	"  = folds rows whose shown figures are equal; v previews the row in the panes (Enter applies)",
	"sweep view (S): h/l point, Tab knob (gbs, seq, devices, mbs), m metric, Enter applies",
};

/* The glossary: what every knob means (indexed by knob, so none is missing) ... */
static const char *const knob_gloss[KNOB_COUNT] = {
	[KNOB_DP] = "data parallel: model replicas, each on its own share of the batch",
	[KNOB_TP] = "tensor parallel: each layer's matrices split across devices (Megatron-LM)",
	[KNOB_PP] = "pipeline parallel: the layers cut into stages on successive devices",
	[KNOB_VPP] = "virtual pipeline: model chunks per stage (interleaved 1F1B), a smaller bubble",
	[KNOB_CP] = "context parallel: the sequence split across devices (ring or Ulysses attention)",
	[KNOB_EP] = "expert parallel: the MoE experts spread across devices",
	[KNOB_ETP] = "expert tensor parallel: each expert's matrices split across devices",
	[KNOB_ZERO] = "ZeRO level: 1 shards optimizer states, 2 also grads, 3 also weights over dp",
	[KNOB_MBS] = "micro batch: sequences per forward/backward pass of one pipeline stage",
	[KNOB_GBS] = "global batch: sequences per optimizer step over all replicas",
	[KNOB_SEQ] = "seq length: tokens per sequence",
	[KNOB_SP] = "sequence parallel: norms and dropout split along the sequence inside TP",
	[KNOB_RECOMPUTE] = "recompute: activations dropped and recomputed in the backward (none/selective/full)",
	[KNOB_SCHEDULE] = "schedule: the pipeline's order of forward and backward passes",
	[KNOB_PRECISION] = "precision: the matrix multiplications' number format",
	[KNOB_BUDGET] = "budget GiB: the memory a device may use (the bars' limit)",
	[KNOB_DEVICES] = "devices: the job's accelerators; dp follows them (the search keeps them)",
};
/* ... and every pane and mark. */
static const char *const pane_gloss[] = {
	"header       file ([+]: unsaved changes), model and parameters, cluster and devices",
	"Strategy     the knobs; > selected, * pinned (p), INVALID: a rule fails (message line)",
	"Allocated    memory per pipeline stage: weights, grads, optimizer states, activations,",
	"  GiB          communication buffers (ASCII: P G O A C) against the budget; +N over it",
	"Step         step time split into compute, recompute, bubble, each communication kind",
	"               (tp, cp, ep, pp, dp) and the optimizer; MFU and HFU, tokens per second",
	"Timeline     one lane per stage: F forward, B backward, W weight gradients, . idle",
	"message line what the last key did, or why not (M: in full; :messages: all of them)",
};

#define GLOSS_HEAD 3 /* blank, "glossary: knobs", and "panes" lines */

/* Lines of the help text: the bindings, the commands, the glossary. */
static int help_lines(void)
{
	int n;
	tui_bindings(&n);
	return n + 1 + (int)(sizeof commands / sizeof commands[0]) + GLOSS_HEAD + KNOB_COUNT +
		(int)(sizeof pane_gloss / sizeof pane_gloss[0]);
}

/* Line `line` of the help past the bindings and commands (the glossary). */
static void gloss_line(tui_app *a, int y, int cols, int line)
{
	if (line == 0)
		return;
	if (line == 1) {
		tui_text(y, 1, cols - 1, a->attr[ROLE_HELP_KEY], "glossary: knobs");
	} else if (line < 2 + KNOB_COUNT) {
		knob_id k = knob_at(line - 2); /* in the order of the rows */
		tui_textf(y, 1, 16, a->attr[ROLE_HELP_KEY], "%-15s", knob_label(k));
		tui_text(y, 17, cols - 17, a->attr[ROLE_NORMAL], knob_gloss[k]);
	} else if (line == 2 + KNOB_COUNT) {
		tui_text(y, 1, cols - 1, a->attr[ROLE_HELP_KEY], "glossary: panes");
	} else {
		tui_text(y, 1, cols - 1, a->attr[ROLE_NORMAL], pane_gloss[line - 3 - KNOB_COUNT]);
	}
}

void tui_overlay_help(tui_app *a, int rows, int cols)
{
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	int nb;
	const tui_binding *b = tui_bindings(&nb);
	int total = help_lines(), avail = rows - 1;
	if (a->help_top > total - avail)
		a->help_top = total - avail;
	if (a->help_top < 0)
		a->help_top = 0;
	/* where the screen is in the help, as less and vim say it */
	int last = a->help_top + avail < total ? a->help_top + avail : total;
	tui_textf(0, 0, cols, a->attr[ROLE_HEADER], " strata keys and glossary, lines %d-%d of %d%s (j/k, Space/PgDn, "
			"PgUp scroll; q closes)", a->help_top + 1, last, total,
			last == total ? " (end)" : a->help_top == 0 ? " (top)" : "");
	int ncmd = (int)(sizeof commands / sizeof commands[0]);
	for (int i = 0; i < avail; i++) {
		int line = a->help_top + i, y = 1 + i;
		if (line >= total)
			break;
		if (line < nb) {
			tui_textf(y, 1, 16, a->attr[ROLE_HELP_KEY], "%-15s", b[line].names);
			tui_text(y, 17, cols - 17, a->attr[ROLE_NORMAL], b[line].help);
		} else if (line > nb && line <= nb + ncmd) {
			tui_text(y, 1, cols - 1, a->attr[ROLE_LABEL], commands[line - nb - 1]);
		} else if (line > nb + ncmd) {
			gloss_line(a, y, cols, line - nb - ncmd - 1);
		}
	}
}

void tui_overlay_pick(tui_app *a, int rows, int cols)
{
	tui_picker *p = a->pick;
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	if (p->typing)
		tui_textf(0, 0, cols, a->attr[ROLE_HEADER], " Choose a %s: /%s (%d of %d; Backspace, Esc clears)",
				p->kind == 2 ? "Lua recipe" : p->kind ? "cluster" : "model", p->filter, p->n, p->nall);
	else
		tui_textf(0, 0, cols, a->attr[ROLE_HEADER], " Choose a %s (type to filter, %s%s move, Enter %s, Esc cancels)",
				p->kind == 2 ? "Lua recipe" : p->kind ? "cluster" : "model", a->g->up, a->g->down,
				p->kind == 2 ? "runs it" : "picks");
	int avail = rows - 1;
	tui_list_scroll(p->sel, &p->top, avail);
	for (int i = 0; i < avail && p->top + i < p->n; i++) {
		int k = p->top + i, y = 1 + i;
		attr_t at = a->attr[k == p->sel ? ROLE_SELECTED : ROLE_NORMAL];
		tui_fill(y, 0, cols, at);
		tui_textf(y, 0, cols, at, "%s %-16s %s", k == p->sel ? a->g->sel : " ", p->name[p->idx[k]],
				p->info[p->idx[k]]);
	}
	if (p->n == 0 && p->nall > 0)
		tui_textf(1, 1, cols - 1, a->attr[ROLE_ERROR], "nothing contains '%s'", p->filter);
	else if (p->n == 0)
		tui_text(1, 1, cols - 1, a->attr[ROLE_ERROR], p->kind == 2 ? "no recipes found in lua/ (:lua FILE runs any file)" :
				"no presets found (see STRATA_DATA in strata(1))");
}

/* Bytes of s[0..len) that fill at most w columns: all when they fit, else up to the last
 * space that fits (after column `min`), else w columns' worth. */
static size_t wrap_take(const char *s, size_t len, int w, int min)
{
	int col = 0;
	size_t brk = 0;
	for (size_t i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue; /* inside a UTF-8 sequence */
		if (col == w)
			return brk ? brk : i;
		if (s[i] == ' ' && col > min)
			brk = i;
		col++;
	}
	return len;
}

/* Lay the text out in w columns: a line wider than that wraps at a space, its continuation
 * indented two more than the line. Draws the display lines [top, top + n) from screen row
 * 1 on (n = 0: draws none) and returns how many display lines there are. */
static int text_layout(tui_app *a, const char *s, int w, int top, int n)
{
	int d = 0;
	while (*s) {
		size_t len = strcspn(s, "\n");
		char buf[1024];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), s);
		/* tabs of Lua's traceback would jump past the clipping */
		for (char *t = buf; *t; t++)
			if (*t == '\t')
				*t = ' ';
		attr_t at = a->attr[!strncmp(buf, "error: ", 7) ? ROLE_ERROR : ROLE_NORMAL];
		int ind = (int)strspn(buf, " ") + 2;
		if (ind > w / 2)
			ind = w / 2;
		const char *p = buf;
		size_t left = strlen(buf);
		for (int first = 1; first || left; first = 0, d++) {
			int x = first ? 0 : ind;
			size_t take = wrap_take(p, left, w - x, first ? ind : 0);
			if (!take) /* no column to spare: the rest on this line, clipped */
				take = left;
			if (d >= top && d < top + n)
				tui_textf(1 + d - top, 1 + x, w - x, at, "%.*s", (int)take, p);
			p += take;
			left -= take;
			if (left && *p == ' ') /* the space the line broke at */
				p++, left--;
		}
		s += len + (s[len] == '\n');
	}
	return d;
}

void tui_overlay_text(tui_app *a, int rows, int cols)
{
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	tui_textf(0, 0, cols, a->attr[ROLE_HEADER], " %s (j/k scroll, any other key closes)", a->text_title);
	const char *s = a->shown ? a->shown : "";
	int total = text_layout(a, s, cols - 1, 0, 0);
	if (a->text_top > total - (rows - 1))
		a->text_top = total - (rows - 1);
	if (a->text_top < 0)
		a->text_top = 0;
	text_layout(a, s, cols - 1, a->text_top, rows - 1);
}
