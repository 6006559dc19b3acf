/* dp.c - data-parallel communication and the optimizer step (dp.h has the sources). */
#include "core/cost/compute.h"
#include "core/cost/dp.h"
#include "core/framework.h"

dp_groups dp_groups_of(const cost_ctx *x)
{
	const strategy_t *s = x->s;
	dp_groups g;
	g.d_dense = (double)s->dp * s->cp;
	g.d_exp = (double)s->dp * s->cp * s->tp / ((double)s->ep * s->etp);
	g.dp_l = comm_group(x->c, s->dp * s->cp, s->tp);
	g.edp_l = comm_group(x->c, (int)g.d_exp, s->ep * s->etp);
	g.dp_r = comm_ring_of(g.dp_l, (int)g.d_dense);
	g.edp_r = comm_ring_of(g.edp_l, (int)g.d_exp);
	return g;
}

/* The parameter tensors of one layer of kind k on a device: how many all-gathers DeepSpeed
 * issues for its dense and expert parts (coalesced up to the prefetch bucket, never fewer
 * than one per bucket nor more than one per tensor), and its largest tensor. Norms and
 * biases stay unpartitioned (stage3_param_persistence_threshold). The tensors are those of
 * the Hugging Face modelling code DeepSpeed usually runs: q, k, v, o (MLA: q or q_a and q_b,
 * kv_a, kv_b, o), gate/up/down or fc1/fc2, the router. */
static void z3_kind(const cost_ctx *x, int k, double *gd, double *ge, double *tmax)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const layer_kind *t = &m->kind[k];
	layer_params lp = model_layer_params(m, k);
	double g = model_kind_gated(m, k) ? 2.0 : 1.0, h = model_kind_hidden(m, k), tp = s->tp;
	double nd = (t->attn == ATTN_MLA && t->q_lora > 0 ? 5 : 4) + (t->ffn > 0 && t->experts == 0 ? g + 1 : 0) +
		(t->shared > 0 ? g + 1 : 0) + (t->experts > 0 ? 1 : 0);
	double ne = t->experts > 0 ? ((double)t->experts / s->ep + s->moe_redundant) * (g + 1) : 0;
	double pd = (lp.attn + lp.mlp_dense + lp.experts_shared + lp.extra) / tp + lp.router;
	double pe = lp.experts_routed / ((double)s->ep * s->etp) * strat_moe_replica(s, t->experts);
	double bd = pd / FW_DS_PREFETCH, be = pe / FW_DS_PREFETCH;
	bd = bd > 1 ? bd : 1;
	be = be > 1 ? be : 1;
	*gd = bd < nd ? bd : nd;
	*ge = ne > 0 ? (be < ne ? be : ne) : 0;
	double o = h * t->heads * (t->attn == ATTN_MLA ? t->v_head : t->head_dim) / tp;
	double f = h * (t->experts == 0 ? t->ffn / tp : t->expert_ffn / (double)s->etp);
	double sh = h * t->shared * (double)t->expert_ffn / tp;
	*tmax = o > f ? o : f;
	*tmax = sh > *tmax ? sh : *tmax;
}

/* Elements among n[lo..hi-1] that DeepSpeed's PartitionedParameterCoordinator
 * (__params_to_release) gathers again for the backward of a checkpointed layer whose k
 * tensors n[] (forward order) were just recomputed: a submodule's parameters stay gathered
 * only if they reoccur in the traced submodule order before max_reuse elements of
 * parameters have been traversed, and after the recompute of tensor j come the recompute
 * of the tensors after it, their backward in reverse, then j's own backward: 2 x the
 * elements after j lie between its two uses. */
static double z3_again(const double *n, int k, int lo, int hi, double max_reuse)
{
	double after = 0, again = 0;
	for (int j = k - 1; j >= 0; j--) {
		if (2 * after >= max_reuse && j >= lo && j < hi)
			again += n[j];
		after += n[j];
	}
	return again;
}

double dp_z3_regather(const double *n, int k, double max_reuse)
{
	double total = 0;
	for (int j = 0; j < k; j++)
		total += n[j];
	return total > 0 ? z3_again(n, k, 0, k, max_reuse) / total : 0;
}

/* The tensors of one layer of kind k on a device in forward order (elements), dense part
 * into d[0..*nd-1], routed experts into e[0..*ne-1] (at most 8 entries each for the dense,
 * nloc x (g+1) collapsed to g+1 per-expert groups of the same size for the experts, whose
 * order within a layer does not change which are re-gathered when the experts run last). */
static void z3_tensors(const cost_ctx *x, int k, double *d, int *nd, double *e, int *ne)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const layer_kind *t = &m->kind[k];
	layer_params lp = model_layer_params(m, k);
	double g = model_kind_gated(m, k) ? 2.0 : 1.0, h = model_kind_hidden(m, k), tp = s->tp;
	int i = 0;
	if (t->attn == ATTN_MLA) {
		/* MLA: q (or q_a, q_b), kv_a, kv_b, o, taken as equal shares of the attention */
		int na = t->q_lora > 0 ? 5 : 4;
		for (int j = 0; j < na; j++)
			d[i++] = lp.attn / tp / na;
	} else {
		double q = h * t->heads * (double)t->head_dim / tp, kv = h * t->kv_heads * (double)t->head_dim / tp;
		d[i++] = q;
		d[i++] = kv;
		d[i++] = kv;
		d[i++] = q;
	}
	if (t->experts > 0)
		d[i++] = lp.router;
	double fl = t->experts == 0 ? (double)t->ffn : t->shared > 0 ? (double)t->shared * t->expert_ffn : 0;
	for (int j = 0; fl > 0 && j < (int)g + 1; j++)
		d[i++] = h * fl / tp;
	*nd = i;
	*ne = 0;
	if (t->experts > 0) {
		double nloc = (double)t->experts / s->ep + s->moe_redundant;
		for (int j = 0; j < (int)g + 1; j++)
			e[(*ne)++] = nloc * h * t->expert_ffn / (double)s->etp;
	}
}

/* The share of the model's layers that run a full recompute (the stage's share is taken
 * as the model's: recompute ranges are rare and usually span the model). */
static double z3_full_share(const strategy_t *s, const model_t *m)
{
	if (m->layers <= 0)
		return 0;
	if (s->nranges == 0)
		return s->recompute == RC_FULL ? 1 : 0;
	int n = 0;
	for (int l = 0; l < m->layers; l++)
		n += strat_layer_recompute(s, l) == RC_FULL;
	return (double)n / m->layers;
}

dp_z3 dp_zero3_plan(const cost_ctx *x, double unit)
{
	const model_t *m = x->m;
	dp_z3 z = {x->fw->zero3_unit, 1, 0, unit, 0, x->ob.g, 0, 0, 0, 0};
	if (x->s->zero != 3)
		return z; /* below ZeRO-3 only the unit is read (dp_edge's FSDP bucket) */
	for (int k = 0; k < m->nkinds; k++) {
		if (!model_kind_used(m, k))
			continue;
		double gd, ge, tm;
		z3_kind(x, k, &gd, &ge, &tm);
		if (z.unit == FW_Z3_MODULE)
			z.gd = gd > z.gd ? gd : z.gd;
		z.ge = ge > z.ge ? ge : z.ge;
		z.tmax = tm > z.tmax ? tm : z.tmax;
	}
	z.rc_full = z.unit == FW_Z3_MODULE ? z3_full_share(x->s, m) : 0;
	for (int k = 0; z.rc_full > 0 && k < m->nkinds; k++) {
		double d[12], e[4];
		int nd, ne;
		if (!model_kind_used(m, k))
			continue;
		z3_tensors(x, k, d, &nd, e, &ne);
		/* the routed experts run last, after the dense tensors; the worst kind counts */
		double n[16], sd = 0, se = 0;
		for (int j = 0; j < nd; j++)
			sd += n[j] = d[j];
		for (int j = 0; j < ne; j++)
			se += n[nd + j] = e[j];
		double rdd = sd > 0 ? z3_again(n, nd + ne, 0, nd, FW_DS_REUSE) / sd : 0;
		double rde = se > 0 ? z3_again(n, nd + ne, nd, nd + ne, FW_DS_REUSE) / se : 0;
		z.rg_d = rdd > z.rg_d ? rdd : z.rg_d;
		z.rg_e = rde > z.rg_e ? rde : z.rg_e;
	}
	if (z.unit == FW_Z3_LAYER) {
		/* FSDP: the current and the prefetched unit unsharded (16-bit parameters) and the
		 * unit's gradients before their reduce-scatter (fp32); one gather per layer and
		 * group (torchtitan wraps the experts on their own mesh) */
		z.ge = z.ge > 0 ? 1 : 0;
		z.buf = unit * (2 * 2 + 4);
		return z;
	}
	/* DeepSpeed: the live parameters (the current module and the prefetch bucket, under
	 * the live cap, never less than the module itself), the module's 16-bit gradient and
	 * the contiguous reduce bucket, allocated at reduce_bucket_size; gradients reduce in
	 * the parameters' 16-bit dtype (communication_data_type defaults to it) */
	double live = z.tmax + FW_DS_PREFETCH;
	live = live < FW_DS_LIVE ? live : FW_DS_LIVE;
	live = live > z.tmax ? live : z.tmax;
	z.rbytes = 2;
	z.buf = 2 * live + 2 * z.tmax + 2 * FW_DS_REDUCE_BUCKET;
	return z;
}

void dp_zero3(const cost_ctx *x, const dp_groups *g, const dp_z3 *z, double pd, double pe, int layers, int ends,
		double f, double b, double *zf, double *zb)
{
	const cluster_t *c = x->c;
	const comm_ring *dr = &g->dp_r, *er = &g->edp_r;
	*zf = *zb = 0;
	if (!(g->d_dense > 1 || g->d_exp > 1))
		return;
	/* one all-gather per unit and group: per layer under FSDP, per coalesced submodule
	 * group under DeepSpeed, plus the embedding and output units; a group with nothing to
	 * move starts no collective (a dense model's expert group) */
	double L = layers > 0 ? layers : 0, nd = L * z->gd + ends, ne = L * z->ge;
	nd = nd > 1 ? nd : 1;
	ne = ne > 1 ? ne : 1;
	double ag = comm_ring_allgather_units(dr, g->dp_l, pd * 2, nd) +
		(pe > 0 ? comm_ring_allgather_units(er, g->edp_l, pe * 2, ne) : 0);
	/* gradients: per unit under FSDP; in reduce_bucket_size buckets under DeepSpeed */
	double rd = nd, re = ne;
	if (z->unit == FW_Z3_MODULE) {
		rd = pd / FW_DS_REDUCE_BUCKET;
		re = pe / FW_DS_REDUCE_BUCKET;
		rd = rd > 1 ? rd : 1;
		re = re > 1 ? re : 1;
	}
	double rs = comm_ring_allgather_units(dr, g->dp_l, pd * z->rbytes, rd) +
		(pe > 0 ? comm_ring_allgather_units(er, g->edp_l, pe * z->rbytes, re) : 0);
	/* DeepSpeed under full recompute: the forward released each layer's parameters, so
	 * the recompute in backward gathers them again, and the backward a third time those
	 * the recompute released (dp_z3_regather); the same coalesced unit sizes */
	double agb = ag;
	if (z->rc_full > 0) {
		double ud = z->rc_full * L * z->gd * (1 + z->rg_d), ue = z->rc_full * L * z->ge * (1 + z->rg_e);
		agb += comm_ring_allgather_units(dr, g->dp_l, pd * 2 / nd * ud, ud) +
			(pe > 0 && ue > 0 ? comm_ring_allgather_units(er, g->edp_l, pe * 2 / ne * ue, ue) : 0);
	}
	double hide = c->eff.dp_overlap, kap = c->eff.contention;
	*zf = comm_overlap(ag, hide * f, kap);
	*zb = comm_overlap(agb + rs, hide * b, kap);
}

double dp_sync(const cost_ctx *x, const dp_groups *g, double pd, double pe)
{
	const comm_ring *dr = &g->dp_r, *er = &g->edp_r;
	/* a group with nothing to move starts no collective (a dense model's expert group) */
	/* gradients reduce in the main-grad dtype: fp32, or bf16 with Megatron's
	 * --main-grads-dtype bf16 (which needs --grad-reduce-in-bf16) */
	double gb = x->ob.g;
	if (x->s->zero == 0)
		return comm_ring_allreduce(dr, pd * gb) + (pe > 0 ? comm_ring_allreduce(er, pe * gb) : 0);
	/* reduce-scatter of the grads, all-gather of updated 16-bit params */
	double t = comm_ring_allgather(dr, pd * gb) + comm_ring_allgather(dr, pd * 2);
	if (pe > 0)
		t = t + comm_ring_allgather(er, pe * gb) + comm_ring_allgather(er, pe * 2);
	return t;
}

double dp_edge(const cost_ctx *x, double t_dp, double params, double unit)
{
	const strategy_t *s = x->s;
	if (t_dp <= 0 || params <= 0)
		return 0;
	/* Gradients are reduced (and ZeRO-1/2 parameters gathered) bucket by bucket; the last
	 * bucket's reduction starts when the backward ends and the first bucket's gather must
	 * finish before the forward starts. The bucket is the framework's (fw_caps.dp_bucket:
	 * Megatron-Core max(40M, 1M x dp) parameters, DeepSpeed's 5e8-element reduce bucket,
	 * FSDP2's transformer block) */
	const fw_caps *fw = x->fw;
	double bucket = fw->dp_bucket_rank * s->dp * s->cp;
	bucket = bucket > fw->dp_bucket ? bucket : fw->dp_bucket;
	if (bucket <= 0)
		bucket = unit;
	double share = bucket / params;
	return t_dp * (share < 1 ? share : 1);
}

double dp_tied_embedding(const cost_ctx *x, comm_link pp_l, double vl_params)
{
	const strategy_t *s = x->s;
	if (!x->m->tied || s->pp < 2 || s->schedule == SCHED_DUALPIPE)
		return 0;
	/* Megatron's _allreduce_embedding_grads (finalize_model_grads.py) and DeepSpeed's
	 * tied-module reduction: the word embedding's main gradients all-reduced over the
	 * two-rank embedding group of the first and last stage, after the backward */
	return comm_allreduce(pp_l, 2, vl_params * x->ob.g);
}

double dp_sync_exposed(const cost_ctx *x, double t_dp, double edge, int st, double f, double b)
{
	const strategy_t *s = x->s;
	/* gradient reduction overlaps the last micro-batch's backward and the parameter
	 * all-gather the next step's first forward; stage st finishes its backward about st
	 * backward slots before stage 0 does, which hides the edge buckets too */
	double idle = s->pp > 1 ? st * b / s->vpp : 0, left = t_dp - idle;
	left = left > 0 ? left : 0.0;
	double fixed = edge < left ? edge : left;
	left -= fixed;
	/* fmax(0, left) without the library call (once per distinct stage): +0 for a zero of
	 * either sign and for NaN, as glibc's fmax gives */
	return fixed + comm_overlap(left > 0 ? left : 0.0, x->c->eff.dp_overlap * (b + (s->zero >= 1 ? f : 0)),
			x->c->eff.contention);
}

double dp_offload(const cost_ctx *x, double n)
{
	/* The host link per device (cluster key host.link_gbps: PCIe or C2C datasheet rate per
	 * direction) carries the gradients down and the parameters up; the host's Adam is
	 * a memory-bound pass over DP_HOST_ADAM_BYTES per parameter at the host memory
	 * bandwidth of the device's share of the CPUs (host.mem_gbps), a roofline floor:
	 * ZeRO-Offload (Ren et al., USENIX ATC 2021, sec. 5.1) vectorises CPU-Adam so that it
	 * streams at memory speed. Where the framework copies on every micro-batch (FSDP2's
	 * offloaded shards: up before each all-gather, forward and, resharded, backward; the
	 * gradient shard down after each reduce-scatter) the copies repeat; FSDP2 under
	 * pipelining keeps whole parameters and gradients over the step, so once. How much
	 * hides is the framework's (FW_OVL_*). */
	const strategy_t *s = x->s;
	const fw_caps *f = x->fw;
	double link = cluster_host_link_gbps(x->c) * 1e9, mem = cluster_host_mem_gbps(x->c) * 1e9;
	double downs = 1, ups = 1;
	int mb = strat_microbatches(s);
	if (f->offload_per_mb && !(s->pp > 1 && mb > 1 && s->framework != FW_AUTO && f->fsdp_pp_unsharded)) {
		downs = mb;
		ups = s->zero == 3 ? 2.0 * mb : mb;
	}
	double down = downs * n * f->offload_down / link, up = ups * n * f->offload_up / link;
	double host = n * DP_HOST_ADAM_BYTES / mem;
	if (f->offload_overlap == FW_OVL_PIPELINED) {
		double t = down > host ? down : host;
		return up > t ? up : t;
	}
	return (f->offload_overlap == FW_OVL_GRADS ? 0 : down) + host + up;
}
