/* train_cost.c - time, GPU-hours, money and energy of a training run (train_cost.h).
 *   days      = train_tokens / tokens_per_s / 86,400
 *   gpu_hours = devices * days * 24
 *   usd       = gpu_hours * price per GPU-hour
 *   MWh       = devices * watts per device * seconds / 3.6e9
 * The watts are the cluster preset's power figure at full load (a datasheet maximum, so the
 * energy is an upper bound of what the devices draw; data-centre overhead, PUE, is not
 * included). */
#include "core/train_cost.h"

#include <string.h>

double cluster_power_w(const cluster_t *c, int *node)
{
	if (node)
		*node = 0;
	if (c->node_power_w > 0 && c->node_devices > 0) {
		if (node)
			*node = 1;
		return c->node_power_w / c->node_devices;
	}
	return c->device_power_w > 0 ? c->device_power_w : 0;
}

void train_cost_of(const cluster_t *c, int devices, double tokens_per_s, double model_flops_per_s,
		double train_tokens, double usd_per_gpu_hour, train_cost *out)
{
	memset(out, 0, sizeof *out);
	if (devices <= 0)
		return;
	out->tokens_per_s_dev = tokens_per_s / devices;
	out->tflops_dev = model_flops_per_s / devices / 1e12;
	out->watts_per_device = cluster_power_w(c, &out->power_node);
	if (!(train_tokens > 0) || !(tokens_per_s > 0))
		return;
	double seconds = train_tokens / tokens_per_s;
	out->has_time = 1;
	out->days = seconds / 86400.0;
	out->gpu_hours = devices * seconds / 3600.0;
	if (usd_per_gpu_hour > 0) {
		out->has_usd = 1;
		out->usd = out->gpu_hours * usd_per_gpu_hour;
	}
	if (out->watts_per_device > 0) {
		out->has_energy = 1;
		out->mwh = devices * out->watts_per_device * seconds / 3.6e9;
	}
}
