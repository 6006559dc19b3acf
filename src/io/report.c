/* report.c - table, JSON and CSV views of an evaluation. No formula lives here. */
#include "io/report.h"
#include "io/units.h"
#include "io/text.h"
#include "core/framework.h"
#include "core/train_cost.h"

#include <math.h>
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
	if (s->cp > 1) { /* USP's split: the Ulysses and the ring degree (cp = their product) */
		json_int(w, "cp_ulysses", strat_cp_ulysses(s));
		json_int(w, "cp_ring", s->cp / strat_cp_ulysses(s));
	}
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
	if (s->moe_redundant > 0) { /* EPLB: replicas per EP rank, and the imbalance they leave */
		json_int(w, "moe_redundant_experts", s->moe_redundant);
		json_num(w, "moe_imbalance", strat_moe_imbalance(s, s->moe_cf > 0 ? s->moe_cf : 1.0, model_max_experts(m)));
	}
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
	json_str(w, "moe_dispatcher", strat_moe_dispatcher_name(s->moe_disp));
	json_str(w, "moe_routing", strat_moe_routing_name(s->moe_route));
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
	json_num(w, "tokens_per_s_per_device", r->tokens_per_s / p->devices);
	json_obj_end(w);
	report_cost_json(w, p, r);
	report_expect_json(w, p, r);
}

void report_cost_json(json_w *w, const plan_t *p, const eval_result *r)
{
	if (!(p->train_tokens > 0))
		return;
	train_cost c;
	train_cost_of(&p->cluster, p->devices, r->tokens_per_s, r->model_flops / r->step, p->train_tokens,
			p->gpu_hour_usd, &c);
	json_obj_begin(w, "cost");
	json_num(w, "train_tokens", p->train_tokens);
	json_num(w, "days", c.days);
	json_num(w, "gpu_hours", c.gpu_hours);
	if (c.has_usd) {
		json_num(w, "usd", c.usd);
		json_num(w, "usd_per_gpu_hour", p->gpu_hour_usd);
	} else {
		json_null(w, "usd");
	}
	if (c.has_energy) {
		json_num(w, "mwh", c.mwh);
		json_num(w, "watts_per_device", c.watts_per_device);
		json_str(w, "power_basis", c.power_node ? "node" : "device");
	} else {
		json_null(w, "mwh");
	}
	json_obj_end(w);
}

int report_expect_rows(const plan_t *p, const eval_result *r, report_expect_row out[REPORT_EXPECT_ROWS])
{
	if (!p->has_expect || !r->valid)
		return 0;
	const plan_expect *e = &p->expect;
	int n = 0;
	if (e->step_time_s > 0)
		out[n++] = (report_expect_row){"step time", "s", e->step_time_s, r->step, ""};
	if (e->peak_mem_gib > 0) {
		/* the prediction in the convention the figure was published in */
		int conv = !strcmp(e->mem_convention, "reserved") ? EVAL_MEM_RESERVED :
				!strcmp(e->mem_convention, "nvidia-smi") ? EVAL_MEM_NVIDIA_SMI : EVAL_MEM_ALLOCATED;
		out[n++] = (report_expect_row){"peak memory", "GiB", e->peak_mem_gib,
				eval_mem_convention(&p->cluster, r->peak_bytes / GIB, conv),
				conv == EVAL_MEM_RESERVED ? "reserved" : conv == EVAL_MEM_NVIDIA_SMI ? "nvidia-smi" : ""};
	}
	if (e->tokens_per_s > 0)
		out[n++] = (report_expect_row){"tokens/s", "", e->tokens_per_s, r->tokens_per_s, ""};
	if (e->tflops_per_gpu > 0) {
		double fl = !strcmp(e->tflops_convention, "hfu") ? r->hw_flops : r->model_flops;
		out[n++] = (report_expect_row){"TFLOP/s/dev", "", e->tflops_per_gpu, fl / r->step / p->devices / 1e12, 
				!strcmp(e->tflops_convention, "hfu") ? "hfu" : ""};
	}
	if (e->mfu > 0)
		out[n++] = (report_expect_row){"MFU", "%", 100 * e->mfu, 100 * r->mfu, ""};
	if (e->hfu > 0)
		out[n++] = (report_expect_row){"HFU", "%", 100 * e->hfu, 100 * r->hfu, ""};
	return n;
}

void report_expect_json(json_w *w, const plan_t *p, const eval_result *r)
{
	report_expect_row x[REPORT_EXPECT_ROWS];
	int n = report_expect_rows(p, r, x);
	if (!n)
		return;
	json_arr_begin(w, "expect");
	for (int i = 0; i < n; i++) {
		json_obj_begin(w, NULL);
		json_str(w, "figure", x[i].name);
		if (x[i].note[0])
			json_str(w, "convention", x[i].note);
		json_num(w, "published", x[i].published);
		json_num(w, "predicted", x[i].predicted);
		json_num(w, "error", x[i].predicted / x[i].published - 1);
		json_obj_end(w);
	}
	json_arr_end(w);
}

/* v rounded to a whole number with thousands separators ("528,895"). */
static void thousands(double v, char *out, size_t n)
{
	char d[48];
	int len = snprintf(d, sizeof d, "%.0f", v);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < n; i++) {
		out[o++] = d[i];
		int k = len - i - 1;
		if (k > 0 && k % 3 == 0 && d[i] != '-')
			out[o++] = ',';
	}
	out[o] = 0;
}

void report_cost_text(FILE *f, const plan_t *p, const eval_result *r)
{
	train_cost c;
	train_cost_of(&p->cluster, p->devices, r->tokens_per_s, r->model_flops / r->step, p->train_tokens,
			p->gpu_hour_usd, &c);
	char rate[32], tok[32];
	units_rate(c.tokens_per_s_dev, rate, sizeof rate);
	fprintf(f, "per device %s tokens/s, %.1f model TFLOP/s\n", rate, c.tflops_dev);
	if (!c.has_time)
		return;
	char gh[48], usd[48];
	units_big(p->train_tokens, 4, tok, sizeof tok);
	thousands(c.gpu_hours, gh, sizeof gh);
	fprintf(f, "run of %s tokens: %.1f days, %s GPU-hours", tok, c.days, gh);
	if (c.has_usd) {
		thousands(c.usd, usd, sizeof usd);
		fprintf(f, ", $%s at $%g/GPU-hour", usd, p->gpu_hour_usd);
	}
	if (c.has_energy)
		fprintf(f, ", %.1f MWh at %.0f W a device (%s)", c.mwh, c.watts_per_device,
				c.power_node ? "node power / devices" : "device power");
	fputc('\n', f);
}

void report_expect_text(FILE *f, const plan_t *p, const eval_result *r)
{
	report_expect_row x[REPORT_EXPECT_ROWS];
	int n = report_expect_rows(p, r, x);
	if (!n)
		return;
	char src[sizeof p->source];
	if (p->source[0])
		fprintf(f, "\npublished vs predicted (%s)\n", text_safe(src, sizeof src, p->source));
	else
		fprintf(f, "\npublished vs predicted\n");
	fprintf(f, "  %-26s %12s %12s %8s\n", "", "published", "predicted", "error");
	for (int i = 0; i < n; i++) {
		char nm[48];
		snprintf(nm, sizeof nm, x[i].note[0] ? "%s (%s)" : "%s", x[i].name, x[i].note);
		fprintf(f, "  %-26s %12.4g %12.4g %+7.1f%%\n", nm, x[i].published, x[i].predicted,
				100 * (x[i].predicted / x[i].published - 1));
	}
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
	for (int k = 0; k < p->model.nkinds; k++) /* a vision encoder: what its layers see */
		if (model_kind_encoder(&p->model, k) && model_kind_used(&p->model, k))
			fprintf(f, "encoder  %d layers %d wide, %d image(s) x %d patches per sample, projector %s\n",
					model_kind_count(&p->model, k), model_kind_hidden(&p->model, k), p->model.kind[k].enc_images,
					p->model.kind[k].enc_tokens, p->model.kind[k].proj_ffn > 0 ? "on these layers" : "none");
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
	if (s->moe_redundant > 0 && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " moe_redundant_experts=%d", s->moe_redundant);
	if (s->fp8_cache != FP8C_NONE && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " fp8_cache=%s", strat_fp8_cache_name(s->fp8_cache));
	if (s->moe_disp != MOED_ALLTOALL && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " moe_dispatcher=%s", strat_moe_dispatcher_name(s->moe_disp));
	if (s->moe_route != MOER_SPREAD && used < sizeof cf)
		used += (size_t)snprintf(cf + used, sizeof cf - used, " moe_routing=%s", strat_moe_routing_name(s->moe_route));
	char cpk[48] = "";
	if (s->cp > 1 && strat_cp_mode(s) == CP_ULYSSES)
		snprintf(cpk, sizeof cpk, "(ulysses)");
	else if (s->cp > 1 && strat_cp_mode(s) == CP_USP)
		snprintf(cpk, sizeof cpk, "(usp: ulysses %d x ring %d)", strat_cp_ulysses(s), s->cp / strat_cp_ulysses(s));
	fprintf(f, "strategy dp=%d tp=%d pp=%d vpp=%d cp=%d%s ep=%d etp=%d%s sp=%s zero=%d mbs=%d gbs=%d seq=%d\n"
			"         recompute=%s schedule=%s precision=%s flash=%s%s%s%s  (%d micro-batches)\n",
			s->dp, s->tp, s->pp, s->vpp, s->cp, cpk,
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
	report_cost_text(f, p, r);
	report_expect_text(f, p, r);
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

static void cmp_add(report_cmp_row *out, int *n, const char *name, int unit, double a, double b)
{
	report_cmp_row *r = &out[(*n)++];
	snprintf(r->name, sizeof r->name, "%s", name);
	r->unit = unit;
	r->a = a;
	r->b = b;
}

int report_cmp_rows(const eval_result *a, const eval_result *b, report_cmp_row out[REPORT_CMP_ROWS])
{
	report_diff d[REPORT_DIFF_ROWS];
	int nd = report_compare_rows(a, b, d), n = 0;
	for (int i = 0; i < nd - 1; i++) /* time parts and the step; the peak below */
		cmp_add(out, &n, d[i].name, 0, d[i].ref, d[i].cand);
	cmp_add(out, &n, "MFU", 2, 100 * a->mfu, 100 * b->mfu);
	cmp_add(out, &n, "tokens/s", 3, a->tokens_per_s, b->tokens_per_s);
	cmp_add(out, &n, "peak memory", 1, a->peak_bytes / GIB, b->peak_bytes / GIB);
	const eval_mem ma = eval_stage_mem(a, a->peak_stage), mb = eval_stage_mem(b, b->peak_stage);
	cmp_add(out, &n, "  weights", 1, ma.weights / GIB, mb.weights / GIB);
	cmp_add(out, &n, "  grads", 1, ma.grads / GIB, mb.grads / GIB);
	cmp_add(out, &n, "  optimizer", 1, ma.optimizer / GIB, mb.optimizer / GIB);
	cmp_add(out, &n, "  activations", 1, ma.activations / GIB, mb.activations / GIB);
	cmp_add(out, &n, "  buffers", 1, ma.buffers / GIB, mb.buffers / GIB);
	int ns = a->stages > b->stages ? a->stages : b->stages;
	for (int i = 0; i < ns && n < REPORT_CMP_ROWS; i++) {
		if (ns > 16 && i >= 8 && i < ns - 8)
			continue;
		char name[40];
		snprintf(name, sizeof name, "stage %d", i);
		cmp_add(out, &n, name, 1, i < a->stages ? eval_stage_mem(a, i).total / GIB : NAN,
				i < b->stages ? eval_stage_mem(b, i).total / GIB : NAN);
	}
	return n;
}

static void cmp_cell(char *out, size_t n, int unit, double v)
{
	if (isnan(v))
		snprintf(out, n, "-");
	else if (unit == 0)
		units_time(v, out, n);
	else if (unit == 1)
		snprintf(out, n, "%.2f GiB", v);
	else if (unit == 2)
		snprintf(out, n, "%.1f%%", v);
	else
		units_rate(v, out, n);
}

void report_cmp_table(FILE *f, const char *na, const plan_t *pa, const eval_result *a, const char *nb,
		const plan_t *pb, const eval_result *b)
{
	const plan_t *pl[2] = {pa, pb};
	const char *nm[2] = {na, nb};
	for (int k = 0; k < 2; k++) {
		const strategy_t *s = &pl[k]->strategy;
		char nmb[64];
		fprintf(f, "%s = %s on %d x %s: dp=%d tp=%d pp=%d vpp=%d cp=%d ep=%d etp=%d zero=%d mbs=%d gbs=%d seq=%d %s %s\n",
				k ? "B" : "A", text_safe(nmb, sizeof nmb, nm[k]), pl[k]->devices, pl[k]->cluster.device, s->dp, s->tp,
				s->pp, s->vpp, s->cp, s->ep, s->etp, s->zero, s->micro_batch, s->global_batch, s->seq,
				strat_recompute_name(s->recompute), strat_schedule_name(s->schedule));
	}
	report_cmp_row x[REPORT_CMP_ROWS];
	int n = report_cmp_rows(a, b, x);
	fprintf(f, "\n  %-16s %12s %12s %12s %8s\n", "", "A", "B", "B - A", "B / A");
	for (int i = 0; i < n; i++) {
		char ca[32], cb[32], cd[32];
		cmp_cell(ca, sizeof ca, x[i].unit, x[i].a);
		cmp_cell(cb, sizeof cb, x[i].unit, x[i].b);
		double d = x[i].b - x[i].a;
		char mag[28];
		cmp_cell(mag, sizeof mag, x[i].unit, fabs(d));
		snprintf(cd, sizeof cd, "%s%s", d > 0 ? "+" : d < 0 ? "-" : "", mag);
		char ratio[16] = "-";
		if (x[i].a > 0 && !isnan(x[i].b))
			snprintf(ratio, sizeof ratio, "%.3f", x[i].b / x[i].a);
		fprintf(f, "  %-16s %12s %12s %12s %8s\n", x[i].name, ca, cb, isnan(d) ? "-" : cd, ratio);
	}
}

void report_cmp_json(json_w *w, const eval_result *a, const eval_result *b)
{
	report_cmp_row x[REPORT_CMP_ROWS];
	int n = report_cmp_rows(a, b, x);
	static const char *const units[] = {"s", "GiB", "%", "tokens/s"};
	json_arr_begin(w, "compare");
	for (int i = 0; i < n; i++) {
		const char *nm = x[i].name;
		while (*nm == ' ')
			nm++;
		json_obj_begin(w, NULL);
		json_str(w, "name", nm);
		json_str(w, "unit", units[x[i].unit]);
		if (isnan(x[i].a))
			json_null(w, "a");
		else
			json_num(w, "a", x[i].a);
		if (isnan(x[i].b))
			json_null(w, "b");
		else
			json_num(w, "b", x[i].b);
		if (isnan(x[i].a) || isnan(x[i].b)) {
			json_null(w, "delta");
		} else {
			json_num(w, "delta", x[i].b - x[i].a);
			if (x[i].a > 0)
				json_num(w, "ratio", x[i].b / x[i].a);
		}
		json_obj_end(w);
	}
	json_arr_end(w);
}

void report_delta_text(const eval_result *prev, const eval_result *cur, char *out, size_t n)
{
	double ds = prev->step > 0 ? cur->step / prev->step - 1 : 0;
	double dm = 100 * (cur->mfu - prev->mfu), dp = (cur->peak_bytes - prev->peak_bytes) / GIB;
	if (fabs(ds) < 5e-5 && fabs(dm) < 0.05 && fabs(dp) < 0.005) {
		snprintf(out, n, "%s", "");
		return;
	}
	char t[32];
	units_time(cur->step, t, sizeof t);
	snprintf(out, n, "step %+.1f%% (%s), MFU %+.1f pt, peak %+.2f GiB", 100 * ds, t, dm, dp);
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
