/* vocab.h - the embedding (first stage) and the LM head with its loss (last stage): time,
 * parameters, TP communication and stored bytes.
 *
 * Sources: Megatron-LM's VocabParallelEmbedding and vocab-parallel cross entropy (Shoeybi et
 * al. 2019, arXiv 1909.08053): the vocabulary split over TP, one all-reduce around the
 * embedding and each head; the loss's fp32 logit copies (memory.c); each multi-token-
 * prediction module reuses the output head (DeepSeek-V3, arXiv 2412.19437, Sec. 2.2).
 * Element-wise loss traffic: softmax, log and gather over the logits, 10 bytes per logit
 * forward and 8 backward. Priced at the model's hidden_size. */
#ifndef STRATA_CORE_COST_VOCAB_H
#define STRATA_CORE_COST_VOCAB_H

#include "core/cost/context.h"

typedef struct {
	double Vl;          /* vocabulary columns per device */
	double params;      /* parameters of the embedding (and of an untied head) per device */
	double head_mm;     /* seconds of one head's GEMM (forward; its weight gradient alike) */
	double head_f, head_b;   /* one head with its loss: forward, backward seconds */
	double head_fl;     /* one head's forward FLOPs per device */
	double emb_f, emb_b;     /* embedding lookup: forward, backward seconds */
	double tp_head;     /* exposed TP all-reduce around the embedding and each head */
	double emb_act;     /* bytes the first stage keeps per micro-batch (ids, masks, dropout) */
	double logits;      /* bytes the loss keeps per micro-batch on the last stage */
	int heads;          /* output heads: 1 + MTP modules */
} vocab_cost;

/* Price the embedding and the LM head under the context's strategy. */
vocab_cost vocab_price(const cost_ctx *x);

#endif
