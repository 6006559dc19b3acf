/* evaluate.c - closed-form memory and step time of one strategy.
 *
 * Sources of the formulas (see also docs in the README):
 *  - activations per layer: Korthikanti et al. 2022, "Reducing Activation Recomputation in
 *    Large Transformer Models" (arXiv 2205.05198), Sec. 4: sbh(34 + 5as/h) without
 *    parallelism, /t with TP+SP, 2sbh with full recompute; generalised here to GQA, gated
 *    MLPs, MoE, MLA, flash attention and zero dropout by counting each stored tensor;
 *  - model states: Megatron-LM theoretical_memory_usage.py (18 bytes/param, 6 + 12/d with
 *    the distributed optimizer) and ZeRO (Rajbhandari et al. 2020, arXiv 1910.02054);
 *  - FLOPs: Narayanan et al. 2021 (arXiv 2104.04473) and Megatron-core
 *    num_floating_point_operations (GQA, SwiGLU, MoE); MFU after Chowdhery et al. 2022;
 *  - in-flight micro-batches and bubbles per schedule: Megatron (1F1B, interleaved),
 *    Qi et al. 2024 (zero bubble, arXiv 2401.10241), DeepSeek-V3 DualPipe README.
 * Each layer kind is priced at its own width and MLP type (model.h); the embedding, the LM
 * head and their communication at the model's hidden_size.
 * No allocation and no I/O: the search and the TUI call this on every candidate/key. */
#include "core/evaluate.h"
#include "core/comm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define ACT_BYTES 2.0 /* activations are stored in 16 bits (fp8 runs keep bf16 copies) */

/* Per-kind, per-micro-batch, per-device costs of one layer under the strategy. */
typedef struct {
	double p_dense, p_expert;       /* parameters held by one device */
	double width;                   /* residual width of the kind */
	double act[RC_COUNT];           /* activation bytes kept for backward */
	double work;                    /* transient bytes while this layer runs backward */
	double f_comp, b_in, b_w;       /* compute seconds: forward, input-grad, weight-grad */
	double sel_f;                   /* forward work selective recompute repeats, seconds */
	double tp_f, tp_b, cp_f, cp_b, ep_f, ep_b; /* exposed communication seconds */
	double flops_model;             /* model FLOPs fwd+bwd (no recompute), per micro-batch */
	double flops_fwd;               /* forward FLOPs (what full recompute adds) */
	double flops_sel;               /* FLOPs selective recompute repeats */
} kcost;

typedef struct {
	const model_t *m;
	const cluster_t *c;
	const strategy_t *s;
	double b, seq, tok, tok_sp, tok_moe; /* tokens per device: TP group view, SP shard, MoE */
	double moe_cf;                       /* busiest expert rank's tokens over the mean */
	double sp_div;
	double peak, peak16, hbm, geff, ghalf;
	comm_link tp_l, cp_l, ep_l;
	double tp_exp;                       /* fraction of TP comm left exposed */
} ctx;

static double gemm_t(const ctx *x, double M, double K, double N, double mult)
{
	/* Roofline with a roll-off: big GEMMs reach `gemm` of peak; a GEMM whose smallest
	 * dimension is d reaches gemm * d/(d + half) (tile quantisation and wave effects),
	 * and no GEMM beats the time to stream its operands from HBM. */
	double d = M < K ? M : K;
	d = d < N ? d : N;
	if (d <= 0)
		return 0;
	double eff = x->geff * mult * d / (d + x->ghalf);
	double tc = 2.0 * M * K * N / (x->peak * eff);
	double tm = (M * K + K * N + M * N) * ACT_BYTES / x->hbm;
	return tc > tm ? tc : tm;
}

static double elem_t(const ctx *x, double bytes) { return bytes / x->hbm; }

/* Time a communication of `comm` seconds adds when up to `window` seconds of compute can
 * run beside it: what does not fit is exposed, and what does fit still slows the compute
 * by `kappa` per second, since NCCL kernels take SMs and HBM bandwidth from the GEMMs. */
static double overlap_exposed(double comm, double window, double kappa)
{
	double h = comm < window ? comm : window;
	if (h < 0)
		h = 0;
	return comm - h + kappa * h;
}

/* torchtitan's per-op selective checkpointing (torchtitan parallelize_llama.py, _save_list
 * and _custom_policy, 2024-25): inside each block it keeps the output of every odd-numbered
 * aten.mm (counted per block in execution order), the SDPA outputs and the TP
 * reduce-scatter outputs, and recomputes the rest in backward. sac_mm books one matmul:
 * kept bytes, or recompute seconds and FLOPs. */
typedef struct {
	int n;
	double keep, t, fl;
} sac_acc;

static void sac_mm(const ctx *x, sac_acc *a, double M, double K, double N)
{
	if (++a->n % 2) {
		a->keep += M * N * ACT_BYTES;
	} else {
		a->t += gemm_t(x, M, K, N, 1);
		a->fl += 2.0 * M * K * N;
	}
}

static void kind_cost(const ctx *x, int k, kcost *o)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const layer_kind *t = &m->kind[k];
	const cluster_t *c = x->c;
	/* h is this kind's width: every GEMM shape, stored tensor and collective below that
	 * scales with the residual stream scales with it */
	double h = model_kind_hidden(m, k), tp = s->tp, tok = x->tok, tsp = x->tok_sp;
	double heads_l = (double)t->heads / tp;
	double kv_l = t->attn == ATTN_MLA ? heads_l : (t->kv_heads >= tp ? (double)t->kv_heads / tp : 1.0);
	double g = model_kind_gated(m, k) ? 2.0 : 1.0;
	double hdrop = m->hidden_dropout > 0, adrop = m->attention_dropout > 0;
	layer_params lp = model_layer_params(m, k);
	memset(o, 0, sizeof *o);
	o->width = h;

	o->p_dense = (lp.attn + lp.mlp_dense + lp.experts_shared) / tp + lp.norms + lp.router + lp.extra / tp;
	if (t->experts > 0)
		o->p_expert = lp.experts_routed / ((double)s->ep * s->etp);

	/* ---- attention projections ---- */
	/* keys each query attends to, as a full-attention length whose causal half is the
	 * attended pairs: a sliding window w leaves s*w - w^2/2 pairs (2w - w^2/s); chunks of c
	 * tokens, causal inside each chunk, s*c/2 (c) */
	double kv_len = x->seq;
	if (t->window > 0 && t->window < kv_len)
		kv_len = 2.0 * t->window - (double)t->window * t->window / x->seq;
	if (t->chunk > 0 && t->chunk < kv_len)
		kv_len = t->chunk;
	double qd, kd, vd, od, core_fl, act_attn;
	double f = 0, up_t = 0, up_fl = 0; /* MLA up-projections (recomputable as mla_up_proj) */
	if (t->attn == ATTN_MLA) {
		double qk = t->qk_nope + t->qk_rope;
		qd = heads_l * qk;
		kd = heads_l * qk;
		vd = heads_l * t->v_head;
		od = vd;
		if (t->q_lora > 0) {
			up_t += gemm_t(x, tok, t->q_lora, qd, 1);
			up_fl += 2.0 * tok * t->q_lora * qd;
			f += gemm_t(x, tok, h, t->q_lora, 1);
		} else {
			f += gemm_t(x, tok, h, qd, 1);
		}
		up_t += gemm_t(x, tok, t->kv_lora, heads_l * (t->qk_nope + t->v_head), 1);
		up_fl += 2.0 * tok * t->kv_lora * heads_l * (t->qk_nope + t->v_head);
		f += up_t + gemm_t(x, tok, h, t->kv_lora + t->qk_rope, 1);
		core_fl = 2.0 * x->b * (x->seq / s->cp) * kv_len * heads_l * (qk + t->v_head);
		act_attn = tok * (t->q_lora + t->kv_lora + t->qk_rope) * ACT_BYTES;
	} else {
		qd = heads_l * t->head_dim;
		kd = vd = kv_l * t->head_dim;
		od = qd;
		f += gemm_t(x, tok, h, qd + kd + vd, 1);
		core_fl = 4.0 * x->b * (x->seq / s->cp) * kv_len * heads_l * t->head_dim;
		act_attn = 0;
	}
	f += gemm_t(x, tok, od, h, 1);
	/* stored: two norm inputs, QKV-projection input, Q, K, V, out-projection input */
	act_attn += (2 * 2 * h * tsp) + 2 * h * tsp + tok * (qd + kd + vd + od) * ACT_BYTES;
	if (hdrop)
		act_attn += 2 * h * tsp; /* two 1-byte dropout masks (attention and MLP outputs) */

	/* ---- attention core ---- */
	double scores = x->b * heads_l * (x->seq / s->cp) * x->seq; /* score elements per device */
	double core_f, core_b, act_core = 0;
	if (s->flash) {
		/* causal flash attention skips the masked half; backward recomputes QK^T and
		 * does 2.5x the forward FLOPs; kernels run at the `flash` fraction of peak */
		double fl = 0.5 * core_fl;
		double fe = strat_framework(s) == FW_TORCHTITAN && c->eff.flash_sdpa > 0 ? c->eff.flash_sdpa : c->eff.flash;
		core_f = fl / (x->peak16 * fe);
		core_b = 2.5 * fl / (x->peak16 * fe);
		act_core = 4.0 * x->b * heads_l * (x->seq / s->cp); /* fp32 log-sum-exp */
	} else {
		/* unfused: two batched GEMMs of head_dim depth plus a fused scale-mask-softmax and
		 * dropout streaming the score matrix through HBM (the whole matrix: an unfused
		 * kernel masks a local window, it does not skip it) */
		double dh = t->attn == ATTN_MLA ? (double)(t->qk_nope + t->qk_rope) : t->head_dim;
		double g1 = gemm_t(x, x->seq / s->cp, dh, x->seq, 1) * x->b * heads_l;
		double g2 = gemm_t(x, x->seq / s->cp, x->seq, t->attn == ATTN_MLA ? t->v_head : t->head_dim, 1) *
			x->b * heads_l;
		/* bytes per score element beyond the GEMM that writes it: Megatron's fused
		 * scale-mask-softmax reads and writes once (4), dropout reads, writes and keeps a
		 * 1-byte mask (5); backward: dropout grad reads grad and mask, writes (5), softmax
		 * grad reads output and grad, writes (6) */
		double sm_f = elem_t(x, scores * (4.0 + (adrop ? 5.0 : 0.0)));
		double sm_b = elem_t(x, scores * (6.0 + (adrop ? 5.0 : 0.0)));
		core_f = g1 + g2 + sm_f;
		core_b = 2 * (g1 + g2) + sm_b;
		act_core = scores * (2.0 + (adrop ? 3.0 : 0.0)); /* softmax out (+ mask, dropout out) */
	}

	/* ---- MLP: dense, shared experts, routed experts ---- */
	double mlp = 0, act_mlp = 0, mlp_elem = 0, mlp_fl = 0;
	double act_moe_fn = 0, moe_fn_elem = 0;    /* routed experts' activation (moe_act) */
	double sh_t = 0, sh_act = 0, sh_elem = 0, sh_fl = 0; /* shared experts */
	if (t->ffn > 0 && t->experts == 0) {
		double fl = t->ffn / tp;
		mlp += gemm_t(x, tok, h, g * fl, 1) + gemm_t(x, tok, fl, h, 1);
		mlp_fl += 2.0 * tok * h * fl * (g + 1);
		act_mlp += 2 * h * tsp + tok * fl * (g + 1) * ACT_BYTES;
		mlp_elem += tok * fl * (g + 1) * ACT_BYTES;
	}
	double ep_bytes = 0, routed_t = 0, routed_fl = 0;
	if (t->experts > 0) {
		double ef = t->expert_ffn / (double)s->etp;
		double tm = x->tok_moe * t->topk;                 /* routed token copies per device */
		/* the busiest expert rank sets the pace and the memory peak: its tokens are the
		 * capacity factor times the mean (the useful FLOPs stay those of tm) */
		double tml = tm * x->moe_cf;
		double me = tml * s->ep / t->experts;             /* tokens per local expert */
		double nloc = (double)t->experts / s->ep;
		double gg = c->eff.grouped_gemm;
		routed_t = nloc * (gemm_t(x, me, h, g * ef, gg) + gemm_t(x, me, ef, h, gg));
		routed_fl = 2.0 * tm * h * ef * (g + 1);
		mlp += routed_t;
		mlp += gemm_t(x, x->tok_moe, h, t->experts, 1);   /* router */
		mlp_fl += routed_fl + 2.0 * x->tok_moe * h * t->experts;
		act_moe_fn = tml * ef * ACT_BYTES;
		moe_fn_elem = tml * ef * (g + 1) * ACT_BYTES;
		act_mlp += 2 * h * tsp + x->tok_moe * t->experts * 4.0 /* fp32 router probs */ +
			tml * (2 * h + ef * (g + 1)) * ACT_BYTES;
		mlp_elem += tml * (4 * h + ef * (g + 1)) * ACT_BYTES; /* permute, unpermute, activation */
		if (t->shared > 0) {
			double sf = (double)t->shared * t->expert_ffn / tp;
			sh_t = gemm_t(x, tok, h, g * sf, 1) + gemm_t(x, tok, sf, h, 1);
			sh_act = sh_elem = tok * sf * (g + 1) * ACT_BYTES;
			sh_fl = 2.0 * tok * h * sf * (g + 1);
			mlp += sh_t;
			mlp_fl += sh_fl;
			act_mlp += sh_act;
			mlp_elem += sh_elem;
		}
		ep_bytes = tml * h * ACT_BYTES;
	}
	if (t->mtp)
		mlp += gemm_t(x, tok, 2 * h, h / tp, 1);

	/* element-wise traffic outside GEMMs: two norms, two bias-dropout-residual adds,
	 * rotary or bias on QKV, the MLP activation */
	double elem = tsp * h * ACT_BYTES * (4 + 6 + (hdrop ? 1 : 0)) + tok * (qd + kd) * ACT_BYTES * 2 +
		mlp_elem;
	double elem_f = elem_t(x, elem), elem_b = 2 * elem_f;
	double launch = c->eff.layer_us * 1e-6;

	double proj = f + mlp; /* forward GEMM time */
	o->f_comp = proj + core_f + elem_f + launch;
	o->b_in = proj + core_b + elem_b + launch;
	o->b_w = proj;
	/* selective's attention core: re-run forward, plus the unfused softmax's extra pass */
	double core_sel = core_f + (s->flash ? 0 : elem_t(x, scores * 2.0));

	/* ---- activations by recompute mode (selective: below, once the EP time is known) ---- */
	double layer_in = 2 * h * tsp;
	o->act[RC_NONE] = act_attn + act_core + act_mlp;
	o->act[RC_FULL] = layer_in;
	/* while a layer runs backward, gradients of its largest intermediates coexist */
	o->work = tok * ((t->ffn > 0 && t->experts == 0 ? g * t->ffn / tp : 0) + (qd + kd + vd)) * ACT_BYTES * 2;

	/* ---- communication ---- */
	if (s->tp > 1) {
		/* Megatron TP: two all-reduces (or all-gather + reduce-scatter with SP, same
		 * volume) per layer in forward and two in backward; a MoE layer with SP keeps its
		 * tokens sharded through the experts, so only attention (and shared experts)
		 * communicate over TP. */
		double pairs = (t->experts > 0) ? (1 + (t->shared > 0 ? 1 : 0)) : 2;
		double comm = pairs * comm_allreduce(x->tp_l, s->tp, tok * h * ACT_BYTES);
		/* Backward: Megatron launches the input-gradient all-reduce (reduce-scatter with
		 * SP) asynchronously and computes the weight gradients meanwhile, so a tp_overlap
		 * share of the wgrad GEMMs hides it. tp_comm_overlap (TE userbuffers) also
		 * pipelines the forward collectives with their GEMMs and backward with dgrad. */
		double win = c->eff.tp_overlap * proj, kap = c->eff.contention;
		o->tp_f = s->tp_overlap ? overlap_exposed(comm, win, kap) : comm;
		o->tp_b = overlap_exposed(comm, s->tp_overlap ? 2 * win : win, kap);
		/* PyTorch DTensor TP (torchtitan without async TP) runs the backward collectives
		 * inside the autograd graph, each waited for before the next GEMM: none hidden */
		if (strat_framework(s) == FW_TORCHTITAN && !s->tp_overlap)
			o->tp_b = comm;
	}
	if (s->cp > 1) {
		if (s->cp_kind == CP_RING) {
			/* ring attention: cp-1 steps each passing the local K and V chunk; each
			 * transfer overlaps the previous step's attention block */
			double kvb = x->b * (x->seq / s->cp) * (kd + vd) * ACT_BYTES;
			double step = comm_p2p(x->cp_l, kvb);
			double comm_f = (s->cp - 1) * step;
			double comm_b = 2 * comm_f;
			o->cp_f = fmax(0, comm_f - core_f * (s->cp - 1) / s->cp) + step;
			o->cp_b = fmax(0, comm_b - core_b * (s->cp - 1) / s->cp) + step;
		} else {
			/* Ulysses: all-to-all of Q, K, V before and of the output after attention */
			double vol = x->b * (x->seq / s->cp) * (qd + kd + vd + od) * ACT_BYTES;
			o->cp_f = comm_alltoall(x->cp_l, s->cp, vol);
			o->cp_b = o->cp_f;
		}
	}
	if (t->experts > 0 && s->ep > 1) {
		/* dispatch and combine all-to-all in forward, the same two in backward */
		o->ep_f = 2 * comm_alltoall(x->ep_l, s->ep, ep_bytes);
		o->ep_b = o->ep_f;
	}
	if (t->experts > 0 && s->etp > 1) {
		double one = comm_allreduce(comm_group(c, s->etp, 1), s->etp, x->tok_moe * t->topk * x->moe_cf * h * ACT_BYTES);
		o->ep_f += one;
		o->ep_b += one;
	}
	if (s->schedule == SCHED_DUALPIPE && o->ep_f + o->ep_b > 0) {
		/* DualPipe runs the forward chunk of one micro-batch beside the backward chunk of
		 * another, each cut into attention, dispatch, MLP and combine, so the all-to-alls
		 * of either run under the other's compute (DeepSeek-V3 report, arXiv 2412.19437,
		 * sec. 3.2.1). Per layer: the part the pair's compute covers costs `contention`
		 * (the SMs given to communication), any rest is exposed. */
		double ep = o->ep_f + o->ep_b;
		double shown = overlap_exposed(ep, o->f_comp + o->b_in + o->b_w, c->eff.contention);
		o->ep_f *= shown / ep;
		o->ep_b *= shown / ep;
	}

	/* ---- what `selective` recomputes: Megatron-Core's --recompute-modules (default the
	 * attention core). Each module drops what it stores beyond its input and re-runs its
	 * forward in backward; a module that covers another (moe over moe_act and
	 * shared_experts) counts once. The norms' outputs are the inputs of the QKV and first
	 * MLP (or router) GEMMs; MLA keeps its latents and drops the up-projected Q, K, V. ---- */
	unsigned rm = s->rc_modules ? s->rc_modules : RCM_CORE_ATTN;
	double keep = o->act[RC_NONE], rt = 0, rfl = 0;
	if (rm & RCM_CORE_ATTN) {
		keep -= s->flash ? 0 : act_core;
		rt += core_sel;
		rfl += core_fl;
	}
	if (rm & RCM_LAYERNORM) {
		keep -= 2 * 2 * h * tsp;
		rt += elem_t(x, tsp * h * ACT_BYTES * 4);
	}
	if ((rm & RCM_MLA_UP_PROJ) && t->attn == ATTN_MLA) {
		keep -= tok * (qd + kd + vd) * ACT_BYTES;
		rt += up_t;
		rfl += up_fl;
	}
	bool dense_mlp = t->ffn > 0 && t->experts == 0;
	if ((dense_mlp && (rm & RCM_MLP)) || (t->experts > 0 && (rm & RCM_MOE))) {
		keep -= act_mlp - 2 * h * tsp; /* all but the block's input */
		rt += mlp + elem_t(x, mlp_elem) + o->ep_f;
		rfl += mlp_fl;
	} else if (t->experts > 0) {
		if (rm & RCM_MOE_ACT) {
			keep -= act_moe_fn;
			rt += elem_t(x, moe_fn_elem);
		}
		if (rm & RCM_SHARED_EXPERTS) {
			keep -= sh_act;
			rt += sh_t + elem_t(x, sh_elem);
			rfl += sh_fl;
		}
	}
	o->act[RC_SELECTIVE] = keep;
	o->sel_f = rt;

	/* ---- FLOPs (per device, per micro-batch) ---- */
	double active = lp.attn + lp.mlp_dense + lp.experts_shared + lp.router + lp.extra +
		(t->experts > 0 ? lp.experts_routed * t->topk / t->experts : 0);
	double fwd = 2.0 * active * (x->b * x->seq / s->cp) / tp + core_fl; /* core_fl is per device */
	o->flops_fwd = fwd;
	o->flops_model = 3 * fwd;
	o->flops_sel = rfl;

	if (strat_framework(s) == FW_TORCHTITAN) {
		/* per-op selective checkpointing (sac_mm): matmuls in execution order */
		sac_acc a = {0, 0, 0, 0};
		if (t->attn == ATTN_MLA) {
			if (t->q_lora > 0) {
				sac_mm(x, &a, tok, h, t->q_lora);
				sac_mm(x, &a, tok, t->q_lora, qd);
			} else {
				sac_mm(x, &a, tok, h, qd);
			}
			sac_mm(x, &a, tok, h, t->kv_lora + t->qk_rope);
			sac_mm(x, &a, tok, t->kv_lora, heads_l * (t->qk_nope + t->v_head));
		} else {
			sac_mm(x, &a, tok, h, qd);
			sac_mm(x, &a, tok, h, kd);
			sac_mm(x, &a, tok, h, vd);
		}
		sac_mm(x, &a, tok, od, h);
		if (t->ffn > 0 && t->experts == 0) {
			double fl = t->ffn / tp;
			for (int i = 0; i < (int)g; i++) /* w1 (gate) then w3 (up) */
				sac_mm(x, &a, tok, h, fl);
			sac_mm(x, &a, tok, fl, h);
		}
		if (t->experts > 0) {
			sac_mm(x, &a, x->tok_moe, h, t->experts); /* router */
			if (t->shared > 0) {
				double sf = (double)t->shared * t->expert_ffn / tp;
				for (int i = 0; i < (int)g; i++)
					sac_mm(x, &a, tok, h, sf);
				sac_mm(x, &a, tok, sf, h);
			}
			/* grouped expert GEMMs are not aten.mm: recomputed with their all-to-alls */
			a.t += routed_t + o->ep_f;
			a.fl += routed_fl;
		}
		/* kept: the block input, odd matmul outputs, SDPA output and log-sum-exp, the two
		 * TP reduce-scatter outputs; recomputed: even matmuls, every element-wise op, the
		 * SP all-gathers (half of the forward TP traffic) and, without flash (no SDPA
		 * kernel to keep), the attention core */
		o->act[RC_SELECTIVE] = layer_in + a.keep + (s->flash ? tok * od * ACT_BYTES + act_core : 0) +
			(s->tp > 1 && s->sp ? 2 * h * tsp * ACT_BYTES : 0);
		o->sel_f = a.t + elem_f + launch + (s->tp > 1 ? 0.5 * o->tp_f : 0) + (s->flash ? 0 : core_sel);
		o->flops_sel = a.fl + (s->flash ? 0 : core_fl);
	}
}

/* Micro-batches (in units of one stage's per-micro-batch activations) held at the peak. */
static double inflight(const strategy_t *s, int stage, int m)
{
	int p = s->pp;
	double n;
	switch (s->schedule) {
	case SCHED_GPIPE:
		n = m;
		break;
	case SCHED_INTERLEAVED: {
		/* Megatron interleaved 1F1B: warm-up of 2(p-s-1) + (v-1)p chunk-micro-batches plus
		 * the one in progress; each chunk holds 1/v of the stage's layers */
		double chunks = 2.0 * (p - stage - 1) + (double)(s->vpp - 1) * p + 1;
		if (chunks > (double)m * s->vpp)
			chunks = (double)m * s->vpp;
		n = chunks / s->vpp;
		return n;
	}
	case SCHED_ZBH2:
		n = 2.0 * (p - stage) - 1;
		break;
	case SCHED_ZBV:
		n = p; /* V-shape: every device peaks at the first stage's 1F1B level */
		break;
	case SCHED_DUALPIPE:
		n = p + 1;
		break;
	default: /* 1F1B, ZB-H1 */
		n = p - stage;
		break;
	}
	return n < m ? n : m;
}

static void ctx_init(ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s)
{
	x->m = m;
	x->c = c;
	x->s = s;
	x->b = s->micro_batch;
	x->seq = s->seq;
	x->tok = x->b * s->seq / s->cp;
	x->sp_div = (s->sp && s->tp > 1) ? s->tp : 1;
	x->tok_sp = x->tok / x->sp_div;
	x->tok_moe = x->tok / s->tp; /* Megatron MoE splits tokens over TP before dispatch */
	x->moe_cf = s->moe_cf > 0 ? s->moe_cf : 1.0; /* a zeroed strategy is balanced */
	double p16 = c->peak_tflops[PREC_BF16] > 0 ? c->peak_tflops[PREC_BF16] : c->peak_tflops[PREC_FP16];
	x->peak16 = (s->precision == PREC_FP16 && c->peak_tflops[PREC_FP16] > 0 ? c->peak_tflops[PREC_FP16] : p16) * 1e12;
	x->peak = c->peak_tflops[s->precision] * 1e12;
	x->geff = s->precision == PREC_FP8 ? c->eff.fp8_gemm : c->eff.gemm;
	x->ghalf = c->eff.gemm_half;
	x->hbm = c->hbm_gbps * 1e9 * c->eff.hbm;
	x->tp_l = comm_group(c, s->tp, 1);
	x->cp_l = comm_group(c, s->cp, s->tp);
	x->ep_l = comm_group(c, s->ep, s->etp);
	x->tp_exp = s->tp_overlap ? 1 - c->eff.tp_overlap : 1;

}

/* Bytes the loss keeps per logit of the last stage. Megatron's vocab-parallel cross entropy:
 * bf16 logits + one fp32 copy exponentiated in place (6); torchtitan's loss,
 * cross_entropy(pred.float(), labels), also keeps log_softmax's separate fp32 output for
 * backward (10). */
static double logit_bytes(const strategy_t *s)
{
	return strat_framework(s) == FW_TORCHTITAN ? 10.0 : 6.0;
}

double eval_layer_activation(const model_t *m, const cluster_t *c, const strategy_t *s, int k, int mode)
{
	if (k < 0 || k >= m->nkinds || mode < 0 || mode >= RC_COUNT || s->tp <= 0 || s->cp <= 0 ||
			s->ep <= 0 || s->etp <= 0 || s->micro_batch <= 0 || s->seq <= 0)
		return -1;
	ctx x;
	kcost q;
	ctx_init(&x, m, c, s);
	kind_cost(&x, k, &q);
	return q.act[mode];
}

double eval_default_budget_gib(const cluster_t *c)
{
	return c->mem_gib - c->eff.reserve_gib;
}

/* Width of the larger side of the boundary before layer e (0 when neither side exists). */
static int edge_width(const model_t *m, int e)
{
	int a = e - 1 >= 0 && e - 1 < m->layers ? model_layer_hidden(m, e - 1) : 0;
	int b = e >= 0 && e < m->layers ? model_layer_hidden(m, e) : 0;
	return a > b ? a : b;
}

/* Width of what a pipeline chunk of layers [lo, hi) sends and receives: the activation and
 * its gradient cross its input edge (unless it starts the model) and its output edge
 * (unless it ends it). Where the layers on the two sides of an edge differ in width, the
 * wider side is priced: a projection between widths belongs to the model, as a layer kind
 * of its own when it is described at all. */
static double chunk_width(const model_t *m, int lo, int hi)
{
	int w = lo > 0 ? edge_width(m, lo) : 0;
	int o = hi < m->layers ? edge_width(m, hi) : 0;
	w = o > w ? o : w;
	return w > 0 ? w : m->hidden;
}

static int reject(eval_result *r, const char *why)
{
	r->valid = 0;
	if (why != r->why)
		snprintf(r->why, sizeof r->why, "%s", why);
	return -1;
}

int eval_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_result *r)
{
	r->valid = 0;
	r->why[0] = 0;
	if (strat_validate(s, m, c, devices, r->why, sizeof r->why))
		return reject(r, r->why);
	if (s->pp > EVAL_MAX_STAGES)
		return reject(r, "more pipeline stages than the evaluator supports (256)");

	ctx x;
	ctx_init(&x, m, c, s);
	kcost kc[MODEL_MAX_KINDS];
	for (int k = 0; k < m->nkinds; k++)
		kind_cost(&x, k, &kc[k]);

	const int p = s->pp, v = s->vpp, mb = strat_microbatches(s);
	const double h = m->hidden, V = m->vocab, tp = s->tp;
	const int dualpipe = s->schedule == SCHED_DUALPIPE;
	double d_dense = (double)s->dp * s->cp;
	double d_exp = (double)s->dp * s->cp * s->tp / ((double)s->ep * s->etp);
	double wb, gb, ob, wbe, gbe, obe; /* bytes per parameter: dense and expert */
	{
		double fp8w = s->precision == PREC_FP8 ? 1.0 : 0.0; /* fp8 weight copies */
		switch (s->zero) {
		case 0: wb = wbe = 2 + fp8w; gb = gbe = 4; ob = obe = 12; break;
		case 1: wb = wbe = 2 + fp8w; gb = gbe = 4; ob = 12 / d_dense; obe = 12 / d_exp; break;
		case 2: wb = wbe = 2 + fp8w; gb = 4 / d_dense; gbe = 4 / d_exp; ob = 12 / d_dense; obe = 12 / d_exp; break;
		default: /* ZeRO-3/FSDP: the fp32 shard is the master copy; Adam m and v sharded;
			 * fp8 casts happen per gathered layer, so no whole-model fp8 copy */
			wb = 4 / d_dense; wbe = 4 / d_exp; gb = 4 / d_dense; gbe = 4 / d_exp;
			ob = 8 / d_dense; obe = 8 / d_exp; break;
		}
	}
	comm_link dp_l = comm_group(c, s->dp * s->cp, s->tp);
	comm_link edp_l = comm_group(c, (int)d_exp, s->ep * s->etp);
	/* PP neighbours are tp*cp*dp ranks apart: same node only for small jobs */
	long long pp_stride = (long long)s->tp * s->cp * s->dp;
	comm_link pp_l;
	if (pp_stride * 2 <= c->node_devices) {
		pp_l.bw = c->node_gbps * 1e9 * c->eff.coll_intra;
		pp_l.lat = 2e-6;
	} else {
		pp_l.bw = c->net_gbps * 1e9 * c->eff.coll_inter;
		pp_l.lat = c->net_lat_us * 1e-6;
	}
	/* P2P of one chunk, per direction; a model whose layers all have the model's width
	 * prices every chunk alike, others per chunk at the width of its edges */
	bool uniform = true;
	for (int k = 0; k < m->nkinds; k++)
		uniform = uniform && kc[k].width == h;
	double p2p_bytes = x.tok * h * ACT_BYTES / x.sp_div;
	double p2p = p > 1 ? comm_p2p(pp_l, p2p_bytes) : 0;
	/* DualPipe sends each chunk's activations and gradients while the paired chunk computes
	 * (DeepSeek-V3 report, sec. 3.2.1: "both all-to-all and PP communication can be fully
	 * hidden"): a send far shorter than a chunk costs only its `contention` share */
	double p2p_seen = dualpipe ? c->eff.contention : 1.0;

	/* head and tail costs */
	double Vl = s->vocab_parallel ? V / tp : V;
	double head_f = gemm_t(&x, x.tok, h, Vl, 1) + elem_t(&x, x.tok * Vl * 10.0);
	double head_b = 2 * gemm_t(&x, x.tok, h, Vl, 1) + elem_t(&x, x.tok * Vl * 8.0);
	double head_fl = 2.0 * (x.b * s->seq / s->cp) * h * V / tp;
	double emb_f = elem_t(&x, x.tok_sp * h * ACT_BYTES * 2), emb_b = 2 * emb_f;
	double tp_head = s->tp > 1 ? comm_allreduce(x.tp_l, s->tp, x.tok * h * ACT_BYTES) * x.tp_exp : 0;
	double logits_bytes = x.tok * Vl * logit_bytes(s);

	r->stages = p;
	r->chunks = p * v;
	r->microbatches = mb;
	r->peak_bytes = 0;
	r->peak_stage = 0;
	double budget = (budget_gib > 0 ? budget_gib : eval_default_budget_gib(c)) * GIB;
	r->budget_bytes = budget;
	double tsum = 0, tmax = -1, fsum = 0, bsum = 0, wsum = 0;
	int slow = 0;
	double hw_fl_total = 0, model_fl_total = 0, dp_end = 0;

	for (int st = 0; st < p; st++) {
		eval_mem *me = &r->mem[st];
		eval_stage_time *tt = &r->st[st];
		memset(me, 0, sizeof *me);
		memset(tt, 0, sizeof *tt);
		double pd = 0, pe = 0, act_mb = 0, work = 0, fl_model = 0, fl_hw = 0;
		double f = 0, b = 0, w = 0, rc = 0, comp = 0, tpc = 0, cpc = 0, epc = 0;
		double wst = 0, p2p_st = 0; /* widest layer and largest P2P message of the stage */
		int layers = 0;
		/* layers of each kind and recompute mode over all the stage's chunks: every
		 * per-layer cost is linear in these counts, so the kinds are priced once per stage;
		 * only the P2P sends are per chunk */
		double rc_cnt[MODEL_MAX_KINDS][RC_COUNT];
		for (int k = 0; k < m->nkinds; k++)
			rc_cnt[k][0] = rc_cnt[k][1] = rc_cnt[k][2] = 0;
		for (int ch = 0; ch < v; ch++) {
			int lo, n;
			strat_chunk_span(s, m->layers, ch, st, &lo, &n);
			int last_chunk = (st == p - 1 && ch == v - 1);
			int hi = lo + n + (last_chunk ? m->mtp_layers : 0); /* MTP rides on the last stage */
			layers += n;
			if (s->nranges == 0) {
				/* walk the runs that overlap [lo, hi): usually one or two */
				int start = 0;
				for (int ri = 0; ri < m->nruns && start < hi; ri++) {
					int end = start + m->run[ri].count;
					int a = lo > start ? lo : start, e = hi < end ? hi : end;
					if (e > a)
						rc_cnt[m->run[ri].kind][s->recompute] += e - a;
					start = end;
				}
			} else {
				for (int l = lo; l < hi; l++)
					rc_cnt[model_layer_kind(m, l)][strat_layer_recompute(s, l < m->layers ? l : m->layers - 1)] += 1;
			}
			if (p > 1) { /* one activation send and one gradient send per chunk */
				double ct = p2p;
				if (!uniform) {
					double cb = x.tok * chunk_width(m, lo, lo + n) * ACT_BYTES / x.sp_div;
					ct = comm_p2p(pp_l, cb);
					p2p_st = cb > p2p_st ? cb : p2p_st;
				}
				ct *= p2p_seen;
				f += ct;
				b += ct;
				tt->pp += 2 * ct;
			}
		}
		for (int k = 0; k < m->nkinds; k++) {
			const kcost *q = &kc[k];
			double nk = rc_cnt[k][0] + rc_cnt[k][1] + rc_cnt[k][2];
			if (nk == 0)
				continue;
			pd += nk * q->p_dense;
			pe += nk * q->p_expert;
			for (int mode = 0; mode < RC_COUNT; mode++)
				act_mb += rc_cnt[k][mode] * q->act[mode];
			if (q->work > work)
				work = q->work;
			if (rc_cnt[k][RC_FULL] + rc_cnt[k][RC_SELECTIVE] > 0 && q->act[RC_NONE] > work)
				work = q->act[RC_NONE]; /* a recomputed layer is materialised whole */
			double rcf = rc_cnt[k][RC_FULL] * (q->f_comp + q->tp_f + q->cp_f + q->ep_f) +
				rc_cnt[k][RC_SELECTIVE] * q->sel_f;
			f += nk * (q->f_comp + q->tp_f + q->cp_f + q->ep_f);
			b += nk * (q->b_in + q->b_w + q->tp_b + q->cp_b + q->ep_b) + rcf;
			w += nk * q->b_w;
			/* the breakdown books recompute compute here and its communication under
			 * the communication kinds below */
			rc += rc_cnt[k][RC_FULL] * q->f_comp + rc_cnt[k][RC_SELECTIVE] * q->sel_f;
			comp += nk * (q->f_comp + q->b_in + q->b_w);
			tpc += nk * (q->tp_f + q->tp_b) + rc_cnt[k][RC_FULL] * q->tp_f;
			cpc += nk * (q->cp_f + q->cp_b) + rc_cnt[k][RC_FULL] * q->cp_f;
			epc += nk * (q->ep_f + q->ep_b) + rc_cnt[k][RC_FULL] * q->ep_f;
			fl_model += nk * q->flops_model;
			fl_hw += nk * q->flops_model + rc_cnt[k][RC_FULL] * q->flops_fwd +
				rc_cnt[k][RC_SELECTIVE] * q->flops_sel;
			if (!uniform && q->width > wst) /* the widest kind of the stage sizes its TP workspace */
				wst = q->width;
		}
		/* first stage: embedding; last stage: LM head, loss, final norm */
		double extra_act = 0;
		if (st == 0) {
			pd += V * h / (s->vocab_parallel ? tp : 1);
			f += emb_f + tp_head;
			b += emb_b;
			comp += emb_f + emb_b;
			tpc += tp_head;
			extra_act += 8.0 * x.b * s->seq / s->cp + (m->hidden_dropout > 0 ? x.tok_sp * h : 0);
		}
		if (st == p - 1) {
			if (!m->tied || p > 1 || dualpipe)
				pd += V * h / (s->vocab_parallel ? tp : 1);
			int heads = 1 + m->mtp_layers; /* each MTP module reuses the output head */
			f += heads * (head_f + tp_head);
			b += heads * (head_b + tp_head);
			w += heads * gemm_t(&x, x.tok, h, Vl, 1);
			comp += heads * (head_f + head_b);
			tpc += 2 * heads * tp_head;
			fl_model += heads * 3 * head_fl;
			fl_hw += heads * 3 * head_fl;
		}
		if (dualpipe) { /* each device also holds the mirrored stage's parameters */
			pd *= 2;
			pe *= 2;
		}
		double nin = inflight(s, st, mb);
		me->layers = layers;
		me->inflight = nin;
		me->weights = pd * wb + pe * wbe;
		me->grads = pd * gb + pe * gbe;
		me->optimizer = pd * ob + pe * obe;
		me->activations = nin * (act_mb + extra_act) + (st == p - 1 ? logits_bytes : 0);
		/* act_mb covers all chunks of the stage; in-flight counts are in stage units */
		double buf = work, tp_w = h, p2p_buf = p2p_bytes;
		if (!uniform) {
			/* the embedding and the head work at the model's width, and so does a stage
			 * without layers */
			tp_w = (st == 0 || st == p - 1 || wst == 0) && h > wst ? h : wst;
			p2p_buf = p2p_st;
		}
		if (s->tp > 1)
			buf += x.tok * tp_w * ACT_BYTES; /* gathered SP input / TP all-reduce workspace */
		if (p > 1)
			buf += 2 * p2p_buf;
		if (s->zero == 3) {
			/* FSDP keeps the current and the prefetched unit unsharded (bf16 params and
			 * their gradients before reduce-scatter) */
			double lmax = 0;
			for (int k = 0; k < m->nkinds; k++)
				if (kc[k].p_dense + kc[k].p_expert > lmax && model_kind_used(m, k))
					lmax = kc[k].p_dense + kc[k].p_expert;
			buf += lmax * (2 * 2 + 4);
		}
		me->buffers = buf;
		me->total = me->weights + me->grads + me->optimizer + me->activations + me->buffers;
		if (me->total > r->peak_bytes) {
			r->peak_bytes = me->total;
			r->peak_stage = st;
		}

		/* ZeRO-3: parameters gathered for forward and backward and gradients
		 * reduce-scattered on every micro-batch, prefetched behind compute */
		double z3 = 0;
		if (s->zero == 3 && (d_dense > 1 || d_exp > 1)) {
			double ag = comm_allgather(dp_l, (int)d_dense, pd * 2) + comm_allgather(edp_l, (int)d_exp, pe * 2);
			double rs = comm_allgather(dp_l, (int)d_dense, pd * 4) + comm_allgather(edp_l, (int)d_exp, pe * 4);
			/* FSDP gathers and reduces one layer at a time: one collective start-up per
			 * layer, which dominates on thousands of ranks (ring latency grows with n) */
			double lat = (layers > 1 ? layers - 1 : 0) *
				((d_dense - 1) * dp_l.lat + (pe > 0 ? (d_exp - 1) * edp_l.lat : 0));
			ag += lat;
			rs += lat;
			double hide = c->eff.dp_overlap, kap = c->eff.contention;
			double zf = overlap_exposed(ag, hide * f, kap), zb = overlap_exposed(ag + rs, hide * b, kap);
			z3 = zf + zb;
			f += zf;
			b += zb;
		}
		tt->fwd = f;
		tt->bwd = b;
		tt->wgrad = w;
		tt->recompute = rc;
		tt->compute = comp;
		tt->tp = tpc;
		tt->cp = cpc;
		tt->ep = epc;
		tt->dp_exposed = z3; /* ZeRO-3 exposure per micro-batch, already inside f and b */
		/* once per step: gradient reduction (ZeRO 0-2) and the optimizer update, a
		 * memory-bound pass over ~34 bytes per locally updated parameter (fp32 grad,
		 * master, Adam m and v read and written, 16-bit copy written, norm for clipping) */
		double upd = s->zero >= 1 ? pd / d_dense + pe / d_exp : pd + pe;
		tt->optimizer = elem_t(&x, upd * 34.0);
		if (s->zero < 3) {
			double t_dp;
			if (s->zero == 0)
				t_dp = comm_allreduce(dp_l, (int)d_dense, pd * 4) + comm_allreduce(edp_l, (int)d_exp, pe * 4);
			else /* reduce-scatter of fp32 grads, all-gather of updated 16-bit params */
				t_dp = comm_allgather(dp_l, (int)d_dense, pd * 4) + comm_allgather(dp_l, (int)d_dense, pd * 2) +
					comm_allgather(edp_l, (int)d_exp, pe * 4) + comm_allgather(edp_l, (int)d_exp, pe * 2);
			/* gradient reduction overlaps the last micro-batch's backward and the
			 * parameter all-gather the next step's first forward; stage st finishes its
			 * backward about st backward slots before stage 0 does */
			double idle = p > 1 ? st * b / v : 0;
			double exposed = overlap_exposed(fmax(0, t_dp - idle),
				c->eff.dp_overlap * (b + (s->zero >= 1 ? f : 0)), c->eff.contention);
			if (exposed > dp_end)
				dp_end = exposed;
		}
		double T = f + b;
		tsum += T;
		fsum += f;
		bsum += b;
		wsum += w;
		if (T > tmax) {
			tmax = T;
			slow = st;
		}
		model_fl_total += fl_model;
		hw_fl_total += fl_hw;
	}

	/* ---- pipeline makespan: steady state at the slowest stage plus the schedule's
	 * warm-up/cool-down bubble ---- */
	double fa = fsum / p, ba = bsum / p, wa = wsum / p;
	double bubble;
	switch (s->schedule) {
	case SCHED_INTERLEAVED:
		bubble = (tsum - tmax) / v;
		break;
	case SCHED_ZBH1:
		bubble = (p - 1) * fmax(0, fa + ba - 2 * wa);
		break;
	case SCHED_ZBH2:
		bubble = (p - 1) * fmax(0, fa + ba - 3 * wa);
		break;
	case SCHED_ZBV:
		bubble = (p - 1) * fmax(0, fa + ba - 3 * wa) / 2;
		break;
	case SCHED_DUALPIPE:
		/* (PP/2 - 1)(F&B + B - 3W), F&B an overlapped forward+backward pair */
		bubble = (p / 2.0 - 1) * fmax(0, fa + 2 * ba - 3 * wa);
		break;
	default: /* GPipe and 1F1B: sum of the stage times plus (m-1) at the slowest */
		bubble = tsum - tmax;
		break;
	}
	if (p == 1)
		bubble = 0;
	/* the optimizer phase: the slowest stage's update plus the step's fixed host work */
	double opt = 0;
	for (int st = 0; st < p; st++)
		if (r->st[st].optimizer > opt)
			opt = r->st[st].optimizer;
	opt += c->eff.step_ms * 1e-3;
	const eval_stage_time *ss = &r->st[slow];
	double z3_per_mb = ss->dp_exposed;
	r->slow_stage = slow;
	r->compute = mb * ss->compute;
	r->recompute = mb * ss->recompute;
	r->tp = mb * ss->tp;
	r->cp = mb * ss->cp;
	r->ep = mb * ss->ep;
	r->pp = mb * ss->pp;
	r->dp = mb * z3_per_mb + dp_end;
	r->bubble = bubble;
	r->optimizer = opt;
	r->comm_exposed = r->tp + r->cp + r->ep + r->pp + r->dp;
	r->step = r->compute + r->recompute + r->comm_exposed + r->bubble + r->optimizer;

	double tokens = (double)s->global_batch * s->seq;
	r->tokens_per_s = tokens / r->step;
	/* whole-job FLOPs: per-device stage FLOPs x micro-batches x replicas (dp*cp*tp ranks
	 * share each stage's work: the per-device figures are already divided by tp and cp) */
	double replicas = (double)s->dp * s->cp * s->tp;
	r->model_flops = model_fl_total * mb * replicas;
	r->hw_flops = hw_fl_total * mb * replicas;
	double pk = x.peak16;
	r->mfu = r->model_flops / (r->step * devices * pk);
	r->hfu = r->hw_flops / (r->step * devices * pk);
	r->params_total = model_total_params(m, true);
	r->params_active = model_active_params(m);
	r->fits = r->peak_bytes <= budget;
	r->valid = 1;
	return 0;
}

/* The bubble ILP re-adds these per stage exactly as eval_run does; a test checks that the
 * even split priced from them matches eval_run stage by stage. */
int eval_costs_get(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_costs *o, char *why, size_t whylen)
{
	if (strat_validate(s, m, c, devices, why, whylen))
		return -1;
	if (s->pp > EVAL_MAX_STAGES) {
		snprintf(why, whylen, "more pipeline stages than the evaluator supports (256)");
		return -1;
	}
	memset(o, 0, sizeof *o);
	ctx x;
	ctx_init(&x, m, c, s);
	const int p = s->pp, mb = strat_microbatches(s);
	const double h = m->hidden, V = m->vocab, tp = s->tp;
	o->pp = p;
	o->vpp = s->vpp;
	o->microbatches = mb;
	o->schedule = s->schedule;
	o->dualpipe = s->schedule == SCHED_DUALPIPE;
	o->budget = (budget_gib > 0 ? budget_gib : eval_default_budget_gib(c)) * GIB;
	double lmax = 0;
	for (int k = 0; k < m->nkinds; k++) {
		kcost q;
		kind_cost(&x, k, &q);
		eval_kind_cost *e = &o->kind[k];
		e->fwd = q.f_comp + q.tp_f + q.cp_f + q.ep_f;
		e->bwd = q.b_in + q.b_w + q.tp_b + q.cp_b + q.ep_b;
		e->wgrad = q.b_w;
		e->rc[RC_FULL] = e->fwd;
		e->rc[RC_SELECTIVE] = q.sel_f;
		for (int mode = 0; mode < RC_COUNT; mode++)
			e->act[mode] = q.act[mode];
		e->work = q.work;
		e->p_dense = q.p_dense;
		e->p_expert = q.p_expert;
		if (q.p_dense + q.p_expert > lmax && model_kind_used(m, k))
			lmax = q.p_dense + q.p_expert;
	}
	double d_dense = (double)s->dp * s->cp;
	double d_exp = (double)s->dp * s->cp * s->tp / ((double)s->ep * s->etp);
	double fp8w = s->precision == PREC_FP8 ? 1.0 : 0.0;
	o->wb = o->wbe = s->zero >= 3 ? 0 : 2 + fp8w;
	o->gb = o->gbe = 4;
	o->ob = o->obe = 12;
	if (s->zero >= 1) {
		o->ob = 12 / d_dense;
		o->obe = 12 / d_exp;
	}
	if (s->zero >= 2) {
		o->gb = 4 / d_dense;
		o->gbe = 4 / d_exp;
	}
	if (s->zero >= 3) {
		o->wb = 4 / d_dense;
		o->wbe = 4 / d_exp;
		o->ob = 8 / d_dense;
		o->obe = 8 / d_exp;
	}
	/* PP neighbours sit tp*cp*dp ranks apart */
	comm_link pp_l;
	int pp_in_node = (long long)s->tp * s->cp * s->dp * 2 <= c->node_devices;
	pp_l.bw = pp_in_node ? c->node_gbps * 1e9 * c->eff.coll_intra : c->net_gbps * 1e9 * c->eff.coll_inter;
	pp_l.lat = pp_in_node ? 2e-6 : c->net_lat_us * 1e-6;
	/* These costs hold for any split, so with layer kinds of several widths P2P is priced
	 * at the narrowest (a lower bound on every chunk's transfer, which the search's time
	 * bound needs; a constant per chunk, so it moves no split the ILP picks) and the stage
	 * buffers at the widest (an upper bound, so the ILP's memory stays safe). */
	double wmin = h, wmax = h;
	if (!model_uniform(m)) {
		wmin = model_kind_hidden(m, 0);
		for (int k = 0; k < m->nkinds; k++) {
			double kw = model_kind_hidden(m, k);
			wmin = kw < wmin ? kw : wmin;
			wmax = kw > wmax ? kw : wmax;
		}
	}
	double p2p_bytes = x.tok * wmin * ACT_BYTES / x.sp_div;
	o->p2p = (p > 1 ? comm_p2p(pp_l, p2p_bytes) : 0) * (o->dualpipe ? c->eff.contention : 1.0);
	double p2p_buf = x.tok * wmax * ACT_BYTES / x.sp_div;
	double Vl = s->vocab_parallel ? V / tp : V, vocab_params = V * h / (s->vocab_parallel ? tp : 1);
	double tp_head = s->tp > 1 ? comm_allreduce(x.tp_l, s->tp, x.tok * h * ACT_BYTES) * x.tp_exp : 0;
	double heads = 1 + m->mtp_layers; /* each MTP module reuses the output head */
	o->emb_fwd = elem_t(&x, x.tok_sp * h * ACT_BYTES * 2) + tp_head;
	o->emb_bwd = 2 * elem_t(&x, x.tok_sp * h * ACT_BYTES * 2);
	o->emb_params = vocab_params;
	o->emb_act = 8.0 * x.b * s->seq / s->cp + (m->hidden_dropout > 0 ? x.tok_sp * h : 0);
	o->head_wgrad = heads * gemm_t(&x, x.tok, h, Vl, 1);
	o->head_fwd = heads * (o->head_wgrad / heads + elem_t(&x, x.tok * Vl * 10.0) + tp_head);
	o->head_bwd = heads * (2 * o->head_wgrad / heads + elem_t(&x, x.tok * Vl * 8.0) + tp_head);
	o->head_params = (!m->tied || p > 1 || o->dualpipe) ? vocab_params : 0;
	o->logits = x.tok * Vl * logit_bytes(s);
	o->buffers = (s->tp > 1 ? x.tok * wmax * ACT_BYTES : 0) + (p > 1 ? 2 * p2p_buf : 0) +
		(s->zero == 3 ? lmax * (2 * 2 + 4) : 0);
	for (int st = 0; st < p; st++)
		o->inflight[st] = inflight(s, st, mb);
	return 0;
}
