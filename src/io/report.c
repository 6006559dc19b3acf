/* report.c - table, JSON and CSV views of an evaluation. No formula lives here. */
#include "io/report.h"
#include "io/units.h"
#include "io/text.h"
#include "core/framework.h"

#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

void report_degrees_json(json_w *w, const strategy_t *s)
{
	json_int(w, "dp", s->dp);
	json_int(w, "tp", s->tp);
	json_int(w, "pp", s->pp);
	json_int(w, "vpp", s->vpp);
	json_int(w, "cp", s->cp);
	json_str(w, "cp_kind", strat_cp_kind_name(s->cp_kind));
	json_int(w, "ep", s->ep);
	json_int(w, "etp", s->etp);
	json_bool(w, "sp", s->sp);
	json_int(w, "zero", s->zero);
	json_int(w, "micro_batch", s->micro_batch);
}

static void strategy_json(json_w *w, const strategy_t *s, const model_t *m)
{
	json_obj_begin(w, "strategy");
	report_degrees_json(w, s);
	json_int(w, "global_batch", s->global_batch);
	json_int(w, "seq_length", s->seq);
	json_str(w, "recompute", strat_recompute_name(s->recompute));
	/* what selective recomputes (Megatron-Core --recompute-modules) */
	json_arr_begin(w, "recompute_modules");
	for (int i = 0; i < RCM_COUNT; i++)
		if ((s->rc_modules ? s->rc_modules : RCM_CORE_ATTN) >> i & 1)
			json_str(w, NULL, strat_rc_module_name(i));
	json_arr_end(w);
	json_str(w, "schedule", strat_schedule_name(s->schedule));
	json_str(w, "precision", strat_precision_name(s->precision));
	json_bool(w, "flash_attention", s->flash);
	json_bool(w, "tp_comm_overlap", s->tp_overlap);
	json_num(w, "moe_capacity_factor", s->moe_cf > 0 ? s->moe_cf : 1.0);
	/* the optimizer tensors' dtypes (Megatron's precision-aware optimizer) */
	for (int k = 0; k < OPT_KEYS; k++)
		json_str(w, strat_opt_key(k), strat_opt_dtype_name(s->opt_dt[k]));
	/* Megatron's uneven-split keys (0 = not set) and CPU offload */
	json_int(w, "first_stage_layers", s->first_layers);
	json_int(w, "last_stage_layers", s->last_layers);
	json_bool(w, "account_for_embedding", s->acct_embed);
	json_bool(w, "account_for_loss", s->acct_loss);
	json_num(w, "optimizer_offload", s->opt_offload);
	json_int(w, "activation_offload", s->act_offload);
	/* the fused loss kernel and the fp8 activation cache (docs/cost-model.md) */
	json_bool(w, "loss_fusion", s->loss_fusion);
	json_str(w, "fp8_cache", strat_fp8_cache_name(s->fp8_cache));
	/* the framework whose semantics priced the plan; framework_inferred when the plan left
	 * it to its ZeRO level (framework: auto) */
	json_str(w, "framework", strat_framework_name(strat_framework(s)));
	json_bool(w, "framework_inferred", s->framework == FW_AUTO);
	/* which frameworks launch the plan as it is written (core/framework.c), and when the
	 * one that priced it is not among them, its first reason */
	json_arr_begin(w, "runs_on");
	for (int fw = FW_AUTO + 1; fw < FW_COUNT; fw++)
		if (!fw_check(fw, s, m, NULL))
			json_str(w, NULL, strat_framework_name(fw));
	json_arr_end(w);
	fw_issues is;
	if (fw_check(strat_framework(s), s, m, &is))
		json_str(w, "framework_issue", is.text[0]);
	json_obj_end(w);
}

void report_json(json_w *w, const char *key, const plan_t *p, const eval_result *r)
{
	json_obj_begin(w, key);
	report_json_members(w, p, r);
	json_obj_end(w);
}

void report_json_members(json_w *w, const plan_t *p, const eval_result *r)
{
	json_str(w, "model", p->model.name);
	json_str(w, "cluster", p->cluster.name);
	if (p->cluster.eff_from[0]) /* no run calibrates the family: whose constants it borrows */
		json_str(w, "uncalibrated_family", p->cluster.eff_from);
	json_int(w, "devices", p->devices);
	strategy_json(w, &p->strategy, &p->model);
	json_bool(w, "valid", r->valid);
	if (!r->valid) {
		json_str(w, "error", r->why);
		return;
	}
	json_obj_begin(w, "model_info");
	json_num(w, "params_total_b", r->params_total / 1e9);
	json_num(w, "params_active_b", r->params_active / 1e9);
	json_int(w, "layers", p->model.layers);
	json_obj_end(w);
	json_obj_begin(w, "memory");
	json_num(w, "peak_gib", r->peak_bytes / GIB);
	/* the same peak as PyTorch's allocator reserve and as nvidia-smi would show it */
	json_num(w, "reserved_gib", eval_mem_convention(&p->cluster, r->peak_bytes / GIB, EVAL_MEM_RESERVED));
	json_num(w, "nvidia_smi_gib", eval_mem_convention(&p->cluster, r->peak_bytes / GIB, EVAL_MEM_NVIDIA_SMI));
	json_num(w, "budget_gib", r->budget_bytes / GIB);
	json_bool(w, "fits", r->fits);
	json_int(w, "peak_stage", r->peak_stage);
	json_arr_begin(w, "stages");
	for (int i = 0; i < r->stages; i++) {
		const eval_mem mi = eval_stage_mem(r, i), *m = &mi;
		json_obj_begin(w, NULL);
		json_int(w, "stage", i);
		json_int(w, "layers", m->layers);
		json_num(w, "weights_gib", m->weights / GIB);
		json_num(w, "grads_gib", m->grads / GIB);
		json_num(w, "optimizer_gib", m->optimizer / GIB);
		json_num(w, "activations_gib", m->activations / GIB);
		json_num(w, "buffers_gib", m->buffers / GIB);
		json_num(w, "total_gib", m->total / GIB);
		json_num(w, "inflight_microbatches", m->inflight);
		json_obj_end(w);
	}
	json_arr_end(w);
	json_obj_end(w);
	json_obj_begin(w, "time");
	json_num(w, "step_s", r->step);
	json_num(w, "compute_s", r->compute);
	json_num(w, "recompute_s", r->recompute);
	json_num(w, "bubble_s", r->bubble);
	json_num(w, "optimizer_s", r->optimizer);
	json_num(w, "comm_exposed_s", r->comm_exposed);
	json_num(w, "tp_s", r->tp);
	json_num(w, "cp_s", r->cp);
	json_num(w, "ep_s", r->ep);
	json_num(w, "pp_s", r->pp);
	json_num(w, "dp_s", r->dp);
	if (p->strategy.act_offload > 0) /* activation offload's exposed host copies, in comm_exposed_s */
		json_num(w, "host_s", r->host);
	/* what dp_s synchronises: with one replica the cp ranks or the experts' own group */
	json_str(w, "dp_group", eval_dp_group_name(r->dp_group));
	json_int(w, "microbatches", r->microbatches);
	json_int(w, "slowest_stage", r->slow_stage);
	json_arr_begin(w, "stages");
	for (int i = 0; i < r->stages; i++) {
		const eval_stage_time *t = &eval_span_of(r, i)->st;
		json_obj_begin(w, NULL);
		json_int(w, "stage", i);
		json_num(w, "fwd_s", t->fwd);
		json_num(w, "bwd_s", t->bwd);
		json_num(w, "wgrad_s", t->wgrad);
		json_obj_end(w);
	}
	json_arr_end(w);
	json_obj_end(w);
	json_obj_begin(w, "throughput");
	json_num(w, "tokens_per_s", r->tokens_per_s);
	json_num(w, "mfu", r->mfu);
	json_num(w, "hfu", r->hfu);
	json_num(w, "model_tflops_per_device", r->model_flops / r->step / p->devices / 1e12);
	json_obj_end(w);
}

static void bar(FILE *f, double frac, int width)
{
	int n = (int)(frac * width + 0.5);
	if (n > width)
		n = width;
	for (int i = 0; i < width; i++)
		fputc(i < n ? '#' : '.', f);
}

void report_table(FILE *f, const plan_t *p, const eval_result *r)
{
	const strategy_t *s = &p->strategy;
	/* selective names its modules when they are not Megatron's default, the attention core */
	char rc[160];
	snprintf(rc, sizeof rc, "%s", strat_recompute_name(s->recompute));
	if (s->rc_modules && s->rc_modules != RCM_CORE_ATTN && strat_framework(s) == FW_MEGATRON) {
		char mods[128];
		strat_rc_modules_text(s->rc_modules, mods, sizeof mods);
		snprintf(rc, sizeof rc, "%s(%s)", strat_recompute_name(s->recompute), mods);
	}
	/* names come from input files: terminal-safe (io/text.h) */
	char mname[sizeof p->model.name], cname[sizeof p->cluster.name], dname[sizeof p->cluster.device];
	fprintf(f, "model    %s (%.1fB params, %.1fB active, %d layers)\n",
			text_safe(mname, sizeof mname, p->model.name), r->params_total / 1e9, r->params_active / 1e9,
			p->model.layers);
	fprintf(f, "cluster  %s, %d x %s\n", text_safe(cname, sizeof cname, p->cluster.name), p->devices,
			text_safe(dname, sizeof dname, p->cluster.device));
	if (p->cluster.eff_from[0]) {
		char from[sizeof p->cluster.eff_from];
		fprintf(f, "         uncalibrated family: efficiency constants derived from %s (docs/cost-model.md)\n",
				text_safe(from, sizeof from, p->cluster.eff_from));
	}
	char cf[320] = "";
	size_t used = 0;
	if (s->moe_cf > 0 && s->moe_cf != 1.0)
		used = (size_t)snprintf(cf, sizeof cf, " moe_cf=%g", s->moe_cf);
	for (int k = 0; k < OPT_KEYS && used < sizeof cf; k++) /* the optimizer's non-fp32 tensors */
		if (s->opt_dt[k] != ODT_FP32)
			used += (size_t)snprintf(cf + used, sizeof cf - used, " %s=%s", strat_opt_key(k),
					strat_opt_dtype_name(s->opt_dt[k]));
	/* the uneven-split and offload keys the plan sets */
	if (s->first_layers > 0 && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " first_stage_layers=%d", s->first_layers);
	if (s->last_layers > 0 && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " last_stage_layers=%d", s->last_layers);
	if ((s->acct_embed || s->acct_loss) && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " account_for=%s%s%s", s->acct_embed ? "embedding" : "",
				s->acct_embed && s->acct_loss ? "," : "", s->acct_loss ? "loss" : "");
	if (s->opt_offload > 0 && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " optimizer_offload=%g", s->opt_offload);
	if (s->act_offload > 0 && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " activation_offload=%d", s->act_offload);
	if (s->loss_fusion && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " loss_fusion");
	if (s->fp8_cache != FP8C_NONE && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " fp8_cache=%s", strat_fp8_cache_name(s->fp8_cache));
	fprintf(f, "strategy dp=%d tp=%d pp=%d vpp=%d cp=%d%s ep=%d etp=%d%s sp=%s zero=%d mbs=%d gbs=%d seq=%d\n"
			"         recompute=%s schedule=%s precision=%s flash=%s%s%s%s  (%d micro-batches)\n",
			s->dp, s->tp, s->pp, s->vpp, s->cp, s->cp > 1 && s->cp_kind == CP_ULYSSES ? "(ulysses)" : "",
			s->ep, s->etp, cf, s->sp ? "on" : "off", s->zero, s->micro_batch, s->global_batch, s->seq,
			rc, strat_schedule_name(s->schedule), strat_precision_name(s->precision), s->flash ? "on" : "off",
			strat_framework(s) != FW_MEGATRON ? " framework=" : "",
			strat_framework(s) != FW_MEGATRON ? strat_framework_name(strat_framework(s)) : "",
			strat_framework(s) != FW_MEGATRON && s->framework == FW_AUTO ? " (ZeRO-3)" : "", r->microbatches);
	fw_issues is;
	if (s->framework == FW_AUTO && fw_check(strat_framework(s), s, &p->model, &is))
		fprintf(f, "         framework auto assumes %s (%s), which would not run it as priced: %s\n",
				fw_caps_of(strat_framework(s))->name, fw_auto_reason(s), is.text[0]);
	fprintf(f, "\nmemory per device (GiB, allocated), budget %.1f\n", r->budget_bytes / GIB);
	fprintf(f, "  stage layers  weights   grads   optim    acts    bufs   total\n");
	int shown = 0;
	for (int i = 0; i < r->stages; i++) {
		/* long pipelines: first two, the peak and the last two stages */
		if (r->stages > 8 && i > 1 && i < r->stages - 2 && i != r->peak_stage) {
			if (!shown++)
				fprintf(f, "  ...\n");
			continue;
		}
		const eval_mem mi = eval_stage_mem(r, i), *m = &mi;
		fprintf(f, "  %5d %6d %8.2f %7.2f %7.2f %7.2f %7.2f %7.2f ", i, m->layers, m->weights / GIB,
				m->grads / GIB, m->optimizer / GIB, m->activations / GIB, m->buffers / GIB, m->total / GIB);
		bar(f, m->total / r->budget_bytes, 20);
		fprintf(f, "%s\n", m->total > r->budget_bytes ? "  OVER" : "");
	}
	fprintf(f, "  peak %.2f GiB on stage %d: %s\n", r->peak_bytes / GIB, r->peak_stage,
			r->fits ? "fits" : "DOES NOT FIT");
	fprintf(f, "  (allocated bytes; as reserved by the allocator %.2f GiB, in nvidia-smi %.2f GiB)\n",
			eval_mem_convention(&p->cluster, r->peak_bytes / GIB, EVAL_MEM_RESERVED),
			eval_mem_convention(&p->cluster, r->peak_bytes / GIB, EVAL_MEM_NVIDIA_SMI));
	char t[32], rate[32];
	units_time(r->step, t, sizeof t);
	fprintf(f, "\nstep time %s\n", t);
	eval_part parts[EVAL_NPARTS];
	eval_step_parts(r, parts);
	for (int i = 0; i < EVAL_NPARTS; i++) {
		if (parts[i].s <= 0 && i > 0)
			continue;
		units_time(parts[i].s, t, sizeof t);
		fprintf(f, "  %-10s %10s %5.1f%% ", parts[i].name, t, 100 * parts[i].s / r->step);
		bar(f, parts[i].s / r->step, 30);
		fputc('\n', f);
	}
	units_rate(r->tokens_per_s, rate, sizeof rate);
	fprintf(f, "\nthroughput %s tokens/s   MFU %.1f%%   HFU %.1f%%\n", rate, 100 * r->mfu, 100 * r->hfu);
}

int report_compare_rows(const eval_result *ref, const eval_result *c, report_diff out[REPORT_DIFF_ROWS])
{
	eval_part a[EVAL_NPARTS], b[EVAL_NPARTS];
	eval_step_parts(ref, a);
	eval_step_parts(c, b);
	int n = 0;
	for (int i = 0; i < EVAL_NPARTS; i++) {
		if (a[i].s == 0 && b[i].s == 0)
			continue;
		/* the two may name the dp part differently (dp = 1 on one side): the generic name */
		out[n++] = (report_diff){strcmp(a[i].name, b[i].name) ? "dp comm" : a[i].name, a[i].s, b[i].s, 0};
	}
	out[n++] = (report_diff){"step", ref->step, c->step, 0};
	out[n++] = (report_diff){"peak memory", ref->peak_bytes / GIB, c->peak_bytes / GIB, 1};
	return n;
}

void report_compare(FILE *f, const eval_result *ref, const eval_result *c)
{
	report_diff d[REPORT_DIFF_ROWS];
	int n = report_compare_rows(ref, c, d);
	fprintf(f, "  %-11s %12s %12s %12s\n", "", "plan", "candidate", "difference");
	for (int i = 0; i < n; i++)
		if (d[i].gib)
			fprintf(f, "  %-11s %8.2f GiB %8.2f GiB %+8.2f GiB\n", d[i].name, d[i].ref, d[i].cand,
					d[i].cand - d[i].ref);
		else
			fprintf(f, "  %-11s %10.4g s %10.4g s %+10.4g s\n", d[i].name, d[i].ref, d[i].cand, d[i].cand - d[i].ref);
}

void report_csv_header(FILE *f)
{
	fprintf(f, "model,cluster,devices,dp,tp,pp,vpp,cp,ep,etp,sp,zero,micro_batch,global_batch,seq_length,"
			"recompute,schedule,precision,valid,peak_gib,budget_gib,fits,step_s,compute_s,recompute_s,"
			"bubble_s,tp_s,cp_s,ep_s,pp_s,dp_s,optimizer_s,tokens_per_s,mfu,hfu\n");
}

/* A quoted CSV field; control characters become '?' as on the table (a newline would
 * split the row, and the CSV often lands on a terminal). */
static void csv_str(FILE *f, const char *str)
{
	char safe[256];
	const char *s = text_safe(safe, sizeof safe, str);
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void report_csv_row(FILE *f, const plan_t *p, const eval_result *r)
{
	const strategy_t *s = &p->strategy;
	csv_str(f, p->model.name);
	fputc(',', f);
	csv_str(f, p->cluster.name);
	fprintf(f, ",%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%s,%d", p->devices, s->dp, s->tp, s->pp, s->vpp,
			s->cp, s->ep, s->etp, s->sp, s->zero, s->micro_batch, s->global_batch, s->seq,
			strat_recompute_name(s->recompute), strat_schedule_name(s->schedule),
			strat_precision_name(s->precision), r->valid);
	if (!r->valid) {
		fprintf(f, ",,,,,,,,,,,,,,,,\n");
		return;
	}
	fprintf(f, ",%.4f,%.4f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f\n",
			r->peak_bytes / GIB, r->budget_bytes / GIB, r->fits, r->step, r->compute, r->recompute, r->bubble,
			r->tp, r->cp, r->ep, r->pp, r->dp, r->optimizer, r->tokens_per_s, r->mfu, r->hfu);
}

void report_over_budget(FILE *f, const eval_result *r)
{
	fprintf(f, "strata: stage %d needs %.2f GiB, over the %.2f GiB budget by %.2f GiB\n", r->peak_stage,
			r->peak_bytes / GIB, r->budget_bytes / GIB, (r->peak_bytes - r->budget_bytes) / GIB);
}
