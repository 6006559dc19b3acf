/* comm.h - alpha-beta collective templates and topology-aware group bandwidth.
 * Ring collectives (Thakur et al. 2005; NCCL): all-reduce moves 2(n-1)/n of the buffer per
 * rank, all-gather and reduce-scatter (n-1)/n, all-to-all (n-1)/n of the local buffer.
 * Header-only so the hot path inlines it. */
#ifndef STRATA_CORE_COMM_H
#define STRATA_CORE_COMM_H

#include "core/cluster.h"

/* Effective per-rank bandwidth (bytes/s) and latency (s) of one collective group. */
typedef struct {
	double bw, lat;
	int inter;      /* 1 when the group crosses nodes */
} comm_link;

/* A group of n ranks whose members are `stride` ranks apart (Megatron order puts TP
 * innermost). The group stays in a node when n*stride fits; otherwise the NICs of the
 * members that share a node work in parallel (NCCL runs one ring per NIC), so the usable
 * bandwidth is members-per-node times the per-device NIC rate, capped by the intra link. */
static inline comm_link comm_group(const cluster_t *c, int n, int stride)
{
	comm_link l;
	double node = c->node_gbps * 1e9, net = c->net_gbps * 1e9;
	if (n <= 1) {
		l.bw = node;
		l.lat = 0;
		l.inter = 0;
		return l;
	}
	long long span = (long long)n * stride;
	if (span <= c->node_devices) {
		l.bw = node * c->eff.coll_intra;
		l.lat = 2e-6;
		l.inter = 0;
		return l;
	}
	int per_node = stride >= c->node_devices ? 1 : c->node_devices / stride;
	if (per_node > n)
		per_node = n;
	double bw = per_node * net;
	if (bw > node)
		bw = node;
	l.bw = bw * c->eff.coll_inter;
	l.lat = c->net_lat_us * 1e-6;
	l.inter = 1;
	return l;
}

/* Ring all-reduce of `bytes` over n ranks. */
static inline double comm_allreduce(comm_link l, int n, double bytes)
{
	return n <= 1 ? 0 : 2.0 * (n - 1) / n * bytes / l.bw + 2.0 * (n - 1) * l.lat;
}

/* Ring all-gather or reduce-scatter; `bytes` is the full (gathered) buffer. */
static inline double comm_allgather(comm_link l, int n, double bytes)
{
	return n <= 1 ? 0 : (double)(n - 1) / n * bytes / l.bw + (n - 1) * l.lat;
}

/* All-to-all where each rank holds `bytes` locally and keeps 1/n of it. */
static inline double comm_alltoall(comm_link l, int n, double bytes)
{
	return n <= 1 ? 0 : (double)(n - 1) / n * bytes / l.bw + (n - 1) * l.lat;
}

/* Point-to-point send of `bytes`. */
static inline double comm_p2p(comm_link l, double bytes)
{
	return bytes / l.bw + l.lat;
}

#endif
