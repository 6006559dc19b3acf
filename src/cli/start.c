/* start.c - job first: a command line that names a job (model, cluster, devices, global
 * batch, sequence length) but no strategy starts from the best plan the search finds for
 * it, not from the embedded default's strategy (which is for the embedded default job:
 * llama3-70b's 512-GPU shape applied to 8 GPUs does not even divide them). The search
 * is the plain two-level search (solve/search.h) kept short for a start-up: one result,
 * the ILP on the two best candidates within START_ILP_BUDGET_MS. --pin constrains it;
 * settings the search keeps (precision, flash attention, TP overlap, framework, ...) come
 * from the options. A strategy option (--tp, --pp, --zero, ...) means the user gives the
 * strategy: then nothing is searched (docs/usage.md "Job first"). */
#include "cli/cli.h"
#include "solve/pins.h"
#include "solve/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define START_ILP_BUDGET_MS 1000 /* the whole ILP level at start-up */
#define START_ILP_MS 400         /* one refinement */

/* Plan keys that choose the strategy (what the search would search): any of them on the
 * command line means the user gives the strategy. */
static const char *const strategy_keys[] = {"dp", "tp", "pp", "vpp", "cp", "cp_kind", "ep", "etp", "zero",
	"micro_batch", "sp", "recompute", "recompute_modules", "schedule", "first_stage_layers",
	"last_stage_layers", "account_for_embedding", "account_for_loss", "optimizer_offload",
	"activation_offload", "stage_layers"};
/* Plan keys that name the job. */
static const char *const job_keys[] = {"devices", "global_batch", "seq_length"};

static int in(const char *k, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k, list[i]))
			return 1;
	return 0;
}

int cli_job_first(const cli_opts *o)
{
	if (o->plan)
		return 0;
	int job = o->model || o->cluster;
	for (int i = 0; i < o->nsets; i++) {
		if (in(o->set_key[i], strategy_keys, sizeof strategy_keys / sizeof strategy_keys[0]))
			return 0;
		job |= in(o->set_key[i], job_keys, sizeof job_keys / sizeof job_keys[0]);
	}
	return job;
}

/* "38,412" */
static void count_text(long long v, char *out, size_t n)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%lld", v);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < n; i++) {
		out[o++] = d[i];
		if ((len - i - 1) > 0 && (len - i - 1) % 3 == 0)
			out[o++] = ',';
	}
	out[o] = 0;
}

int cli_start_search(plan_t *p, char *msg, size_t msglen)
{
	pin_set *pins = malloc(sizeof *pins);
	search_result r;
	memset(&r, 0, sizeof r);
	if (!pins)
		return -1 + 0 * snprintf(msg, msglen, "out of memory");
	int rc = -1;
	char why[512];
	if (pin_set_from_strings(pins, p->pins, p->npins, why, sizeof why)) {
		snprintf(msg, msglen, "%s", why);
		goto out;
	}
	strategy_t base = p->strategy;
	search_job job = {&p->model, &p->cluster, p->devices, base, p->budget_gib};
	search_opts opt;
	memset(&opt, 0, sizeof opt);
	opt.top = 1;
	opt.ilp_budget_ms = START_ILP_BUDGET_MS;
	opt.ilp_time_limit_ms = START_ILP_MS;
	if (search_run(&job, pins, &opt, &r)) {
		snprintf(msg, msglen, "the search for a plan failed: %s", r.why);
		goto out;
	}
	if (r.n == 0) {
		if (pins->n && !r.cancelled)
			search_explain(&job, pins, &opt, why, sizeof why);
		else
			snprintf(why, sizeof why, "%s", r.why);
		snprintf(msg, msglen, "no plan for this job: %s", why);
		goto out;
	}
	p->strategy = r.item[0].s;
	char fit[32];
	count_text(r.fit, fit, sizeof fit);
	/* the ILP level stops at its budget: candidates past it keep their even split */
	int cut = r.cancelled || (r.refined > 0 && r.inner_s * 1e3 >= START_ILP_BUDGET_MS * 0.95);
	snprintf(msg, msglen, "best of %s fitting plan%s, found in %.0f ms%s", fit, r.fit == 1 ? "" : "s",
			(r.outer_s + r.inner_s) * 1e3, cut ? " (the ILP refinement was cut at 1 s)" : "");
	rc = 0;
out:
	search_free(&r);
	free(pins);
	return rc;
}
