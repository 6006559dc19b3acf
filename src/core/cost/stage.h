/* stage.h - one pipeline stage: which layers it holds (by kind and recompute mode, over all
 * of its chunks), its memory by component and its time per micro-batch; and which stages
 * are alike, so that each distinct stage is priced once.
 *
 * A stage's costs are linear in its layer counts, so the layer kinds are priced once per
 * evaluation (layer.c) and a stage adds them up with its extras: embedding on the first
 * stage, LM head and loss on the last (vocab.c), P2P sends per chunk, buffers (memory.c),
 * ZeRO-3 gathers, gradient sync and the optimizer update (dp.c). */
#ifndef STRATA_CORE_COST_STAGE_H
#define STRATA_CORE_COST_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cost/dp.h"
#include "core/cost/layer.h"
#include "core/cost/memory.h"
#include "core/cost/vocab.h"
#include "core/evaluate.h"

/* What every stage of one evaluation is priced with (stage_env_init). */
typedef struct {
	const cost_ctx *x;
	const layer_cost *kc;   /* per layer kind */
	int p, v, mb;
	bool uniform;           /* every layer kind has the model's width */
	bool dualpipe;
	mem_state sb;
	dp_groups dg;
	comm_link pp_l;
	double p2p_bytes;       /* one P2P message at the model's width */
	double p2p;             /* its seconds (0 without a pipeline) */
	double p2p_seen;        /* share of a P2P send that shows (DualPipe hides it) */
	double p2p_chunk;       /* p2p * p2p_seen: what one chunk's send shows (all chunks alike) */
	bool even;              /* the layers are split evenly (no explicit per-chunk counts) */
	strat_split split;      /* that split */
	vocab_cost vc;
	double unit_params;     /* FSDP's unit: the largest used layer kind's parameters */
} stage_env;

/* What a stage holds. */
typedef struct {
	double cnt[MODEL_MAX_KINDS][RC_COUNT]; /* layers by kind and recompute mode, all chunks */
	int layers;             /* transformer layers (MTP modules excluded) */
	double p2p_sum;         /* seconds of one send per chunk, summed in chunk order */
	double pp2;             /* the same, two sends per chunk */
	double p2p_max;         /* bytes of its largest P2P message (kinds of several widths) */
} stage_shape;

/* Running sums of a stage's parameters, bytes, seconds and FLOPs. */
typedef struct {
	double pd, pe, act_mb, work, fl_model, fl_hw;
	double f, b, w, rc, comp, tpc, cpc, epc;
	double wst;             /* widest layer kind (kinds of several widths) */
	double extra_act;
} stage_sum;

/* Marks of stage_starts: the stage may hold other layers than the one before it (or is the
 * first); the stage holds what the one before holds, but the pipeline's ends price it apart
 * (the second and the last stage). */
#define STAGE_SHAPE 1
#define STAGE_ENDS 2

/* A priced stage, before its in-flight micro-batches are known. */
typedef struct {
	eval_mem mem;           /* activations and total unset */
	eval_stage_time tt;
	double act_mb, extra_act; /* bytes per micro-batch: its layers; its embedding extras */
	double fl_model, fl_hw; /* FLOPs per micro-batch */
	double t_dp;            /* once-per-step gradient sync seconds (ZeRO 0-2) */
	double t_dp_edge;       /* ... the part of it no compute can hide (dp_edge) */
	double t_tied;          /* the tied embedding's all-reduce after the backward (end stages) */
} stage_cost;

/* Fill e for the context's evaluation, with the layer-kind costs kc. */
void stage_env_init(stage_env *e, const cost_ctx *x, const layer_cost *kc);
/* The layers and P2P sends of stage st. */
void stage_shape_of(const stage_env *e, int st, stage_shape *sh);
/* The sums of the layers (and P2P sends) of shape sh, before any stage's ends. */
void stage_layers(const stage_env *e, const stage_shape *sh, stage_sum *a);
/* Price stage st of shape sh whose stage_layers are `layers`. */
void stage_price(const stage_env *e, int st, const stage_shape *sh, const stage_sum *layers, stage_cost *o);
/* 1 when stages holding a and b price alike (neither the first nor the last stage). */
bool stage_shape_same(const stage_env *e, const stage_shape *a, const stage_shape *b);
/* Mark in start[0..p) the stages whose shape may differ from the one before (STAGE_SHAPE)
 * and the pipeline's second and last stage (STAGE_ENDS); the unmarked stages hold exactly
 * what the stage before them holds, and so do the stages marked STAGE_ENDS alone when every
 * layer kind has the model's width (else the first and the last chunk's sends differ) and,
 * for the last stage, the model has no MTP layers. */
void stage_starts(const model_t *m, const strategy_t *s, uint8_t *start);

#endif
