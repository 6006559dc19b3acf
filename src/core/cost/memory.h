/* memory.h - bytes: activations a layer stores for backward, tensor by tensor; model states
 * per parameter under each ZeRO level and precision; the stage's communication and FSDP
 * buffers; what the loss keeps per logit.
 *
 * Sources: activations per layer after Korthikanti et al. 2022 ("Reducing Activation
 * Recomputation in Large Transformer Models", arXiv 2205.05198, Sec. 4: sbh(34 + 5as/h)
 * without parallelism, /t with TP+SP, 2sbh with full recompute), generalised to GQA, gated
 * MLPs, MoE, MLA, flash attention and zero dropout by counting each stored tensor; model
 * states after Megatron-LM's theoretical_memory_usage.py (18 bytes per parameter, 6 + 12/d
 * with the distributed optimizer) and ZeRO (Rajbhandari et al. 2020, arXiv 1910.02054); the
 * loss's logit copies from Megatron's vocab-parallel cross entropy and torchtitan's
 * cross_entropy(pred.float()). */
#ifndef STRATA_CORE_COST_MEMORY_H
#define STRATA_CORE_COST_MEMORY_H

#include "core/cost/layer.h"

/* Bytes per parameter held by one device: weights, gradients, optimizer states, for dense
 * parameters (sharded over d_dense ranks) and expert parameters (over d_exp). */
typedef struct {
	double wb, gb, ob;      /* dense */
	double wbe, gbe, obe;   /* expert */
} mem_state;

/* The optimizer tensors' bytes per element under s (fp32: 4 each by default). */
mem_opt mem_opt_bytes(const strategy_t *s);
/* CPU offload of the optimizer (s->opt_offload > 0): what leaves the device, from *o;
 * unsharded says FSDP2 under pipelining keeps whole parameters and gradients. */
void mem_offload(const strategy_t *s, double d_dense, double d_exp, int unsharded, mem_state *o);
/* Activation bytes a layer of shape sh stores, block by block (mlp: its MLP's parts). */
layer_acts mem_layer_acts(const cost_ctx *x, const layer_shape *sh);
/* Model-state bytes per parameter under the strategy's ZeRO level and precision. */
mem_state mem_state_bytes(const strategy_t *s, double d_dense, double d_exp);
/* mem_state_bytes with the optimizer's bytes per element ob already known (mem_opt_bytes of s:
 * the evaluation's context holds them). */
mem_state mem_state_with(const strategy_t *s, const mem_opt *ob, double d_dense, double d_exp);
/* mem_state_bytes of a strategy whose EP ranks hold rep times their own experts' parameters
 * (strat_moe_replica; EPLB's redundant replicas, DeepSeek-V3 report Sec. 3.4; UltraEP's
 * E + ep*r physical experts): a replica's 16-bit weights serve its forward and backward
 * and its gradient is summed into the owner's, so both are kept as the owner's are; the
 * master weights and moments only with the owner, whose update the replica copies. */
static inline mem_state mem_state_replicated(const strategy_t *s, const mem_opt *ob, double d_dense, double d_exp,
		double rep)
{
	mem_state o = mem_state_with(s, ob, d_dense, d_exp);
	o.obe /= rep;
	return o;
}
/* Bytes the loss keeps per logit of the last stage under the strategy's framework. */
double mem_logit_bytes(const strategy_t *s);
/* Bytes a GEMM input saved for the weight gradient takes: 1 in fp8 under a framework
 * whose fp8 linear saves the fp8 copy (Transformer Engine), else the 16-bit 2. */
double mem_gemm_input_bytes(const strategy_t *s);
/* A stage's buffers besides its layers' work: the gathered SP input / TP all-reduce
 * workspace at width tp_w, two P2P messages of p2p_bytes, and with ZeRO-3 the z3_bytes of
 * unsharded parameters and gradients the framework keeps in flight (dp.h, dp_zero3_plan).
 * work is added first. */
static inline double mem_buffers(const cost_ctx *x, double work, double tp_w, double p2p_bytes, double z3_bytes);

static inline double mem_buffers(const cost_ctx *x, double work, double tp_w, double p2p_bytes, double z3_bytes)
{
	const strategy_t *s = x->s;
	double buf = work;
	if (s->tp > 1)
		buf += x->tok * tp_w * ACT_BYTES; /* gathered SP input / TP all-reduce workspace */
	if (s->pp > 1)
		buf += 2 * p2p_bytes;
	if (s->zero == 3)
		buf += z3_bytes;
	return buf;
}

#endif
