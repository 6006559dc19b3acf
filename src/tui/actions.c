/* actions.c - knob stepping, typed values, pins, save/open, quit. */
#include "tui/actions.h"
#include "io/plan_write.h"
#include "tui/safety.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "tp 8 -> 16, dp 16 -> 8": every knob in mask, old and new value. */
static void describe(const tui_app *a, const knob_job *from, const knob_job *to, unsigned mask, char *out,
		size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (int row = 0; row < KNOB_COUNT && len < n; row++) {
		knob_id k = knob_at(row); /* in the order of the rows: devices before dp */
		if (!(mask & (1u << k)))
			continue;
		char v0[32], v1[32];
		knob_format(from, &a->plan->cluster, (knob_id)k, v0, sizeof v0);
		knob_format(to, &a->plan->cluster, (knob_id)k, v1, sizeof v1);
		len += (size_t)snprintf(out + len, n - len, "%s%s %s %s %s", len ? ", " : "", knob_label((knob_id)k), v0,
				a->g->arrow, v1);
	}
	if (!(mask & (1u << KNOB_DEVICES)) && from->devices != to->devices && len < n)
		snprintf(out + len, n - len, "%sdevices %d %s %d", len ? ", " : "", from->devices, a->g->arrow, to->devices);
}

/* After a change: say what moved, or why the new strategy is invalid. */
static void report(tui_app *a, const char *what)
{
	if (!a->cur_valid)
		tui_app_msg(a, MSG_ERROR, "invalid: %s", a->cur_why);
	else
		tui_app_msg(a, MSG_INFO, "%s", what);
}

static void job_into(plan_t *p, const knob_job *j)
{
	p->strategy = j->s;
	p->devices = j->devices;
	p->budget_gib = j->budget_gib;
}

int tui_fix_split(plan_t *p)
{
	strategy_t *s = &p->strategy;
	int dropped = 0;
	if (s->nchunks) {
		int sum = 0;
		for (int i = 0; i < s->nchunks; i++)
			sum += s->chunk_layers[i];
		if (s->nchunks != s->pp * s->vpp || sum != p->model.layers) {
			s->nchunks = 0;
			dropped = 1;
		}
	}
	for (int i = 0; i < s->nranges; i++)
		if (s->range[i].hi > p->model.layers) {
			s->nranges = 0;
			dropped = 1;
			break;
		}
	return dropped;
}

void tui_step(tui_app *a, int dir)
{
	knob_job j0 = tui_app_job(a), j = j0;
	unsigned changed;
	char why[256], what[256];
	/* an ILP stage split fits one pp x vpp: step as if it were even, keep it if it
	 * still fits afterwards (tui_fix_split) */
	j.s.nchunks = 0;
	j.s.first_layers = j.s.last_layers = 0;
	j.s.acct_embed = j.s.acct_loss = false;
	if (knob_step(&a->plan->model, &a->plan->cluster, &j, (knob_id)a->sel, dir, tui_app_pinned(a), &changed, why,
			sizeof why)) {
		tui_app_msg(a, MSG_ERROR, "%s", why);
		return;
	}
	j.s.nchunks = j0.s.nchunks;
	j.s.first_layers = j0.s.first_layers;
	j.s.last_layers = j0.s.last_layers;
	j.s.acct_embed = j0.s.acct_embed;
	j.s.acct_loss = j0.s.acct_loss;
	plan_t p = *a->plan;
	job_into(&p, &j);
	int dropped = tui_fix_split(&p);
	if (strat_split_keys(&p.strategy) && strat_split_check(&p.strategy, p.model.layers, what, sizeof what)) {
		/* the split keys fit one pp x vpp: dropped when the step leaves it */
		p.strategy.first_layers = p.strategy.last_layers = 0;
		p.strategy.acct_embed = p.strategy.acct_loss = false;
		dropped = 1;
	}
	describe(a, &j0, &j, changed | 1u << a->sel, what, sizeof what);
	if (dropped)
		snprintf(what + strlen(what), sizeof what - strlen(what), " (ILP stage split dropped: even again)");
	tui_app_commit(a, &p);
	a->changed = changed | 1u << a->sel;
	report(a, what);
}

unsigned tui_knobs_changed(const tui_app *a, const knob_job *from, const knob_job *to)
{
	unsigned mask = 0;
	for (int k = 0; k < KNOB_COUNT; k++) {
		char v0[32], v1[32];
		knob_format(from, &a->plan->cluster, (knob_id)k, v0, sizeof v0);
		knob_format(to, &a->plan->cluster, (knob_id)k, v1, sizeof v1);
		if (strcmp(v0, v1))
			mask |= 1u << k;
	}
	return mask;
}

void tui_commit_described(tui_app *a, const plan_t *p, const char *prefix)
{
	knob_job j0 = tui_app_job(a), j1 = {p->strategy, p->devices, p->budget_gib};
	unsigned mask = tui_knobs_changed(a, &j0, &j1);
	char what[300];
	describe(a, &j0, &j1, mask, what, sizeof what);
	tui_app_commit(a, p);
	a->changed = mask;
	if (!a->cur_valid)
		tui_app_msg(a, MSG_ERROR, "%s; invalid: %s", prefix, a->cur_why);
	else
		tui_app_msg(a, MSG_INFO, "%s%s%s", prefix, what[0] ? ": " : "", what);
}

void tui_pin(tui_app *a)
{
	unsigned bit = 1u << a->sel;
	plan_t p = *a->plan;
	for (int i = 0; i < p.npins; i++) {
		if (knob_pin_bit(p.pins[i]) != bit)
			continue;
		char old[128];
		snprintf(old, sizeof old, "%s", p.pins[i]);
		memmove(p.pins[i], p.pins[i + 1], (size_t)(p.npins - i - 1) * sizeof p.pins[0]);
		p.npins--;
		tui_app_commit(a, &p);
		tui_app_msg(a, MSG_INFO, "unpinned %s", old);
		return;
	}
	if (p.npins >= PLAN_MAX_PINS) {
		tui_app_msg(a, MSG_ERROR, "at most %d pins", PLAN_MAX_PINS);
		return;
	}
	knob_job j = tui_app_job(a);
	knob_pin_text(&j, &a->plan->cluster, (knob_id)a->sel, p.pins[p.npins], sizeof p.pins[0]);
	p.npins++;
	tui_app_commit(a, &p);
	tui_app_msg(a, MSG_INFO, "pinned %s (stepping leaves it alone; saved with the plan)", p.pins[p.npins - 1]);
}

/* Apply assignments to p. Knobs keep their derived values consistent (dp after tp, ...);
 * pinned knobs refuse to change. 0, or -1 with err. */
static int apply(tui_app *a, plan_t *p, const char *text, unsigned *changed, char *err, size_t n)
{
	unsigned pinned = tui_app_pinned(a);
	char buf[512];
	snprintf(buf, sizeof buf, "%s", text);
	char *save = NULL;
	int count = 0;
	/* commas also separate assignments, so a list value (recompute_modules=moe_act,layernorm)
	 * arrives in pieces: a bare word after such an assignment extends its list */
	char list[256] = "";
	for (char *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq && list[0]) {
			size_t used = strlen(list);
			snprintf(list + used, sizeof list - used, ",%s", tok);
			if (plan_set(p, "recompute_modules", list, err, n))
				return -1;
			continue;
		}
		list[0] = 0;
		if (!eq || eq == tok || !eq[1]) {
			snprintf(err, n, "write key=value (got '%s')", tok);
			return -1;
		}
		*eq = 0;
		const char *key = tok, *val = eq + 1;
		count++;
		if (!strcmp(key, "model") || !strcmp(key, "cluster")) {
			int rc = key[0] == 'm' ? plan_load_model(&p->model, val, a->paths, err, n) :
				plan_load_cluster(&p->cluster, val, a->paths, err, n);
			if (rc)
				return -1;
			snprintf(key[0] == 'm' ? p->model_ref : p->cluster_ref, sizeof p->model_ref, "%s", val);
			continue;
		}
		int k = knob_find(key);
		if (k >= 0 && (pinned & (1u << k))) {
			snprintf(err, n, "%s is pinned (p unpins it)", knob_label((knob_id)k));
			return -1;
		}
		if (plan_set(p, key, val, err, n))
			return -1;
		if (!strcmp(key, "recompute_modules"))
			snprintf(list, sizeof list, "%s", val);
		knob_job j = {p->strategy, p->devices, p->budget_gib};
		unsigned moved = knob_rederive(&j, k >= 0 ? k : KNOB_COUNT); /* devices, n: KNOB_DEVICES */
		if (moved & pinned) {
			for (int i = 0; i < KNOB_COUNT; i++)
				if (moved & pinned & (1u << i)) {
					snprintf(err, n, "%s=%s would change %s, which is pinned", key, val, knob_label((knob_id)i));
					return -1;
				}
		}
		*changed |= moved | (k >= 0 ? 1u << k : 0);
		job_into(p, &j);
	}
	if (!count) {
		snprintf(err, n, "nothing to set: write key=value, e.g. tp=8");
		return -1;
	}
	return 0;
}

int tui_set(tui_app *a, const char *assignments)
{
	plan_t p = *a->plan;
	unsigned changed = 0;
	char err[512], what[300];
	if (apply(a, &p, assignments, &changed, err, sizeof err)) {
		tui_app_msg(a, MSG_ERROR, "%s", err);
		return -1;
	}
	int dropped = tui_fix_split(&p);
	knob_job j0 = tui_app_job(a);
	knob_job j1 = {p.strategy, p.devices, p.budget_gib};
	describe(a, &j0, &j1, changed, what, sizeof what);
	if (dropped)
		snprintf(what + strlen(what), sizeof what - strlen(what), " (ILP stage split dropped: even again)");
	tui_app_commit(a, &p);
	a->changed = changed;
	report(a, what[0] ? what : assignments);
	return 0;
}

void tui_prompt_open(tui_app *a, tui_prompt_kind kind, const char *label, const char *init)
{
	a->mode = MODE_PROMPT;
	a->prompt.kind = kind;
	snprintf(a->prompt.label, sizeof a->prompt.label, "%s", label);
	snprintf(a->prompt.buf, sizeof a->prompt.buf, "%s", init ? init : "");
	a->prompt.len = (int)strlen(a->prompt.buf);
	a->hist_pos = 0;
	a->comp_active = 0;
}

void tui_save(tui_app *a, const char *path, int force)
{
	const char *target = path && path[0] ? path : a->save_path[0] ? a->save_path : NULL;
	if (!target) {
		tui_prompt_open(a, PROMPT_SAVE, "save plan as: ", "plan.yaml");
		return;
	}
	char err[1024], file[1024];
	snprintf(file, sizeof file, "%s", target);
	/* the plan's own file is saved to without a question; another existing one asks once */
	if (!force && strcmp(file, a->save_path) && tui_confirm_needed(file)) {
		tui_confirm_ask(a, CONFIRM_SAVE, file, 0, 0);
		return;
	}
	if (plan_save(a->plan, file, a->paths, err, sizeof err)) {
		tui_app_msg(a, MSG_ERROR, "not saved: %s", err);
		return;
	}
	tui_recover_forget(a); /* the recovery file of the old name is stale now */
	tui_app_mark_saved(a);
	snprintf(a->save_path, sizeof a->save_path, "%s", file);
	tui_recover_forget(a);
	if (a->cur_valid)
		tui_app_msg(a, MSG_INFO, "saved %s (strata eval %s evaluates it)", file, file);
	else
		tui_app_msg(a, MSG_ERROR, "saved %s, but its strategy is invalid: %s", file, a->cur_why);
}

plan_t *tui_load_plan(tui_app *a, const char *path, const char *what)
{
	plan_t *p = malloc(sizeof *p);
	char err[1024];
	if (!p) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return NULL;
	}
	if (plan_load_file(p, path, a->paths, err, sizeof err)) {
		tui_app_msg(a, MSG_ERROR, "%s%s", what, err);
		free(p);
		return NULL;
	}
	return p;
}

void tui_open(tui_app *a, const char *path, int force)
{
	if (a->dirty && !force) {
		tui_app_msg(a, MSG_ERROR, "unsaved changes: w saves them, :e! %s opens it and drops them", path);
		return;
	}
	plan_t *p = tui_load_plan(a, path, "");
	char err[1024];
	if (!p)
		return;
	int resolved = !strat_resolve(&p->strategy, p->devices, err, sizeof err);
	/* a new file starts a new history: u never brings back another file's plan */
	tui_app_reset(a, p);
	free(p);
	snprintf(a->save_path, sizeof a->save_path, "%s", path);
	if (!resolved || !a->cur_valid)
		tui_app_msg(a, MSG_ERROR, "opened %s; invalid: %s", path, resolved ? a->cur_why : err);
	else
		tui_app_msg(a, MSG_INFO, "opened %s", path);
	tui_recover_offer(a);
}

void tui_request_quit(tui_app *a, int force)
{
	if (a->dirty && !force && !a->quit_armed) {
		a->quit_armed = 1;
		tui_app_msg(a, MSG_ERROR, "unsaved changes: q again quits without saving, w saves");
		return;
	}
	a->quit = 1;
}
