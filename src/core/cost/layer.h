/* layer.h - the cost of one transformer layer of a kind, per micro-batch on one device:
 * its shape under the strategy, the priced parts (attention, MLP, element-wise work, stored
 * tensors) and their sum, with communication and every recompute mode.
 *
 * Each layer kind is priced at its own width and MLP type (model.h); layer_price composes
 * the physics modules: attention.c (projections), compute.c (the attention core), mlp.c
 * (dense MLP, routed and shared experts), memory.c (stored activations), layer_comm.c (TP,
 * CP, EP), recompute.c (what selective recomputation keeps and re-runs). */
#ifndef STRATA_CORE_COST_LAYER_H
#define STRATA_CORE_COST_LAYER_H

#include <stdbool.h>

#include "core/cost/compute.h"
#include "core/cost/context.h"

/* The per-device shape of one layer kind under the strategy. */
typedef struct layer_shape {
	const layer_kind *t;
	double h;               /* the kind's residual width */
	double tp, tok, tsp;    /* TP degree; tokens per device (TP view) and per SP shard */
	double heads_l, kv_l;   /* attention heads and KV heads per TP rank */
	double g;               /* 2 for a gated MLP (three matrices), else 1 */
	bool hdrop, adrop;      /* hidden and attention dropout on */
	bool mla, dense_mlp, moe;
	bool causal;            /* decoder attention; a vision encoder's attends both ways */
	double qd, kd, vd, od;  /* per-device widths of Q, K, V and the attention output */
	double kv_len;          /* keys each query attends to, as a full-attention length */
	double scores;          /* attention score elements per device */
	double fl;              /* dense MLP width per TP rank */
	double ef;              /* one expert's MLP width per expert-TP rank */
	double tm, tml;         /* routed token copies per device; at the busiest expert rank */
	double etm, etml;       /* the copies one expert-TP rank computes: its group's (x etp) */
	double sf;              /* shared experts' MLP width per TP rank */
} layer_shape;

/* Attention projections (attention.c). */
typedef struct {
	double f;               /* forward GEMM seconds, MLA up-projections included */
	double up_t, up_fl;     /* MLA up-projections: seconds and FLOPs (mla_up_proj recompute) */
	double core_fl;         /* attention-core FLOPs on this device (both causal halves) */
} attn_proj;

/* MLP block (mlp.c): dense MLP, or router + routed experts + shared experts; MTP projection. */
typedef struct {
	double t, fl, elem;     /* forward GEMM seconds, forward FLOPs, element-wise bytes */
	double routed_t, routed_fl;     /* routed experts' grouped GEMMs */
	double sh_t, sh_fl, sh_elem;    /* shared experts */
	double moe_fn_elem;     /* element-wise bytes of the routed experts' activation */
	double ep_bytes;        /* bytes each rank dispatches (and combines) over EP */
	double launch;          /* seconds the MoE block's short kernels wait on the host */
	double proj_fl;         /* an encoder layer's share of the projector: forward FLOPs */
} mlp_cost;

/* Activation bytes a layer stores for backward, by block (memory.c). */
typedef struct {
	double attn, core, mlp; /* projections and norms; attention core; MLP block */
	double moe_fn, shared;  /* the parts of mlp kept by the experts' activation, shared experts */
	double input;           /* the layer input (all that full recomputation keeps) */
	double work;            /* transient gradient bytes while the layer runs backward */
} layer_acts;

/* Everything layer_price computed on its way, for the recompute and communication rules. */
typedef struct {
	layer_shape sh;
	attn_proj ap;
	compute_attn core;
	mlp_cost mlp;
	layer_acts act;
	double elem_f;          /* forward element-wise seconds */
	double launch;          /* fixed launch overhead per pass */
} layer_parts;

/* What a layer's context-parallel communication is priced from: the rest of the layer does
 * not depend on how CP splits into Ulysses and ring degrees, so the search reprices only this
 * for the USP variants of a priced layer (lcomm_cp_price). */
typedef struct {
	int on;                 /* CP applies: cp > 1 and causal attention */
	double kv_l;            /* key/value heads per TP rank */
	double qd, kd, vd, od;  /* per-rank widths of Q, K, V and the attention output */
	double core_f, core_b;  /* attention core seconds, forward and backward */
} lcomm_cp;

/* Per-kind, per-micro-batch, per-device costs of one layer under the strategy. */
typedef struct {
	double p_dense, p_expert;       /* parameters held by one device */
	double params, params_active;   /* the layer's parameters in the model, and those a token uses */
	double width;                   /* residual width of the kind */
	double act[RC_COUNT];           /* activation bytes kept for backward */
	double work;                    /* transient bytes while this layer runs backward */
	double f_comp, b_in, b_w;       /* compute seconds: forward, input-grad, weight-grad */
	double sel_f;                   /* forward work selective recompute repeats, seconds */
	double tp_f, tp_b, cp_f, cp_b, ep_f, ep_b; /* exposed communication seconds */
	lcomm_cp cp_in;                 /* what cp_f and cp_b are priced from (lcomm_cp_price) */
	double flops_model;             /* model FLOPs fwd+bwd (no recompute), per micro-batch */
	double flops_fwd;               /* forward FLOPs (what full recompute adds) */
	double flops_sel;               /* FLOPs selective recompute repeats */
} layer_cost;

/* The shape of layer kind k under the context's strategy. */
void layer_shape_init(const cost_ctx *x, int k, layer_shape *sh);
/* Price one layer of kind k: all of layer_cost. */
void layer_price(const cost_ctx *x, int k, layer_cost *o);
/* Price every layer kind of the model into kc[nkinds] (the same as layer_price of each; an
 * MTP kind reuses the parts of the kind it extends). */
void layer_price_all(const cost_ctx *x, layer_cost *kc);

/* attention.c: the Q/K/V (or MLA down/up) and output projections of a layer. */
attn_proj attn_project(const cost_ctx *x, const layer_shape *sh);
/* mlp.c: the MLP block of a layer. */
mlp_cost mlp_price(const cost_ctx *x, const layer_shape *sh);
/* mlp.c: an encoder layer's share of the projector into the decoder: seconds, FLOPs and
 * element-wise bytes into o, stored bytes returned. */
double mlp_projector(const cost_ctx *x, const layer_shape *sh, mlp_cost *o);
/* mlp.c: seconds of an MTP module's projection (2h to h), the last GEMM of its MLP block. */
double mlp_mtp_proj(const cost_ctx *x, const layer_shape *sh);
/* layer_comm.c: exposed TP, CP and EP communication of a layer into o (its compute set). */
void lcomm_price(const cost_ctx *x, const layer_parts *p, layer_cost *o);
/* cp_f and cp_b of o from o->cp_in under the context's CP split (cp, cp_ulysses). */
void lcomm_cp_price(const cost_ctx *x, layer_cost *o);

#endif
