/* export.c - target dispatch, the plan facts all targets share, comment lines, and the
 * atomic save. The targets themselves live in export_{megatron,deepspeed,torchtitan}.c. */
#include "io/export.h"
#include "io/export_int.h"
#include "io/atomic.h"
#include "io/text.h"
#include "core/framework.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const target_names[EXPORT_COUNT] = {"megatron", "deepspeed", "torchtitan"};

int export_parse_target(const char *name)
{
	for (int t = 0; t < EXPORT_COUNT; t++)
		if (!strcmp(name, target_names[t]))
			return t;
	return -1;
}

const char *export_target_list(void)
{
	return "megatron, deepspeed, torchtitan";
}

void export_note(export_notes *ns, const char *fmt, ...)
{
	if (ns->n >= EXPORT_MAX_LINES - 1) {
		/* keep the last slot for the overflow line so a loss is never silent */
		ns->overflow = 1;
		snprintf(ns->text[EXPORT_MAX_LINES - 1], EXPORT_LINE, "(more notes were dropped)");
		ns->n = EXPORT_MAX_LINES;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *line = ns->text[ns->n++];
	vsnprintf(line, EXPORT_LINE, fmt, ap);
	va_end(ap);
	text_safe(line, EXPORT_LINE, line); /* a comment line: no control character, no cut character */
}

void export_opt_fp32_only(export_notes *ns, const strategy_t *s, const char *why)
{
	for (int k = 0; k < OPT_KEYS; k++)
		if (s->opt_dt[k] != ODT_FP32)
			export_note(ns, "not expressible: %s %s; %s, fp32 written", strat_opt_key(k),
					strat_opt_dtype_name(s->opt_dt[k]), why);
}

void export_kernel_notes(export_notes *ns, const strategy_t *s, int fw)
{
	const fw_caps *f = fw_caps_of(fw);
	if (s->loss_fusion && !(f->fused_logit_bytes > 0))
		export_note(ns, "not expressible: loss_fusion; %s has no fused cross-entropy switch%s, its own loss is "
				"written", f->name, f->fused_loss_why);
	if (s->moe_redundant > 0 && !f->redundant_experts)
		export_note(ns, "not expressible: moe_redundant_experts %d; in %s %s; each expert once written",
				s->moe_redundant, f->name, FW_NO_REDUNDANT);
	if (s->fp8_cache != FP8C_NONE && !(f->fp8_cache >> s->fp8_cache & 1))
		export_note(ns, "not expressible: fp8_cache %s; %s keeps its fp8 GEMMs' own saved inputs",
				strat_fp8_cache_name(s->fp8_cache), f->name);
	if (s->moe_route == MOER_CONTIGUOUS)
		export_note(ns, "not expressible: moe_routing contiguous; it describes a benchmark gate (round-robin "
				"experts), not a setting of %s; the model's own router is written", f->name);
}

void export_notes_print(FILE *f, const export_notes *ns, const char *prefix)
{
	for (int i = 0; i < ns->n; i++)
		fprintf(f, "%s%s\n", prefix, ns->text[i]);
}

void export_header(export_notes *ns, const export_facts *x, const char *target, const char *source)
{
	const plan_t *p = x->p;
	const strategy_t *s = x->s;
	/* names come from user files: no control characters (a newline would end a shell or TOML
	 * comment and turn the rest of the name into code) in comment lines, nor on a terminal */
	char model[sizeof p->model.name], cluster[sizeof p->cluster.name];
	text_safe(model, sizeof model, p->model.name[0] ? p->model.name : "(unnamed model)");
	text_safe(cluster, sizeof cluster, p->cluster.name[0] ? p->cluster.name : "(unnamed cluster)");
	export_note(ns, "strata export --to %s: %s on %s, %d devices", target, model, cluster, p->devices);
	if (x->moe)
		export_note(ns, "dp %d x tp %d x pp %d x cp %d = %d ranks; experts: ep %d x etp %d", s->dp, s->tp, s->pp,
				s->cp, p->devices, s->ep, s->etp);
	else
		export_note(ns, "dp %d x tp %d x pp %d x cp %d = %d ranks", s->dp, s->tp, s->pp, s->cp, p->devices);
	export_note(ns, "names checked against %s", source);
}

void export_ranges_text(const export_facts *x, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < x->s->nranges && used < len; i++) {
		const rc_range *r = &x->s->range[i];
		int w = snprintf(buf + used, len - used, "%s%d:%d %s", i ? ", " : "", r->lo, r->hi,
				strat_recompute_name(r->mode));
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

void export_facts_get(export_facts *x, const plan_t *p)
{
	memset(x, 0, sizeof *x);
	x->p = p;
	x->s = &p->strategy;
	x->m = &p->model;
	x->mb = strat_microbatches(x->s);
	const model_t *m = x->m;
	for (int k = 0; k < m->nkinds && !(x->moe && x->dense); k++) {
		const layer_kind *t = &m->kind[k];
		if (t->mtp || !model_kind_used(m, k))
			continue;
		if (t->experts > 0 && !x->moe)
			x->moe = t;
		else if (t->experts == 0 && !x->dense)
			x->dense = t;
	}
	int mixed = fw_mixed_layers(m);
	x->odd_kinds = (mixed & FW_MIXED_SHAPES) != 0;
	x->odd_width = (mixed & FW_MIXED_WIDTHS) != 0;
	int k0 = model_layer_kind(m, 0);
	x->attn = &m->kind[k0 >= 0 ? k0 : 0];
	for (int l = 0; l < m->layers; l++)
		if (m->kind[model_layer_kind(m, l)].experts > 0)
			x->moe_layers++;
	fw_layout lay;
	fw_layout_of(x->s, m, &lay);
	x->nstages = lay.nstages;
	memcpy(x->stage_layers, lay.stage_layers, sizeof x->stage_layers);
	x->even = lay.even;
	x->rc_mode = lay.rc_mode;
	x->rc_block = lay.rc_block;
}

int export_framework(export_target t)
{
	static const int fw[EXPORT_COUNT] = {FW_MEGATRON, FW_DEEPSPEED, FW_TORCHTITAN};
	return (unsigned)t < EXPORT_COUNT ? fw[t] : FW_AUTO;
}

int export_check(export_target t, const plan_t *p, fw_issues *out)
{
	int fw = export_framework(t);
	const strategy_t *s = &p->strategy;
	int n = fw_check(fw, s, &p->model, out);
	int priced = strat_framework(s);
	if (priced != fw && out && n < FW_MAX_ISSUES) {
		/* the same strategy costs differently under another framework's kernels */
		snprintf(out->text[n], FW_WHY, "the plan is priced as %s (framework: %s%s); set framework: %s and "
				"evaluate it again", fw_caps_of(priced)->name, strat_framework_name(s->framework),
				s->framework == FW_AUTO ? ", which assumes it here" : "", fw_caps_of(fw)->key);
		out->n = n + 1;
	}
	return n + (priced != fw);
}

/* export_write for the file PATH (NULL: standard output), which the run commands name. */
static int write_to(FILE *f, export_target t, const plan_t *p, const char *path, char *err, size_t errlen)
{
	if (model_has_encoder(&p->model)) {
		/* no nearest: every target would train another model (fw_check_model says why,
		 * its last issue) */
		fw_issues is;
		int n = fw_check_model(export_framework(t), &p->model, &is, 0);
		snprintf(err, errlen, "no launch for a model with a vision encoder: %s", n > 0 ? is.text[is.n - 1] : "");
		return -1;
	}
	export_facts *x = malloc(sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	export_facts_get(x, p);
	x->path = path;
	int rc = -1;
	switch (t) {
	case EXPORT_MEGATRON: rc = export_megatron(f, x); break;
	case EXPORT_DEEPSPEED: rc = export_deepspeed(f, x); break;
	case EXPORT_TORCHTITAN: rc = export_torchtitan(f, x); break;
	default: break;
	}
	free(x);
	if (rc || fflush(f) || ferror(f)) {
		snprintf(err, errlen, "%s", (unsigned)t < EXPORT_COUNT ? "write error" : "unknown export target");
		return -1;
	}
	return 0;
}

int export_write(FILE *f, export_target t, const plan_t *p, char *err, size_t errlen)
{
	return write_to(f, t, p, NULL, err, errlen);
}

typedef struct {
	export_target t;
	const plan_t *p;
	const char *path;
} save_job;

static int save_write(FILE *f, void *arg, char *err, size_t errlen)
{
	const save_job *j = arg;
	return write_to(f, j->t, j->p, j->path, err, errlen);
}

int export_save(const char *path, export_target t, const plan_t *p, char *err, size_t errlen)
{
	save_job j = {t, p, path};
	/* the Megatron-LM export is a launch script: written executable */
	if (t == EXPORT_MEGATRON)
		return atomic_write_exec(path, save_write, &j, err, errlen);
	return atomic_write_with(path, save_write, &j, err, errlen);
}
