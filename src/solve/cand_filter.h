/* cand_filter.h - a filter over ranked search results, as typed in the explorer's search
 * table after `/`: space-separated terms KEY OP VALUE, all of which must hold, e.g.
 * "tp<=8 pp=4 recompute=full step<10". Keys: the degrees (dp tp pp vpp cp ep etp zero mbs),
 * sp (on|off), recompute (none|selective|sel|full), schedule (1f1b, zb-h1, ...), and the
 * figures step (seconds), alloc (GiB, alias peak), mfu (percent), tok (tokens/s). OP is one
 * of = != < <= > >= (names take = and != only). */
#ifndef STRATA_SOLVE_CAND_FILTER_H
#define STRATA_SOLVE_CAND_FILTER_H

#include "solve/search.h"

#define CFILTER_MAX 16

typedef struct {
	int n;
	struct {
		int key, op;
		double v;
	} t[CFILTER_MAX];
} cand_filter;

/* Parse text into f (an empty text matches everything). 0, or -1 with the reason in err
 * naming the term that is wrong. */
int cand_filter_parse(const char *text, cand_filter *f, char *err, size_t errlen);
/* 1 when item it meets every term of f. */
int cand_filter_match(const cand_filter *f, const search_item *it);

#endif
