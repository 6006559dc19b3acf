/* plan.h - a whole job (model, cluster, devices, strategy, budget, pins, expectations)
 * loaded from YAML/JSON plan files, preset names, Hugging Face config.json files. */
#ifndef STRATA_IO_PLAN_H
#define STRATA_IO_PLAN_H

#include "core/model.h"
#include "core/cluster.h"
#include "core/strategy.h"
#include "io/paths.h"

#define PLAN_MAX_PINS 32

typedef struct {
	double step_time_s, peak_mem_gib;   /* 0 when absent */
	char mem_convention[16];            /* allocated | reserved | nvidia-smi | unknown */
	double tflops_per_gpu, mfu;         /* throughput as published (0 when absent) */
	char tflops_convention[8];          /* mfu (no recompute counted) | hfu */
} plan_expect;

typedef struct {
	model_t model;
	cluster_t cluster;
	int devices;
	strategy_t strategy;
	double budget_gib;                  /* 0 = cluster default */
	char model_ref[256], cluster_ref[256]; /* preset name or path as written */
	char id[128], source[256], path[1024];
	int has_expect;
	plan_expect expect;
	int npins;
	char pins[PLAN_MAX_PINS][128];
} plan_t;

/* The embedded default plan text (used by `strata` with no plan). */
extern const char plan_default_text[];

/* Load a plan file. Returns 0, or 2 for a file/format error, 1 for invalid content;
 * err gets "file:line:col: message". */
int plan_load_file(plan_t *p, const char *path, const paths_t *paths, char *err, size_t errlen);
/* Load a plan from text (name is used in messages). Same return codes. */
int plan_load_text(plan_t *p, const char *text, const char *name, const paths_t *paths, char *err,
		size_t errlen);
/* Load a model from a preset name or a file path (YAML or HF config.json). 0 or 2. */
int plan_load_model(model_t *m, const char *ref, const paths_t *paths, char *err, size_t errlen);
/* Load a cluster from a preset name or a file path. 0 or 2. */
int plan_load_cluster(cluster_t *c, const char *ref, const paths_t *paths, char *err, size_t errlen);
/* Give a cluster without its own efficiency block the constants of its device family
 * (looked up in the cluster presets), or neutral defaults. */
void plan_family_eff(cluster_t *c, const paths_t *paths);
/* Apply one "key=value" strategy assignment (dp, tp, ..., recompute, schedule); 0 or -1. */
int plan_set(plan_t *p, const char *key, const char *val, char *err, size_t errlen);

#endif
