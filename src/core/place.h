/* place.h - where each parallel group of a strategy lands: its size, its rank stride in
 * Megatron-LM's order and whether it stays in the cluster's scale-up domain. The links the
 * cost model prices come from the same rules (cost/comm.h); views call this. */
#ifndef STRATA_CORE_PLACE_H
#define STRATA_CORE_PLACE_H

#include "core/cluster.h"
#include "core/strategy.h"

enum { PLACE_TP, PLACE_CP, PLACE_DP, PLACE_ETP, PLACE_EP, PLACE_EDP, PLACE_PP, PLACE_COUNT };

typedef struct {
	const char *name;  /* "tp", "cp", "dp" (dp x cp: the gradient sync), "etp", "ep", "edp", "pp" */
	int size;          /* ranks in one group */
	long long stride;  /* rank distance between neighbours of the group */
	int in_domain;     /* 1 when every group of the kind stays in one scale-up domain */
	double gbps;       /* bandwidth the cost model gives one rank of it, GB/s per direction */
} place_group;

/* Fill out[PLACE_COUNT] for strategy s on cluster c; returns how many groups have more than
 * one rank. */
int place_groups(const cluster_t *c, const strategy_t *s, place_group out[PLACE_COUNT]);
/* One line "tp8 cp2 in NVLink-domain(72) | dp16 pp4 across network" into buf; returns buf. */
char *place_summary(const cluster_t *c, const strategy_t *s, char *buf, size_t len);

#endif
