/* cluster.h - accelerator, node and network description plus the calibrated efficiency
 * constants of the device family. Pure data. */
#ifndef STRATA_CORE_CLUSTER_H
#define STRATA_CORE_CLUSTER_H

#include <stddef.h>

enum { PREC_BF16 = 0, PREC_FP16 = 1, PREC_FP8 = 2, PREC_COUNT = 3 };

/* Efficiency constants: fractions of datasheet peaks that real kernels reach. They are
 * calibrated once per device family on the public validation set (see presets/clusters). */
typedef struct {
	double gemm;          /* large dense GEMM, fraction of tensor peak */
	double gemm_half;     /* GEMM dimension at which efficiency is half of `gemm` (roll-off) */
	double fp8_gemm;      /* fp8 GEMM, fraction of fp8 peak */
	double flash;         /* flash-attention kernels, fraction of tensor peak */
	double flash_sdpa;    /* the same under PyTorch-native frameworks (SDPA's FlashAttention-2
	                       * kernels instead of Transformer Engine's cuDNN ones); 0 = flash */
	double grouped_gemm;  /* MoE grouped GEMM, multiplier on `gemm` */
	double hbm;           /* element-wise kernels, fraction of HBM bandwidth */
	double coll_intra;    /* collectives inside a node, fraction of link bandwidth */
	double coll_inter;    /* collectives across nodes, fraction of NIC bandwidth */
	double dp_overlap;    /* fraction of backward time that hides gradient/param collectives */
	double tp_overlap;    /* fraction of a GEMM window that hides TP communication */
	double contention;    /* slowdown of compute per second of communication hidden under
	                       * it (both compete for SMs and HBM): 0 = free overlap */
	double layer_us;      /* fixed per-layer per-pass launch overhead, microseconds */
	double kernel_us;     /* shortest time one host-launched kernel takes (launch and
	                       * dispatch), microseconds: short MoE kernels are bound by it */
	double step_ms;       /* fixed host work per optimizer step (launch of the optimizer,
	                       * gradient-norm and loss-scale syncs, logging), milliseconds */
	double reserve_gib;   /* flat memory kept out of the default budget; 0 (the default) =
	                       * context_gib and oom_frag decide it (eval_default_budget_gib) */
	double context_gib;   /* CUDA/CANN context, seen by nvidia-smi but not by the allocator */
	double alloc_frag;    /* allocator reserve over allocated bytes (fraction) */
	double oom_frag;      /* reserved but unallocated bytes left when the allocator reports
	                       * out-of-memory (after releasing its cached blocks), a fraction
	                       * of the allocated bytes */
} cluster_eff;

typedef struct {
	char name[64];
	char device[64];
	double mem_gib;
	double peak_tflops[PREC_COUNT]; /* dense tensor-core peaks; 0 = unsupported */
	double hbm_gbps;
	int sms;              /* streaming multiprocessors (tensor-core units that run GEMM tiles in
	                       * waves); 0 = unknown, no wave-quantisation term */
	int node_devices;
	double node_gbps;     /* intra-node, per device, per direction */
	double net_gbps;      /* inter-node, per device, per direction */
	double net_lat_us;
	/* The host side, for CPU offload: the device's link to host memory and the host
	 * memory bandwidth that device's share of the CPUs streams, both GB/s per device per
	 * direction (cluster key host: {link_gbps, mem_gbps}); 0 = not given, see
	 * cluster_host_link_gbps */
	double host_gbps, host_mem_gbps;
	/* Power at full load, watts (cluster keys device.power_w: the device's rated board power
	 * or TDP; node.power_w: the node's maximum system power); 0 = not given. Only the cost of
	 * a run uses them (core/train_cost.h). */
	double device_power_w, node_power_w;
	cluster_eff eff;
	int eff_set;          /* 1 when `eff` came from the file itself */
} cluster_t;

/* Defaults for a cluster file without host: PCIe 4.0 x16, 16 GT/s x 16 lanes x 128/130
 * / 8 = 31.5 GB/s per direction (PCI-SIG PCIe 4.0 base specification), and the memory
 * bandwidth of a two-socket DDR4-3200 host with 8 channels a socket (2 x 8 x 25.6 GB/s =
 * 409.6 GB/s) shared by 8 devices, 51.2 GB/s: the DGX A100's (2x AMD EPYC 7742). */
#define CLUSTER_HOST_GBPS 31.5
#define CLUSTER_HOST_MEM_GBPS 51.2
/* The host link and host memory bandwidth per device (the file's, else the defaults). */
static inline double cluster_host_link_gbps(const cluster_t *c)
{
	return c->host_gbps > 0 ? c->host_gbps : CLUSTER_HOST_GBPS;
}
static inline double cluster_host_mem_gbps(const cluster_t *c)
{
	return c->host_mem_gbps > 0 ? c->host_mem_gbps : CLUSTER_HOST_MEM_GBPS;
}
/* Neutral efficiency constants used when nothing better is known. */
cluster_eff cluster_default_eff(void);
/* Check a cluster's numbers are usable; 0 or -1 with a reason. */
int cluster_check(const cluster_t *c, char *why, size_t whylen);
/* Device family token of a device name ("H100-SXM5-80GB" -> "H100"), into out. */
void cluster_family(const char *device, char *out, size_t outlen);

#endif
