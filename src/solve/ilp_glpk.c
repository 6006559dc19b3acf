/* ilp_glpk.c - the multiple-choice model in GLPK.
 *
 * Columns: one binary per option, Tmax >= every stage time, Z >= the zero-bubble hinge
 * argument, and (chunk model) W_s >= the largest transient buffer of stage s's chunks.
 * Rows: path conservation per unit and position (each unit picks one option, units
 * chain a -> b), stage time <= Tmax, chunk-model memory and layer-count rows, the round
 * model's layer count (round 0's path ends anywhere; the tails take the rest), and the
 * DP's lower bound when it is exact. Memory rows are in units of the budget so GLPK
 * sees coefficients near 1 (bytes would be 1e10, and its tolerances absolute).
 *
 * GLPK must never print or abort: a terminal hook swallows every line (glp_free_env
 * removes it), an error hook that frees the environment and longjmps out, time limits on
 * both simplex and branch-and-bound, and the return code read together with
 * glp_mip_status. Stopping: branch-and-bound calls back at every node (glp_ios_terminate
 * on a stop request); the simplex has no callback, so it reports progress every few
 * milliseconds to the terminal hook, which reads the stop request and longjmps out (the
 * environment, and the problem with it, is freed after the jump). */
#include "solve/ilp_int.h"

#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	jmp_buf jb;
	ilp_inst *in;
} guard_t;

static void on_glpk_error(void *info)
{
	guard_t *g = info;
	glp_free_env();
	longjmp(g->jb, 1);
}

#define PROGRESS_MS 10 /* how often the simplex reports to the terminal hook */

/* Every line GLPK would print: swallowed; a stop request jumps out (only the simplex
 * prints: branch-and-bound runs silent and stops through its callback). */
static int on_glpk_term(void *info, const char *s)
{
	guard_t *g = info;
	(void)s;
	if (ilp_should_stop(g->in))
		longjmp(g->jb, 2);
	return 1;
}

typedef struct {
	int n, cap;
	int *ia, *ja;
	double *ar;
	int oom;
} trip_t;

static void put(trip_t *t, int i, int j, double v)
{
	if (t->oom || v == 0)
		return;
	if (t->n + 1 >= t->cap) {
		int cap = t->cap ? 2 * t->cap : 4096;
		int *ia = realloc(t->ia, (size_t)cap * sizeof *ia);
		if (ia)
			t->ia = ia;
		int *ja = realloc(t->ja, (size_t)cap * sizeof *ja);
		if (ja)
			t->ja = ja;
		double *ar = realloc(t->ar, (size_t)cap * sizeof *ar);
		if (ar)
			t->ar = ar;
		if (!ia || !ja || !ar) {
			t->oom = 1;
			return;
		}
		t->cap = cap;
	}
	t->n++; /* GLPK arrays are 1-based */
	t->ia[t->n] = i;
	t->ja[t->n] = j;
	t->ar[t->n] = v;
}

typedef struct {
	ilp_inst *in;
	double *warm_x; /* 1-based column values of the DP's plan, or NULL */
	int warm_given;
	double best, gap;
} cbdata_t;

static void on_branch(glp_tree *T, void *info)
{
	cbdata_t *d = info;
	ilp_inst *in = d->in;
	int why = glp_ios_reason(T);
	if (why == GLP_IHEUR && d->warm_x && !d->warm_given) {
		d->warm_given = 1;
		glp_ios_heur_sol(T, d->warm_x);
	}
	if (why == GLP_IBINGO || why == GLP_ISELECT) {
		glp_prob *lp = glp_ios_get_prob(T);
		int node = glp_ios_best_node(T);
		if (glp_mip_status(lp) == GLP_FEAS || glp_mip_status(lp) == GLP_OPT) {
			d->best = glp_mip_obj_val(lp);
			d->gap = glp_ios_mip_gap(T);
		}
		if (in->prm->progress)
			in->prm->progress(in->prm->user, ilp_ms_since(&in->t0), d->best, node ? d->gap : NAN);
	}
	if (in->prm->cancel && atomic_load(in->prm->cancel))
		glp_ios_terminate(T);
}

static int remaining_ms(ilp_inst *in)
{
	if (in->prm->time_limit_ms <= 0)
		return INT32_MAX;
	double left = in->prm->time_limit_ms - ilp_ms_since(&in->t0);
	return left < 1 ? 1 : (int)left;
}

/* Build the rows and columns; returns the column count or -1 (out of memory). */
static int build(ilp_inst *in, glp_prob *lp, trip_t *t, int *col_tmax, int *col_z, int *col_w)
{
	const int n = in->nopt, p = in->p, U = ilp_units(in), W = in->L + 1;
	const ilp_form *f = &in->form;
	const int chunk = in->chunk_model && !in->round_model;
	int ncol = n + 1 + (f->cZ > 0) + (chunk ? p : 0);
	glp_add_cols(lp, ncol);
	for (int i = 0; i < n; i++)
		glp_set_col_kind(lp, i + 1, GLP_BV);
	*col_tmax = n + 1;
	glp_set_col_bnds(lp, *col_tmax, GLP_LO, in->tau_lb, 0);
	glp_set_obj_coef(lp, *col_tmax, f->cM);
	*col_z = f->cZ > 0 ? n + 2 : 0;
	if (*col_z) {
		glp_set_col_bnds(lp, *col_z, GLP_LO, 0, 0);
		glp_set_obj_coef(lp, *col_z, f->cZ);
	}
	*col_w = chunk ? n + 2 + (f->cZ > 0) : 0;
	for (int s = 0; chunk && s < p; s++)
		glp_set_col_bnds(lp, *col_w + s, GLP_LO, 0, 0);
	double gconst = 0; /* chunk model: the stages' fixed parts */
	for (int s = 0; chunk && s < p; s++)
		gconst += ilp_form_g(f, &in->cst[s]);
	for (int i = 0; i < n; i++)
		glp_set_obj_coef(lp, i + 1, f->cS * in->opt[i].g);
	glp_set_obj_coef(lp, 0, f->cS * gconst);

	/* path conservation: row of (unit, position) */
	int *rowof = malloc((size_t)U * W * sizeof *rowof);
	if (!rowof)
		return -1;
	for (int i = 0; i < U * W; i++)
		rowof[i] = 0;
	for (int i = 0; i < n; i++) {
		const ilp_opt *o = &in->opt[i];
		int *r = &rowof[o->unit * W + o->a];
		if (!*r) {
			*r = glp_add_rows(lp, 1);
			glp_set_row_bnds(lp, *r, GLP_FX, o->unit == 0 ? 1 : 0, o->unit == 0 ? 1 : 0);
		}
		put(t, *r, i + 1, 1);
	}
	for (int i = 0; i < n; i++) {
		const ilp_opt *o = &in->opt[i];
		if (o->unit + 1 < U) {
			int *r = &rowof[(o->unit + 1) * W + o->b];
			if (!*r) { /* nothing continues from here: this option cannot be used */
				*r = glp_add_rows(lp, 1);
				glp_set_row_bnds(lp, *r, GLP_FX, 0, 0);
			}
			put(t, *r, i + 1, -1);
		}
	}
	free(rowof);
	/* stage time <= Tmax */
	int rt = glp_add_rows(lp, p);
	for (int s = 0; s < p; s++) {
		double c = chunk ? in->cst[s].f + in->cst[s].b : 0;
		glp_set_row_bnds(lp, rt + s, GLP_LO, c, 0);
		put(t, rt + s, *col_tmax, 1);
	}
	for (int i = 0; i < n; i++)
		put(t, rt + in->opt[i].st, i + 1, -in->opt[i].T);
	/* zero-bubble hinge: Z >= sum g / p */
	if (*col_z) {
		int rz = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, rz, GLP_LO, gconst / p, 0);
		put(t, rz, *col_z, 1);
		for (int i = 0; i < n; i++)
			put(t, rz, i + 1, -in->opt[i].g / p);
	}
	if (chunk) {
		/* memory per stage: sum of chunk shares + W_s <= budget - fixed part */
		const double unit = in->ec->budget > 0 && isfinite(in->ec->budget) ? in->ec->budget : 1;
		int rm = glp_add_rows(lp, p);
		for (int s = 0; s < p; s++) {
			glp_set_row_bnds(lp, rm + s, GLP_UP, 0, (in->ec->budget - in->cst[s].mem) / unit);
			put(t, rm + s, *col_w + s, 1);
		}
		for (int i = 0; i < n; i++)
			put(t, rm + in->opt[i].st, i + 1, in->opt[i].q.mem / unit);
		/* W_s >= work of the option chosen for each chunk of s */
		int rw = glp_add_rows(lp, in->P);
		for (int j = 0; j < in->P; j++) {
			glp_set_row_bnds(lp, rw + j, GLP_LO, 0, 0);
			put(t, rw + j, *col_w + j % p, 1);
		}
		for (int i = 0; i < n; i++)
			put(t, rw + in->opt[i].unit, i + 1, -in->opt[i].q.work / unit);
		for (int s = 0; s < p; s++) {
			if (in->cnt_pin[s] < 0)
				continue;
			int rc = glp_add_rows(lp, 1);
			glp_set_row_bnds(lp, rc, GLP_FX, in->cnt_pin[s], in->cnt_pin[s]);
			for (int i = 0; i < n; i++)
				if (in->opt[i].st == s)
					put(t, rc, i + 1, in->opt[i].b - in->opt[i].a);
		}
	}
	if (in->round_model) { /* round 0's path ends anywhere: the tails take the rest */
		int rn = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, rn, GLP_FX, in->L, in->L);
		for (int i = 0; i < n; i++)
			put(t, rn, i + 1, in->opt[i].b - in->opt[i].a + in->opt[i].tail);
	}
	if (in->lb > 0) { /* the DP's exact optimum as a cut: the LP bound meets the incumbent */
		int rl = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, rl, GLP_LO, in->lb * (1 - 1e-9) - f->cS * gconst, 0);
		put(t, rl, *col_tmax, f->cM);
		if (*col_z)
			put(t, rl, *col_z, f->cZ);
		for (int i = 0; i < n; i++)
			put(t, rl, i + 1, f->cS * in->opt[i].g);
	}
	return t->oom ? -1 : ncol;
}

/* Column values of the warm plan: one option per unit, Tmax and Z as they follow, and
 * (chunk model) each stage's largest transient buffer. */
static double *warm_values(ilp_inst *in, int ncol, int col_tmax, int col_z, int col_w)
{
	if (!in->warm)
		return NULL;
	double *x = calloc((size_t)ncol + 1, sizeof *x);
	if (!x)
		return NULL;
	const int p = in->p, U = ilp_units(in), chunk = in->chunk_model && !in->round_model;
	double t[EVAL_MAX_STAGES], g = 0;
	const double unit = in->ec->budget > 0 && isfinite(in->ec->budget) ? in->ec->budget : 1;
	for (int s = 0; s < p; s++) {
		t[s] = chunk ? in->cst[s].f + in->cst[s].b : 0;
		g += chunk ? ilp_form_g(&in->form, &in->cst[s]) : 0;
	}
	for (int u = 0; u < U; u++) {
		const ilp_opt *o = &in->opt[in->warm[u]];
		x[in->warm[u] + 1] = 1;
		t[o->st] += o->T;
		g += o->g;
		if (col_w && o->q.work / unit > x[col_w + o->st])
			x[col_w + o->st] = o->q.work / unit;
	}
	double tmax = in->tau_lb;
	for (int s = 0; s < p; s++)
		tmax = t[s] > tmax ? t[s] : tmax;
	x[col_tmax] = tmax;
	if (col_z)
		x[col_z] = g / p > 0 ? g / p : 0;
	return x;
}

static void free_ctx(trip_t *t, double *warm, void *ctx)
{
	free(t->ia);
	free(t->ja);
	free(t->ar);
	free(warm);
	free(ctx);
}

/* Everything that touches GLPK; a GLPK error longjmps back here. */
static int run(ilp_inst *in, int lp_only, int *chosen, double *obj, double *bound, double *gap, char *why,
		size_t whylen)
{
	/* what the error path frees lives behind a pointer set before setjmp: locals changed
	 * after setjmp are indeterminate once longjmp returns */
	struct ctx {
		guard_t g;
		trip_t t;
		cbdata_t cb;
	} *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(why, whylen, "out of memory");
		return ILP_ERROR;
	}
	c->cb.in = in;
	c->cb.best = c->cb.gap = NAN;
	c->g.in = in;
	volatile int status = ILP_ERROR;
	glp_prob *volatile lp = NULL;
	int jumped = setjmp(c->g.jb);
	if (jumped) {
		/* the error hook freed GLPK's environment, and lp with it; after a stop request
		 * (the terminal hook) it is freed here */
		if (jumped == 2)
			glp_free_env();
		else
			snprintf(why, whylen, "GLPK failed internally");
		free_ctx(&c->t, c->cb.warm_x, c);
		return jumped == 1 ? ILP_ERROR : in->prm->cancel && atomic_load(in->prm->cancel) ? ILP_CANCELLED :
			ILP_TIMEOUT;
	}
	glp_error_hook(on_glpk_error, &c->g);
	glp_term_hook(on_glpk_term, &c->g);
	glp_term_out(GLP_ON); /* for the hook: it prints nothing */
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	int ct, cz, cw;
	int ncol = build(in, lp, &c->t, &ct, &cz, &cw);
	if (ncol < 0) {
		snprintf(why, whylen, "out of memory while building the ILP");
		goto done;
	}
	in->nrows = glp_get_num_rows(lp);
	glp_load_matrix(lp, c->t.n, c->t.ia, c->t.ja, c->t.ar);
	c->cb.warm_x = warm_values(in, ncol, ct, cz, cw);

	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_ON; /* progress lines for the terminal hook (see above) */
	sp.out_frq = PROGRESS_MS;
	sp.out_dly = 0;
	sp.presolve = GLP_OFF;
	sp.tm_lim = remaining_ms(in);
	sp.tol_bnd = 1e-9; /* memory rows are tight by design: keep their slack honest */
	int rc = glp_simplex(lp, &sp);
	if (rc == GLP_ETMLIM) {
		status = ILP_TIMEOUT;
		goto done;
	}
	if (rc != 0) {
		snprintf(why, whylen, "GLPK simplex failed (code %d)", rc);
		goto done;
	}
	if (glp_get_status(lp) == GLP_NOFEAS) {
		status = ILP_INFEASIBLE;
		goto done;
	}
	if (glp_get_status(lp) != GLP_OPT) {
		snprintf(why, whylen, "GLPK: the relaxation has no optimum (status %d)", glp_get_status(lp));
		goto done;
	}
	if (lp_only) { /* the relaxation's bound for the warm plan: no branch-and-bound */
		*bound = glp_get_obj_val(lp);
		status = ILP_FEASIBLE;
		goto done;
	}
	glp_iocp ip;
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	ip.presolve = GLP_OFF; /* callbacks and the warm start see the model as built */
	ip.tm_lim = remaining_ms(in);
	ip.mip_gap = 0;
	ip.tol_int = 1e-9; /* a binary at 0.99999 must not pass for 1 under a tight budget */
	ip.cb_func = on_branch;
	ip.cb_info = &c->cb;
	rc = glp_intopt(lp, &ip);
	int ms = glp_mip_status(lp);
	if (rc == 0 && ms == GLP_OPT)
		status = ILP_OPTIMAL;
	else if (ms == GLP_NOFEAS || rc == GLP_ENOPFS)
		status = ILP_INFEASIBLE;
	else if (rc == GLP_ETMLIM)
		status = ILP_TIMEOUT;
	else if (rc == GLP_ESTOP)
		status = ms == GLP_FEAS ? ILP_FEASIBLE : ILP_CANCELLED;
	else if (rc == 0 && ms == GLP_FEAS)
		status = ILP_FEASIBLE;
	else
		snprintf(why, whylen, "GLPK branch-and-bound failed (code %d, status %d)", rc, ms);
	if (ms == GLP_OPT || ms == GLP_FEAS) {
		for (int u = 0; u < ilp_units(in); u++)
			chosen[u] = -1;
		for (int i = 0; i < in->nopt; i++)
			if (glp_mip_col_val(lp, i + 1) > 0.5)
				chosen[in->opt[i].unit] = i;
		*obj = glp_mip_obj_val(lp);
		*gap = ms == GLP_OPT ? 0 : c->cb.gap;
		*bound = ms == GLP_OPT ? *obj : (isnan(c->cb.gap) ? NAN : *obj * (1 - c->cb.gap));
	}
done:
	glp_delete_prob(lp);
	glp_error_hook(NULL, NULL);
	glp_free_env(); /* no GLPK memory outlives the solve (leak checkers, threads) */
	free_ctx(&c->t, c->cb.warm_x, c);
	return status;
}

int ilp_glpk_solve(ilp_inst *in, int lp_only, int *chosen, double *obj, double *bound, double *gap, char *why,
		size_t whylen)
{
	*obj = *bound = *gap = NAN;
	return run(in, lp_only, chosen, obj, bound, gap, why, whylen);
}
