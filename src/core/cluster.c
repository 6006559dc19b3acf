/* cluster.c - cluster sanity checks and neutral efficiency defaults. */
#include "core/cluster.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

cluster_eff cluster_default_eff(void)
{
	/* Neutral values for an unknown device family: typical of well-tuned large-GEMM
	 * kernels and NCCL bus bandwidth; calibrated families override them. kernel_us: back-
	 * to-back CUDA kernel launches without a graph take about 3.8 us each (NVIDIA
	 * Developer Blog, "Getting Started with CUDA Graphs", A. Gray 2019), so no kernel the
	 * host launches one by one finishes sooner; not calibrated yet. */
	cluster_eff e = {
		.gemm = 0.55, .gemm_half = 64, .fp8_gemm = 0.35, .flash = 0.40, .grouped_gemm = 0.7,
		.hbm = 0.7, .coll_intra = 0.75, .coll_inter = 0.8, .dp_overlap = 0.8, .tp_overlap = 0.6, .contention = 0.2, .step_ms = 0,
		.layer_us = 20, .kernel_us = 4, .reserve_gib = 0, .context_gib = 0.5, .alloc_frag = 0.08, .oom_frag = 0.05,
	};
	return e;
}

int cluster_check(const cluster_t *c, char *why, size_t n)
{
	const char *bad = NULL;
	if (!(c->mem_gib > 0 && c->mem_gib < 1e6))
		bad = "device.memory_gib must be a positive number";
	else if (!(c->hbm_gbps > 0 && c->hbm_gbps < 1e7))
		bad = "device.hbm_gbps must be a positive number";
	else if (c->node_devices <= 0 || c->node_devices > 1 << 16)
		bad = "node.devices must be a positive integer";
	else if (!(c->node_gbps > 0 && c->node_gbps < 1e7))
		bad = "node.link_gbps must be a positive number";
	else if (!(c->net_gbps > 0 && c->net_gbps < 1e7))
		bad = "network.link_gbps must be a positive number";
	else if (!(c->net_lat_us >= 0 && c->net_lat_us < 1e6))
		bad = "network.latency_us must be a non-negative number";
	else if (!(c->peak_tflops[PREC_BF16] > 0 || c->peak_tflops[PREC_FP16] > 0))
		bad = "device.peak_tflops needs a positive bf16 or fp16 figure";
	for (int p = 0; !bad && p < PREC_COUNT; p++)
		if (!(c->peak_tflops[p] >= 0 && c->peak_tflops[p] < 1e7))
			bad = "device.peak_tflops values must be non-negative numbers";
	const cluster_eff *e = &c->eff;
	if (!bad && !(e->gemm > 0 && e->gemm <= 1 && e->flash > 0 && e->flash <= 1 && e->hbm > 0 &&
			e->hbm <= 1 && e->coll_intra > 0 && e->coll_intra <= 1 && e->coll_inter > 0 &&
			e->coll_inter <= 1 && e->grouped_gemm > 0 && e->grouped_gemm <= 1 &&
			e->fp8_gemm >= 0 && e->fp8_gemm <= 1 && e->flash_sdpa >= 0 && e->flash_sdpa <= 1))
		bad = "efficiency fractions must be in (0, 1]";
	if (!bad && !(e->dp_overlap >= 0 && e->dp_overlap <= 1 && e->tp_overlap >= 0 &&
			e->tp_overlap <= 1 && e->contention >= 0 && e->contention <= 1 && e->gemm_half >= 0 && e->layer_us >= 0 && e->kernel_us >= 0 && e->kernel_us < 1e5 && e->step_ms >= 0 &&
			e->reserve_gib >= 0 && e->context_gib >= 0 && e->alloc_frag >= 0 &&
			e->alloc_frag < 10 && e->oom_frag >= 0 && e->oom_frag < 10 && e->gemm_half < 1e6 && e->layer_us < 1e6 &&
			e->reserve_gib < c->mem_gib && e->context_gib < c->mem_gib))
		bad = "efficiency constants out of range (overlaps in [0, 1], reserve below memory)";
	if (bad) {
		snprintf(why, n, "cluster %s: %s", c->name[0] ? c->name : "(unnamed)", bad);
		return -1;
	}
	return 0;
}

/* Devices built on the same die as a family with calibrated constants share its
 * constants: the constants are fractions of the device's own peaks and links, so a part
 * with fewer links, SMs or a different memory (A800: A100 with NVLink cut to 400 GB/s;
 * H800: H100 with fewer NVLink lanes; H20: the H100 die with fewer SMs enabled; H200 and
 * GH200: the H100 die with more HBM; V100S: V100 at a higher clock) keeps them. */
static const char *const family_alias[][2] = {
	{"A800", "A100"}, {"H800", "H100"}, {"H20", "H100"}, {"H200", "H100"}, {"GH200", "H100"},
	{"V100S", "V100"},
};

void cluster_family(const char *device, char *out, size_t outlen)
{
	/* The family is the leading alphanumeric token: "H100-SXM5-80GB" -> "H100",
	 * "Ascend 910B" -> "Ascend"... so 910B names keep their number: take two tokens
	 * when the first is a vendor word. */
	size_t i = 0, o = 0;
	while (device[i] && !isalnum((unsigned char)device[i]))
		i++;
	while (device[i] && isalnum((unsigned char)device[i]) && o + 1 < outlen)
		out[o++] = (char)toupper((unsigned char)device[i++]);
	out[o] = 0;
	if (!strcmp(out, "ASCEND") || !strcmp(out, "NVIDIA") || !strcmp(out, "TESLA")) {
		o = 0;
		while (device[i] && !isalnum((unsigned char)device[i]))
			i++;
		while (device[i] && isalnum((unsigned char)device[i]) && o + 1 < outlen)
			out[o++] = (char)toupper((unsigned char)device[i++]);
		out[o] = 0;
	}
	/* Ascend 910B1..910B4 are bins of one die */
	if (!strncmp(out, "910B", 4) && o > 4 && outlen > 4)
		out[4] = 0;
	for (size_t k = 0; k < sizeof family_alias / sizeof family_alias[0]; k++)
		if (!strcmp(out, family_alias[k][0]) && strlen(family_alias[k][1]) < outlen) {
			strcpy(out, family_alias[k][1]);
			break;
		}
}
