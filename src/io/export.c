/* export.c - target dispatch, the plan facts all targets share, comment lines, and the
 * atomic save. The targets themselves live in export_{megatron,deepspeed,torchtitan}.c. */
#include "io/export.h"
#include "io/export_int.h"
#include "io/atomic.h"
#include "io/text.h"

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

/* Layers per pipeline stage in model order. Megatron and torchtitan both number
 * interleaved chunks chunk-major (chunk v of stage r is model stage v*pp + r), as strata
 * does. zb-v gives each rank two chunks in a V: strata counts the rank's layers, which
 * are split here into the down chunk (model stage r, the larger half) and the up chunk
 * (model stage 2*pp-1-r). */
static void stage_layers(export_facts *x)
{
	const strategy_t *s = x->s;
	int lo, n;
	if (s->schedule == SCHED_ZBV && s->vpp == 1) {
		x->nstages = 2 * s->pp;
		for (int r = 0; r < s->pp; r++) {
			strat_chunk_span(s, x->m->layers, 0, r, &lo, &n);
			x->stage_layers[r] = n - n / 2;
			x->stage_layers[2 * s->pp - 1 - r] = n / 2;
		}
	} else {
		x->nstages = s->pp * s->vpp;
		for (int c = 0; c < x->nstages; c++) {
			strat_chunk_span(s, x->m->layers, c / s->pp, c % s->pp, &lo, &n);
			x->stage_layers[c] = n;
		}
	}
	x->even = 1;
	for (int c = 1; c < x->nstages; c++)
		if (x->stage_layers[c] != x->stage_layers[0])
			x->even = 0;
}

/* One recompute mode for all layers, or Megatron's "block" pattern: full recompute of
 * the first k layers of every stage (all of a stage shorter than k), none elsewhere. */
static void recompute_shape(export_facts *x)
{
	const strategy_t *s = x->s;
	int L = x->m->layers;
	x->rc_mode = strat_layer_recompute(s, 0);
	for (int l = 1; l < L; l++)
		if (strat_layer_recompute(s, l) != x->rc_mode)
			x->rc_mode = -1;
	x->rc_block = 0;
	if (x->rc_mode >= 0)
		return;
	int k = -1, longest_full = 0, lo = 0;
	for (int c = 0; c < x->nstages; c++) {
		int n = x->stage_layers[c], full = 0;
		while (full < n && strat_layer_recompute(s, lo + full) == RC_FULL)
			full++;
		for (int l = full; l < n; l++)
			if (strat_layer_recompute(s, lo + l) != RC_NONE)
				return;
		if (full < n) {
			if (k >= 0 && k != full)
				return;
			k = full;
		} else if (n > longest_full) {
			longest_full = n; /* a wholly recomputed stage needs k >= its size */
		}
		lo += n;
	}
	if (k > 0 && longest_full <= k)
		x->rc_block = k;
}

void export_facts_get(export_facts *x, const plan_t *p)
{
	memset(x, 0, sizeof *x);
	x->p = p;
	x->s = &p->strategy;
	x->m = &p->model;
	x->mb = strat_microbatches(x->s);
	const model_t *m = x->m;
	int seen[MODEL_MAX_KINDS] = {0};
	for (int l = 0; l < m->layers; l++) {
		int k = model_layer_kind(m, l);
		if (k >= 0)
			seen[k] = 1;
	}
	int ndense = 0, nmoe = 0;
	for (int k = 0; k < m->nkinds; k++) {
		if (!seen[k] || m->kind[k].mtp)
			continue;
		if (m->kind[k].experts > 0) {
			if (!nmoe++)
				x->moe = &m->kind[k];
		} else if (!ndense++) {
			x->dense = &m->kind[k];
		}
	}
	x->odd_kinds = ndense > 1 || nmoe > 1;
	x->odd_width = !model_uniform(m);
	int k0 = model_layer_kind(m, 0);
	x->attn = &m->kind[k0 >= 0 ? k0 : 0];
	for (int l = 0; l < m->layers; l++)
		if (m->kind[model_layer_kind(m, l)].experts > 0)
			x->moe_layers++;
	stage_layers(x);
	recompute_shape(x);
}

int export_write(FILE *f, export_target t, const plan_t *p, char *err, size_t errlen)
{
	export_facts *x = malloc(sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	export_facts_get(x, p);
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

typedef struct {
	export_target t;
	const plan_t *p;
} save_job;

static int save_write(FILE *f, void *arg, char *err, size_t errlen)
{
	const save_job *j = arg;
	return export_write(f, j->t, j->p, err, errlen);
}

int export_save(const char *path, export_target t, const plan_t *p, char *err, size_t errlen)
{
	save_job j = {t, p};
	return atomic_write_with(path, save_write, &j, err, errlen);
}
