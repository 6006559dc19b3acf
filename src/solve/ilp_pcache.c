/* ilp_pcache.c - stage prices by what the stage holds: a stage's fastest fitting mix and
 * its price depend only on how many layers of each pseudo-kind (kind x pinned mode) it
 * holds, not on where they are, so the DPs (ilp_cdp.c, ilp_stage.c) price each (stage,
 * counts) once. A dense table over (stage, counts) when that is small (a few pseudo-kinds,
 * each up to the most layers a stage can hold), else open addressing. Every table comes
 * out of the ILP's memory cap; when the cap refuses one, `failed` is set and lookups
 * answer "does not fit" (the callers stop). */
#include "solve/ilp_int.h"

#include <stdlib.h>
#include <string.h>

#define PC_DENSE (1L << 20) /* entries of the dense table at most */

static uint32_t key_hash(int st, const int *cnt, int U)
{
	uint32_t h = 2166136261u ^ (uint32_t)st;
	for (int u = 0; u < U; u++)
		h = (h ^ (uint32_t)cnt[u]) * 16777619u;
	return h ^ (h >> 15);
}

static int grow(ilp_pcache *c)
{
	int cap = c->hcap ? 2 * c->hcap : 1024, K = c->U + 1;
	size_t bytes = (size_t)(cap - c->hcap) * (K * sizeof(int16_t) + sizeof(int));
	if (ilp_mem_take(c->in, bytes))
		return -1;
	int16_t *key = calloc((size_t)cap * K, sizeof *key);
	int *at = malloc((size_t)cap * sizeof *at);
	if (!key || !at) {
		free(key);
		free(at);
		ilp_mem_give(c->in, bytes);
		return -1;
	}
	for (int i = 0; i < c->hcap; i++) {
		const int16_t *k = &c->hkey[(size_t)i * K];
		if (!k[0])
			continue;
		int cnt[ILP_NPK];
		for (int u = 0; u < c->U; u++)
			cnt[u] = k[u + 1];
		uint32_t j = key_hash(k[0] - 1, cnt, c->U) & (uint32_t)(cap - 1);
		while (key[(size_t)j * K])
			j = (j + 1) & (uint32_t)(cap - 1);
		memcpy(&key[(size_t)j * K], k, (size_t)K * sizeof *k);
		at[j] = c->hat[i];
	}
	free(c->hkey);
	free(c->hat);
	c->hkey = key;
	c->hat = at;
	c->hcap = cap;
	return 0;
}

int ilp_pcache_init(ilp_pcache *c, struct ilp_inst *in, int most, double tau_cap)
{
	const int L = in->L;
	memset(c, 0, sizeof *c);
	c->in = in;
	c->tau_cap = tau_cap;
	c->lu = malloc((size_t)L);
	if (!c->lu)
		return -1;
	int slot_of[ILP_NPK];
	for (int pk = 0; pk < ILP_NPK; pk++)
		slot_of[pk] = -1;
	for (int l = 0; l < L; l++) {
		int k = model_layer_kind(in->m, l), mode = in->rcpin[l];
		int pk = k * 4 + (mode >= 0 ? mode : ILP_FREE);
		if (slot_of[pk] < 0) {
			slot_of[pk] = c->U;
			c->upk[c->U++] = pk;
		}
		c->lu[l] = (uint8_t)slot_of[pk];
	}
	long n = in->p;
	for (int u = 0; u < c->U; u++) {
		int tot = 0;
		for (int l = 0; l < L; l++)
			tot += c->lu[l] == u;
		int r = (tot < most ? tot : most) + 1;
		c->radix[u] = r;
		c->mult[u] = n;
		n *= r;
		if (n > PC_DENSE)
			return grow(c) ? -1 : 0;
	}
	if (ilp_mem_take(in, (size_t)n * sizeof *c->dense))
		return grow(c) ? -1 : 0;
	c->ndense = n;
	c->dense = malloc((size_t)n * sizeof *c->dense);
	if (!c->dense)
		return -1;
	memset(c->dense, 0xff, (size_t)n * sizeof *c->dense); /* -1: not priced yet */
	return 0;
}

void ilp_pcache_free(ilp_pcache *c)
{
	if (!c->in)
		return;
	ilp_mem_give(c->in, (size_t)c->capval * sizeof *c->val + (size_t)c->ndense * sizeof *c->dense +
			(size_t)c->hcap * ((c->U + 1) * sizeof(int16_t) + sizeof(int)));
	free(c->lu);
	free(c->val);
	free(c->dense);
	free(c->hkey);
	free(c->hat);
	memset(c, 0, sizeof *c);
}

/* Price stage st holding cnt[u] layers of each pseudo-kind u (the MTP on the last stage). */
static ilp_pcost price(ilp_pcache *c, int st, const int *cnt)
{
	ilp_inst *in = c->in;
	int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
	memset(fixed, 0, sizeof fixed);
	memset(nfree, 0, sizeof nfree);
	for (int u = 0; u < c->U; u++) {
		int pk = c->upk[u], kd = pk / 4, sl = pk % 4;
		if (sl == ILP_FREE)
			nfree[kd] += cnt[u];
		else
			fixed[kd][sl] += cnt[u];
	}
	if (st == in->p - 1 && in->mtp > 0)
		nfree[in->mtp_kind] += in->mtp;
	ilp_pcost v;
	ilp_mix mix;
	ilp_price q;
	/* the time without free recompute first: when that is already over the cap no
	 * threshold admits the stage, and the knapsack is not needed */
	memset(&mix, 0, sizeof mix);
	for (int kd = 0; kd < in->nk; kd++) {
		for (int mode = 0; mode < RC_COUNT; mode++)
			mix.n[kd][mode] = fixed[kd][mode];
		mix.n[kd][RC_NONE] += nfree[kd];
	}
	ilp_price_stage(in->ec, in->nk, st, &mix, &q);
	v.T = q.f + q.b;
	v.g = ilp_form_g(&in->form, &q);
	v.ok = 0;
	if (v.T <= c->tau_cap && !ilp_knap_best(&in->knap, st, (const int(*)[RC_COUNT])fixed, nfree, &mix, &q)) {
		v.T = q.f + q.b;
		v.g = ilp_form_g(&in->form, &q);
		v.ok = 1;
	}
	return v;
}

/* Room for one more price: 0, or -1 (failed set). */
static int room(ilp_pcache *c)
{
	if (c->nval < c->capval)
		return 0;
	int cap = c->capval ? 2 * c->capval : 1024;
	size_t bytes = (size_t)(cap - c->capval) * sizeof *c->val;
	if (ilp_mem_take(c->in, bytes)) {
		c->failed = 1;
		return -1;
	}
	ilp_pcost *v = realloc(c->val, (size_t)cap * sizeof *v);
	if (!v) {
		ilp_mem_give(c->in, bytes);
		c->failed = 1;
		return -1;
	}
	c->val = v;
	c->capval = cap;
	return 0;
}

ilp_pcost ilp_pcache_fill(ilp_pcache *c, int st, const int *cnt)
{
	static const ilp_pcost none = {0, 0, 0};
	const int K = c->U + 1;
	if (c->failed)
		return none;
	long idx = st;
	uint32_t j = 0;
	if (c->dense) {
		for (int u = 0; u < c->U; u++) {
			if (cnt[u] >= c->radix[u])
				return price(c, st, cnt); /* more than a stage holds: not kept */
			idx += cnt[u] * c->mult[u];
		}
		if (c->dense[idx] >= 0)
			return c->val[c->dense[idx]];
	} else {
		if (2 * (c->hn + 1) > c->hcap && grow(c)) {
			c->failed = 1;
			return none;
		}
		for (j = key_hash(st, cnt, c->U) & (uint32_t)(c->hcap - 1);; j = (j + 1) & (uint32_t)(c->hcap - 1)) {
			const int16_t *k = &c->hkey[(size_t)j * K];
			if (!k[0])
				break;
			if (k[0] != st + 1)
				continue;
			int u = 0;
			while (u < c->U && k[u + 1] == cnt[u])
				u++;
			if (u == c->U)
				return c->val[c->hat[j]];
		}
	}
	ilp_pcost v = price(c, st, cnt);
	if (c->in->stop || room(c))
		return none; /* a knapsack cut short by a stop request is not a price to keep */
	if (c->dense) {
		c->dense[idx] = c->nval;
	} else {
		int16_t *k = &c->hkey[(size_t)j * K];
		k[0] = (int16_t)(st + 1);
		for (int u = 0; u < c->U; u++)
			k[u + 1] = (int16_t)cnt[u];
		c->hat[j] = c->nval;
		c->hn++;
	}
	c->val[c->nval++] = v;
	return v;
}
