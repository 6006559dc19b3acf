/* timeline_sim.h - the timeline simulation's state (core/timeline.c): lanes (a device's
 * blocks of one hop of one path) and the simulation they belong to. Private to timeline.c,
 * kept apart so that the simulation stays within the size of a core file. */
#ifndef STRATA_CORE_TIMELINE_SIM_H
#define STRATA_CORE_TIMELINE_SIM_H

#include "core/timeline.h"
#include "core/timeline_dual.h"

#define TLS_MAX_LANES 512   /* (device, hop) pairs: pp*vpp <= 256 chunks, or two per device */

typedef struct {
	int path, hop, dev;
	int mb0, nmb;            /* micro-batches of this path: [mb0, mb0 + nmb) */
	int nf, nb, nw;          /* blocks issued so far */
	int entry;               /* first hop of its path on the device: admits new micro-batches */
	double tf, tb, tw;       /* duration of one block */
} tls_lane;

typedef struct {
	const tl_spec *sp;
	int p, v, K, m, npaths, split, gpipe, fixed, dual, zbv;
	int pc[TL_MAX_STAGES];           /* fixed programs: position per device */
	int path_mb0[2], path_nmb[2];
	int nlanes;
	tls_lane ln[TLS_MAX_LANES];
	int dev_lanes[TL_MAX_STAGES][32]; /* lane indices per device (vpp, or 2) */
	int dev_nl[TL_MAX_STAGES];
	int inflight[TL_MAX_STAGES][2];  /* F issued minus B issued, per device and path */
	int limit[TL_MAX_STAGES][2];
	double free_at[TL_MAX_STAGES];
	/* DualPipe's program: the segments of each r = min(d, p-1-d), each device's place in
	 * them (segment, repetition, token) and the lane whose W runs next, inline */
	tld_seg dprog[TL_MAX_STAGES / 2][TLD_MAX_SEGS];
	int dnseg[TL_MAX_STAGES / 2];
	int dseg[TL_MAX_STAGES], drep[TL_MAX_STAGES], dpos[TL_MAX_STAGES], dinl[TL_MAX_STAGES];
	int dhold[TL_MAX_STAGES], dbhold[TL_MAX_STAGES]; /* units whose F, B output is held */
} tls_sim;

#endif
