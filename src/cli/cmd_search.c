/* cmd_search.c - `strata search`: rank the strategies of the plan's job (two-level search,
 * pins from the plan and --pin), as a table, a JSON list (best first; every element is an
 * `eval --json` object plus "search" and "ilp" objects) or CSV; --compare also ranks the
 * plan's own strategy. */
#include "cli/cli.h"
#include "core/framework.h"
#include "core/regime.h"
#include "io/report.h"
#include "io/units.h"
#include "core/evaluate.h"
#include "solve/search.h"
#include "io/export.h"
#include "io/plan_write.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct {
	int no_ilp, compare, threads, time_limit_ms;
	const char *write, *export, *to; /* --write FILE, --export FILE, --to TARGET */
	int force;                        /* --force: replace an existing FILE */
} sopts;

/* The value of --NAME at argv[*i] ("--NAME V" or "--NAME=V"), NULL when argv[*i] is
 * another option; *bad when it has no value. */
static const char *take_val(int argc, char **argv, int *i, const char *name, int *bad)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l) || (argv[*i][l] && argv[*i][l] != '='))
		return NULL;
	const char *v = argv[*i][l] == '=' ? argv[*i] + l + 1 : *i + 1 < argc ? argv[++*i] : NULL;
	if (!v || !*v) {
		fprintf(stderr, "strata search: %s needs a value\n", name);
		*bad = 1;
	}
	return v;
}

/* Take the options only search knows out of argv (the shared parser rejects them). */
static int take_opts(int *argc, char **argv, sopts *so)
{
	memset(so, 0, sizeof *so);
	int n = 0;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-ilp")) {
			so->no_ilp = 1;
			continue;
		}
		if (!strcmp(a, "--compare")) {
			so->compare = 1;
			continue;
		}
		if (!strcmp(a, "--force")) {
			so->force = 1;
			continue;
		}
		int bad = 0;
		const char *v0;
		if ((v0 = take_val(*argc, argv, &i, "--write", &bad)) || bad) {
			so->write = v0;
			if (bad)
				return 2;
			continue;
		}
		if ((v0 = take_val(*argc, argv, &i, "--export", &bad)) || bad) {
			so->export = v0;
			if (bad)
				return 2;
			continue;
		}
		if ((v0 = take_val(*argc, argv, &i, "--to", &bad)) || bad) {
			so->to = v0;
			if (bad)
				return 2;
			continue;
		}
		int *dst = !strncmp(a, "--threads", 9) ? &so->threads : !strncmp(a, "--time-limit", 12) ? &so->time_limit_ms : NULL;
		size_t kl = dst == &so->threads ? 9 : 12;
		if (!dst || (a[kl] && a[kl] != '=')) {
			argv[n++] = argv[i];
			continue;
		}
		const char *v = a[kl] == '=' ? a + kl + 1 : i + 1 < *argc ? argv[++i] : NULL;
		long hi = dst == &so->threads ? SEARCH_MAX_THREADS : 86400000;
		char *end = NULL;
		long x = v ? strtol(v, &end, 10) : 0;
		if (!v || *end || x <= 0 || x > hi) {
			fprintf(stderr, "strata search: %.*s needs a whole number from 1 to %ld\n", (int)kl, a, hi);
			return 2;
		}
		*dst = (int)x;
	}
	*argc = n;
	return 0;
}

/* "dp=8 tp=8 pp=4 ..." with only the fields that mean something for this model. */
static void strat_text(char *out, size_t n, const strategy_t *s, const model_t *m)
{
	int moe = 0;
	for (int k = 0; k < m->nkinds; k++)
		moe |= m->kind[k].experts > 0;
	size_t l = (size_t)snprintf(out, n, "dp=%d tp=%d pp=%d", s->dp, s->tp, s->pp);
	if (s->vpp > 1 && l < n)
		l += (size_t)snprintf(out + l, n - l, " vpp=%d", s->vpp);
	if (l < n && s->cp > 1 && strat_cp_mode(s) == CP_USP)
		l += (size_t)snprintf(out + l, n - l, " cp=%d(usp %dx%d)", s->cp, strat_cp_ulysses(s),
				s->cp / strat_cp_ulysses(s));
	else if (l < n)
		l += (size_t)snprintf(out + l, n - l, " cp=%d%s", s->cp,
				s->cp > 1 ? (s->cp_kind == CP_ULYSSES ? "(ulysses)" : "(ring)") : "");
	if (moe && l < n)
		l += (size_t)snprintf(out + l, n - l, " ep=%d etp=%d", s->ep, s->etp);
	if (s->moe_redundant > 0 && l < n)
		l += (size_t)snprintf(out + l, n - l, " red=%d", s->moe_redundant);
	if (l < n)
		l += (size_t)snprintf(out + l, n - l, " zero=%d mbs=%d%s %s %s", s->zero, s->micro_batch,
				s->tp > 1 ? (s->sp ? " sp" : " no-sp") : "", strat_recompute_name(s->recompute),
				strat_schedule_name(s->schedule));
	if (s->nranges && l < n)
		l += (size_t)snprintf(out + l, n - l, " +%d recompute range%s", s->nranges, s->nranges > 1 ? "s" : "");
	if (s->nchunks && l < n)
		snprintf(out + l, n - l, " uneven");
}

static void count(char *out, size_t n, long long v)
{
	/* thousands separators: these counts run into the millions */
	char d[32];
	int len = snprintf(d, sizeof d, "%lld", v), k = 0;
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < n; i++) {
		out[o++] = d[i];
		k = len - i - 1;
		if (k > 0 && k % 3 == 0)
			out[o++] = ',';
	}
	out[o] = 0;
}

static void gain_text(char *out, size_t n, const search_item *it)
{
	if (it->ilp_status < 0)
		snprintf(out, n, "-");
	else if (it->ilp_gain > 5e-5)
		snprintf(out, n, "+%.1f%%", 100 * it->ilp_gain);
	else
		snprintf(out, n, "%s", it->ilp_status == ILP_OPTIMAL || it->ilp_status == ILP_FEASIBLE ? "even" :
				ilp_status_name(it->ilp_status));
}

static void table(const plan_t *p, const pin_set *pins, const search_result *r, double budget, int no_ilp,
		const eval_result *ref, eval_result *ev)
{
	const strategy_t *b = &p->strategy;
	char a[32], e[32], v[32], f[32], pr[32];
	printf("search   %s on %d x %s (%s), global batch %d x %d tokens, budget %.1f GiB\n",
			cli_safe(p->model.name), p->devices, cli_safe(p->cluster.device), cli_safe(p->cluster.name),
			b->global_batch, b->seq, budget);
	printf("pins     ");
	for (int i = 0; i < pins->n; i++)
		printf("%s%s", i ? "  " : "", cli_safe(pins->pin[i].text));
	printf("%s\n", pins->n ? "" : "none");
	/* which framework bounds the proposals (core/framework.c) */
	if (b->framework == FW_AUTO)
		printf("framework auto: a plan is priced as Megatron-LM (ZeRO 0-2) or torchtitan (ZeRO-3) and proposed only "
				"if that framework runs it\n");
	else
		printf("framework %s: only plans %s runs\n", strat_framework_name(b->framework),
				fw_caps_of(b->framework)->name);
	char c[32], bd[32];
	count(a, sizeof a, r->enumerated);
	count(pr, sizeof pr, r->pruned);
	count(c, sizeof c, r->checked);
	count(v, sizeof v, r->valid);
	count(bd, sizeof bd, r->bounded);
	count(e, sizeof e, r->evaluated);
	count(f, sizeof f, r->fit);
	printf("outer    %s strateg%s over %lld device split%s, %.3f s on %d thread%s\n", a,
			r->enumerated == 1 ? "y" : "ies", r->shapes_valid, r->shapes_valid == 1 ? "" : "s", r->outer_s,
			r->threads, r->threads > 1 ? "s" : "");
	printf("         %s pruned by split rules and memory bounds; %s checked: %s valid, %s beyond the time "
			"bound, %s evaluated, %s fit\n", pr, c, v, bd, e, f);
	if (r->refined)
		printf("inner    ILP refined %d candidate%s%s   %.3f s\n", r->refined, r->refined > 1 ? "s" : "",
				r->dropped ? " (some had no plan honouring the stage pins)" : "", r->inner_s);
	else
		printf("inner    %s\n", no_ilp ? "skipped (--no-ilp)" : "nothing to refine");
	if (r->n)
		printf("\n  #       step alloc GiB    MFU  tokens/s  ILP gain  strategy\n");
	int marked = 0;
	for (int i = 0; i < r->n; i++) {
		const search_item *it = &r->item[i];
		char g[32], st[256], rg[96], al[32] = "";
		gain_text(g, sizeof g, it);
		strat_text(st, sizeof st, &it->s, &p->model);
		unsigned u = regime_unvalidated(&p->model, &p->cluster, &it->s);
		regime_text(u, &it->s, rg, sizeof rg);
		marked |= u != 0;
		if (it->alike)
			snprintf(al, sizeof al, "  +%d alike", it->alike);
		char t[32], rate[32];
		units_time(it->step, t, sizeof t);
		units_rate(it->tokens_per_s, rate, sizeof rate);
		printf("%3d %10s %9.2f %6.1f%% %9s %9s  %s%s%s%s%s\n", i + 1, t, it->peak_gib, 100 * it->mfu, rate, g, st, al,
				u ? "  [unvalidated: " : "", rg, u ? "]" : "");
	}
	if (r->merged)
		printf("\n+N alike: N more strategies with identical results (every figure within 1e-9) are merged "
				"into the\n  row, which shows the simplest; --json lists them\n");
	if (marked)
		printf("\n[unvalidated: ...] the plan relies on a regime no published run in the validation set "
				"measures;\n  treat its figures as a hypothesis (docs/plausibility.md)\n");
	if (r->n && r->item[0].s.nchunks) {
		const strategy_t *s = &r->item[0].s;
		printf("\n#1 layers per stage:");
		for (int st = 0; st < s->pp; st++) {
			int t = 0;
			for (int c = 0; c < s->vpp; c++)
				t += s->chunk_layers[c * s->pp + st];
			printf(" %d", t);
		}
		printf("\n");
	}
	if (ref) {
		char st[256];
		strat_text(st, sizeof st, b, &p->model);
		printf("\nplan     %s\n", st);
		if (!ref->valid)
			printf("         invalid: %s\n", cli_safe(ref->why));
		else if (!ref->fits)
			printf("         does not fit: %.2f GiB over the %.1f GiB budget (it ranks nowhere)\n",
					ref->peak_bytes / GIB, budget);
		else {
			count(f, sizeof f, r->faster_than_ref);
			char t[32], t1[32];
			units_time(ref->step, t, sizeof t);
			units_time(r->n ? r->item[0].step : 0, t1, sizeof t1);
			printf("         step %s, %.2f GiB, MFU %.1f%%: ranks #%lld (%s fitting strateg%s faster)\n",
					t, ref->peak_bytes / GIB, 100 * ref->mfu, r->faster_than_ref + 1, f,
					r->faster_than_ref == 1 ? "y is" : "ies are");
			if (r->n) {
				printf("best     %+.1f%% tokens/s over the plan (%s vs %s per step); where it "
						"comes from:\n", 100 * (ref->step / r->item[0].step - 1), t1, t);
				if (eval_run(&p->model, &p->cluster, p->devices, &r->item[0].s, p->budget_gib, ev) == 0) {
					fflush(stdout);
					report_compare(stdout, ref, ev);
				}
			}
		}
	}
}

static void item_json(json_w *w, plan_t *p, const search_item *it, int rank, const search_result *r,
		const eval_result *ref, eval_result *ev)
{
	strategy_t keep = p->strategy;
	p->strategy = it->s;
	eval_run(&p->model, &p->cluster, p->devices, &it->s, p->budget_gib, ev);
	json_obj_begin(w, NULL);
	report_json_members(w, p, ev);
	json_obj_begin(w, "search");
	json_int(w, "rank", rank);
	json_num(w, "step_s", it->step);
	json_num(w, "peak_gib", it->peak_gib);
	json_num(w, "mfu", it->mfu);
	json_num(w, "tokens_per_s", it->tokens_per_s);
	json_num(w, "even_step_s", it->even_step);
	json_num(w, "even_peak_gib", it->even_peak_gib);
	unsigned u = regime_unvalidated(&p->model, &p->cluster, &it->s);
	json_arr_begin(w, "unvalidated"); /* regimes no validation case measures */
	for (int i = 0; i < REGIME_COUNT; i++)
		if (u & (1u << i))
			json_str(w, NULL, i == 0 ? strat_schedule_name(it->s.schedule) : regime_name(i));
	json_arr_end(w);
	/* the strategies merged into this result: their figures are identical (search.h) */
	json_int(w, "alike", it->alike);
	json_arr_begin(w, "alike_strategies");
	for (int i = 0; i < it->alike && i < SEARCH_MAX_ALIKE; i++) {
		strategy_t t = it->s;
		search_knobs_apply(&it->alike_k[i], &t);
		json_obj_begin(w, NULL);
		report_degrees_json(w, &t);
		json_str(w, "recompute", strat_recompute_name(t.recompute));
		json_str(w, "schedule", strat_schedule_name(t.schedule));
		json_obj_end(w);
	}
	json_arr_end(w);
	json_int(w, "enumerated", r->enumerated);
	json_int(w, "pruned", r->pruned);
	json_int(w, "checked", r->checked);
	json_int(w, "valid", r->valid);
	json_int(w, "bounded", r->bounded);
	json_int(w, "evaluated", r->evaluated);
	json_int(w, "fit", r->fit);
	json_num(w, "outer_s", r->outer_s);
	json_num(w, "inner_s", r->inner_s);
	json_int(w, "threads", r->threads);
	if (ref && ref->valid && ref->fits) {
		json_int(w, "plan_rank", r->faster_than_ref + 1);
		json_num(w, "plan_step_s", ref->step);
		json_num(w, "gain_over_plan", ref->step / it->step - 1);
	}
	json_obj_end(w);
	json_obj_begin(w, "ilp");
	json_str(w, "status", it->ilp_status < 0 ? "skipped" : ilp_status_name(it->ilp_status));
	if (it->ilp_status >= 0) {
		json_num(w, "solve_ms", it->ilp_ms);
		json_num(w, "step_s", it->step);
		json_num(w, "even_step_s", it->even_step);
		json_num(w, "gain", it->ilp_gain);
		json_bool(w, "applied", it->ilp_applied);
	}
	if (it->s.nchunks) {
		json_arr_begin(w, "chunk_layers");
		for (int c = 0; c < it->s.nchunks; c++)
			json_int(w, NULL, it->s.chunk_layers[c]);
		json_arr_end(w);
	}
	if (it->s.nranges) {
		json_arr_begin(w, "recompute_ranges");
		for (int i = 0; i < it->s.nranges; i++) {
			json_obj_begin(w, NULL);
			json_int(w, "lo", it->s.range[i].lo);
			json_int(w, "hi", it->s.range[i].hi);
			json_str(w, "recompute", strat_recompute_name(it->s.range[i].mode));
			json_obj_end(w);
		}
		json_arr_end(w);
	}
	json_obj_end(w);
	json_obj_end(w);
	p->strategy = keep;
}

static void csv(plan_t *p, const search_result *r, eval_result *ev)
{
	printf("rank,search_step_s,search_peak_gib,search_mfu,search_tokens_per_s,ilp_status,ilp_gain,");
	report_csv_header(stdout);
	strategy_t keep = p->strategy;
	for (int i = 0; i < r->n; i++) {
		const search_item *it = &r->item[i];
		p->strategy = it->s;
		eval_run(&p->model, &p->cluster, p->devices, &it->s, p->budget_gib, ev);
		printf("%d,%.6g,%.4f,%.4f,%.6g,%s,%.4f,", i + 1, it->step, it->peak_gib, it->mfu, it->tokens_per_s,
				it->ilp_status < 0 ? "skipped" : ilp_status_name(it->ilp_status), it->ilp_gain);
		report_csv_row(stdout, p, ev);
	}
	p->strategy = keep;
}

/* The export target of --export FILE: --to, else the plan's framework, else FILE's
 * extension (.sh megatron, .json deepspeed, .toml torchtitan); -1 after saying why. */
static int export_target_of(const sopts *so, const strategy_t *s)
{
	if (so->to) {
		int t = export_parse_target(so->to);
		if (t < 0)
			fprintf(stderr, "strata search: unknown target '%s' (valid: %s)\n", cli_safe(so->to), export_target_list());
		return t;
	}
	if (s->framework == FW_MEGATRON)
		return EXPORT_MEGATRON;
	if (s->framework == FW_TORCHTITAN)
		return EXPORT_TORCHTITAN;
	if (s->framework == FW_DEEPSPEED)
		return EXPORT_DEEPSPEED;
	const char *dot = strrchr(so->export, '.');
	if (dot && !strcmp(dot, ".sh"))
		return EXPORT_MEGATRON;
	if (dot && !strcmp(dot, ".json"))
		return EXPORT_DEEPSPEED;
	if (dot && !strcmp(dot, ".toml"))
		return EXPORT_TORCHTITAN;
	fprintf(stderr, "strata search: --export %s: name the target with --to %s (or --framework, or a .sh, .json or "
			".toml file)\n", cli_safe(so->export), export_target_list());
	return -1;
}

/* A file that exists is replaced only with --force. 0 to go on. */
static int may_write(const char *path, int force)
{
	struct stat st;
	if (force || stat(path, &st))
		return 0;
	fprintf(stderr, "strata search: %s exists; --force replaces it\n", cli_safe(path));
	return 2;
}

/* --write and --export: the winner (its uneven split and recompute ranges included) as a
 * plan file and as a launch configuration, each replaced atomically. 0, 1 (the target
 * would not launch it as priced) or 2 (file error). */
static int write_winner(const sopts *so, plan_t *p, const search_item *best, const paths_t *paths)
{
	char err[1024];
	strategy_t keep = p->strategy;
	p->strategy = best->s;
	int rc = 0;
	if (so->write && !(rc = may_write(so->write, so->force))) {
		if (plan_save(p, so->write, paths, err, sizeof err)) {
			fprintf(stderr, "strata search: %s\n", cli_safe(err));
			rc = 2;
		} else {
			fprintf(stderr, "strata search: wrote the best plan to %s\n", cli_safe(so->write));
		}
	}
	if (!rc && so->export && !(rc = may_write(so->export, so->force))) {
		int t = export_target_of(so, &p->strategy);
		fw_issues is;
		if (t < 0) {
			rc = 2;
		} else if (export_check((export_target)t, p, &is)) {
			fprintf(stderr, "strata search: %s would not run the best plan as it was priced: %s (search with "
					"--framework %s)\n", fw_caps_of(export_framework((export_target)t))->name, cli_safe(is.text[0]),
					fw_caps_of(export_framework((export_target)t))->key);
			rc = 1;
		} else if (export_save(so->export, (export_target)t, p, err, sizeof err)) {
			fprintf(stderr, "strata search: %s\n", cli_safe(err));
			rc = 2;
		} else {
			fprintf(stderr, "strata search: wrote the best plan for %s to %s\n",
					fw_caps_of(export_framework((export_target)t))->name, cli_safe(so->export));
		}
	}
	p->strategy = keep;
	return rc;
}

int cmd_search(int argc, char **argv, const paths_t *paths)
{
	char *av[300];
	int ac = argc < 300 ? argc : 300;
	memcpy(av, argv, (size_t)ac * sizeof *av);
	sopts so;
	if (take_opts(&ac, av, &so))
		return 2;
	cli_opts o;
	int prc = cli_parse(&o, ac, av, 2, "search");
	if (prc)
		return prc == 3 ? 0 : 2;
	if (o.nfiles) {
		fprintf(stderr, "strata search: one plan file at most (got '%s' too)\n", cli_safe(o.files[0]));
		return 2;
	}
	o.job_only = !so.compare;
	plan_t *p = malloc(sizeof *p);
	eval_result *ev = malloc(sizeof *ev), *ref = NULL;
	pin_set *pins = malloc(sizeof *pins);
	search_result r;
	memset(&r, 0, sizeof r);
	int rc = 2;
	if (!p || !ev || !pins) {
		fprintf(stderr, "strata: out of memory\n");
		goto out;
	}
	if ((rc = cli_load(&o, paths, p)))
		goto out;
	char why[512];
	if (pin_set_from_strings(pins, p->pins, p->npins, why, sizeof why)) {
		fprintf(stderr, "strata search: %s\n", cli_safe(why));
		rc = 2;
		goto out;
	}
	for (int i = 0; i < pins->n; i++)
		if (pins->pin[i].key == PIN_BUDGET) /* the reports evaluate under the pinned budget */
			p->budget_gib = pins->pin[i].value / 1024.0;
	if (so.no_ilp && pin_needs_ilp(pins)) {
		fprintf(stderr, "strata search: stage pins (layers[a:b].stage, stages[s].layers) need the ILP level: "
				"drop --no-ilp\n");
		rc = 2;
		goto out;
	}
	search_job job = {&p->model, &p->cluster, p->devices, p->strategy, p->budget_gib};
	search_opts opt;
	memset(&opt, 0, sizeof opt);
	opt.top = o.top > 0 ? o.top : 10;
	opt.threads = so.threads;
	opt.no_ilp = so.no_ilp;
	opt.ilp_time_limit_ms = so.time_limit_ms;
	if (so.compare) {
		ref = ev;
		ev = malloc(sizeof *ev);
		if (!ev) {
			fprintf(stderr, "strata: out of memory\n");
			rc = 2;
			goto out;
		}
		eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, ref);
		if (ref->valid && ref->fits)
			opt.ref_step = ref->step;
	}
	if (search_run(&job, pins, &opt, &r)) {
		fprintf(stderr, "strata search: %s\n", cli_safe(r.why));
		rc = 2;
		goto out;
	}
	double budget = p->budget_gib > 0 ? p->budget_gib : eval_default_budget_gib(&p->cluster);
	if (o.json) {
		json_w w;
		json_init(&w, stdout, 1);
		json_arr_begin(&w, NULL);
		for (int i = 0; i < r.n; i++)
			item_json(&w, p, &r.item[i], i + 1, &r, ref, ev);
		json_arr_end(&w);
		json_end(&w);
	} else if (o.csv) {
		csv(p, &r, ev);
	} else {
		table(p, pins, &r, budget, so.no_ilp, ref, ev);
	}
	rc = 0;
	if (r.n && (so.write || so.export))
		rc = write_winner(&so, p, &r.item[0], paths);
	if (r.n == 0) {
		rc = 1;
		if (pins->n && !r.cancelled) {
			search_explain(&job, pins, &opt, why, sizeof why);
			fprintf(stderr, "strata search: %s\n", cli_safe(why));
		} else {
			fprintf(stderr, "strata search: %s\n", cli_safe(r.why));
		}
	}
out:
	search_free(&r);
	free(p);
	free(ev);
	free(ref);
	free(pins);
	return rc;
}
