/* comm.h - collectives: alpha-beta templates, which link a group spans, and how much of a
 * collective hides under compute.
 *
 * Sources: ring collectives (Thakur, Rabenseifner and Gropp 2005, "Optimization of
 * Collective Communication Operations in MPICH"; NCCL's ring and tree algorithms): all-reduce
 * moves 2(n-1)/n of the buffer per rank, all-gather and reduce-scatter (n-1)/n, all-to-all
 * (n-1)/n of the local buffer; each of the n-1 (2(n-1)) steps pays the link latency.
 * Placement follows Megatron-LM's rank order (tp innermost, then cp, ep/dp, pp outermost;
 * megatron/core/parallel_state.py), so a group of n ranks `stride` apart stays in the
 * scale-up domain when n * stride fits (comm_in_domain). Overlap (Megatron's async TP/DP collectives, DualPipe): the part of a
 * collective that a compute window covers still slows the compute by `contention` per
 * second, since NCCL kernels take SMs and HBM bandwidth from the GEMMs.
 * Header-only so the hot path inlines it. */
#ifndef STRATA_CORE_COST_COMM_H
#define STRATA_CORE_COST_COMM_H

#include "core/cluster.h"
#include "core/strategy.h"

/* Effective per-rank bandwidth (bytes/s) and latency (s) of one collective group. */
typedef struct {
	double bw, lat;
	double chan;    /* bandwidth one NCCL channel gets (bw over the channels that fill it) */
	int inter;      /* 1 when the group crosses nodes */
} comm_link;

/* NCCL's ring with the Simple protocol (src/graph/tuning.cc, src/enqueue.cc):
 * - every collective pays a base latency of 8.4 us (baseLat[RING][SIMPLE]) besides its
 *   per-step latency, so a collective split into k pieces pays it k times;
 * - it opens one channel per 32 KiB of buffer (the loop `while (nBytes < nc*nt*
 *   threadThreshold) nc--` with nt = 512 threads and NCCL_SIMPLE_THREAD_THRESHOLD = 64 B),
 *   and each channel's ring crosses the network through one NIC: a small message uses few
 *   channels, so few of a node's NICs (or of the NVLink channels: strata takes 16 to fill an
 *   NVLink ring, where NCCL's ring search on DGX A100/H100 settles on 12 to 24 channels of
 *   20 to 24 GB/s, src/graph/search.cc speedArrayIntra), which is what the nccl-tests bus-bandwidth curves show (busbw
 *   far below the link for buffers under about a MiB, flat above). */
#define COMM_NCCL_BASE_S 8.4e-6
#define COMM_CHANNEL_BYTES 32768.0
#define COMM_INTRA_CHANNELS 16.0

/* Whether a group of n ranks `stride` apart stays in one scale-up domain (NVLink, HCCS,
 * Infinity Fabric): Megatron numbers ranks contiguously, so the group's block of n*stride
 * ranks must fit in the domain. A domain whose size the block does not divide (TP 16 on a
 * 72-GPU NVL72) is taken as filled with whole blocks, as a topology-aware launch does (64
 * of a rack's 72 GPUs in jobs of power-of-two degrees, the remaining trays spare), so no
 * group straddles two domains. */
static inline int comm_in_domain(const cluster_t *c, long long n, long long stride)
{
	return n <= 1 || n * stride <= cluster_domain_devices(c);
}

/* How many members of a group of n ranks `stride` apart share one scale-up domain. */
static inline int comm_domain_members(const cluster_t *c, int n, long long stride)
{
	int ddev = cluster_domain_devices(c);
	int m = stride >= ddev ? 1 : (int)(ddev / stride);
	return m > n ? n : m;
}

/* A group of n ranks whose members are `stride` ranks apart (Megatron order puts TP
 * innermost). The group stays in the scale-up domain when comm_in_domain says so; otherwise
 * the NICs of the members that share a domain work in parallel (NCCL runs one ring per NIC,
 * and on a multi-node NVLink domain reaches any of the domain's NICs, NCCL 2.20's MNNVL), so
 * the usable bandwidth is members-per-domain times the per-device NIC rate, capped by the
 * domain link. This is the one placement rule: every group's link comes from here. */
static inline comm_link comm_group(const cluster_t *c, int n, int stride)
{
	comm_link l;
	double dom = cluster_domain_gbps(c) * 1e9, net = cluster_net_gbps(c) * 1e9;
	if (n <= 1) {
		l.bw = dom;
		l.chan = dom / COMM_INTRA_CHANNELS;
		l.lat = 0;
		l.inter = 0;
		return l;
	}
	if (comm_in_domain(c, n, stride)) {
		l.bw = cluster_domain_group_gbps(c, n) * 1e9 * c->eff.coll_intra;
		l.chan = l.bw / COMM_INTRA_CHANNELS;
		l.lat = 2e-6;
		l.inter = 0;
		return l;
	}
	double bw = comm_domain_members(c, n, stride) * net;
	if (bw > dom)
		bw = dom;
	l.bw = bw * c->eff.coll_inter;
	l.chan = (net < dom ? net : dom) * c->eff.coll_inter; /* one NIC per channel */
	l.lat = c->net_lat_us * 1e-6;
	l.inter = 1;
	return l;
}

/* Bandwidth a collective of `bytes` (the whole buffer, as NCCL counts it) gets on link l:
 * one channel per 32 KiB, each at l.chan, up to the link's l.bw. */
static inline double comm_msg_bw(comm_link l, double bytes)
{
	double bw = bytes / COMM_CHANNEL_BYTES * l.chan;
	bw = bw > l.chan ? bw : l.chan;
	return bw < l.bw ? bw : l.bw;
}

/* A ring of n ranks on one link, with the factors each collective on it repeats: a group
 * that moves several buffers (the data-parallel sync of every distinct stage) divides
 * once. The factors are the very operations comm_allreduce and comm_allgather make. */
typedef struct {
	int n;
	double bw;
	double ag, ag_lat;      /* all-gather / reduce-scatter: (n-1)/n, (n-1) latencies */
	double ar, ar_lat;      /* all-reduce: 2(n-1)/n, 2(n-1) latencies */
} comm_ring;

/* The ring of n ranks on link l. */
static inline comm_ring comm_ring_of(comm_link l, int n)
{
	comm_ring r = {n, l.bw, 0, 0, 0, 0};
	if (n > 1) {
		r.ag = (double)(n - 1) / n;
		r.ag_lat = (n - 1) * l.lat;
		r.ar = 2.0 * (n - 1) / n;
		r.ar_lat = 2.0 * (n - 1) * l.lat;
	}
	return r;
}

/* Ring all-reduce of `bytes` over ring r. */
static inline double comm_ring_allreduce(const comm_ring *r, double bytes)
{
	return r->n <= 1 ? 0 : r->ar * bytes / r->bw + r->ar_lat;
}

/* Ring all-gather or reduce-scatter over ring r; `bytes` is the full (gathered) buffer. */
static inline double comm_ring_allgather(const comm_ring *r, double bytes)
{
	return r->n <= 1 ? 0 : r->ag * bytes / r->bw + r->ag_lat;
}

/* A ring all-gather or reduce-scatter of `bytes` (the full buffer) issued as `units`
 * collectives of bytes/units each (ZeRO-3/FSDP gathers per wrapped unit or parameter): each
 * pays NCCL's base latency and the ring's (n-1) step latencies, and moves its share at the
 * bandwidth its size gets (comm_msg_bw), so many small gathers cost more than one big one. */
static inline double comm_ring_allgather_units(const comm_ring *r, comm_link l, double bytes, double units)
{
	if (r->n <= 1 || !(bytes > 0) || !(units > 0))
		return 0;
	double msg = bytes / units;
	return units * (r->ag * msg / comm_msg_bw(l, msg) + r->ag_lat + COMM_NCCL_BASE_S);
}

/* Ring all-reduce of `bytes` over n ranks. */
static inline double comm_allreduce(comm_link l, int n, double bytes)
{
	comm_ring r = comm_ring_of(l, n);
	return comm_ring_allreduce(&r, bytes);
}

/* Ring all-gather or reduce-scatter; `bytes` is the full (gathered) buffer. */
static inline double comm_allgather(comm_link l, int n, double bytes)
{
	comm_ring r = comm_ring_of(l, n);
	return comm_ring_allgather(&r, bytes);
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

/* 1 when neighbouring pipeline stages share a scale-up domain (pp is outermost: stages are
 * tp x cp x dp ranks apart), so P2P runs on the domain's links. */
static inline int comm_pp_in_domain(const cluster_t *c, const strategy_t *s)
{
	return comm_in_domain(c, 2, (long long)s->tp * s->cp * s->dp);
}

/* The link of one neighbour-to-neighbour send in a ring of ranks (ring attention's K/V
 * passes, pipeline sends): a P2P pair uses one path, not the group's aggregate. Inside the
 * scale-up domain that is one peer's share (the direct link of a full mesh, RCCL and HCCL
 * send over it; the switch port otherwise); when the ring leaves the domain, the hop that
 * crosses goes through one GPU's NIC (NCCL's P2P between nodes runs on the sender's NIC, or
 * through PXN on a rail peer's, one NIC either way), and every step of the ring waits for
 * that slowest hop. */
static inline comm_link comm_p2p_link(const cluster_t *c, int in_domain)
{
	comm_link l;
	if (in_domain) {
		l.bw = cluster_domain_group_gbps(c, 2) * 1e9 * c->eff.coll_intra;
		l.chan = l.bw / COMM_INTRA_CHANNELS;
		l.lat = 2e-6;
		l.inter = 0;
	} else {
		l.bw = cluster_net_gbps(c) * 1e9 * c->eff.coll_inter;
		l.chan = l.bw;
		l.lat = c->net_lat_us * 1e-6;
		l.inter = 1;
	}
	return l;
}

/* The link of a CP ring step when u adjacent CP ranks form each Ulysses group (u = 1: ring
 * attention): the ring's r = cp/u ranks sit tp*u apart, so it stays in the domain exactly when
 * the whole CP group does. */
static inline comm_link comm_cp_ring_link(const cluster_t *c, const strategy_t *s, int u)
{
	return comm_p2p_link(c, comm_in_domain(c, s->cp / u, (long long)s->tp * u));
}

/* The link between pipeline neighbours. */
static inline comm_link comm_pp_link(const cluster_t *c, const strategy_t *s)
{
	return comm_p2p_link(c, comm_pp_in_domain(c, s));
}

/* The link of an all-to-all over n ranks `stride` apart, as the bandwidth comm_alltoall
 * divides its (n-1)/n share by. Unlike a ring, whose n-1 steps cross each domain boundary
 * once per NCCL channel so that all of a domain's NICs carry it (comm_group), an all-to-all
 * sends every rank's own (n-m)/n share off the domain (m members of the group per domain)
 * through that rank's NIC share: the domain's NICs are shared by all of its GPUs, whose
 * groups exchange at once. The (m-1)/n staying inside runs on the domain links meanwhile,
 * so the slower of the two sets the time (Megatron's all-to-all token dispatcher; NCCL's
 * all-to-all is n-1 concurrent send/receive pairs). */
static inline comm_link comm_a2a_link(const cluster_t *c, int n, int stride)
{
	comm_link l = comm_group(c, n, stride);
	if (!l.inter)
		return l;
	int m = comm_domain_members(c, n, stride);
	double net = cluster_net_gbps(c) * 1e9 * c->eff.coll_inter;
	double intra = cluster_domain_group_gbps(c, m) * 1e9 * c->eff.coll_intra;
	double t_net = (double)(n - m) / net, t_in = m > 1 ? (double)(m - 1) / intra : 0;
	l.bw = (double)(n - 1) / (t_net > t_in ? t_net : t_in);
	return l;
}

/* Time a communication of `comm` seconds adds when up to `window` seconds of compute can
 * run beside it: what does not fit is exposed, and what does fit still slows the compute
 * by `kappa` per second (the cluster's `contention`). */
static inline double comm_overlap(double comm, double window, double kappa)
{
	double h = comm < window ? comm : window;
	if (h < 0)
		h = 0;
	return comm - h + kappa * h;
}

#endif
