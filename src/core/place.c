/* place.c - the placement of a strategy's groups on the scale-up domain (place.h). */
#include "core/place.h"
#include "core/cost/comm.h"

#include <stdio.h>

/* The link the cost model prices group kind i on: pipeline sends and ring-attention steps
 * on one neighbour's path, the EP and Ulysses all-to-alls at each rank's NIC share across
 * domains, the rest as ring collectives (cost/comm.h). */
static comm_link place_link(const cluster_t *c, const strategy_t *s, int i, long long n, long long stride)
{
	if (i == PLACE_PP)
		return comm_pp_link(c, s);
	if (i == PLACE_EP)
		return comm_a2a_link(c, (int)n, (int)stride);
	if (i == PLACE_CP && strat_cp_mode(s) == CP_ULYSSES)
		return comm_a2a_link(c, (int)n, (int)stride);
	if (i == PLACE_CP) /* ring or USP: the ring over the Ulysses groups paces the steps */
		return comm_cp_ring_link(c, s, strat_cp_ulysses(s));
	return comm_group(c, (int)n, (int)stride);
}

int place_groups(const cluster_t *c, const strategy_t *s, place_group out[PLACE_COUNT])
{
	/* Megatron-LM's rank order (megatron/core/parallel_state.py, order "tp-cp-ep-dp-pp"):
	 * the dense grid is tp (stride 1) < cp (tp) < dp (tp*cp) < pp (tp*cp*dp); the expert
	 * grid over the same ranks is etp (1) < ep (etp) < edp (ep*etp) < pp. The gradient
	 * sync runs over dp x cp (stride tp); cost/context.c and cost/dp.c price these groups. */
	long long tp = s->tp, cp = s->cp, dp = s->dp, ep = s->ep, etp = s->etp;
	long long edp = ep * etp > 0 ? dp * cp * tp / (ep * etp) : 1;
	const struct { const char *name; long long n, stride; } g[PLACE_COUNT] = {
		[PLACE_TP] = {"tp", tp, 1}, [PLACE_CP] = {"cp", cp, tp}, [PLACE_DP] = {"dp", dp * cp, tp},
		[PLACE_ETP] = {"etp", etp, 1}, [PLACE_EP] = {"ep", ep, etp}, [PLACE_EDP] = {"edp", edp, ep * etp},
		[PLACE_PP] = {"pp", s->pp, tp * cp * dp},
	};
	int multi = 0;
	for (int i = 0; i < PLACE_COUNT; i++) {
		place_group *o = &out[i];
		o->name = g[i].name;
		o->size = (int)g[i].n;
		o->stride = g[i].stride;
		comm_link l = place_link(c, s, i, g[i].n, g[i].stride);
		o->in_domain = !l.inter;
		o->gbps = l.bw / 1e9;
		multi += g[i].n > 1;
	}
	return multi;
}

char *place_summary(const cluster_t *c, const strategy_t *s, char *buf, size_t len)
{
	place_group g[PLACE_COUNT];
	place_groups(c, s, g);
	size_t o = 0;
	buf[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		int any = 0;
		for (int i = 0; i < PLACE_COUNT; i++) {
			if (g[i].size <= 1 || g[i].in_domain != !pass || o >= len)
				continue;
			o += (size_t)snprintf(buf + o, len - o, "%s%s%d", any ? " " : o ? " | " : "", g[i].name, g[i].size);
			any = 1;
		}
		if (any && o < len)
			o += (size_t)snprintf(buf + o, len - o, pass ? " across network" : " in domain(%d)",
					cluster_domain_devices(c));
	}
	if (!o)
		snprintf(buf, len, "one device: no groups");
	return buf;
}
