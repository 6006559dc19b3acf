/* advice.c - the plan's dominant losses and the change that helps each most. Every figure
 * is the cost model's: a loss is a part of eval_result's step (eval_step_parts) or the
 * memory over the budget, and a change is measured by running eval_run on the changed
 * strategy (the same devices, global batch and sequence), never estimated. Group placement
 * follows the rank order core/cost/comm.h prices (Megatron-LM's parallel_state.py: tp
 * innermost, then cp, dp, pp; experts' ep within the data-parallel ranks). */
#include "solve/advice.h"
#include "core/cost/comm.h"
#include "core/knob.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ADV_MIN_SHARE 0.03   /* parts below 3 % of the step are not listed */
#define ADV_MIN_GAIN 0.005   /* a change must save 0.5 % of the step to be proposed */

/* The single changes tried. Each keeps the devices: a degree that shrinks hands its
 * factor to another (dp takes it when nothing else is named). */
typedef enum {
	MV_TP_PP, MV_TP_DP, MV_TP_OVERLAP, MV_PP_DP, MV_PP_TP, MV_MBS_DOWN, MV_MBS_UP, MV_VPP_UP, MV_ZB,
	MV_RC_NONE, MV_RC_SEL, MV_RC_FULL, MV_CP_DP, MV_CP_KIND, MV_EP_DOWN, MV_EP_UP, MV_ZERO_UP, MV_ZERO_DOWN,
	MV_DP_PP, MV_DP_TP, MV_DEEPEP, MV_COUNT
} adv_move;

/* The knobs each move changes (pins forbid them). */
static unsigned move_knobs(adv_move mv)
{
	static const unsigned k[MV_COUNT] = {
		[MV_TP_PP] = 1u << KNOB_TP | 1u << KNOB_PP, [MV_TP_DP] = 1u << KNOB_TP | 1u << KNOB_DP,
		[MV_TP_OVERLAP] = 0, [MV_PP_DP] = 1u << KNOB_PP | 1u << KNOB_DP, [MV_PP_TP] = 1u << KNOB_PP | 1u << KNOB_TP,
		[MV_MBS_DOWN] = 1u << KNOB_MBS, [MV_MBS_UP] = 1u << KNOB_MBS,
		[MV_VPP_UP] = 1u << KNOB_VPP | 1u << KNOB_SCHEDULE, [MV_ZB] = 1u << KNOB_SCHEDULE,
		[MV_RC_NONE] = 1u << KNOB_RECOMPUTE, [MV_RC_SEL] = 1u << KNOB_RECOMPUTE, [MV_RC_FULL] = 1u << KNOB_RECOMPUTE,
		[MV_CP_DP] = 1u << KNOB_CP | 1u << KNOB_DP, [MV_CP_KIND] = 0, [MV_EP_DOWN] = 1u << KNOB_EP,
		[MV_EP_UP] = 1u << KNOB_EP, [MV_ZERO_UP] = 1u << KNOB_ZERO, [MV_ZERO_DOWN] = 1u << KNOB_ZERO,
		[MV_DP_PP] = 1u << KNOB_DP | 1u << KNOB_PP, [MV_DP_TP] = 1u << KNOB_DP | 1u << KNOB_TP,
		[MV_DEEPEP] = 0,
	};
	return k[mv];
}

/* A new device split: dp follows, the layer split and the schedule go back to what any
 * depth runs (the even split; 1f1b without a pipeline's virtual stages). */
static void reshape(strategy_t *t)
{
	t->dp = 0;
	t->nchunks = 0;
	t->first_layers = t->last_layers = 0;
	t->acct_embed = t->acct_loss = false;
	if (t->pp == 1) {
		t->vpp = 1;
		t->schedule = SCHED_1F1B;
	}
}

/* Apply move mv to t (a copy of the plan's strategy) and name it in label; 0 when the
 * move does not apply to this strategy. */
static int move_apply(adv_move mv, strategy_t *t, char *label, size_t n)
{
	switch (mv) {
	case MV_TP_PP:
		if (t->tp < 2 || t->tp % 2)
			return 0;
		t->tp /= 2, t->pp *= 2;
		reshape(t);
		snprintf(label, n, "tp %d with pp %d", t->tp, t->pp);
		return 1;
	case MV_TP_DP:
		if (t->tp < 2 || t->tp % 2)
			return 0;
		t->tp /= 2;
		reshape(t);
		snprintf(label, n, "tp %d, dp twice as wide", t->tp);
		return 1;
	case MV_DEEPEP: /* one copy a node instead of one per expert (docs/cost-model.md) */
		if (t->ep < 2 || t->moe_disp == MOED_DEEPEP)
			return 0;
		t->moe_disp = MOED_DEEPEP;
		snprintf(label, n, "DeepEP dispatch (moe_dispatcher: deepep)");
		return 1;
	case MV_TP_OVERLAP:
		if (t->tp < 2 || t->tp_overlap)
			return 0;
		t->tp_overlap = true;
		snprintf(label, n, "TP communication overlap on (--tp-overlap)");
		return 1;
	case MV_PP_DP:
		if (t->pp < 2 || t->pp % 2)
			return 0;
		t->pp /= 2;
		reshape(t);
		snprintf(label, n, "pp %d, dp twice as wide", t->pp);
		return 1;
	case MV_PP_TP:
		if (t->pp < 2 || t->pp % 2)
			return 0;
		t->pp /= 2, t->tp *= 2;
		reshape(t);
		snprintf(label, n, "pp %d with tp %d", t->pp, t->tp);
		return 1;
	case MV_MBS_DOWN:
		if (t->micro_batch < 2)
			return 0;
		t->micro_batch /= 2;
		snprintf(label, n, "micro-batch %d (twice the micro-batches)", t->micro_batch);
		return 1;
	case MV_MBS_UP:
		t->micro_batch *= 2;
		snprintf(label, n, "micro-batch %d", t->micro_batch);
		return 1;
	case MV_VPP_UP:
		if (t->pp < 2)
			return 0;
		t->vpp *= 2;
		t->schedule = SCHED_INTERLEAVED;
		t->nchunks = 0;
		snprintf(label, n, "interleaved schedule with vpp %d", t->vpp);
		return 1;
	case MV_ZB:
		if (t->pp < 2 || t->vpp > 1 || t->schedule == SCHED_ZBH1 || t->schedule == SCHED_ZBH2 ||
				t->schedule == SCHED_ZBV)
			return 0;
		t->schedule = SCHED_ZBH1;
		snprintf(label, n, "zero-bubble schedule zb-h1");
		return 1;
	case MV_RC_NONE:
	case MV_RC_SEL:
	case MV_RC_FULL: {
		int mode = mv == MV_RC_NONE ? RC_NONE : mv == MV_RC_SEL ? RC_SELECTIVE : RC_FULL;
		if (t->recompute == mode && !t->nranges)
			return 0;
		t->recompute = (uint8_t)mode;
		t->nranges = 0;
		snprintf(label, n, "recompute %s", strat_recompute_name(mode));
		return 1;
	}
	case MV_CP_DP:
		if (t->cp < 2 || t->cp % 2)
			return 0;
		t->cp /= 2;
		reshape(t);
		snprintf(label, n, "cp %d, dp twice as wide", t->cp);
		return 1;
	case MV_CP_KIND:
		if (t->cp < 2)
			return 0;
		t->cp_kind = t->cp_kind == CP_RING ? CP_ULYSSES : CP_RING;
		snprintf(label, n, "cp %s instead", strat_cp_kind_name(t->cp_kind));
		return 1;
	case MV_EP_DOWN:
		if (t->ep < 2 || t->ep % 2)
			return 0;
		t->ep /= 2;
		snprintf(label, n, "ep %d", t->ep);
		return 1;
	case MV_EP_UP:
		if (t->ep < 2)
			return 0;
		t->ep *= 2;
		snprintf(label, n, "ep %d", t->ep);
		return 1;
	case MV_ZERO_UP:
	case MV_ZERO_DOWN:
		if (mv == MV_ZERO_UP ? t->zero >= 3 : t->zero <= 0)
			return 0;
		t->zero += mv == MV_ZERO_UP ? 1 : -1;
		snprintf(label, n, "ZeRO %d", t->zero);
		return 1;
	case MV_DP_PP:
	case MV_DP_TP:
		if (t->dp < 2 || t->dp % 2)
			return 0;
		if (mv == MV_DP_PP)
			t->pp *= 2;
		else
			t->tp *= 2;
		reshape(t);
		snprintf(label, n, mv == MV_DP_PP ? "pp %d, dp half as wide" : "tp %d, dp half as wide",
				mv == MV_DP_PP ? t->pp : t->tp);
		return 1;
	default:
		return 0;
	}
}

/* The moves worth trying against each loss, most telling first; MV_COUNT ends a list. */
static const adv_move *kind_moves(adv_kind k)
{
	static const adv_move mem[] = {MV_RC_SEL, MV_RC_FULL, MV_ZERO_UP, MV_DP_PP, MV_DP_TP, MV_MBS_DOWN, MV_COUNT};
	static const adv_move tp[] = {MV_TP_PP, MV_TP_DP, MV_TP_OVERLAP, MV_COUNT};
	static const adv_move cp[] = {MV_CP_DP, MV_CP_KIND, MV_COUNT};
	static const adv_move ep[] = {MV_EP_DOWN, MV_EP_UP, MV_DEEPEP, MV_COUNT};
	static const adv_move pp[] = {MV_PP_DP, MV_PP_TP, MV_COUNT};
	static const adv_move dp[] = {MV_DP_PP, MV_DP_TP, MV_ZERO_DOWN, MV_COUNT};
	static const adv_move bubble[] = {MV_MBS_DOWN, MV_VPP_UP, MV_ZB, MV_PP_DP, MV_PP_TP, MV_COUNT};
	static const adv_move rc[] = {MV_RC_NONE, MV_RC_SEL, MV_COUNT};
	static const adv_move opt[] = {MV_ZERO_UP, MV_COUNT};
	static const adv_move compute[] = {MV_MBS_UP, MV_COUNT};
	static const adv_move *const t[ADV_KINDS] = {mem, tp, cp, ep, pp, dp, bubble, rc, opt, compute};
	return t[k];
}

const char *advice_kind_name(adv_kind k)
{
	static const char *const n[ADV_KINDS] = {"memory", "tp", "cp", "ep", "pp", "dp", "bubble", "recompute",
		"optimizer", "compute"};
	return k < ADV_KINDS ? n[k] : "?";
}

/* Nodes one group of n ranks `stride` apart spans on c (1: inside a node). */
static int group_nodes(const cluster_t *c, int n, long long stride)
{
	int node = c->node_devices > 0 ? c->node_devices : 1;
	long long span = (long long)n * stride;
	if (n <= 1 || span <= node)
		return 1;
	if (stride >= node)
		return n;
	return (int)((span + node - 1) / node);
}

void advice_placement(const cluster_t *c, const strategy_t *s, adv_group out[ADV_GROUPS])
{
	long long tp = s->tp, cp = s->cp, dp = s->dp > 0 ? s->dp : 1;
	adv_group g[ADV_GROUPS] = {
		{"TP", s->tp, group_nodes(c, s->tp, 1)},
		{"CP", s->cp, group_nodes(c, s->cp, tp)},
		{"EP", s->ep, group_nodes(c, s->ep, s->etp)},
		{"DP", (int)dp, group_nodes(c, (int)dp, tp * cp)},
		{"PP", s->pp, group_nodes(c, s->pp, tp * cp * dp)},
	};
	memcpy(out, g, sizeof g);
}

void advice_group_text(const adv_group *g, char *out, size_t n)
{
	if (g->size <= 1)
		snprintf(out, n, "%s 1 (none)", g->name);
	else if (g->nodes <= 1)
		snprintf(out, n, "%s %d inside a node", g->name, g->size);
	else
		snprintf(out, n, "%s %d across %d nodes", g->name, g->size, g->nodes);
}

/* " on the network" or " inside a node" for a group. */
static const char *where(int nodes)
{
	return nodes > 1 ? "on the network" : "inside a node";
}

/* The loss sentence of a part. */
static void loss_text(adv_kind k, const cluster_t *c, const strategy_t *s, const eval_result *r, double share,
		char *out, size_t n)
{
	adv_group g[ADV_GROUPS];
	advice_placement(c, s, g);
	int pct = (int)lround(100 * share);
	switch (k) {
	case ADV_TP:
		if (g[0].nodes > 1)
			snprintf(out, n, "tp %d spans %d nodes: TP all-reduce on the network is %d %% of the step", s->tp,
					g[0].nodes, pct);
		else
			snprintf(out, n, "TP communication (tp %d, inside a node) is %d %% of the step", s->tp, pct);
		break;
	case ADV_CP:
		snprintf(out, n, "cp %d %s exchange %s is %d %% of the step", s->cp, strat_cp_kind_name(s->cp_kind),
				where(g[1].nodes), pct);
		break;
	case ADV_EP:
		snprintf(out, n, "ep %d all-to-all %s is %d %% of the step", s->ep, where(g[2].nodes), pct);
		break;
	case ADV_PP:
		snprintf(out, n, "sends between the %d pipeline stages %s are %d %% of the step", s->pp,
				s->tp * s->cp * (long long)s->dp * 2 <= c->node_devices ? "inside a node" : "on the network", pct);
		break;
	case ADV_DP:
		snprintf(out, n, "gradient sync over dp %d (%s) is %d %% of the step, exposed", s->dp,
				g[3].nodes > 1 ? "across nodes" : "inside a node", pct);
		break;
	case ADV_BUBBLE:
		snprintf(out, n, "%d micro-batches on pp %d (%s): bubble %d %% of the step", r->microbatches, s->pp,
				strat_schedule_name(s->schedule), pct);
		break;
	case ADV_RECOMPUTE:
		snprintf(out, n, "%s recompute costs %d %% of the step", strat_recompute_name(s->recompute), pct);
		break;
	case ADV_OPTIMIZER:
		snprintf(out, n, "the optimizer step is %d %% of the step", pct);
		break;
	case ADV_COMPUTE:
		snprintf(out, n, "compute is %d %% of the step at MFU %.0f %%", pct, 100 * r->mfu);
		break;
	default:
		snprintf(out, n, "stage %d needs %.1f GiB, %.1f over the %.1f GiB budget", r->peak_stage,
				r->peak_bytes / GIB, (r->peak_bytes - r->budget_bytes) / GIB, r->budget_bytes / GIB);
	}
}

/* Evaluate every move of kind k and keep in it the one that helps most: the fastest that
 * fits (for a plan over budget: the fastest that fits at all). */
static void best_fix(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget,
		const eval_result *r, unsigned pinned, adv_item *it, eval_result *ev)
{
	const adv_move *mv = kind_moves(it->kind);
	for (int i = 0; mv[i] != MV_COUNT; i++) {
		if (move_knobs(mv[i]) & pinned)
			continue;
		strategy_t t = *s;
		char label[120];
		if (!move_apply(mv[i], &t, label, sizeof label))
			continue;
		char why[160];
		if (strat_resolve(&t, devices, why, sizeof why))
			continue;
		if (eval_run(m, c, devices, &t, budget, ev) || !ev->fits)
			continue;
		double gain = ev->step / r->step - 1;
		if (r->fits && gain > -ADV_MIN_GAIN)
			continue;
		if (it->has_fix && ev->step >= it->fix_step)
			continue;
		it->has_fix = 1;
		snprintf(it->fix, sizeof it->fix, "%s", label);
		it->fix_s = t;
		it->fix_step = ev->step;
		it->fix_peak_gib = ev->peak_bytes / GIB;
		it->gain = gain;
	}
}

/* The recompute loss also says what the recomputation saves: the peak without it. */
static void recompute_saves(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget,
		const eval_result *r, adv_item *it, eval_result *ev)
{
	strategy_t t = *s;
	t.recompute = RC_NONE;
	t.nranges = 0;
	if (eval_run(m, c, devices, &t, budget, ev))
		return;
	size_t l = strlen(it->loss);
	double saved = (ev->peak_bytes - r->peak_bytes) / GIB;
	if (ev->fits)
		snprintf(it->loss + l, sizeof it->loss - l, "; it saves %.1f GiB here", saved > 0 ? saved : 0);
	else
		snprintf(it->loss + l, sizeof it->loss - l, "; without it the peak is %.1f GiB (over the budget)",
				ev->peak_bytes / GIB);
}

static adv_kind part_kind(int i)
{
	/* eval_step_parts' order: compute, recompute, bubble, tp, cp, ep, pp, dp, optimizer */
	static const adv_kind k[EVAL_NPARTS] = {ADV_COMPUTE, ADV_RECOMPUTE, ADV_BUBBLE, ADV_TP, ADV_CP, ADV_EP, ADV_PP,
		ADV_DP, ADV_OPTIMIZER};
	return k[i];
}

int advice_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget_gib,
		const eval_result *r, unsigned pinned, adv_list *out)
{
	memset(out, 0, sizeof *out);
	if (!r->valid || !(r->step > 0))
		return -1;
	eval_result *ev = malloc(sizeof *ev);
	if (!ev)
		return -1;
	eval_part parts[EVAL_NPARTS];
	eval_step_parts(r, parts);
	/* candidates: the memory first when over budget, then the parts by size */
	int order[EVAL_NPARTS], k = 0;
	for (int i = 1; i < EVAL_NPARTS; i++)
		if (parts[i].s >= ADV_MIN_SHARE * r->step)
			order[k++] = i;
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && parts[order[j]].s > parts[order[j - 1]].s; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	if (!r->fits) {
		adv_item *it = &out->item[out->n++];
		it->kind = ADV_MEMORY;
		it->seconds = 0;
		loss_text(ADV_MEMORY, c, s, r, 0, it->loss, sizeof it->loss);
		best_fix(m, c, devices, s, budget_gib, r, pinned, it, ev);
	}
	for (int i = 0; i < k && out->n < ADV_MAX - 1; i++) {
		adv_item *it = &out->item[out->n++];
		it->kind = part_kind(order[i]);
		it->seconds = parts[order[i]].s;
		it->share = it->seconds / r->step;
		loss_text(it->kind, c, s, r, it->share, it->loss, sizeof it->loss);
		if (it->kind == ADV_RECOMPUTE)
			recompute_saves(m, c, devices, s, budget_gib, r, it, ev);
		best_fix(m, c, devices, s, budget_gib, r, pinned, it, ev);
	}
	/* what is left is the kernels: say whether a larger micro-batch runs them faster */
	adv_item *it = &out->item[out->n];
	memset(it, 0, sizeof *it);
	it->kind = ADV_COMPUTE;
	it->seconds = parts[0].s;
	it->share = it->seconds / r->step;
	loss_text(ADV_COMPUTE, c, s, r, it->share, it->loss, sizeof it->loss);
	best_fix(m, c, devices, s, budget_gib, r, pinned, it, ev);
	if (it->has_fix || out->n == 0)
		out->n++;
	free(ev);
	return 0;
}

void advice_fix_text(const adv_item *it, char *out, size_t n)
{
	if (!it->has_fix) {
		snprintf(out, n, it->kind == ADV_MEMORY ? "no single change fits the budget; the search combines several"
				: "no single change the model tried helps");
		return;
	}
	double t = it->fix_step;
	snprintf(out, n, "%s: %+.0f %% step (%.4g %s, %.1f GiB)", it->fix, 100 * it->gain, t >= 1 ? t : 1e3 * t,
			t >= 1 ? "s" : "ms", it->fix_peak_gib);
}
