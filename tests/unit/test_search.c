/* Unit tests for the two-level search against brute force: on small jobs, plain loops over
 * eval_run (every combination of every field, no pruning) find no fitting strategy
 * faster than the search's best, and the same loops over the search's canonical space give
 * exactly its top K, in the same order. Also: results are the same with any number of
 * threads and across runs; with no pins the search is the plain planner; every result
 * honours the pins and fits the budget; the ILP level honours layer pins; cancellation;
 * the filter and score hooks (the filtered search is the brute force restricted to the
 * filter, the scored one ranks by the score, a hook's abort stops it with its reason).
 * (Pin parsing and unsatisfiable pins: test_search_pins.c.) */
#include "check.h"
#include "core/framework.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/search.h"
#include "solve/search_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define K 12
#define GIB (1024.0 * 1024.0 * 1024.0)

static paths_t paths;
static plan_t plan;
static eval_result ev;

static int load(const char *text)
{
	return fixture_load(&plan, &paths, text);
}

static search_job job_of(void)
{
	search_job j = {&plan.model, &plan.cluster, plan.devices, plan.strategy, plan.budget_gib};
	return j;
}

/* ---------- brute force ---------- */

typedef struct {
	strategy_t s;
	double step, peak;
} bf_item;

#define BK (8 * K) /* brute()'s list: deep enough to hold K distinct results (group_brute) */
static bf_item top[BK];
static int ntop;
static double best, bf_ref;
static long long nfit, bf_faster;
static int (*bf_keep)(const strategy_t *s); /* the hooks' tests: a filter for brute() */
static int bf_by_peak;                      /* rank by peak memory instead of step time */

/* The search's order: step (or the key), then peak memory, then the canonical order. */
static int before(const strategy_t *s, double step, double peak, const bf_item *b)
{
	return step < b->step || (step == b->step && (peak < b->peak ||
				(peak == b->peak && search_canon_cmp(s, &b->s) < 0)));
}

static void bf_offer(const strategy_t *s, double step, double peak)
{
	nfit++;
	bf_faster += step < bf_ref;
	if (step < best)
		best = step;
	if (ntop == BK && !before(s, step, peak, &top[BK - 1]))
		return;
	int i = ntop < BK ? ntop++ : BK - 1;
	while (i > 0 && before(s, step, peak, &top[i - 1])) {
		top[i] = top[i - 1];
		i--;
	}
	top[i].s = *s;
	top[i].step = step;
	top[i].peak = peak;
}

static int experts_of(const model_t *m)
{
	int e = 0;
	for (int k = 0; k < m->nkinds; k++)
		e = m->kind[k].experts > e ? m->kind[k].experts : e;
	return e;
}

/* Every strategy of the job (canonical = 0), or only the canonical representatives the
 * search enumerates (canonical = 1: no-op variants left out, as docs/search.md lists). */
static void brute(int canonical)
{
	const model_t *m = &plan.model;
	const cluster_t *c = &plan.cluster;
	int N = plan.devices, G = plan.strategy.global_batch, E = experts_of(m), L = m->layers;
	ntop = 0;
	nfit = 0;
	bf_faster = 0;
	best = INFINITY;
	strategy_t s = plan.strategy;
	s.nchunks = 0;
	s.nranges = 0;
	for (s.tp = 1; s.tp <= N; s.tp++)
		for (s.cp = 1; s.cp <= N; s.cp++)
			for (s.pp = 1; s.pp <= N; s.pp++) {
				if (N % ((long long)s.tp * s.cp * s.pp))
					continue;
				s.dp = N / (s.tp * s.cp * s.pp);
				if (G % s.dp)
					continue;
				for (int sch = 0; sch < SCHED_COUNT; sch++) {
					s.schedule = (uint8_t)sch;
					if (canonical && s.pp == 1 && sch != SCHED_1F1B)
						continue;
					int vmax = s.pp > 1 ? L / s.pp : 1;
					for (s.vpp = 1; s.vpp <= (vmax > 1 ? vmax : 1); s.vpp++) {
						if (canonical && (sch == SCHED_INTERLEAVED) != (s.vpp > 1))
							continue;
						for (s.ep = 1; s.ep <= (E ? E : 1); s.ep++) {
							if (E && E % s.ep)
								continue;
							for (s.etp = 1; s.etp <= (E ? c->node_devices : 1); s.etp++)
								for (s.zero = 0; s.zero <= 3; s.zero++) {
									long long edp = (long long)s.dp * s.cp * s.tp;
									if (canonical && (s.zero == 1 || s.zero == 2) && s.dp * s.cp == 1 &&
											edp == (long long)s.ep * s.etp)
										continue;
									for (s.micro_batch = 1; s.micro_batch <= G / s.dp; s.micro_batch++) {
										if ((G / s.dp) % s.micro_batch)
											continue;
										for (int sp = 0; sp < 2; sp++) {
											s.sp = sp;
											if (canonical && s.tp == 1 && sp)
												continue;
											for (int rc = 0; rc < RC_COUNT; rc++) {
												s.recompute = (uint8_t)rc;
												/* k 0: ring, 1: Ulysses, 2 .. cp-1: USP with
												 * that Ulysses degree (dividing cp) */
												for (int k = 0; k < (s.cp > 2 ? s.cp : 2); k++) {
													if (k >= 2 && s.cp % k)
														continue;
													s.cp_kind = (uint8_t)(k == 1 ? CP_ULYSSES : CP_RING);
													s.cp_ulysses = k >= 2 ? k : 0;
													if (canonical && s.cp == 1 && k)
														continue;
													/* what the framework that prices it runs */
													if ((!bf_keep || bf_keep(&s)) && !fw_search_check(&s, m, NULL) &&
															eval_run(m, c, N, &s, plan.budget_gib, &ev) == 0 && ev.fits)
														bf_offer(&s, bf_by_peak ? ev.peak_bytes : ev.step, ev.peak_bytes);
												}
											}
										}
									}
								}
						}
					}
				}
			}
}

/* ---------- helpers ---------- */

static int same_items(const search_result *a, const search_result *b)
{
	if (a->n != b->n || a->enumerated != b->enumerated || a->evaluated != b->evaluated || a->fit != b->fit ||
			a->bounded != b->bounded || a->checked != b->checked)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->item[i].step != b->item[i].step || search_canon_cmp(&a->item[i].s, &b->item[i].s) ||
				a->item[i].s.nchunks != b->item[i].s.nchunks ||
				memcmp(a->item[i].s.chunk_layers, b->item[i].s.chunk_layers,
						sizeof a->item[i].s.chunk_layers[0] * (size_t)a->item[i].s.nchunks))
			return 0;
	return 1;
}

/* brute()'s list grouped as the search merges it: an entry joins the first group whose
 * first entry evaluates alike (every figure within SEARCH_ALIKE_REL); into grp[ntop], the
 * first entry of each group into first[]. Returns the number of groups. */
static int group_brute(int *grp, int *first)
{
	static eval_result ea, eb;
	int ng = 0;
	for (int i = 0; i < ntop; i++) {
		grp[i] = -1;
		eval_run(&plan.model, &plan.cluster, plan.devices, &top[i].s, plan.budget_gib, &eb);
		for (int g = 0; g < ng && grp[i] < 0; g++)
			if (eval_run(&plan.model, &plan.cluster, plan.devices, &top[first[g]].s, plan.budget_gib, &ea) == 0 &&
					eval_alike(&ea, &eb, SEARCH_ALIKE_REL))
				grp[i] = g;
		if (grp[i] < 0) {
			first[ng] = i;
			grp[i] = ng++;
		}
	}
	return ng;
}

/* s is an entry of group g of brute()'s list. */
static int in_group(const strategy_t *s, const int *grp, int g)
{
	for (int i = 0; i < ntop; i++)
		if (grp[i] == g && !search_canon_cmp(s, &top[i].s))
			return 1;
	return 0;
}

/* The search's items are brute()'s top distinct results in order (keys: step, or score):
 * item k is a strategy of the k-th group of identical results, and so is every strategy
 * merged into it (it cannot count more than the group holds). */
static int same_as_brute(const search_result *r, int by_score)
{
	int grp[BK], first[BK];
	int ng = group_brute(grp, first);
	int want = ng < K ? ng : K;
	int same = r->n == want && (ng >= K || ntop < BK);
	for (int k = 0; same && k < r->n; k++) {
		const search_item *it = &r->item[k];
		int members = 0;
		for (int i = 0; i < ntop; i++)
			members += grp[i] == k;
		double key = by_score ? it->score : it->step, want_key = top[first[k]].step;
		same = fabs(key - want_key) <= SEARCH_ALIKE_REL * want_key && in_group(&it->s, grp, k) &&
				it->alike + 1 <= members;
		for (int a = 0; same && a < it->alike && a < SEARCH_MAX_ALIKE; a++) {
			strategy_t t = it->s;
			search_knobs_apply(&it->alike_k[a], &t);
			same = in_group(&t, grp, k);
		}
	}
	if (!same)
		for (int k = 0; k < ng || k < r->n; k++)
			printf("  %d: search %.9g (+%d alike)  brute %.9g\n", k,
					k < r->n ? (by_score ? r->item[k].score : r->item[k].step) : NAN, k < r->n ? r->item[k].alike : 0,
					k < ng ? top[first[k]].step : NAN);
	return same;
}

static const char *jobs[] = {
	/* dense GQA, loose budget */
	"model: llama2-7b\ncluster: dgx-a100-80g\ndevices: 16\n"
	"strategy: {global_batch: 32, seq_length: 4096}\n",
	/* the same under a tight budget: recompute, pipelines and ZeRO must do the work */
	"model: llama2-7b\ncluster: dgx-a100-80g\ndevices: 16\nbudget_gib: 14\n"
	"strategy: {global_batch: 32, seq_length: 4096}\n",
	/* MoE with GQA, memory-bound */
	"model: mixtral-8x7b\ncluster: dgx-h100\ndevices: 16\n"
	"strategy: {global_batch: 16, seq_length: 4096}\n",
	/* a small MLA + MoE model with a dense first layer and an MTP module, odd batch */
	"model: {name: tiny-mla, hidden_size: 1024, intermediate_size: 2816, num_hidden_layers: 6,\n"
	"        num_attention_heads: 16, num_key_value_heads: 16, vocab_size: 32000, hidden_act: silu,\n"
	"        n_routed_experts: 8, num_experts_per_tok: 2, moe_intermediate_size: 512, n_shared_experts: 1,\n"
	"        first_k_dense_replace: 1, q_lora_rank: 384, kv_lora_rank: 128, qk_nope_head_dim: 64,\n"
	"        qk_rope_head_dim: 32, v_head_dim: 64, num_nextn_predict_layers: 1}\n"
	"cluster: h800\ndevices: 8\nbudget_gib: 3\n"
	"strategy: {global_batch: 12, seq_length: 2048}\n",
	/* GPT-style (tied, biases, gelu) on fp16-only V100s across two nodes */
	"model: {name: gpt-mini, hidden_size: 1536, intermediate_size: 6144, num_hidden_layers: 16,\n"
	"        num_attention_heads: 16, num_key_value_heads: 16, vocab_size: 50257, hidden_act: gelu,\n"
	"        tie_word_embeddings: true, hidden_dropout: 0.1, attention_dropout: 0.1}\n"
	"cluster: v100\ndevices: 16\n"
	"strategy: {global_batch: 64, seq_length: 2048, precision: fp16, flash_attention: false}\n",
};

static void test_brute_force(void)
{
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		char name[160];
		if (!CHECK(load(jobs[i]) == 0, "brute: job loads"))
			continue;
		search_job j = job_of();
		search_opts o;
		memset(&o, 0, sizeof o);
		o.top = K;
		o.no_ilp = 1;
		search_result r;
		CHECK(search_run(&j, NULL, &o, &r) == 0, "brute: search runs");
		brute(0);
		double raw_best = best;
		long long raw_fit = nfit;
		snprintf(name, sizeof name, "brute %s/%d devices: %lld fitting strategies, some fit", plan.model.name,
				plan.devices, raw_fit);
		if (CHECK(raw_fit > 0 && r.n > 0, name)) {
			snprintf(name, sizeof name, "brute %s: the search's best (%.6g s) is the best of every strategy (%.6g s)",
					plan.model.name, r.item[0].step, raw_best);
			CHECK(r.item[0].step <= raw_best, name);
		}
		brute(1);
		snprintf(name, sizeof name, "brute %s: the top %d equal the canonical sweep's distinct results, in order "
				"(%d alike merged)", plan.model.name, r.n, r.merged);
		CHECK(same_as_brute(&r, 0), name);
		snprintf(name, sizeof name, "brute %s: every fitting canonical strategy is counted (%lld >= %lld fit)",
				plan.model.name, r.fit + r.bounded, nfit);
		CHECK(r.enumerated >= nfit && r.evaluated + r.bounded >= r.fit, name);
		search_free(&r);
	}
}

static void test_stable(void)
{
	if (!CHECK(load(jobs[2]) == 0, "stable: job loads"))
		return;
	search_job j = job_of();
	search_opts o;
	memset(&o, 0, sizeof o);
	o.top = 8;
	search_result a, b;
	o.threads = 1;
	search_run(&j, NULL, &o, &a);
	CHECK(a.n > 0 && a.threads == 1, "stable: one thread finds results");
	static const int nt[] = {2, 3, 7, 1};
	for (size_t i = 0; i < sizeof nt / sizeof nt[0]; i++) {
		char name[96];
		o.threads = nt[i];
		search_run(&j, NULL, &o, &b);
		snprintf(name, sizeof name, "stable: %d threads give the same ranking and counts as one", nt[i]);
		CHECK(same_items(&a, &b), name);
		search_free(&b);
	}
	search_free(&a);
}

static void test_no_pins(void)
{
	if (!CHECK(load(jobs[0]) == 0, "no pins: job loads"))
		return;
	search_job j = job_of();
	search_opts o;
	memset(&o, 0, sizeof o);
	o.top = 6;
	search_result a, b, c;
	pin_set none;
	none.n = 0;
	search_run(&j, NULL, &o, &a);
	search_run(&j, &none, &o, &b);
	CHECK(a.n > 0 && same_items(&a, &b), "no pins: an empty pin set is the plain planner");
	/* pinning what the best already has changes nothing about the best */
	pin_set ps;
	char txt[64], why[256];
	ps.n = 0;
	const strategy_t *t = &a.item[0].s;
	snprintf(txt, sizeof txt, "tp=%d", t->tp);
	pin_add(&ps, txt, why, sizeof why);
	snprintf(txt, sizeof txt, "pp=%d", t->pp);
	pin_add(&ps, txt, why, sizeof why);
	snprintf(txt, sizeof txt, "mbs=%d", t->micro_batch);
	pin_add(&ps, txt, why, sizeof why);
	search_run(&j, &ps, &o, &c);
	CHECK(c.n > 0 && c.item[0].step == a.item[0].step && !search_canon_cmp(&c.item[0].s, &a.item[0].s),
			"no pins: pinning the best's own degrees keeps it the best");
	CHECK(c.enumerated < a.enumerated, "no pins: pins shrink the space");
	search_free(&a);
	search_free(&b);
	search_free(&c);
}

static void check_pins(const char *title, const char *const *exprs, int n, int no_ilp)
{
	char name[200], why[256];
	pin_set ps;
	ps.n = 0;
	for (int i = 0; i < n; i++)
		if (pin_add(&ps, exprs[i], why, sizeof why))
			printf("  %s\n", why);
	search_job j = job_of();
	search_opts o;
	memset(&o, 0, sizeof o);
	o.top = 10;
	o.no_ilp = no_ilp;
	search_result r;
	search_run(&j, &ps, &o, &r);
	snprintf(name, sizeof name, "pins %s: results found", title);
	CHECK(r.n > 0, name);
	double budget = plan.budget_gib > 0 ? plan.budget_gib : eval_default_budget_gib(&plan.cluster);
	int honoured = 1, fits = 1;
	for (int i = 0; i < r.n; i++) {
		const search_item *it = &r.item[i];
		if (!pin_honoured(&ps, &plan.model, &it->s, why, sizeof why)) {
			printf("  #%d: %s\n", i + 1, why);
			honoured = 0;
		}
		if (it->peak_gib > budget * (1 + 1e-12))
			fits = 0;
		/* a result the strategy expresses exactly evaluates as ranked */
		if (it->ilp_status < 0 || it->ilp_applied || it->s.nchunks == 0) {
			if (eval_run(&plan.model, &plan.cluster, plan.devices, &it->s, plan.budget_gib, &ev) || !ev.fits)
				fits = 0;
		}
	}
	snprintf(name, sizeof name, "pins %s: every result honours every pin", title);
	CHECK(honoured, name);
	snprintf(name, sizeof name, "pins %s: every result fits the %.1f GiB budget", title, budget);
	CHECK(fits, name);
	search_free(&r);
}

static void test_pins_honoured(void)
{
	if (!CHECK(load(jobs[1]) == 0, "pins: job loads"))
		return;
	static const char *const a[] = {"tp=2"};
	check_pins("tp=2", a, 1, 1);
	static const char *const b[] = {"attention.cp=2", "attention.cp_kind=ulysses", "recompute=selective"};
	check_pins("attention.cp=2 ulysses selective", b, 3, 0);
	static const char *const c[] = {"schedule=interleaved", "zero=1", "mbs=1"};
	check_pins("interleaved zero=1 mbs=1", c, 3, 0);
	static const char *const d[] = {"pp=4", "layers[0:4].recompute=full", "layers[30:32].recompute=none"};
	check_pins("layer recompute ranges", d, 3, 0);
	static const char *const e[] = {"pp=4", "stages[0].layers=6", "layers[31:32].stage=3"};
	check_pins("stage pins through the ILP", e, 3, 0);
	static const char *const f[] = {"sp=false", "embedding.vocab_parallel=false", "dp=2"};
	check_pins("sp off, vocab not parallel, dp=2", f, 3, 1);
	if (!CHECK(load(jobs[2]) == 0, "pins: MoE job loads"))
		return;
	static const char *const g[] = {"experts.ep=8", "experts.etp=1"};
	check_pins("experts.ep=8 experts.etp=1", g, 2, 0);
	static const char *const h[] = {"experts.ep=2", "attention.tp=4", "precision=fp8"};
	check_pins("experts.ep=2 attention.tp=4 fp8", h, 3, 1);
}

static void test_cancel_and_progress(void)
{
	if (!CHECK(load(jobs[0]) == 0, "cancel: job loads"))
		return;
	search_job j = job_of();
	atomic_int stop = 1;
	search_opts o;
	memset(&o, 0, sizeof o);
	o.cancel = &stop;
	search_result r;
	search_run(&j, NULL, &o, &r);
	CHECK(r.cancelled && r.n == 0, "cancel: a set flag stops the search with no results");
	search_free(&r);
}

static int progress_calls;
static double progress_last;
static void on_progress(void *user, int level, double done)
{
	(void)user;
	if (level == 1) {
		progress_calls++;
		progress_last = done;
	}
}

static void test_progress(void)
{
	if (!CHECK(load(jobs[0]) == 0, "progress: job loads"))
		return;
	search_job j = job_of();
	search_opts o;
	memset(&o, 0, sizeof o);
	o.progress = on_progress;
	o.threads = 2;
	search_result r;
	search_run(&j, NULL, &o, &r);
	CHECK(progress_calls > 0 && progress_last > 0 && progress_last <= 1, "progress: the outer level reports");
	CHECK(r.outer_s >= 0 && r.inner_s >= 0 && r.refined > 0, "progress: both levels timed, ILP ran");
	search_free(&r);
}

static void test_compare_rank(void)
{
	if (!CHECK(load(jobs[0]) == 0, "compare: job loads"))
		return;
	/* rank of a known strategy: one more than the fitting strategies strictly faster */
	plan.strategy.tp = 2;
	plan.strategy.pp = 2;
	plan.strategy.dp = 4;
	plan.strategy.micro_batch = 1;
	CHECK(eval_run(&plan.model, &plan.cluster, plan.devices, &plan.strategy, plan.budget_gib, &ev) == 0 && ev.fits,
			"compare: the plan's strategy fits");
	double ref = ev.step;
	search_job j = job_of();
	search_opts o;
	memset(&o, 0, sizeof o);
	o.no_ilp = 1;
	o.ref_step = ref;
	search_result r;
	search_run(&j, NULL, &o, &r);
	bf_ref = ref;
	brute(1);
	bf_ref = 0;
	char name[160];
	snprintf(name, sizeof name, "compare: the plan ranks #%lld, one after the %lld faster canonical strategies",
			r.faster_than_ref + 1, bf_faster);
	CHECK(r.faster_than_ref == bf_faster && bf_faster > 0 && r.item[0].step < ref, name);
	search_free(&r);
}

/* ---------- hooks ---------- */

/* Drops the fastest shapes of the jobs below, so the filtered ranking differs. */
static int keep_some(const strategy_t *s) { return s->tp != 1 && s->micro_batch <= 2; }

static int filter_calls;
static int filter_hook(void *user, const strategy_t *s, char *why, size_t n)
{
	(void)user;
	(void)why;
	(void)n;
	filter_calls++;
	return keep_some(s);
}

static double peak_hook(void *user, const strategy_t *s, const eval_result *r, char *why, size_t n)
{
	(void)user;
	(void)s;
	(void)why;
	(void)n;
	return r->peak_bytes;
}

static int abort_after; /* the hooks below abort on their abort_after-th call */
static int abort_filter(void *user, const strategy_t *s, char *why, size_t n)
{
	(void)user;
	(void)s;
	if (--abort_after > 0)
		return 1;
	snprintf(why, n, "filter gave up");
	return -1;
}

static double abort_score(void *user, const strategy_t *s, const eval_result *r, char *why, size_t n)
{
	(void)user;
	(void)s;
	(void)why;
	(void)n;
	return --abort_after > 0 ? r->step : NAN; /* no reason: the search supplies one */
}

/* Load jobs[i] into a job with zeroed options; 0 when it loads. */
static int hook_setup(int i, const char *what, search_job *j, search_opts *o)
{
	memset(o, 0, sizeof *o);
	if (!CHECK(load(jobs[i]) == 0, check_fmt("%s: job loads", what)))
		return -1;
	*j = job_of();
	return 0;
}

static void test_hook_filter(void)
{
	static const int job[] = {0, 2, 3};
	for (size_t i = 0; i < sizeof job / sizeof job[0]; i++) {
		search_job j;
		search_opts o;
		if (hook_setup(job[i], "filter hook", &j, &o))
			continue;
		o.no_ilp = 1;
		o.threads = 4;
		search_result all, r;
		o.top = SEARCH_MAX_TOP;
		CHECK(search_run(&j, NULL, &o, &all) == 0, "filter hook: the search without hooks runs");
		o.top = K;
		o.filter = filter_hook;
		filter_calls = 0;
		CHECK(search_run(&j, NULL, &o, &r) == 0, "filter hook: the filtered search runs");
		CHECK(r.threads == 1 && filter_calls > 0 && r.filtered > 0,
				check_fmt("filter hook %s: runs on one thread, called %d times, %lld dropped", plan.model.name,
						filter_calls, r.filtered));
		/* the hook-less ranking restricted to the filter */
		int k = 0, same = 1;
		for (int x = 0; x < all.n && k < r.n; x++)
			if (keep_some(&all.item[x].s))
				same &= all.item[x].step == r.item[k].step && !search_canon_cmp(&all.item[x].s, &r.item[k++].s);
		CHECK(same && k == r.n && r.n > 0,
				check_fmt("filter hook %s: the top %d are the hook-less ranking's that pass the filter",
						plan.model.name, r.n));
		bf_keep = keep_some;
		brute(1);
		bf_keep = NULL;
		CHECK(same_as_brute(&r, 0),
				check_fmt("filter hook %s: the top %d equal the filtered canonical sweep's distinct results, "
						"in order", plan.model.name, r.n));
		search_free(&r);
		/* the ILP level keeps to the filtered candidates */
		o.no_ilp = 0;
		CHECK(search_run(&j, NULL, &o, &r) == 0 && r.n > 0, "filter hook: with the ILP level, results");
		same = 1;
		for (int x = 0; x < r.n; x++)
			same &= keep_some(&r.item[x].s) && (x == 0 || r.item[x - 1].step <= r.item[x].step);
		CHECK(same, check_fmt("filter hook %s: with the ILP, every result passes the filter, fastest first",
						plan.model.name));
		search_free(&r);
		search_free(&all);
	}
}

static void test_hook_score(void)
{
	static const int job[] = {1, 2};
	for (size_t i = 0; i < sizeof job / sizeof job[0]; i++) {
		search_job j;
		search_opts o;
		if (hook_setup(job[i], "score hook", &j, &o))
			continue;
		o.top = K;
		o.no_ilp = 1;
		o.score = peak_hook;
		search_result r;
		CHECK(search_run(&j, NULL, &o, &r) == 0 && r.bounded == 0,
				"score hook: the scored search runs without the step-time bound");
		bf_by_peak = 1;
		brute(1);
		bf_by_peak = 0;
		CHECK(same_as_brute(&r, 1), check_fmt("score hook %s: the top %d by peak memory equal the canonical "
						"sweep's distinct results, in order", plan.model.name, r.n));
		search_free(&r);
		o.no_ilp = 0;
		CHECK(search_run(&j, NULL, &o, &r) == 0 && r.n > 0, "score hook: with the ILP level, results");
		int sorted = 1;
		for (int x = 0; x < r.n; x++)
			sorted &= r.item[x].score == r.item[x].peak_gib * GIB && (x == 0 || r.item[x - 1].score <= r.item[x].score);
		CHECK(sorted, check_fmt("score hook %s: with the ILP, ranked by the refined plans' score", plan.model.name));
		search_free(&r);
	}
}

static void test_hook_abort_and_exhaustive(void)
{
	search_job j;
	search_opts o;
	if (hook_setup(0, "hook abort", &j, &o))
		return;
	o.top = 4;
	o.filter = abort_filter;
	abort_after = 50;
	search_result r;
	int rc = search_run(&j, NULL, &o, &r);
	CHECK(rc == -1 && r.aborted && r.n == 0 && !strcmp(r.why, "filter gave up") && abort_after == 0,
			"hook abort: a filter's abort stops the search at once with its reason");
	search_free(&r);
	o.filter = NULL;
	o.score = abort_score;
	abort_after = 50;
	rc = search_run(&j, NULL, &o, &r);
	CHECK(rc == -1 && r.aborted && r.n == 0 && strstr(r.why, "score") && abort_after == 0,
			"hook abort: a NaN score stops the search at once with a reason");
	search_free(&r);
	/* the step-time bound never changes the results */
	o.score = NULL;
	o.top = K;
	search_result a;
	search_run(&j, NULL, &o, &a);
	o.exhaustive = 1;
	search_run(&j, NULL, &o, &r);
	int same = a.n == r.n && a.n > 0 && r.bounded == 0 && r.evaluated > a.evaluated;
	for (int x = 0; same && x < a.n; x++)
		same = a.item[x].step == r.item[x].step && !search_canon_cmp(&a.item[x].s, &r.item[x].s);
	CHECK(same, "exhaustive: no step-time bound, more evaluated, the same results");
	search_free(&a);
	search_free(&r);
}

/* Equal step times go to the plan with more memory headroom (lower peak), before the
 * canonical strategy order decides. */
static void test_tie_headroom(void)
{
	search_cand a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.s = b.s = strat_default();
	a.s.tp = 1; /* canonically first */
	b.s.tp = 2;
	a.key = b.key = a.step = b.step = 7.5;
	a.peak = 60e9;
	b.peak = 40e9;
	CHECK(search_cand_cmp(&b, &a) < 0 && search_cand_cmp(&a, &b) > 0,
			"search order: a tie in step time goes to the lower peak memory");
	b.peak = a.peak;
	CHECK(search_cand_cmp(&a, &b) < 0, "search order: a full tie goes to the canonical order");
	b.key = 7.4;
	CHECK(search_cand_cmp(&b, &a) < 0, "search order: a faster plan first, whatever its memory");
}

/* Identical results merged (issue 17): on the GPT job (where dp trades against cp and the
 * micro-batch with the same figures), with and without the ILP level, the rows are
 * pairwise distinct, every strategy merged into a row evaluates alike to it, and the top K
 * still holds K rows although the outer pool held fewer distinct ones (the deeper pass). */
static void test_alike(void)
{
	static eval_result ea, eb;
	if (!CHECK(load(jobs[4]) == 0, "alike: job loads"))
		return;
	search_job j = job_of();
	for (int ilp = 0; ilp < 2; ilp++) {
		search_opts o;
		memset(&o, 0, sizeof o);
		o.top = K;
		o.no_ilp = !ilp;
		search_result r;
		if (!CHECK(search_run(&j, NULL, &o, &r) == 0, "alike: search runs"))
			continue;
		int distinct = 1, members = 1, listed = 0;
		for (int a = 0; a < r.n; a++) {
			const search_item *it = &r.item[a];
			eval_run(&plan.model, &plan.cluster, plan.devices, &it->s, plan.budget_gib, &ea);
			for (int b = a + 1; b < r.n; b++) {
				eval_run(&plan.model, &plan.cluster, plan.devices, &r.item[b].s, plan.budget_gib, &eb);
				distinct &= !eval_alike(&ea, &eb, SEARCH_ALIKE_REL);
			}
			for (int m = 0; m < it->alike && m < SEARCH_MAX_ALIKE; m++) {
				strategy_t t = it->s;
				search_knobs_apply(&it->alike_k[m], &t);
				members &= eval_run(&plan.model, &plan.cluster, plan.devices, &t, plan.budget_gib, &eb) == 0 &&
						eval_alike(&ea, &eb, SEARCH_ALIKE_REL) && search_canon_cmp(&t, &it->s) != 0;
				listed++;
			}
		}
		const char *lv = ilp ? "with the ILP" : "outer level only";
		CHECK(r.n == K && r.merged > 0, check_fmt("alike, %s: %d rows, %d strategies merged into them", lv, r.n,
				r.merged));
		CHECK(distinct, check_fmt("alike, %s: no two rows have identical results", lv));
		CHECK(members && listed > 0, check_fmt("alike, %s: the %d merged strategies listed evaluate alike to "
				"their row (and are other strategies)", lv, listed));
		search_free(&r);
	}
}

/* Issue 17: no preset search's top 10 shows an MFU above its family's ceiling under the
 * model's FLOP convention (eval_mfu_ceiling): every model preset on the cluster and sizes it
 * is usually trained at (outer level only, so it stays fast). */
static void test_mfu_ceiling(void)
{
	static const struct {
		const char *model, *cluster;
		int devices[2];
	} jobs_usual[] = {
		{"llama2-7b", "dgx-a100-80g", {8, 64}}, {"llama3-8b", "dgx-h100", {8, 64}},
		{"mistral-7b", "dgx-h100", {8, 64}}, {"llama2-13b", "dgx-a100-80g", {16, 128}},
		{"llama2-70b", "dgx-h100", {64, 512}}, {"llama3-70b", "dgx-h100", {64, 512}},
		{"qwen2.5-72b", "dgx-h100", {64, 512}}, {"gpt3-175b", "dgx-a100-80g", {1024, 0}},
		{"llama3-405b", "dgx-h100", {2048, 0}}, {"mixtral-8x7b", "dgx-h100", {64, 0}},
		{"mixtral-8x22b", "dgx-h100", {128, 0}}, {"qwen3-30b-a3b", "dgx-h100", {64, 0}},
		{"llama4-scout", "dgx-h100", {64, 0}}, {"llama4-maverick", "dgx-h100", {512, 0}},
		{"deepseek-v3", "h800", {2048, 0}},
	};
	int jobs_n = 0, bad = 0;
	double worst = 0;
	for (size_t i = 0; i < sizeof jobs_usual / sizeof jobs_usual[0]; i++)
		for (int k = 0; k < 2 && jobs_usual[i].devices[k]; k++) {
			char text[256];
			snprintf(text, sizeof text, "model: %s\ncluster: %s\ndevices: %d\n", jobs_usual[i].model,
					jobs_usual[i].cluster, jobs_usual[i].devices[k]);
			if (load(text)) {
				printf("  %s on %d x %s: does not load\n", jobs_usual[i].model, jobs_usual[i].devices[k],
						jobs_usual[i].cluster);
				continue;
			}
			search_job j = job_of();
			search_opts o;
			memset(&o, 0, sizeof o);
			o.top = 10;
			o.no_ilp = 1;
			search_result r;
			if (search_run(&j, NULL, &o, &r))
				continue;
			jobs_n++;
			for (int n = 0; n < r.n; n++) {
				double ceil = eval_mfu_ceiling(&plan.cluster, r.item[n].s.precision, NULL);
				worst = fmax(worst, r.item[n].mfu / ceil);
				if (r.item[n].mfu > ceil * (1 + 1e-12) && bad++ < 3)
					printf("  %s on %d x %s: #%d at MFU %.4f above the ceiling %.4f\n", jobs_usual[i].model,
							plan.devices, jobs_usual[i].cluster, n + 1, r.item[n].mfu, ceil);
			}
			search_free(&r);
		}
	CHECK(bad == 0 && jobs_n >= 20, check_fmt("mfu ceiling: no top 10 of %d preset searches (every model preset on "
			"its usual sizes) shows an MFU above its family's ceiling (%d above; the highest is %.3f of it)",
			jobs_n, bad, worst));
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd)) /* the runner starts tests at the repository root */
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_mfu_ceiling();
	test_tie_headroom();
	test_brute_force();
	test_alike();
	test_stable();
	test_no_pins();
	test_pins_honoured();
	test_cancel_and_progress();
	test_progress();
	test_compare_rank();
	test_hook_filter();
	test_hook_score();
	test_hook_abort_and_exhaustive();
	return check_done();
}
