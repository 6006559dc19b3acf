/* report.h - printing an evaluation as a readable table, JSON (DESIGN.md section 3 keys)
 * or CSV. */
#ifndef STRATA_IO_REPORT_H
#define STRATA_IO_REPORT_H

#include <stdio.h>
#include "core/evaluate.h"
#include "io/json.h"
#include "io/plan.h"

/* Human-readable table of the plan and its evaluation. */
void report_table(FILE *f, const plan_t *p, const eval_result *r);
/* Emit the result as one JSON object (key NULL at top level or in an array). */
void report_json(json_w *w, const char *key, const plan_t *p, const eval_result *r);
/* The members of report_json's object, to extend it with more keys (strata ilp). */
void report_json_members(json_w *w, const plan_t *p, const eval_result *r);
/* The degrees of s and the settings that go with them (dp tp pp vpp cp cp_kind ep etp sp
 * zero micro_batch), as members of the object being written: the head of "strategy". */
void report_degrees_json(json_w *w, const strategy_t *s);
/* CSV header line matching report_csv_row. */
void report_csv_header(FILE *f);
/* One row of a comparison of two evaluations: a part of the step time, the step, or the
 * peak memory (gib: in GiB, else seconds). */
typedef struct {
	const char *name;
	double ref, cand;
	int gib;
} report_diff;
#define REPORT_DIFF_ROWS (EVAL_NPARTS + 2)
/* The rows of report_compare into out[REPORT_DIFF_ROWS] (the parts either side has, then
 * the step and the peak memory); returns how many. The explorer's search table shows them
 * too. */
int report_compare_rows(const eval_result *ref, const eval_result *c, report_diff out[REPORT_DIFF_ROWS]);
/* Where candidate c differs from the reference plan ref: each part of the step time, the
 * step and the peak memory, side by side (search --compare). */
void report_compare(FILE *f, const eval_result *ref, const eval_result *c);
/* The run's cost as the JSON object "cost" (days, gpu_hours, usd, mwh; core/train_cost.h),
 * written only when the plan gives train_tokens; usd and mwh are null without a price or a
 * power figure. */
void report_cost_json(json_w *w, const plan_t *p, const eval_result *r);
/* The per-device rates and, with train_tokens, the run's days, GPU-hours, cost and energy,
 * as lines of the table. */
void report_cost_text(FILE *f, const plan_t *p, const eval_result *r);
/* A published figure of the plan's `expect:` beside the prediction in the same convention. */
typedef struct {
	const char *name, *unit;
	double published, predicted;
	const char *note;  /* the memory convention compared in ("nvidia-smi"), or "" */
} report_expect_row;
#define REPORT_EXPECT_ROWS 6
/* The plan's expect: figures with their predictions (none without expect: or for an invalid
 * result); returns how many. The explorer's step pane shows them too. */
int report_expect_rows(const plan_t *p, const eval_result *r, report_expect_row out[REPORT_EXPECT_ROWS]);
/* The "expect" array of the JSON result: figure, published, predicted, error. */
void report_expect_json(json_w *w, const plan_t *p, const eval_result *r);
/* The same as a table section of eval. */
void report_expect_text(FILE *f, const plan_t *p, const eval_result *r);
/* One row of a side-by-side comparison of two plans (eval --compare, the explorer's A/B
 * view): unit 0 seconds, 1 GiB, 2 percent, 3 tokens/s. */
typedef struct {
	char name[40];
	int unit;
	double a, b;
} report_cmp_row;
#define REPORT_CMP_ROWS (REPORT_DIFF_ROWS + 8 + 2 * 8)
/* Every row of a comparison of a with b: each part of the step time, the step, MFU and
 * tokens/s, the peak memory and its components on each side's peak stage, and the total
 * of each stage (the first and last four of a longer pipeline). Returns how many. */
int report_cmp_rows(const eval_result *a, const eval_result *b, report_cmp_row out[REPORT_CMP_ROWS]);
/* The comparison as a table: the two plans' strategies, then the rows with the difference
 * (strata eval A --compare B). na and nb name the two columns. */
void report_cmp_table(FILE *f, const char *na, const plan_t *pa, const eval_result *a, const char *nb,
		const plan_t *pb, const eval_result *b);
/* The rows as the JSON array "compare" (name, unit, a, b, delta, ratio). */
void report_cmp_json(json_w *w, const eval_result *a, const eval_result *b);
/* What changed from prev to cur in a few words: "step -12.3% (5.20 s), MFU +1.2 pt, peak
 * +3.40 GiB" (the explorer's message line after every change); "" when nothing did. */
void report_delta_text(const eval_result *prev, const eval_result *cur, char *out, size_t n);
/* One CSV row. */
void report_csv_row(FILE *f, const plan_t *p, const eval_result *r);
/* The diagnostic for a result that does not fit: which stage, how far over the budget. */
void report_over_budget(FILE *f, const eval_result *r);

#endif
