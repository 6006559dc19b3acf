/* train_cost.h - what a training run costs at a plan's throughput: days, GPU-hours, money
 * and energy for a number of tokens, and the per-device rates Megatron-LM logs beside MFU.
 * Pure arithmetic on an evaluation's throughput; no I/O. docs/cost-model.md "Time and cost
 * to train" gives the formulas and where the power figures come from. */
#ifndef STRATA_CORE_TRAIN_COST_H
#define STRATA_CORE_TRAIN_COST_H

#include "core/cluster.h"

/* A run's totals; a figure that its inputs do not give is 0 (has_* say which are set). */
typedef struct {
	double tokens_per_s_dev;   /* tokens/s per device */
	double tflops_dev;         /* model TFLOP/s per device (MFU's numerator, no recompute) */
	int has_time;              /* train tokens given: days and gpu_hours */
	double days, gpu_hours;
	int has_usd;               /* and a price per GPU-hour: usd */
	double usd;
	int has_energy;            /* and a power figure for the devices: mwh, watts */
	double mwh;
	double watts_per_device;   /* the power the energy is priced at (cluster_power_w) */
	int power_node;            /* 1: the node's maximum power over its devices; 0: the device's */
} train_cost;

/* Watts per device for energy: the node's maximum system power divided by its devices when
 * the cluster gives node.power_w (CPUs, NICs, switches and fans included), else the
 * device's own rated power (device.power_w); 0 when neither is known. *node gets 1 for the
 * node-level figure. */
double cluster_power_w(const cluster_t *c, int *node);
/* The run at tokens_per_s (whole job) and model_flops_per_s (whole job) on devices devices:
 * train_tokens <= 0 leaves the time, money and energy unset, usd_per_gpu_hour <= 0 the
 * money. */
void train_cost_of(const cluster_t *c, int devices, double tokens_per_s, double model_flops_per_s,
		double train_tokens, double usd_per_gpu_hour, train_cost *out);

#endif
