/* Bit-level golden test of the cost model: evaluates a fixed pseudo-random sample of
 * strategies (every schedule, ZeRO level, recompute mode and module set, cp kind, framework,
 * precision, per-layer ranges and explicit uneven splits) for every model preset, the real
 * Hugging Face fixtures and a model with layer kinds of two widths, on every cluster preset,
 * and hashes every field of every result (eval_run, eval_costs_get, eval_layer_activation)
 * bit by bit. The digests per (model, cluster) are kept in tests/golden/core/bits.txt.
 *
 * A refactor of the core must leave every digest unchanged. When a change of the model is
 * intended, regenerate with   STRATA_GOLDEN_WRITE=1 build/tests/test_golden_bits   and say
 * in the commit why the numbers moved (tests/golden/core/README). */
#include "check.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "core/timeline.h"
#include "io/paths.h"
#include "io/plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BITS_FILE "tests/golden/core/bits.txt"
#define SAMPLES 2000
#define MAX_ROWS 512

static paths_t paths;
static eval_result res;
static eval_costs costs;
static eval_result res2;
static void h_result(uint64_t *h, const eval_result *r);
static eval_kinds kinds;
static long kinds_checked, kinds_differ, resplit_checked, resplit_differ;

/* The layer-kind costs priced for another strategy of the same eval_kinds_same class (a
 * different device split, batch, recompute, ZeRO level within the framework, schedule but
 * DualPipe) give eval_run's result bit for bit (what the search's cache relies on). */
static void check_kinds_reuse(const model_t *m, const cluster_t *c, int dev, const strategy_t *s, double budget)
{
	strategy_t o = *s;
	o.dp = s->dp * 2;
	o.pp = s->pp > 1 ? 1 : 4;
	o.vpp = 1;
	o.global_batch = s->global_batch * 3;
	o.recompute = (uint8_t)((s->recompute + 1) % RC_COUNT);
	o.nranges = 0;
	o.nchunks = 0;
	o.vocab_parallel = !s->vocab_parallel;
	if (s->schedule != SCHED_DUALPIPE)
		o.schedule = s->schedule == SCHED_1F1B ? SCHED_ZBH1 : SCHED_1F1B;
	if (strat_framework(s) == FW_MEGATRON && s->zero < 3)
		o.zero = (s->zero + 1) % 3;
	if (!eval_kinds_same(s, &o))
		return;
	eval_kinds_get(m, c, &o, &kinds);
	eval_run_kinds(m, c, dev, s, budget, &kinds, &res2);
	uint64_t a = 1469598103934665603ULL, b = a;
	h_result(&a, &res);
	h_result(&b, &res2);
	kinds_checked++;
	kinds_differ += a != b;
	/* the ring form's kinds with the CP communication priced again for s's split (the
	 * search's USP variants) give the same result too */
	if (s->cp > 1 && strat_cp_ulysses(s) > 1) {
		strategy_t ring = *s;
		ring.cp_kind = CP_RING;
		ring.cp_ulysses = 1;
		eval_kinds_get(m, c, &ring, &kinds);
		eval_kinds_resplit(m, c, s, &kinds);
		eval_run_kinds(m, c, dev, s, budget, &kinds, &res2);
		uint64_t d = 1469598103934665603ULL;
		h_result(&d, &res2);
		resplit_checked++;
		resplit_differ += a != d;
	}
}

/* FNV-1a over bytes. */
static void h_bytes(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 1099511628211ULL;
	}
}
static void h_d(uint64_t *h, double v) { h_bytes(h, &v, sizeof v); }
static void h_i(uint64_t *h, long long v) { h_bytes(h, &v, sizeof v); }

static tl_result tl;

/* The pipeline timeline the explorer draws from a result (small step counts only). */
static void h_timeline(uint64_t *h, const eval_result *r, int schedule, int vpp)
{
	double f[EVAL_MAX_STAGES], b[EVAL_MAX_STAGES], w[EVAL_MAX_STAGES];
	for (int s = 0; s < r->stages; s++) {
		f[s] = eval_stage_time_of(r, s).fwd;
		b[s] = eval_stage_time_of(r, s).bwd;
		w[s] = eval_stage_time_of(r, s).wgrad;
	}
	tl_spec sp = {schedule, r->stages, vpp, r->microbatches, f, b, w};
	if (tl_units(&sp) > 512)
		return;
	char why[128] = "";
	int rc = tl_simulate(&sp, &tl, why, sizeof why);
	h_i(h, rc);
	h_bytes(h, why, strlen(why));
	if (rc)
		return;
	h_i(h, tl.nops);
	h_d(h, tl.makespan);
	h_d(h, tl.bubble);
	for (int s = 0; s < r->stages; s++)
		h_d(h, tl.busy[s]);
	for (int i = 0; i < tl.nops; i++) {
		h_d(h, tl.ops[i].t0);
		h_d(h, tl.ops[i].t1);
		h_i(h, tl.ops[i].mb);
		h_i(h, tl.ops[i].dev);
		h_i(h, tl.ops[i].kind);
		h_i(h, tl.ops[i].chunk);
	}
}

static void h_result(uint64_t *h, const eval_result *r)
{
	h_i(h, r->valid);
	h_bytes(h, r->why, strlen(r->why));
	if (!r->valid)
		return;
	h_i(h, r->stages);
	h_i(h, r->chunks);
	h_i(h, r->microbatches);
	for (int s = 0; s < r->stages; s++) {
		const eval_mem ms = eval_stage_mem(r, s), *m = &ms;
		const eval_stage_time ts = eval_stage_time_of(r, s), *t = &ts;
		double md[] = {m->weights, m->grads, m->optimizer, m->activations, m->buffers, m->total, m->inflight};
		double td[] = {t->fwd, t->bwd, t->wgrad, t->recompute, t->compute, t->tp, t->cp, t->ep, t->pp,
			t->dp_exposed, t->optimizer};
		for (size_t i = 0; i < sizeof md / sizeof md[0]; i++)
			h_d(h, md[i]);
		for (size_t i = 0; i < sizeof td / sizeof td[0]; i++)
			h_d(h, td[i]);
		h_i(h, m->layers);
	}
	double rd[] = {r->peak_bytes, r->budget_bytes, r->step, r->compute, r->recompute, r->bubble, r->optimizer,
		r->tp, r->cp, r->ep, r->pp, r->dp, r->comm_exposed, r->tokens_per_s, r->mfu, r->hfu,
		r->model_flops, r->hw_flops, r->params_total, r->params_active};
	for (size_t i = 0; i < sizeof rd / sizeof rd[0]; i++)
		h_d(h, rd[i]);
	h_i(h, r->peak_stage);
	h_i(h, r->fits);
	h_i(h, r->slow_stage);
}

static void h_costs(uint64_t *h, const model_t *m, const eval_costs *o)
{
	h_i(h, o->pp);
	h_i(h, o->vpp);
	h_i(h, o->microbatches);
	h_i(h, o->schedule);
	h_i(h, o->dualpipe);
	for (int k = 0; k < m->nkinds; k++) {
		const eval_kind_cost *e = &o->kind[k];
		double d[] = {e->fwd, e->bwd, e->wgrad, e->rc[0], e->rc[1], e->rc[2], e->act[0], e->act[1], e->act[2],
			e->work, e->p_dense, e->p_expert};
		for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
			h_d(h, d[i]);
	}
	double d[] = {o->budget, o->p2p, o->emb_fwd, o->emb_bwd, o->emb_params, o->emb_act, o->head_fwd,
		o->head_bwd, o->head_wgrad, o->head_params, o->logits, o->wb, o->gb, o->ob, o->wbe, o->gbe, o->obe,
		o->buffers};
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		h_d(h, d[i]);
	for (int s = 0; s < o->pp; s++)
		h_d(h, o->inflight[s]);
}

/* xorshift64*: the sample must be the same on every machine */
static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd(uint32_t n)
{
	return fixture_rnd(&rng, n);
}
#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

/* One random strategy for model m; devices in *dev. */
static strategy_t sample(const model_t *m, int *dev)
{
	static const int tps[] = {1, 1, 2, 4, 8, 8, 16}, pps[] = {1, 1, 2, 3, 4, 8, 16, 32}, vpps[] = {1, 1, 2, 3, 4},
		cps[] = {1, 1, 1, 2, 4}, eps[] = {1, 2, 4, 8, 16, 32, 64}, etps[] = {1, 1, 2, 4},
		dps[] = {1, 2, 4, 8, 16, 64, 256}, mbss[] = {1, 1, 2, 4}, seqs[] = {2048, 4096, 8192, 32768};
	static const double cfs[] = {1, 1, 1.25, 2};
	strategy_t s = strat_default();
	s.tp = PICK(tps);
	s.pp = PICK(pps);
	s.vpp = PICK(vpps);
	s.cp = PICK(cps);
	s.ep = model_max_experts(m) > 0 ? PICK(eps) : 1;
	s.etp = model_max_experts(m) > 0 ? PICK(etps) : 1;
	s.dp = PICK(dps);
	s.zero = (int)rnd(4);
	s.micro_batch = PICK(mbss);
	s.global_batch = s.micro_batch * s.dp * (int)(1 + rnd(3)) * (rnd(2) ? s.pp : 1);
	s.seq = PICK(seqs);
	s.sp = rnd(4) != 0;
	s.flash = rnd(5) != 0;
	s.tp_overlap = rnd(3) == 0;
	s.vocab_parallel = rnd(5) != 0;
	s.recompute = (uint8_t)rnd(RC_COUNT);
	s.schedule = (uint8_t)rnd(SCHED_COUNT);
	if (s.vpp > 1 && rnd(2))
		s.schedule = SCHED_INTERLEAVED;
	s.precision = (uint8_t)rnd(3);
	s.cp_kind = (uint8_t)rnd(2);
	s.framework = (uint8_t)rnd(FW_COUNT);
	s.rc_modules = rnd(3) ? 0 : (uint8_t)(1 + rnd((1u << RCM_COUNT) - 1));
	s.moe_cf = PICK(cfs);
	if (rnd(6) == 0) { /* per-layer recompute ranges */
		s.nranges = 1 + (int)rnd(3);
		for (int i = 0; i < s.nranges; i++) {
			int lo = (int)rnd((uint32_t)m->layers);
			s.range[i].lo = lo;
			s.range[i].hi = lo + 1 + (int)rnd((uint32_t)(m->layers - lo));
			s.range[i].mode = (uint8_t)rnd(RC_COUNT);
		}
	}
	int nch = s.pp * s.vpp;
	if (rnd(6) == 0 && nch <= STRAT_MAX_CHUNKS && nch <= m->layers) { /* an explicit uneven split */
		int left = m->layers - nch;
		s.nchunks = nch;
		for (int i = 0; i < nch; i++) {
			int extra = i == nch - 1 ? left : (int)rnd((uint32_t)(left / 2 + 1));
			s.chunk_layers[i] = (int16_t)(1 + extra);
			left -= extra;
		}
	}
	*dev = s.dp * s.tp * s.pp * s.cp;
	return s;
}

typedef struct {
	char key[300];
	int valid, total;
	uint64_t hash;
} row;

static void run_pair(const model_t *m, const cluster_t *c, const char mname[128], const char cname[128], row *out)
{
	uint64_t h = 14695981039346656037ULL;
	/* each pair draws its own sample, seeded by its names, so a preset added to the
	 * directory leaves every other pair's sample (and digest) as it was */
	uint64_t seed = 14695981039346656037ULL;
	h_bytes(&seed, mname, strlen(mname));
	h_bytes(&seed, "/", 1);
	h_bytes(&seed, cname, strlen(cname));
	rng = seed ? seed : 88172645463325252ULL;
	int valid = 0;
	for (int i = 0; i < SAMPLES; i++) {
		int dev;
		strategy_t s = sample(m, &dev);
		double budget = rnd(4) == 0 ? 40.0 + rnd(60) : 0;
		eval_run(m, c, dev, &s, budget, &res);
		h_result(&h, &res);
		valid += res.valid;
		if (res.valid) {
			h_timeline(&h, &res, s.schedule, s.vpp);
			check_kinds_reuse(m, c, dev, &s, budget);
		}
		char why[256] = "";
		memset(&costs, 0, sizeof costs);
		int rc = eval_costs_get(m, c, dev, &s, budget, &costs, why, sizeof why);
		h_i(&h, rc);
		h_bytes(&h, why, strlen(why));
		if (rc == 0)
			h_costs(&h, m, &costs);
		for (int k = 0; k < m->nkinds; k++)
			for (int mode = 0; mode < RC_COUNT; mode++)
				h_d(&h, eval_layer_activation(m, c, &s, k, mode));
	}
	snprintf(out->key, sizeof out->key, "%.127s %.127s", mname, cname);
	out->valid = valid;
	out->total = SAMPLES;
	out->hash = h;
}

int main(void)
{
	static char models[64][128], clusters[64][128];
	static model_t mods[80];
	static char mnames[80][128];
	static row rows[MAX_ROWS];
	fixture_paths(&paths);
	int nmod = fixture_presets(&paths, "models", models, 64);
	int nclu = fixture_presets(&paths, "clusters", clusters, 64);
	char err[512];
	int nm = 0;
	for (int i = 0; i < nmod; i++) {
		if (plan_load_model(&mods[nm], models[i], &paths, err, sizeof err)) {
			printf("  %s\n", err);
			continue;
		}
		snprintf(mnames[nm++], sizeof mnames[0], "%.127s", models[i]);
	}
	static const char *hf[] = {"gemma3-27b", "gpt-oss-120b", "llama4-scout", "qwen2-57b-a14b"};
	for (size_t i = 0; i < sizeof hf / sizeof hf[0]; i++) {
		char path[256];
		snprintf(path, sizeof path, "tests/fixtures/hf/%s.json", hf[i]);
		if (plan_load_model(&mods[nm], path, &paths, err, sizeof err)) {
			printf("  %s\n", err);
			continue;
		}
		snprintf(mnames[nm++], sizeof mnames[0], "hf:%s", hf[i]);
	}
	/* layer kinds of two widths: llama3-8b with a narrow kind on every other layer */
	if (plan_load_model(&mods[nm], "llama3-8b", &paths, err, sizeof err) == 0) {
		model_t *w = &mods[nm];
		w->kind[1] = w->kind[0];
		w->kind[1].hidden = 2048;
		w->nkinds = 2;
		w->nruns = 0;
		int L = w->layers;
		w->layers = 0;
		for (int l = 0; l < L; l++)
			model_append(w, l % 4 == 3 ? 1 : 0, 1);
		snprintf(mnames[nm++], sizeof mnames[0], "two-widths");
	}
	CHECK(nm >= 15, check_fmt("golden bits: %d models load", nm));
	CHECK(nclu >= 7, check_fmt("golden bits: %d clusters found", nclu));

	int nrows = 0, total_valid = 0;
	for (int i = 0; i < nm; i++) {
		for (int j = 0; j < nclu && nrows < MAX_ROWS; j++) {
			static cluster_t c;
			if (plan_load_cluster(&c, clusters[j], &paths, err, sizeof err)) {
				printf("  %s\n", err);
				continue;
			}
			run_pair(&mods[i], &c, mnames[i], clusters[j], &rows[nrows]);
			total_valid += rows[nrows].valid;
			nrows++;
		}
	}
	CHECK(total_valid > nrows * SAMPLES / 20, check_fmt("golden bits: %d of %d sampled strategies valid",
			total_valid, nrows * SAMPLES));

	CHECK(kinds_checked > 10000 && kinds_differ == 0,
			check_fmt("eval_run_kinds: %ld results priced with another strategy's layer-kind costs are "
				"eval_run's bit for bit (%ld differ)", kinds_checked, kinds_differ));
	CHECK(resplit_checked > 50 && resplit_differ == 0,
			check_fmt("eval_kinds_resplit: %ld Ulysses/USP results priced from the ring form's layer-kind "
				"costs are eval_run's bit for bit (%ld differ)", resplit_checked, resplit_differ));

	const char *w = getenv("STRATA_GOLDEN_WRITE");
	if (w && *w) {
		FILE *f = fopen(BITS_FILE ".tmp", "w");
		if (!f) {
			CHECK(0, "golden bits: write " BITS_FILE);
			return check_done();
		}
		fprintf(f, "# model cluster valid/total fnv1a64 (tests/unit/test_golden_bits.c)\n");
		for (int i = 0; i < nrows; i++)
			fprintf(f, "%s %d/%d %016llx\n", rows[i].key, rows[i].valid, rows[i].total,
					(unsigned long long)rows[i].hash);
		int ok = fclose(f) == 0 && rename(BITS_FILE ".tmp", BITS_FILE) == 0;
		CHECK(ok, "golden bits: wrote " BITS_FILE);
		return check_done();
	}
	FILE *f = fopen(BITS_FILE, "r");
	if (!CHECK(f != NULL, "golden bits: " BITS_FILE " exists"))
		return check_done();
	char line[512];
	int seen = 0, bad = 0;
	while (fgets(line, sizeof line, f)) {
		char a[128], b[128];
		int v, t;
		unsigned long long hv;
		if (line[0] == '#' || sscanf(line, "%127s %127s %d/%d %llx", a, b, &v, &t, &hv) != 5)
			continue;
		char key[260];
		snprintf(key, sizeof key, "%s %s", a, b);
		for (int i = 0; i < nrows; i++) {
			if (strcmp(rows[i].key, key) != 0)
				continue;
			seen++;
			if (rows[i].hash != hv || rows[i].valid != v) {
				bad++;
				printf("  %s: got %d valid, %016llx; want %d, %016llx\n", key, rows[i].valid,
						(unsigned long long)rows[i].hash, v, hv);
			}
		}
	}
	fclose(f);
	CHECK(seen == nrows, check_fmt("golden bits: every (model, cluster) pair has a digest (%d of %d)", seen, nrows));
	CHECK(bad == 0, check_fmt("golden bits: %d strategies on %d (model, cluster) pairs evaluate bit-identically "
			"(%d pairs differ)", nrows * SAMPLES, nrows, bad));
	return check_done();
}
