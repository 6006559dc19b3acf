/* model.h - transformer model description (layer kinds and their order) and parameter counts.
 * Pure data + arithmetic: no I/O. Field names follow Hugging Face config.json. */
#ifndef STRATA_CORE_MODEL_H
#define STRATA_CORE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_KINDS 8     /* distinct layer shapes (dense, MoE, MTP, ...) */
#define MODEL_MAX_RUNS 512    /* runs of consecutive same-kind layers */
#define MODEL_MAX_LAYERS 4096 /* sanity bound: larger models are rejected, not overflowed */

typedef enum { ATTN_GQA = 0, ATTN_MLA = 1 } attn_kind;

/* MLP type of a layer kind. MLP_MODEL (0, what a zeroed kind has) follows the model's
 * gated flag; the others let an encoder of another family (a GELU ViT in front of a
 * SwiGLU decoder) keep its own. The type also picks the norms: LayerNorm (scale and bias)
 * for a plain MLP, RMSNorm (scale) for a gated one. */
typedef enum { MLP_MODEL = 0, MLP_GATED = 1, MLP_PLAIN = 2 } mlp_kind;

/* One layer shape. GQA covers MHA (kv_heads == heads) and MQA (kv_heads == 1).
 *
 * hidden is the width of the residual stream through layers of this kind; 0 means the
 * model's hidden_size, so every model built without per-kind widths is what it was. Where
 * consecutive layers differ in width, the projection between them is the model author's
 * business: it costs nothing unless it is described as a layer kind of its own. The
 * embedding and the LM head always have the model's hidden_size. */
typedef struct {
	int attn;                     /* attn_kind */
	int hidden;                   /* residual width; 0 = the model's hidden_size */
	int mlp;                      /* mlp_kind */
	int heads, kv_heads, head_dim;
	int q_lora, kv_lora, qk_nope, qk_rope, v_head; /* MLA (DeepSeek-V2/V3) */
	int window;                   /* sliding-window attention span in tokens; 0 = full */
	int chunk;                    /* chunked attention (Llama 4): block size in tokens; 0 = none */
	int ffn;                      /* dense MLP width; 0 for a pure MoE layer */
	int experts, topk, expert_ffn, shared; /* routed experts when experts > 0 */
	bool mtp;                     /* multi-token-prediction module (extra projection) */
	/* A vision encoder (ViT) layer in front of the decoder, when enc_tokens > 0: it sees
	 * enc_images images per sample of enc_tokens patches each instead of the job's text
	 * sequence, attends both ways within one image, and carries biases on its linear layers
	 * (CLIP, SigLIP, InternViT and Qwen2-VL's ViT all do). Encoder layers come first. The
	 * projector into the decoder (LLaVA's MLP, Qwen2-VL's merger) is a two-matrix MLP from
	 * proj_merge neighbouring patches (width hidden * proj_merge) through proj_ffn to the
	 * model's hidden_size, biased; proj_ffn 0 = none. It is spread evenly over the kind's
	 * layers (each holds and runs 1 / count of it). */
	int enc_tokens, enc_images;
	int proj_ffn, proj_merge;     /* proj_merge 0 = 1 (no merge) */
} layer_kind;

typedef struct {
	uint8_t kind;
	int count;
} layer_run;

/* What the cost model does not use but a launch script must state, as the model file
 * gives it (Hugging Face key in each comment); 0 or "" = not stated. */
typedef enum { MODEL_NORM_UNSET = 0, MODEL_NORM_RMS, MODEL_NORM_LAYER } model_norm;
typedef enum { MODEL_POS_UNSET = 0, MODEL_POS_ROPE, MODEL_POS_LEARNED } model_pos;
typedef struct {
	int norm;            /* model_norm: rms_norm_eps -> RMS; layer_norm_eps(ilon) -> LayerNorm */
	double norm_eps;     /* the epsilon of that key */
	int pos;             /* model_pos: rope_theta -> RoPE; position_embedding_type absolute
	                      * or model_type gpt2 -> learned absolute */
	double rope_theta;   /* rope_theta */
	double rotary_pct;   /* partial_rotary_factor (0: all of each head) */
	char rope_scaling[16]; /* rope_scaling.rope_type (or .type): llama3, yarn, linear, ... */
	double rope_factor;  /* rope_scaling.factor */
	double mscale, mscale_all_dim; /* rope_scaling.mscale, .mscale_all_dim (YaRN, DeepSeek) */
	int max_pos;         /* max_position_embeddings | n_positions */
} model_arch;

typedef struct {
	char name[64];
	int hidden, vocab;
	bool gated;      /* SwiGLU-style MLP: three matrices */
	bool tied;       /* input embedding shared with the LM head */
	bool biases;     /* linear layers carry biases (GPT-2/3 style) */
	bool qkv_bias;   /* only the QKV projection has a bias (Qwen2) */
	double hidden_dropout, attention_dropout;
	model_arch arch; /* normalization and position embedding, for the exports */
	int nkinds;
	layer_kind kind[MODEL_MAX_KINDS];
	int nruns;
	layer_run run[MODEL_MAX_RUNS];
	int layers;      /* transformer layers of the main model (MTP modules excluded) */
	int mtp_layers;  /* MTP modules, placed after the main layers on the last stage */
} model_t;

/* Parameter counts in parameters (not bytes). */
typedef struct {
	double attn, mlp_dense, experts_routed, experts_shared, router, norms, extra;
} layer_params;

enum { MODEL_LIST_NONE = 0, MODEL_LIST_DENSE = 1, MODEL_LIST_MOE = 2 };

/* Fill a plain dense/MoE/MLA model from config-style scalars; returns 0 or -1 with a reason. */
typedef struct {
	char name[64];
	int hidden, ffn, layers, heads, kv_heads, head_dim, vocab;
	bool gated, tied, biases, qkv_bias;
	double hidden_dropout, attention_dropout;
	model_arch arch;
	int experts, topk, moe_ffn, shared, first_k_dense, moe_freq;
	/* with moe_freq: layer l >= first_k_dense is MoE when l % moe_freq == moe_phase.
	 * DeepSeek's moe_layer_freq is phase 0; Qwen's decoder_sparse_step and Llama 4's
	 * interleave_moe_layer_step (MoE when (l + 1) % step == 0) are phase step - 1. */
	int moe_phase;
	/* an explicit layer list overrides the rule: MODEL_LIST_DENSE marks the listed layers
	 * dense (Qwen's mlp_only_layers), MODEL_LIST_MOE makes the listed layers exactly the
	 * MoE layers (Llama 4's moe_layers); one bit per layer */
	int list_mode;
	uint8_t list[MODEL_MAX_LAYERS / 8];
	/* local attention: a sliding window (Mistral, Gemma, gpt-oss) and/or chunks (Llama 4)
	 * of these many tokens, on every layer, or with local_listed only on the layers whose
	 * bit is set in local (the others attend to the whole sequence) */
	int window, chunk;
	bool local_listed;
	uint8_t local[MODEL_MAX_LAYERS / 8];
	int q_lora, kv_lora, qk_nope, qk_rope, v_head;
	int mtp;
} model_config;

/* Residual width of layer kind k: its own hidden size, else the model's. (Inline: the
 * evaluator asks per kind on every call.) */
static inline int model_kind_hidden(const model_t *m, int k)
{
	return m->kind[k].hidden > 0 ? m->kind[k].hidden : m->hidden;
}

/* Whether layer kind k is a vision-encoder layer (sees image patches, not the text). */
static inline bool model_kind_encoder(const model_t *m, int k)
{
	return m->kind[k].enc_tokens > 0;
}

/* Whether some layer kind of m is a vision encoder's. */
static inline bool model_has_encoder(const model_t *m)
{
	for (int k = 0; k < m->nkinds; k++)
		if (m->kind[k].enc_tokens > 0)
			return true;
	return false;
}

/* Tokens one sample puts through a layer of kind k: the encoder's patches, else seq. */
static inline double model_kind_tokens(const model_t *m, int k, double seq)
{
	const layer_kind *t = &m->kind[k];
	return t->enc_tokens > 0 ? (double)t->enc_tokens * t->enc_images : seq;
}

/* Bytes per text token, in units of one activation element, of what a layer of kind k
 * passes on: its width, for an encoder scaled by its patches per sample over seq. */
static inline double model_kind_width(const model_t *m, int k, double seq)
{
	double h = model_kind_hidden(m, k);
	return m->kind[k].enc_tokens > 0 ? h * model_kind_tokens(m, k, seq) / seq : h;
}

/* Whether layer kind k has a gated (three-matrix) MLP: its own type, else the model's. */
static inline bool model_kind_gated(const model_t *m, int k)
{
	return m->kind[k].mlp == MLP_MODEL ? m->gated : m->kind[k].mlp == MLP_GATED;
}

/* Build a model from a config; writes a readable reason on failure. */
int model_from_config(model_t *m, const model_config *c, char *why, size_t whylen);
/* Copy the model-wide fields of a config (width, vocabulary, MLP type, ties, biases,
 * dropouts) into m; the layer kinds are left alone. */
void model_set_globals(model_t *m, const model_config *c);
/* Field-by-field equality of two model_arch. */
bool model_arch_equal(const model_arch *a, const model_arch *b);
/* Check a model built layer by layer (bounds, non-zero sizes); 0 or -1 with a reason. */
int model_check(const model_t *m, char *why, size_t whylen);
/* Width of layer l (0-based), or 0 when out of range. */
int model_layer_hidden(const model_t *m, int l);
/* 1 when every layer kind has the model's hidden size and MLP type (the common case). */
bool model_uniform(const model_t *m);
/* Field-by-field equality of two layer kinds (struct padding cannot make them differ). */
bool model_kind_equal(const layer_kind *a, const layer_kind *b);
/* model_kind_equal but for the mtp flag: an MTP module's layer and the layer it repeats. */
bool model_kind_same_layer(const layer_kind *a, const layer_kind *b);
/* Equality of two models: name, model-wide fields, and layer by layer the same shapes (the
 * numbering of kinds, and kinds no layer uses, do not count). */
bool model_equal(const model_t *a, const model_t *b);
/* Whether some layer of m is of kind k (config-built models keep an unused dense kind when
 * every layer is MoE). */
bool model_kind_used(const model_t *m, int k);
/* Parameters of one layer of kind k, by component. */
layer_params model_layer_params(const model_t *m, int k);
/* Total of a layer_params. */
double model_params_sum(const layer_params *p);
/* Parameters activated per token by one layer of kind k (top-k experts only). */
double model_layer_active(const model_t *m, int k);
/* Whole-model parameters; mtp selects whether MTP modules are included. */
double model_total_params(const model_t *m, bool with_mtp);
/* Embedding, final norm and every run's layers, each layer of kind k counting per_kind[k]
 * (MTP modules only when with_mtp): the sum model_total_params and model_active_params
 * make, for a caller that has the per-kind figures already. */
double model_sum_runs(const model_t *m, const double *per_kind, bool with_mtp);
/* Both sums of one evaluation in one pass: *total = model_sum_runs(m, per_kind, true),
 * *active_sum = model_sum_runs(m, active, false), the same bits. */
void model_sum_runs2(const model_t *m, const double *per_kind, const double *active, double *total,
		double *active_sum);
/* Parameters a token of layer kind k uses, from its parameter split p (routed experts
 * count top-k of n). */
double model_params_active(const model_t *m, int k, const layer_params *p);
/* Parameters activated per token (embedding counted once, MTP excluded). */
double model_active_params(const model_t *m);
/* Kind index of layer l (0-based), or -1 when out of range. */
int model_layer_kind(const model_t *m, int l);
/* Count layers of each kind in [lo, hi) into cnt[MODEL_MAX_KINDS]. */
void model_count_kinds(const model_t *m, int lo, int hi, int *cnt);
/* Routed experts of the layer kind with the most (0 for a dense model). */
int model_max_experts(const model_t *m);
/* Layers of kind k in the model. */
int model_kind_count(const model_t *m, int k);
/* Parameters of the projector after encoder kind k (0 when it has none). */
double model_projector_params(const model_t *m, int k);
/* Append n layers of kind k (merging with the previous run); -1 when full. */
int model_append(model_t *m, int k, int n);

#endif
