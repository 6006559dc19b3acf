/* evaluate.c - the cost model's orchestrator: validate the strategy, price each layer kind
 * once (cost/layer.c), price each distinct pipeline stage once (cost/stage.c), place every
 * stage's in-flight micro-batches (cost/schedule.c), and compose the step time, memory
 * peak and throughput. Where each formula lives and its sources: docs/cost-model.md.
 * No allocation and no I/O: the search and the TUI call this on every candidate and key. */
#include "core/evaluate.h"
#include "core/cost/context.h"
#include "core/cost/layer.h"
#include "core/cost/repeat.h"
#include "core/cost/schedule.h"
#include "core/cost/stage.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Sums over the stages, in stage order. */
typedef struct {
	double tsum, tmax, fmax, bmax, fsum, bsum, wsum;
	int slow;
	const eval_stage_time *slow_st; /* the slowest stage's times (its span's) */
	double model_fl, hw_fl, dp_end, opt;
	double tied;                /* the tied embedding's gradient all-reduce (pp comm) */
} stage_totals;

/* What PyTorch can allocate before it reports out-of-memory, in the allocated convention:
 * the device memory less the CUDA/CANN context (never the allocator's), less the bytes the
 * caching allocator holds reserved but unallocated at that point (partly used segments it
 * cannot release; its cached free blocks it does release first, see eval_mem_convention),
 * oom_frag of the allocated bytes: allocated * (1 + oom_frag) = memory - context. Example:
 * an out-of-memory error on an 80 GB H100 (pytorch/pytorch#152135) reports 79.26 GiB total,
 * 74.77 allocated, 3.87 reserved but unallocated (5.2 %), 0.50 outside PyTorch. A cluster
 * file's reserve_gib > 0 keeps the older flat rule. docs/cost-model.md, "Memory peak". */
double eval_default_budget_gib(const cluster_t *c)
{
	if (c->eff.reserve_gib > 0)
		return c->mem_gib - c->eff.reserve_gib;
	return (c->mem_gib - c->eff.context_gib) / (1 + c->eff.oom_frag);
}

/* alloc_frag: the caching allocator's reserve over allocated bytes (block rounding, cached
 * free blocks, fragmentation); context_gib: the CUDA context, which nvidia-smi sees and the
 * allocator does not (docs/cost-model.md, "Memory conventions"). */
double eval_mem_convention(const cluster_t *c, double alloc_gib, int conv)
{
	if (conv == EVAL_MEM_ALLOCATED)
		return alloc_gib;
	/* the reserve never outgrows the device: before it reports out-of-memory, PyTorch's
	 * CUDACachingAllocator releases its cached free blocks and retries cudaMalloc
	 * (c10/cuda/CUDACachingAllocator.cpp, release_cached_blocks), so slack is what the
	 * device has room for, at most alloc_frag of the allocated bytes */
	double room = c->mem_gib - c->eff.context_gib;
	double res = fmax(alloc_gib, fmin(alloc_gib * (1 + c->eff.alloc_frag), room));
	return conv == EVAL_MEM_NVIDIA_SMI ? res + c->eff.context_gib : res;
}

double eval_mfu_ceiling(const cluster_t *c, int precision, double *hfu)
{
	/* Counted FLOPs per second of peak16 that each kind of work can reach (compute.c): a
	 * GEMM at most its family's efficiency (fp8's at the fp8 peak, over the 16-bit peak;
	 * grouped expert GEMMs scale it by grouped_gemm); the flash attention core counts 3 F
	 * (forward and backward, both causal halves) for 0.5 F + 1.25 F run at the kernel's
	 * efficiency, so 12/7 of it; a recomputed core counts F for 0.5 F run, twice it (HFU).
	 * The step adds everything else (element-wise passes, exposed communication, bubble),
	 * so MFU, a mean over the work weighted by time, is at most the largest of these. */
	double p16 = c->peak_tflops[PREC_BF16] > 0 ? c->peak_tflops[PREC_BF16] : c->peak_tflops[PREC_FP16];
	if (precision == PREC_FP16 && c->peak_tflops[PREC_FP16] > 0)
		p16 = c->peak_tflops[PREC_FP16];
	double gemm = prec_low(precision) ? c->eff.fp8_gemm * c->peak_tflops[precision] / p16 :
		c->eff.gemm * c->peak_tflops[precision] / p16;
	gemm *= c->eff.grouped_gemm > 1 ? c->eff.grouped_gemm : 1;
	double fe = c->eff.flash > c->eff.flash_sdpa ? c->eff.flash : c->eff.flash_sdpa;
	if (hfu)
		*hfu = fmax(gemm, 2 * fe);
	return fmax(gemm, 12.0 / 7 * fe);
}

double eval_layer_activation(const model_t *m, const cluster_t *c, const strategy_t *s, int k, int mode)
{
	if (k < 0 || k >= m->nkinds || mode < 0 || mode >= RC_COUNT || s->tp <= 0 || s->cp <= 0 ||
			s->ep <= 0 || s->etp <= 0 || s->micro_batch <= 0 || s->seq <= 0)
		return -1;
	cost_ctx x;
	layer_cost q;
	ctx_init(&x, m, c, s);
	layer_price(&x, k, &q);
	return q.act[mode];
}

const char *eval_dp_group_name(int g)
{
	return g == EVAL_DP_CP ? "dp-cp" : g == EVAL_EDP ? "edp" : "dp";
}

void eval_step_parts(const eval_result *r, eval_part out[EVAL_NPARTS])
{
	const char *dp = r->dp_group == EVAL_DP_CP ? "dp-cp comm" : r->dp_group == EVAL_EDP ? "edp comm" : "dp comm";
	const eval_part p[EVAL_NPARTS] = {
		{"compute", r->compute}, {"recompute", r->recompute}, {"bubble", r->bubble},
		{"tp comm", r->tp}, {"cp comm", r->cp}, {"ep comm", r->ep}, {"pp comm", r->pp},
		{dp, r->dp}, {"optimizer", r->optimizer},
	};
	for (int i = 0; i < EVAL_NPARTS; i++)
		out[i] = p[i];
}

/* x and y equal within rel of the larger magnitude (exactly when rel is 0). */
static int near(double x, double y, double rel)
{
	return x == y || fabs(x - y) <= rel * fmax(fabs(x), fabs(y));
}

int eval_alike(const eval_result *a, const eval_result *b, double rel)
{
	if (!a->valid || !b->valid || a->stages != b->stages || a->chunks != b->chunks ||
			a->microbatches != b->microbatches || a->peak_stage != b->peak_stage || a->fits != b->fits ||
			a->slow_stage != b->slow_stage || a->dp_group != b->dp_group)
		return 0;
	const double x[] = {a->peak_bytes, a->budget_bytes, a->step, a->compute, a->recompute, a->bubble,
		a->optimizer, a->tp, a->cp, a->ep, a->pp, a->dp, a->comm_exposed, a->tokens_per_s, a->mfu, a->hfu,
		a->model_flops, a->hw_flops, a->params_total, a->params_active};
	const double y[] = {b->peak_bytes, b->budget_bytes, b->step, b->compute, b->recompute, b->bubble,
		b->optimizer, b->tp, b->cp, b->ep, b->pp, b->dp, b->comm_exposed, b->tokens_per_s, b->mfu, b->hfu,
		b->model_flops, b->hw_flops, b->params_total, b->params_active};
	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
		if (!near(x[i], y[i], rel))
			return 0;
	for (int st = 0; st < a->stages; st++) {
		const eval_mem am = eval_stage_mem(a, st), bm = eval_stage_mem(b, st);
		const eval_mem *m = &am, *n = &bm;
		const eval_stage_time *t = &eval_span_of(a, st)->st, *u = &eval_span_of(b, st)->st;
		if (m->layers != n->layers || !near(m->weights, n->weights, rel) || !near(m->grads, n->grads, rel) ||
				!near(m->optimizer, n->optimizer, rel) || !near(m->activations, n->activations, rel) ||
				!near(m->buffers, n->buffers, rel) || !near(m->total, n->total, rel) ||
				!near(m->inflight, n->inflight, rel) || !near(t->fwd, u->fwd, rel) || !near(t->bwd, u->bwd, rel) ||
				!near(t->wgrad, u->wgrad, rel))
			return 0;
	}
	return 1;
}

static int reject(eval_result *r, const char *why)
{
	r->valid = 0;
	if (why != r->why)
		snprintf(r->why, sizeof r->why, "%s", why);
	return -1;
}

/* Stage i of span sp: the span's bytes with the stage's in-flight micro-batches. */
static eval_mem span_stage_mem(const eval_result *r, const eval_span *sp, int i)
{
	eval_mem me = sp->mem;
	double nin = sched_inflight_of(r->schedule, r->stages, r->chunks / r->stages, i, r->microbatches);
	me.inflight = nin;
	me.activations = nin * sp->act + (i == r->stages - 1 ? r->logits : 0);
	me.total = me.weights + me.grads + me.optimizer + me.activations + me.buffers;
	return me;
}

/* Add n alike stages' times and FLOPs to the step's sums, in stage order (the same bits as
 * adding stage by stage); the mean F, B and W only when the bubble reads them (means). A
 * short span adds all six in one loop, whose six independent chains run side by side; a
 * long one per binade (rep_add). */
static void add_sums(stage_totals *restrict t, const stage_cost *restrict sc, int n, int means)
{
	const double f = sc->tt.fwd, b = sc->tt.bwd, T = f + b, w = sc->tt.wgrad;
	if (n < REP_LOOP) {
		double tsum = t->tsum, fsum = t->fsum, bsum = t->bsum, wsum = t->wsum, mfl = t->model_fl, hfl = t->hw_fl;
		for (int i = 0; i < n; i++) {
			tsum += T;
			fsum += f;
			bsum += b;
			wsum += w;
			mfl += sc->fl_model;
			hfl += sc->fl_hw;
		}
		t->tsum = tsum;
		t->fsum = fsum;
		t->bsum = bsum;
		t->wsum = wsum;
		t->model_fl = mfl;
		t->hw_fl = hfl;
		return;
	}
	t->tsum = rep_add(t->tsum, T, n);
	if (means) { /* else left as they are: the bubble does not read them */
		t->fsum = rep_add(t->fsum, f, n);
		t->bsum = rep_add(t->bsum, b, n);
		t->wsum = rep_add(t->wsum, w, n);
	}
	t->model_fl = rep_add(t->model_fl, sc->fl_model, n);
	t->hw_fl = rep_add(t->hw_fl, sc->fl_hw, n);
}

/* Stages lo..hi-1, which hold what stage lo of the priced shape sc holds: their span, its
 * share of the peak and the step's sums, the same bits as visiting the stages in order.
 * Every schedule holds no more micro-batches in flight on a stage than on the one before
 * (sched_inflight), so the span's peak is its first stage's and a later one never beats
 * it; the sums add the same per-stage figures hi - lo times (rep_add). */
static void place_span(int lo, int hi, const stage_cost *restrict sc, eval_result *restrict r,
		stage_totals *restrict t)
{
	eval_span *sp = &r->span[r->nspans++];
	sp->mem = sc->mem;
	sp->st = sc->tt;
	/* act_mb covers all chunks of the stage; in-flight counts are in stage units */
	sp->act = sc->act_mb + sc->extra_act;
	sp->lo = lo;
	sp->hi = hi;
	double total = span_stage_mem(r, sp, lo).total;
	if (total > r->peak_bytes) {
		r->peak_bytes = total;
		r->peak_stage = lo;
	}
	double f = sc->tt.fwd, b = sc->tt.bwd, T = f + b;
	add_sums(t, sc, hi - lo, sched_reads_means(r->schedule));
	t->fmax = f > t->fmax ? f : t->fmax;
	t->bmax = b > t->bmax ? b : t->bmax;
	if (T > t->tmax) {
		t->tmax = T;
		t->slow = lo;
		t->slow_st = &sp->st;
	}
}

const eval_span *eval_span_of(const eval_result *r, int i)
{
	int a = 0, z = r->nspans - 1; /* the last span starting at or before i */
	while (a < z) {
		int mid = (a + z + 1) / 2;
		if (r->span[mid].lo <= i)
			a = mid;
		else
			z = mid - 1;
	}
	return &r->span[a];
}

eval_mem eval_stage_mem(const eval_result *r, int i)
{
	return span_stage_mem(r, eval_span_of(r, i), i);
}


eval_stage_time eval_stage_time_of(const eval_result *r, int i)
{
	return eval_span_of(r, i)->st;
}

/* The first marked stage after st (p if none): eight marks at a time, since most stages of
 * a long pipeline are unmarked. */
static int next_start(const uint8_t *start, int st, int p)
{
	int i = st + 1;
	for (uint64_t w; i + 8 <= p; i += 8) {
		memcpy(&w, start + i, sizeof w);
		if (w)
			break;
	}
	while (i < p && !start[i])
		i++;
	return i;
}

/* A stage that starts a new shape: what depends on its shape alone. The gradient sync shows
 * most on the first stage of a run of alike stages (later ones finish backward earlier),
 * and the optimizer is the same on all of them, so both are taken here. */
static void first_of_shape(const stage_env *e, int st, const stage_cost *sc, stage_totals *t)
{
	if (e->x->s->zero < 3) {
		double exposed = dp_sync_exposed(e->x, sc->t_dp, sc->t_dp_edge, st, sc->tt.fwd, sc->tt.bwd);
		if (exposed > t->dp_end)
			t->dp_end = exposed;
	}
	if (sc->tt.optimizer > t->opt)
		t->opt = sc->tt.optimizer;
	if (sc->t_tied > t->tied)
		t->tied = sc->t_tied;
}

/* The steady state's pace: the slowest stage's parts, or under DualPipe the mean of the
 * busiest pair of mirrored stages. Every DualPipe device runs half its micro-batches through
 * stage d and half through stage p-1-d (DeepSeek-V3 report, arXiv 2412.19437, sec. 3.2.1;
 * deepseek-ai/DualPipe, DualPipe.step), so it is busy m (T_d + T_{p-1-d})/2, not m T_max:
 * with DeepSeek-V3's heavy first and last stages the slowest stage overcharged the step by
 * up to 48.8 stage times. */
static eval_stage_time pace_of(const strategy_t *s, int p, const stage_totals *t, const eval_result *r)
{
	eval_stage_time ss = *t->slow_st;
	if (s->schedule != SCHED_DUALPIPE || p < 2)
		return ss;
	/* the pairs (d, p-1-d) in order of d, one per pair of spans they meet: the sum is the
	 * same for every d of such a stretch, and the first d of the largest wins */
	const eval_stage_time *a = NULL, *z = NULL;
	double most = -1;
	for (int d = 0, i = 0, j = r->nspans - 1; d < p / 2;) {
		while (r->span[i].hi <= d)
			i++;
		while (r->span[j].lo > p - 1 - d)
			j--;
		const eval_stage_time *u = &r->span[i].st, *w = &r->span[j].st;
		double T = u->fwd + u->bwd + w->fwd + w->bwd;
		if (T > most) {
			most = T;
			a = u;
			z = w;
		}
		int next = p - r->span[j].lo; /* the first d past span j's mirror */
		d = r->span[i].hi < next ? r->span[i].hi : next;
	}
	ss.fwd = (a->fwd + z->fwd) / 2;
	ss.bwd = (a->bwd + z->bwd) / 2;
	ss.compute = (a->compute + z->compute) / 2;
	ss.recompute = (a->recompute + z->recompute) / 2;
	ss.tp = (a->tp + z->tp) / 2;
	ss.cp = (a->cp + z->cp) / 2;
	ss.ep = (a->ep + z->ep) / 2;
	ss.pp = (a->pp + z->pp) / 2;
	ss.dp_exposed = (a->dp_exposed + z->dp_exposed) / 2;
	ss.host = (a->host + z->host) / 2;
	return ss;
}

/* The step from the steady state's pace, the bubble and the optimizer phase. */
static void compose_step(const stage_env *e, const stage_totals *t, int devices, eval_result *r)
{
	const cost_ctx *x = e->x;
	const strategy_t *s = x->s;
	int p = e->p, mb = e->mb;
	const sched_times times = {t->tsum, t->tmax, t->fmax, t->bmax, t->fsum / p, t->bsum / p, t->wsum / p};
	double bubble = sched_bubble(s, mb, &times);
	/* the optimizer phase: the slowest stage's update plus the step's fixed host work */
	double opt = t->opt + x->c->eff.step_ms * 1e-3;
	const eval_stage_time pace = pace_of(s, p, t, r), *ss = &pace;
	r->slow_stage = t->slow;
	r->compute = mb * ss->compute;
	r->recompute = mb * ss->recompute;
	r->tp = mb * ss->tp;
	r->cp = mb * ss->cp;
	r->ep = mb * ss->ep;
	r->pp_once = t->tied;
	r->pp = mb * ss->pp + t->tied;
	r->dp = mb * ss->dp_exposed + t->dp_end;
	/* one replica: name the group that still syncs gradients (EVAL_DP_* in evaluate.h) */
	int edp = x->experts > 0 && (long long)s->cp * s->tp > (long long)s->ep * s->etp;
	r->dp_group = s->dp > 1 || (s->cp == 1 && !edp) ? EVAL_DP : s->cp > 1 ? EVAL_DP_CP : EVAL_EDP;
	r->bubble = bubble;
	r->optimizer = opt;
	r->host = mb * ss->host;
	r->comm_exposed = r->tp + r->cp + r->ep + r->pp + r->dp;
	if (r->host > 0)
		r->comm_exposed += r->host;
	r->step = r->compute + r->recompute + r->comm_exposed + r->bubble + r->optimizer;
	double tokens = (double)s->global_batch * s->seq;
	r->tokens_per_s = tokens / r->step;
	/* whole-job FLOPs: per-device stage FLOPs x micro-batches x replicas (dp*cp*tp ranks
	 * share each stage's work: the per-device figures are already divided by tp and cp) */
	double replicas = (double)s->dp * s->cp * s->tp;
	r->model_flops = t->model_fl * mb * replicas;
	r->hw_flops = t->hw_fl * mb * replicas;
	r->mfu = r->model_flops / (r->step * devices * x->peak16);
	r->hfu = r->hw_flops / (r->step * devices * x->peak16);
}

void eval_kinds_get(const model_t *m, const cluster_t *c, const strategy_t *s, eval_kinds *k)
{
	cost_ctx x;
	ctx_init(&x, m, c, s);
	k->nkinds = m->nkinds;
	layer_price_all(&x, k->kc);
}

void eval_kinds_resplit(const model_t *m, const cluster_t *c, const strategy_t *s, eval_kinds *k)
{
	cost_ctx x;
	ctx_init_cp(&x, m, c, s);
	for (int i = 0; i < k->nkinds; i++)
		lcomm_cp_price(&x, &k->kc[i]);
}

eval_kinds_key eval_kinds_key_of(const strategy_t *s)
{
	eval_kinds_key k;
	memset(&k, 0, sizeof k);
	k.tp = s->tp;
	k.cp = s->cp;
	k.ep = s->ep;
	k.etp = s->etp;
	k.micro_batch = s->micro_batch;
	k.seq = s->seq;
	k.cp_ulysses = strat_cp_ulysses(s);
	k.moe_redundant = s->moe_redundant;
	k.moe_cf = s->moe_cf;
	k.sp = s->sp;
	k.flash = s->flash;
	k.tp_overlap = s->tp_overlap;
	k.precision = s->precision;
	k.rc_modules = s->rc_modules;
	k.fp8_cache = s->fp8_cache;
	k.loss_fusion = s->loss_fusion;
	k.framework = (uint8_t)strat_framework(s);
	k.dualpipe = s->schedule == SCHED_DUALPIPE;
	k.moe_disp = s->moe_disp;
	k.moe_route = s->moe_route;
	return k;
}

int eval_kinds_same(const strategy_t *a, const strategy_t *b)
{
	eval_kinds_key x = eval_kinds_key_of(a), y = eval_kinds_key_of(b);
	return !memcmp(&x, &y, sizeof x);
}

int eval_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_result *r)
{
	return eval_run_kinds(m, c, devices, s, budget_gib, NULL, r);
}

int eval_run_kinds(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, const eval_kinds *k, eval_result *r)
{
	r->valid = 0;
	r->why[0] = 0;
	if (strat_validate(s, m, c, devices, r->why, sizeof r->why))
		return reject(r, r->why);
	if (s->pp > EVAL_MAX_STAGES)
		return reject(r, "more pipeline stages than the evaluator supports (256)");
	cost_ctx x;
	ctx_init(&x, m, c, s);
	eval_kinds own;
	if (!k || k->nkinds != m->nkinds) {
		own.nkinds = m->nkinds;
		layer_price_all(&x, own.kc);
		k = &own;
	}
	const layer_cost *kc = k->kc;
	stage_env e;
	stage_env_init(&e, &x, kc);
	r->stages = e.p;
	r->chunks = e.p * e.v;
	r->microbatches = e.mb;
	r->schedule = s->schedule;
	r->logits = e.vc.logits;
	r->nspans = 0;
	r->peak_bytes = 0;
	r->peak_stage = 0;
	r->budget_bytes = (budget_gib > 0 ? budget_gib : eval_default_budget_gib(c)) * COST_GIB;
	uint8_t start[EVAL_MAX_STAGES];
	stage_starts(m, s, start);
	stage_totals t = {.tmax = -1};
	stage_shape sh[2];
	stage_sum lay;
	stage_cost sc;
	int cur = 0, priced = -1; /* sh[cur]: the shape lay and sc price; priced: sc's stage */
	for (int st = 0, end; st < e.p; st = end) { /* stage 0 is always marked */
		end = next_start(start, st, e.p);
		bool last = st == e.p - 1;
		bool same = st > 0 && !(start[st] & STAGE_SHAPE) && e.uniform && !(last && m->mtp_layers > 0);
		if (!same) {
			/* a marked stage may still hold what the one before holds (the marks are
			 * conservative) */
			stage_shape_of(&e, st, &sh[!cur]);
			same = priced >= 0 && stage_shape_same(&e, &sh[cur], &sh[!cur]);
			if (!same) {
				cur = !cur;
				stage_layers(&e, &sh[cur], &lay);
			}
		}
		/* reuse the price unless either stage is the first or the last */
		if (!same || priced == 0 || last) {
			stage_price(&e, st, &sh[cur], &lay, &sc);
			priced = st;
		}
		first_of_shape(&e, st, &sc, &t);
		place_span(st, end, &sc, r, &t);
	}
	compose_step(&e, &t, devices, r);
	double per_kind[MODEL_MAX_KINDS], active[MODEL_MAX_KINDS];
	for (int i = 0; i < m->nkinds; i++) {
		per_kind[i] = kc[i].params;
		active[i] = kc[i].params_active;
	}
	model_sum_runs2(m, per_kind, active, &r->params_total, &r->params_active);
	r->fits = r->peak_bytes <= r->budget_bytes;
	r->valid = 1;
	return 0;
}
