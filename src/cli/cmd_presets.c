/* cmd_presets.c - `strata presets`: list model and cluster presets (and themes). */
#include "cli/cli.h"
#include "cli/help.h"
#include "core/model.h"

#include <stdio.h>
#include <string.h>

typedef struct {
	const paths_t *paths;
	int kind; /* 0 models, 1 clusters, 2 themes */
} visit_arg;

static void visit(const char *name, const char *path, void *arg)
{
	visit_arg *a = arg;
	char err[512];
	if (a->kind == 0) {
		model_t m;
		if (plan_load_model(&m, path, a->paths, err, sizeof err)) {
			printf("  %-16s (unreadable: %s)\n", cli_safe(name), cli_safe(err));
			return;
		}
		printf("  %-16s %-24s %8.1fB params", cli_safe(name), cli_safe(m.name), model_total_params(&m, false) / 1e9);
		if (m.nkinds > 1 && m.kind[m.nkinds > 1 ? 1 : 0].experts)
			printf(" (%.1fB active)", model_active_params(&m) / 1e9);
		printf("\n");
	} else if (a->kind == 1) {
		cluster_t c;
		if (plan_load_cluster(&c, path, a->paths, err, sizeof err)) {
			printf("  %-16s (unreadable: %s)\n", cli_safe(name), cli_safe(err));
			return;
		}
		printf("  %-16s %-18s %dx %s, %.0f GiB, %.0f TFLOPS bf16/fp16", cli_safe(name), cli_safe(c.name),
				c.node_devices, cli_safe(c.device), c.mem_gib,
				c.peak_tflops[0] > 0 ? c.peak_tflops[0] : c.peak_tflops[1]);
		if (cluster_domain_devices(&c) > c.node_devices) /* a scale-up domain across hosts */
			printf(", domain %d", cluster_domain_devices(&c));
		printf("%s\n", c.eff_from[0] ? ", uncalibrated" : "");
	} else {
		printf("  %s\n", cli_safe(name));
	}
}

int cmd_presets(int argc, char **argv, const paths_t *paths)
{
	if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
		return cli_help("presets", stdout) ? 2 : 0;
	if (argc > 2) {
		fprintf(stderr, "strata presets: takes no arguments\n");
		return 2;
	}
	visit_arg a = {paths, 0};
	printf("models:\n");
	paths_each(paths, "presets/models", visit, &a);
	a.kind = 1;
	printf("clusters:\n");
	paths_each(paths, "presets/clusters", visit, &a);
	a.kind = 2;
	printf("themes:\n");
	paths_each(paths, "themes", visit, &a);
	if (paths->n == 0)
		fprintf(stderr, "strata: no data directory found (set STRATA_DATA)\n");
	return 0;
}
