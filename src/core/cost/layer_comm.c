/* layer_comm.c - communication inside a layer: tensor parallelism (TP), context parallelism
 * (ring, Ulysses or both: USP), expert parallelism (EP all-to-alls) and expert-TP, with what each hides.
 *
 * Sources: Megatron-LM TP (Shoeybi et al. 2019, arXiv 1909.08053): two all-reduces per layer
 * forward and two backward, or with sequence parallelism (Korthikanti et al. 2022) an
 * all-gather and a reduce-scatter of the same volume; Megatron overlaps the backward
 * input-gradient collective with the weight-gradient GEMMs, and --tp-comm-overlap
 * (Transformer Engine userbuffers) also pipelines the forward ones. Ring attention (Liu et
 * al. 2023, arXiv 2310.01889): cp-1 K/V passes, each under the previous block's attention.
 * Ulysses (Jacobs et al. 2023, arXiv 2309.14509): all-to-alls of Q, K, V and the output.
 * MoE dispatch and combine all-to-alls (Megatron-Core token dispatcher); DualPipe hides them
 * under the paired chunk (DeepSeek-V3 report, arXiv 2412.19437, Sec. 3.2.1). */
#include <math.h>

#include "core/framework.h"
#include "core/cost/layer.h"

/* Megatron TP; a MoE layer with SP keeps its tokens sharded through the experts, so only
 * attention (and shared experts) communicate over TP. */
static void tp_comm(const cost_ctx *x, const layer_parts *p, layer_cost *o)
{
	const strategy_t *s = x->s;
	const cluster_t *c = x->c;
	const layer_kind *t = p->sh.t;
	double pairs = (t->experts > 0) ? (1 + (t->shared > 0 ? 1 : 0)) : 2;
	double comm = pairs * comm_allreduce(x->tp_l, s->tp, p->sh.tok * p->sh.h * ACT_BYTES);
	/* Backward: Megatron launches the input-gradient all-reduce (reduce-scatter with SP)
	 * asynchronously and computes the weight gradients meanwhile, so a tp_overlap share of
	 * the wgrad GEMMs hides it. tp_comm_overlap (TE userbuffers) also pipelines the forward
	 * collectives with their GEMMs and backward with dgrad. */
	double win = c->eff.tp_overlap * (p->ap.f + p->mlp.t), kap = c->eff.contention;
	o->tp_f = s->tp_overlap ? comm_overlap(comm, win, kap) : comm;
	/* PyTorch DTensor TP (torchtitan without async TP) runs the backward collectives inside
	 * the autograd graph, each waited for before the next GEMM: none hidden; autograd keeps
	 * the gathered input of each column-parallel GEMM, so nothing is gathered again */
	if (x->fw->tp_bwd_serial && !s->tp_overlap) {
		o->tp_b = comm;
		return;
	}
	o->tp_b = comm_overlap(comm, s->tp_overlap ? 2 * win : win, kap);
	/* With sequence parallelism Megatron (and Transformer Engine's linear layers) keep only
	 * the sharded input of each column-parallel GEMM and all-gather it again in backward
	 * for the weight gradient, launched before the input-gradient GEMM that hides it
	 * (LinearWithGradAccumulationAndAsyncCommunication.backward in Megatron-Core's
	 * tensor_parallel/layers.py; TE's _Linear.backward): one more all-gather per pair */
	if (s->sp)
		o->tp_b += comm_overlap(pairs * comm_allgather(x->tp_l, s->tp, p->sh.tok * p->sh.h * ACT_BYTES), win, kap);
}

/* Context parallelism as a ring of r = cp/u Ulysses groups of u (USP, Fang & Zhao 2024,
 * arXiv 2405.07719, Sec. 3: all-to-all inside the group, ring P2P across; u = 1 is ring
 * attention, u = cp is Ulysses). After the all-to-all a rank holds seq/r tokens of heads/u:
 * the same b*seq/cp*(kd+vd) bytes of K and V as before it, which the ring passes r-1
 * times. Key/value heads fewer than u are repeated to u (USP's GQA rule): each rank then
 * receives one copy, u/kv_l times the K and V it held. */
void lcomm_cp_price(const cost_ctx *x, layer_cost *o)
{
	const strategy_t *s = x->s;
	const lcomm_cp *c = &o->cp_in;
	o->cp_f = o->cp_b = 0;
	if (!c->on)
		return;
	int u = x->cp_u, r = s->cp / u;
	double kvrep = u > c->kv_l ? u / c->kv_l : 1.0;
	double tok = x->b * (x->seq / s->cp);
	if (r > 1) {
		/* r-1 steps each passing the local K and V chunk; each transfer overlaps the
		 * previous step's attention block */
		double kvb = tok * (c->kd + c->vd) * kvrep * ACT_BYTES;
		double step = comm_p2p(x->cpr_l, kvb);
		double comm_f = (r - 1) * step;
		double comm_b = 2 * comm_f;
		o->cp_f = fmax(0, comm_f - c->core_f * (r - 1) / r) + step;
		o->cp_b = fmax(0, comm_b - c->core_b * (r - 1) / r) + step;
	}
	if (u > 1) {
		/* Ulysses: all-to-all of Q, K, V before and of the output after attention */
		double dims = kvrep > 1 ? c->qd + (c->kd + c->vd) * kvrep + c->od : c->qd + c->kd + c->vd + c->od;
		double vol = tok * dims * ACT_BYTES;
		double a2a = comm_alltoall(x->cpu_l, u, vol);
		o->cp_f += a2a;
		o->cp_b += a2a;
	}
}

/* The chance that none of a token's k experts (distinct, top-k) lies in one of g equal
 * groups of the E experts: C(E - E/g, k) / C(E, k). */
static double none_in_group(double experts, int k, double g)
{
	double p = 1, in = experts / g;
	for (int i = 0; i < k && p > 0; i++)
		p *= fmax(0, experts - in - i) / (experts - i);
	return p;
}

/* One DeepEP dispatch (or combine) over the EP group (DeepEP, github.com/deepseek-ai/DeepEP,
 * README "normal kernels"; DeepSeek-V3 report, arXiv 2412.19437, Sec. 3.2.2): a token goes
 * once to each node holding any of its k experts, over RDMA through the rank's own NIC, and
 * is forwarded inside the node over NVLink; within one domain it goes once to each rank
 * holding any of them. `bytes` is the alltoall dispatcher's volume, one copy per expert. */
static double deepep_a2a(const cost_ctx *x, const layer_shape *sh, double bytes)
{
	const cluster_t *c = x->c;
	int n = x->s->ep, k = sh->t->topk;
	double e = sh->t->experts, one = bytes / k; /* a rank's tokens, once each */
	int m = comm_domain_members(c, n, x->s->etp);
	double nodes = x->ep_l.inter ? (double)n / m : 1, ranks, remote;
	if (x->s->moe_route == MOER_CONTIGUOUS) {
		/* k adjacent experts: k*n/E ranks and k*nodes/E nodes, at least one of each, the
		 * token's own node as likely as any */
		double span = fmax(1, k * nodes / e);
		ranks = fmax(1, k * n / e);
		remote = span * (nodes - 1) / nodes;
	} else {
		ranks = n * (1 - none_in_group(e, k, n));
		remote = (nodes - 1) * (1 - none_in_group(e, k, nodes));
	}
	if (!x->ep_l.inter)
		return comm_alltoall(x->ep_l, n, one * ranks);
	double t_net = one * remote / (cluster_net_gbps(c) * 1e9 * c->eff.coll_inter);
	/* inside the node: the token to the (m-1)/m of its ranks there that are not this one */
	double t_in = one * ranks / nodes * (m - 1) / m / (cluster_domain_group_gbps(c, m) * 1e9 * c->eff.coll_intra);
	return fmax(t_net, t_in) + (nodes - 1) * x->ep_l.lat;
}

static void ep_comm(const cost_ctx *x, const layer_parts *p, layer_cost *o)
{
	const strategy_t *s = x->s;
	const cluster_t *c = x->c;
	if (s->ep > 1) {
		/* dispatch and combine all-to-all in forward, the same two in backward */
		double a2a = s->moe_disp == MOED_DEEPEP ? deepep_a2a(x, &p->sh, p->mlp.ep_bytes) :
			comm_alltoall(x->ep_l, s->ep, p->mlp.ep_bytes);
		o->ep_f = 2 * a2a;
		o->ep_b = o->ep_f;
	}
	if (s->etp > 1) {
		/* the all-gather of the group's tokens before the experts and the reduce-scatter
		 * after them (the same two, reversed, in backward): together an all-reduce of the
		 * gathered buffer */
		double one = comm_allreduce(comm_group(c, s->etp, 1), s->etp, p->sh.etml * p->sh.h * ACT_BYTES);
		o->ep_f += one;
		o->ep_b += one;
	}
	if (s->schedule == SCHED_DUALPIPE && o->ep_f + o->ep_b > 0) {
		/* DualPipe runs the forward chunk of one micro-batch beside the backward chunk of
		 * another, each cut into attention, dispatch, MLP and combine, so the all-to-alls
		 * of either run under the other's compute. Per layer: the part the pair's compute
		 * covers costs `contention` (the SMs given to communication), any rest is exposed. */
		double ep = o->ep_f + o->ep_b;
		double shown = comm_overlap(ep, o->f_comp + o->b_in + o->b_w, c->eff.contention);
		o->ep_f *= shown / ep;
		o->ep_b *= shown / ep;
	}
}

void lcomm_price(const cost_ctx *x, const layer_parts *p, layer_cost *o)
{
	if (x->s->tp > 1)
		tp_comm(x, p, o);
	/* the CP ranks share an encoder's images out whole: attention stays within an image,
	 * so no K/V crosses the group (strategy.c asks cp to divide the micro-batch's images) */
	lcomm_cp *c = &o->cp_in;
	c->on = x->s->cp > 1 && p->sh.causal;
	c->kv_l = p->sh.kv_l;
	c->qd = p->sh.qd;
	c->kd = p->sh.kd;
	c->vd = p->sh.vd;
	c->od = p->sh.od;
	c->core_f = p->core.f;
	c->core_b = p->core.b;
	lcomm_cp_price(x, o);
	if (p->sh.moe)
		ep_comm(x, p, o);
}
