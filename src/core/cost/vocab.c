/* vocab.c - embedding and LM head costs (vocab.h has the sources). */
#include "core/cost/vocab.h"
#include "core/cost/compute.h"
#include "core/cost/memory.h"

vocab_cost vocab_price(const cost_ctx *x)
{
	const model_t *m = x->m;
	const strategy_t *s = x->s;
	const double h = m->hidden, V = m->vocab, tp = s->tp;
	vocab_cost o;
	o.Vl = s->vocab_parallel ? V / tp : V;
	o.params = V * h / (s->vocab_parallel ? tp : 1);
	o.head_mm = compute_gemm(x, x->tok, h, o.Vl, 1);
	o.head_f = o.head_mm + compute_elem(x, x->tok * o.Vl * 10.0);
	o.head_b = 2 * o.head_mm + compute_elem(x, x->tok * o.Vl * 8.0);
	o.head_fl = 2.0 * (x->b * s->seq / s->cp) * h * V / tp;
	o.emb_f = compute_elem(x, x->tok_sp * h * ACT_BYTES * 2);
	o.emb_b = 2 * o.emb_f;
	o.tp_head = s->tp > 1 ? comm_allreduce(x->tp_l, s->tp, x->tok * h * ACT_BYTES) * x->tp_exp : 0;
	o.emb_act = 8.0 * x->b * s->seq / s->cp + (m->hidden_dropout > 0 ? x->tok_sp * h : 0);
	o.logits = x->tok * o.Vl * mem_logit_bytes(s);
	o.heads = 1 + m->mtp_layers;
	return o;
}
