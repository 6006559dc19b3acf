/* why_out.c - `eval --why` as text and as JSON: the losses solve/advice.c finds and the
 * placement of the parallel groups. Only formatting lives here. */
#include "cli/cli.h"
#include "core/knob.h"
#include "io/json.h"
#include "io/units.h"
#include "solve/advice.h"

#include <stdio.h>

/* The knobs the plan's pins fix: advice leaves them alone. */
static unsigned pinned_knobs(const plan_t *p)
{
	unsigned m = 0;
	for (int i = 0; i < p->npins; i++)
		m |= knob_pin_bit(p->pins[i]);
	return m;
}

void cli_why_text(FILE *f, const plan_t *p, const eval_result *r)
{
	adv_list l;
	char t[32], fx[200];
	units_time(r->step, t, sizeof t);
	fprintf(f, "\nwhy is it slow (step %s, MFU %.1f%%)\n", t, 100 * r->mfu);
	if (advice_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r, pinned_knobs(p), &l)) {
		fprintf(f, "  (no advice: out of memory)\n");
		return;
	}
	for (int i = 0; i < l.n; i++) {
		advice_fix_text(&l.item[i], fx, sizeof fx);
		fprintf(f, "  %d. %s\n     -> %s\n", i + 1, cli_safe(l.item[i].loss), fx);
	}
	adv_group g[ADV_GROUPS];
	advice_placement(&p->cluster, &p->strategy, g);
	fprintf(f, "placement (%d devices per node, rank order tp-cp-dp-pp):", p->cluster.node_devices);
	for (int i = 0; i < ADV_GROUPS; i++) {
		advice_group_text(&g[i], fx, sizeof fx);
		fprintf(f, "%s %s", i ? ";" : "", fx);
	}
	fprintf(f, "\n");
}

void cli_why_json(struct json_w *w, const plan_t *p, const eval_result *r)
{
	adv_list l;
	if (advice_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, r, pinned_knobs(p), &l))
		l.n = 0;
	json_arr_begin(w, "why");
	for (int i = 0; i < l.n; i++) {
		const adv_item *it = &l.item[i];
		json_obj_begin(w, NULL);
		json_str(w, "kind", advice_kind_name(it->kind));
		json_str(w, "loss", it->loss);
		json_num(w, "seconds", it->seconds);
		json_num(w, "share", it->share);
		if (it->has_fix) {
			json_str(w, "fix", it->fix);
			json_num(w, "fix_step_s", it->fix_step);
			json_num(w, "fix_peak_gib", it->fix_peak_gib);
			json_num(w, "gain", it->gain);
			json_obj_begin(w, "fix_strategy");
			json_int(w, "dp", it->fix_s.dp);
			json_int(w, "tp", it->fix_s.tp);
			json_int(w, "pp", it->fix_s.pp);
			json_int(w, "vpp", it->fix_s.vpp);
			json_int(w, "cp", it->fix_s.cp);
			json_int(w, "ep", it->fix_s.ep);
			json_int(w, "zero", it->fix_s.zero);
			json_int(w, "micro_batch", it->fix_s.micro_batch);
			json_str(w, "recompute", strat_recompute_name(it->fix_s.recompute));
			json_str(w, "schedule", strat_schedule_name(it->fix_s.schedule));
			json_obj_end(w);
		} else {
			json_null(w, "fix");
		}
		json_obj_end(w);
	}
	json_arr_end(w);
	adv_group g[ADV_GROUPS];
	advice_placement(&p->cluster, &p->strategy, g);
	json_arr_begin(w, "placement");
	for (int i = 0; i < ADV_GROUPS; i++) {
		json_obj_begin(w, NULL);
		json_str(w, "group", g[i].name);
		json_int(w, "size", g[i].size);
		json_int(w, "nodes", g[i].nodes);
		json_bool(w, "inside_node", g[i].nodes <= 1);
		json_obj_end(w);
	}
	json_arr_end(w);
}
