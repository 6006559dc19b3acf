/* dp.h - data parallelism: gradient reduction and parameter gathers under each ZeRO level,
 * how much of them hides, and the optimizer update.
 *
 * Sources: ZeRO (Rajbhandari et al. 2020, arXiv 1910.02054): ZeRO-1/2 reduce-scatter the
 * fp32 gradients and all-gather the updated 16-bit parameters (Megatron's distributed
 * optimizer), ZeRO-0 all-reduces them, ZeRO-3/FSDP (Zhao et al. 2023, arXiv 2304.11277)
 * gathers each unit's parameters for forward and backward and reduce-scatters its gradients
 * on every micro-batch, one collective per unit (a layer under FSDP, a submodule's
 * parameters or a prefetch bucket under DeepSpeed; framework.h FW_Z3_*), each with NCCL's
 * start-up and the bandwidth its size gets (comm.h); DeepSpeed under full recompute
 * gathers a layer again for its recompute and a third time what stage3_max_reuse_distance
 * released before the backward (PartitionedParameterCoordinator); the gradient reduction overlaps
 * the last micro-batch's backward (Li et al. 2020, PyTorch DDP, arXiv 2006.15704). Experts'
 * states are sharded over their own data-parallel group (dp*cp*tp/(ep*etp) ranks). The
 * optimizer step is a memory-bound pass over ~34 bytes per locally updated parameter with
 * fp32 states, fewer with the precision-aware optimizer's 16- or 8-bit ones. */
#ifndef STRATA_CORE_COST_DP_H
#define STRATA_CORE_COST_DP_H

#include "core/cost/context.h"
#include "core/cost/compute.h"
#include "core/cost/memory.h"

/* The data-parallel groups of dense and expert parameters. */
typedef struct {
	double d_dense, d_exp;  /* ranks that share (shard) a dense / an expert parameter */
	comm_link dp_l, edp_l;
	comm_ring dp_r, edp_r;  /* the rings of d_dense and d_exp ranks on them */
} dp_groups;

/* How the framework gathers sharded (ZeRO-3) parameters (framework.h, FW_Z3_*): collectives
 * per layer and the transient buffers, the same for every stage of one evaluation. */
typedef struct {
	int unit;               /* FW_Z3_LAYER or FW_Z3_MODULE */
	double gd, ge;          /* all-gathers per layer on the dense and the expert group */
	double unit_params;     /* FSDP's unit: the largest used layer kind's parameters */
	double tmax;            /* largest parameter tensor held per device */
	double rbytes;          /* bytes per gradient element reduce-scattered */
	double buf;             /* bytes of the unsharded parameters and gradients in flight */
	/* DeepSpeed under full recompute (dp_z3_regather): the share of the layers recomputed
	 * in full, and the share of a layer's dense / expert bytes gathered a third time for
	 * the backward after the recompute released them */
	double rc_full, rg_d, rg_e;
} dp_z3;

/* Groups of the context's strategy. */
dp_groups dp_groups_of(const cost_ctx *x);
/* The gather plan of the context's strategy; unit: the largest used layer kind's
 * parameters per device (FSDP's unit). */
dp_z3 dp_zero3_plan(const cost_ctx *x, double unit);
/* DeepSpeed ZeRO-3's re-gather rule: of tensors of sizes n[0..k-1] (elements, in forward
 * order) recomputed in one checkpointed layer, the share of their elements that is released
 * after the recompute and gathered again for the backward, with max_reuse elements the
 * reuse window (stage3_max_reuse_distance). */
double dp_z3_regather(const double *n, int k, double max_reuse);
/* ZeRO-3: exposed gather/reduce seconds per micro-batch of a stage holding pd dense and pe
 * expert parameters in `layers` layers and `ends` embedding/output units, under its forward
 * f and backward b; into *zf, *zb. */
void dp_zero3(const cost_ctx *x, const dp_groups *g, const dp_z3 *z, double pd, double pe, int layers, int ends,
		double f, double b, double *zf, double *zb);
/* ZeRO 0-2: seconds of the once-per-step gradient reduction (and parameter all-gather). */
double dp_sync(const cost_ctx *x, const dp_groups *g, double pd, double pe);
/* The part of a stage's once-per-step sync t_dp (ZeRO 0-2) that no compute can hide: the
 * last gradient bucket reduced after the backward ends and the first parameter bucket
 * gathered before the forward starts, for a stage holding `params` parameters whose
 * largest layer holds `unit`. */
double dp_edge(const cost_ctx *x, double t_dp, double params, double unit);
/* The tied embedding's gradient all-reduce between the first and the last stage, seconds
 * (0 when the model unties them or has one stage); vl_params: its parameters per device. */
double dp_tied_embedding(const cost_ctx *x, comm_link pp_l, double vl_params);
/* The part of a step's gradient sync t_dp left exposed on stage st, whose per-micro-batch
 * forward and backward are f and b (later stages finish their backward earlier); `edge` of
 * it (dp_edge) hides under no compute. */
double dp_sync_exposed(const cost_ctx *x, double t_dp, double edge, int st, double f, double b);
/* Bytes the host's Adam streams per parameter it updates: fp32 gradient read, fp32 master
 * and both moments read and written, the 16-bit parameter written (4 + 3 x 8 + 2). */
#define DP_HOST_ADAM_BYTES 30.0
/* Seconds the host part of an offloaded optimizer adds to the step for n parameters a
 * device updates on the host (copies over the host link, the host's Adam). */
double dp_offload(const cost_ctx *x, double n);
/* Seconds of the optimizer update of the parameters a device updates (the offloaded
 * fraction on the host, dp_offload). */
static inline double dp_optimizer(const cost_ctx *x, const dp_groups *g, double pd, double pe);

static inline double dp_optimizer(const cost_ctx *x, const dp_groups *g, double pd, double pe)
{
	/* main grad read twice (the norm for clipping, the update), master, Adam m and v read
	 * and written, 16-bit copy written: 34 bytes in fp32; a 16-bit master remainder also
	 * reads the bf16 weight it completes (TE FusedAdam, multi_tensor_adam_param_remainder) */
	mem_opt o = x->ob;
	double bytes = 2 * o.g + 2 * o.p + 2 * o.m + 2 * o.v + 2 + (o.rem ? 2 : 0);
	/* a device updates the experts it owns; their redundant replicas (pe counts them) take
	 * the owner's new weights (docs/cost-model.md, "Redundant experts") */
	pe /= x->moe_rep;
	double upd = x->s->zero >= 1 ? pd / g->d_dense + pe / g->d_exp : pd + pe;
	double f = x->s->opt_offload;
	if (f > 0)
		return compute_elem(x, upd * (1 - f) * bytes) + dp_offload(x, upd * f);
	return compute_elem(x, upd * bytes);
}

#endif
