/* recompute.h - what `selective` recomputation keeps and re-runs, per framework.
 *
 * Megatron-LM: Megatron-Core's --recompute-modules (default core_attn, its own default;
 * megatron/core/transformer/transformer_config.py): each module drops what it stores beyond
 * its input and re-runs its forward in backward; a module that covers another (moe over
 * moe_act and shared_experts) counts once. torchtitan: per-op selective activation
 * checkpointing (torchtitan parallelize_llama.py, _save_list and _custom_policy, 2024-25):
 * inside each block it keeps the output of every odd-numbered aten.mm (counted per block in
 * execution order), the SDPA outputs and the TP reduce-scatter outputs, and recomputes the
 * rest. Full recomputation keeps only the layer input and re-runs the whole forward. */
#ifndef STRATA_CORE_COST_RECOMPUTE_H
#define STRATA_CORE_COST_RECOMPUTE_H

#include "core/cost/layer.h"

/* Megatron's selective mode: o->act[RC_SELECTIVE], o->sel_f; returns the FLOPs it re-runs.
 * Needs o's act[RC_NONE] and communication set. */
double recomp_megatron(const cost_ctx *x, const layer_parts *p, layer_cost *o);
/* torchtitan's per-op checkpointing: sets o->act[RC_SELECTIVE], o->sel_f, o->flops_sel. */
void recomp_torchtitan(const cost_ctx *x, const layer_parts *p, layer_cost *o);

#endif
