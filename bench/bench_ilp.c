/* bench_ilp.c - bubble ILP solve times by instance size for `make bench`: the median of
 * several solves (costs, options, DP and GLPK together), as "bench: ilp_NAME VALUE ms". */
#include "bench.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/ilp.h"

#include <stdio.h>
#include <stdlib.h>

static int one_pinned(const char *name, const char *text, const char *pin, const paths_t *paths)
{
	plan_t *p = malloc(sizeof *p);
	ilp_result *r = malloc(sizeof *r);
	int rc = 1;
	if (!p || !r)
		goto out;
	if (bench_load(p, name, text, paths))
		goto out;
	ilp_pins pins = {0};
	char why[256];
	if (pin) {
		if (ilp_pin_parse(pin, &pins.pin[0], why, sizeof why)) {
			fprintf(stderr, "bench: %s: bad pin %s\n", name, pin);
			goto out;
		}
		pins.n = 1;
	}
	double ms[9];
	int status = ILP_ERROR, options = 0;
	for (int i = 0; i < 9; i++) {
		ilp_params prm = {0};
		prm.time_limit_ms = 60000;
		status = ilp_solve(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &pins, &prm, r);
		ms[i] = r->solve_ms;
		options = r->options;
		ilp_free(r);
	}
	qsort(ms, 9, sizeof ms[0], bench_dcmp);
	printf("bench: ilp_%s %.2f ms (%s, %d layers, %d stages x vpp %d, %d options)\n", name, ms[4],
			ilp_status_name(status), p->model.layers, p->strategy.pp, p->strategy.vpp, options);
	rc = status == ILP_OPTIMAL ? 0 : 1;
out:
	free(p);
	free(r);
	return rc;
}

static int one(const char *name, const char *text, const paths_t *paths)
{
	return one_pinned(name, text, NULL, paths);
}

int bench_ilp(const paths_t *paths)
{
	int rc = 0;
	rc |= one("llama3-70b_pp4", "model: llama3-70b\ncluster: dgx-h100\ndevices: 512\n"
			"strategy: {tp: 8, pp: 4, global_batch: 512, seq_length: 8192, recompute: selective}\n", paths);
	rc |= one("deepseek-v3_pp16", "model: deepseek-v3\ncluster: h800\ndevices: 2048\n"
			"strategy: {tp: 1, pp: 16, ep: 64, sp: false, zero: 1, global_batch: 15360, seq_length: 4096}\n",
			paths);
	rc |= one("llama3-405b_pp16_vpp2", "model: llama3-405b\ncluster: dgx-h100\ndevices: 2048\n"
			"strategy: {tp: 8, pp: 16, vpp: 2, schedule: interleaved, global_batch: 2048, seq_length: 8192}\n",
			paths);
	/* the chunk model: three dense layers, then MoE, with vpp > 1 (the chunk DP's rounds
	 * form); and with a recompute pin inside the MoE layers (its round-starts form) */
	static const char *dsv3 = "model: deepseek-v3\ncluster: h800\ndevices: 2048\n"
		"strategy: {tp: 1, pp: 16, vpp: 2, ep: 64, micro_batch: 1, global_batch: 4096, seq_length: 4096, "
		"schedule: interleaved}\n";
	rc |= one("dsv3_pp16_vpp2", dsv3, paths);
	rc |= one_pinned("dsv3_pp16_vpp2_pinned", dsv3, "layers[40:45].recompute=full", paths);
	rc |= one("dsv3_pp8_vpp3", "model: deepseek-v3\ncluster: h800\ndevices: 2048\n"
			"strategy: {tp: 1, pp: 8, vpp: 3, ep: 64, micro_batch: 1, global_batch: 4096, seq_length: 4096, "
			"schedule: interleaved}\n", paths);
	/* 128 layers of a Llama-3-405B-like shape on 32 stages with two chunks each */
	rc |= one("synthetic-128l_pp32_vpp2",
			"model: {name: synthetic-128L, hidden_size: 16384, intermediate_size: 53248, num_hidden_layers: 128,\n"
			"        num_attention_heads: 128, num_key_value_heads: 8, vocab_size: 128256, hidden_act: silu}\n"
			"cluster: dgx-h100\ndevices: 4096\n"
			"strategy: {tp: 8, pp: 32, vpp: 2, schedule: interleaved, global_batch: 2048, seq_length: 8192}\n",
			paths);
	return rc;
}
