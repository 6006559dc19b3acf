/* plan.h - a whole job (model, cluster, devices, strategy, budget, pins, expectations)
 * loaded from YAML/JSON plan files, preset names, Hugging Face config.json files. */
#ifndef STRATA_IO_PLAN_H
#define STRATA_IO_PLAN_H

#include "core/model.h"
#include "core/cluster.h"
#include "core/strategy.h"
#include "io/paths.h"

#include <limits.h>

#define PLAN_MAX_PINS 32

typedef struct {
	double step_time_s, peak_mem_gib;   /* 0 when absent */
	char mem_convention[16];            /* allocated | reserved | nvidia-smi | unknown */
	double tokens_per_s;                /* whole-job throughput as published (0 when absent) */
	double tflops_per_gpu, mfu, hfu;    /* per-device throughput as published (0 when absent) */
	char tflops_convention[8];          /* mfu (no recompute counted) | hfu */
	int unstated_recompute;             /* `unstated:` lists strategy.recompute */
} plan_expect;

typedef struct {
	model_t model;
	cluster_t cluster;
	int devices;
	strategy_t strategy;
	double budget_gib;                  /* 0 = cluster default */
	double train_tokens;                /* tokens the run trains on (0: not given): its days,
	                                     * GPU-hours, cost and energy (core/train_cost.h) */
	double gpu_hour_usd;                /* price of one GPU-hour (0: not given) */
	char model_ref[PATH_MAX], cluster_ref[PATH_MAX]; /* preset name or path as written */
	char id[128], source[256];          /* cut on a character boundary when longer */
	char path[1024];                    /* the file it was loaded from (a longer path is refused:
	                                     * the explorer keeps it in a buffer of this size) */
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
/* The i-th key of a cluster's efficiency block and its offset in cluster_eff; NULL past
 * the last (lets writers emit every key the loader reads). */
const char *plan_eff_key(size_t i, size_t *offset);
/* Model config keys by role, NULL-terminated: MLA attention; MoE (the first three name the
 * expert count); the layout, which a model given as blocks takes from its blocks instead. */
extern const char *const plan_keys_mla[];
extern const char *const plan_keys_moe[];
extern const char *const plan_keys_layout[];
/* 1 when a block of kind (dense, moe or mla) takes key; else 0 with the keys it takes,
 * space-separated, in known[n]. */
int plan_block_key_ok(const char *kind, const char *key, char *known, size_t n);
/* 1 when a model/cluster reference is a file path rather than a preset name. */
int plan_ref_is_path(const char *ref);
/* Find the file a reference names: a path (relative to the file `base` first, then to the
 * working directory) or presets/KIND/REF.yaml on the search path. 0, or -1 with err. */
int plan_resolve_ref(const char *ref, const char *kind, const char *base, const paths_t *paths, char *out,
		size_t outlen, char *err, size_t errlen);
/* Apply one "key=value" strategy assignment (dp, tp, ..., recompute, schedule); 0 or -1. */
int plan_set(plan_t *p, const char *key, const char *val, char *err, size_t errlen);
/* A token count as written on the command line or in a plan: a number with an optional
 * K, M, B (or G) or T suffix ("15T", "2.5e12"). 0, or -1 when it is not one. */
int plan_parse_tokens(const char *val, double *out);
/* The keys plan_set knows (aliases included) and their number. */
const char *const *plan_set_keys(size_t *n);
/* Map a model written as YAML/JSON text (the keys of a model file) onto m: the same
 * key handling as a file, for models given as data (Lua tables). 0, or 2 with err. */
int plan_model_from_text(model_t *m, const char *text, const char *name, char *err, size_t errlen);
/* The same for a cluster mapping (family efficiency filled in as for a file). 0 or 2. */
int plan_cluster_from_text(cluster_t *c, const char *text, const char *name, const paths_t *paths, char *err,
		size_t errlen);
/* Apply a strategy mapping in text form (the keys of a plan's `strategy:`) on top of s. 0 or 2. */
int plan_strategy_from_text(strategy_t *s, const char *text, const char *name, char *err, size_t errlen);

#endif
