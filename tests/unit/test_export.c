/* Unit tests for src/io/export*.c: target names, the recompute shapes the exporters
 * recognise (Megatron's block pattern, including stages shorter than the block), the
 * model-order stages of zb-v, the Megatron pipeline layout with MTP, a torchtitan stage
 * without layers, the note overflow line, and export_save against export_write.
 * Runs from the repository root with STRATA_DATA pointing there. */
#include "check.h"
#include "core/strategy.h"
#include "io/export.h"
#include "io/export_int.h"
#include "io/paths.h"
#include "io/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static paths_t paths;
static plan_t plan; /* large: keep it off the stack */
static export_facts facts;

/* Load a plan from YAML text and resolve dp; 0 when it loaded and is valid. */
static int load(const char *text)
{
	char err[512];
	if (plan_load_text(&plan, text, "t.yaml", &paths, err, sizeof err) ||
			strat_resolve(&plan.strategy, plan.devices, err, sizeof err) ||
			strat_validate(&plan.strategy, &plan.model, &plan.cluster, plan.devices, err, sizeof err)) {
		printf("  %s\n", err);
		return -1;
	}
	return 0;
}

/* Export into a malloc'd string (NULL on failure). */
static char *export_text(export_target t)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = export_write(f, t, &plan, err, sizeof err);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_targets(void)
{
	CHECK(export_parse_target("megatron") == EXPORT_MEGATRON && export_parse_target("deepspeed") == EXPORT_DEEPSPEED &&
			export_parse_target("torchtitan") == EXPORT_TORCHTITAN, "targets: the three names parse");
	CHECK(export_parse_target("Megatron") < 0 && export_parse_target("") < 0 && export_parse_target("nemo") < 0,
			"targets: other names (case differs, empty, unknown) are rejected");
	CHECK(!strcmp(export_target_list(), "megatron, deepspeed, torchtitan"), "targets: the list for messages");
}

static void test_block_recompute(void)
{
	/* stage 0 holds 2 layers, all recomputed; the others recompute their first 3 */
	if (!CHECK(!load("model: llama3-8b\ncluster: dgx-h100\ndevices: 32\n"
			"strategy: {tp: 8, pp: 4, stage_layers: [2, 10, 10, 10], recompute: none,\n"
			"  recompute_layers: {\"0:2\": full, \"2:5\": full, \"12:15\": full, \"22:25\": full}}\n"),
			"block: plan loads"))
		return;
	export_facts_get(&facts, &plan);
	CHECK(facts.rc_mode == -1 && facts.rc_block == 3,
			"block: first 3 layers of every stage, a 2-layer stage wholly recomputed -> block 3");
	char *t = export_text(EXPORT_MEGATRON);
	CHECK(t && strstr(t, "    --recompute-method block\n    --recompute-num-layers 3\n"),
			"block: Megatron gets --recompute-method block --recompute-num-layers 3");
	free(t);

	/* one stage recomputes only 2: no common block */
	if (!load("model: llama3-8b\ncluster: dgx-h100\ndevices: 32\n"
			"strategy: {tp: 8, pp: 4, stage_layers: [2, 10, 10, 10], recompute: none,\n"
			"  recompute_layers: {\"0:2\": full, \"2:5\": full, \"12:14\": full, \"22:25\": full}}\n")) {
		export_facts_get(&facts, &plan);
		CHECK(facts.rc_block == 0, "block: unequal prefixes are not a block");
		t = export_text(EXPORT_MEGATRON);
		CHECK(t && strstr(t, "# not expressible: per-layer recompute (0:2 full, 2:5 full, 12:14 full, 22:25 full)"),
				"block: otherwise the ranges are a not-expressible note");
		free(t);
	}

	/* a selective range breaks the pattern */
	if (!load("model: llama3-8b\ncluster: dgx-h100\ndevices: 32\n"
			"strategy: {tp: 8, pp: 4, recompute: none, recompute_layers: {\"0:1\": selective}}\n")) {
		export_facts_get(&facts, &plan);
		CHECK(facts.rc_mode == -1 && facts.rc_block == 0, "block: a selective range is no block");
	}
	/* ranges that cover every layer alike are one mode */
	if (!load("model: llama3-8b\ncluster: dgx-h100\ndevices: 32\n"
			"strategy: {tp: 8, pp: 4, recompute: none, recompute_layers: {\"0:32\": full}}\n")) {
		export_facts_get(&facts, &plan);
		CHECK(facts.rc_mode == RC_FULL && facts.rc_block == 0, "block: a range over all layers is uniform full");
	}
}

static void test_zbv_stages(void)
{
	/* 30 layers on 4 ranks: strata gives 7, 8, 8, 7; each rank's two V chunks split it */
	if (!CHECK(!load("model: {name: t, hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 30,\n"
			"  num_attention_heads: 16, vocab_size: 32000, hidden_act: silu}\n"
			"cluster: dgx-h100\ndevices: 8\nstrategy: {pp: 4, schedule: zb-v, global_batch: 16}\n"),
			"zb-v: plan loads"))
		return;
	export_facts_get(&facts, &plan);
	static const int want[8] = {4, 4, 4, 4, 3, 4, 4, 3};
	CHECK(facts.nstages == 8 && !memcmp(facts.stage_layers, want, sizeof want),
			"zb-v: 2*pp model stages, rank r holds stages r and 2pp-1-r (down chunk the larger)");
	char *t = export_text(EXPORT_TORCHTITAN);
	CHECK(t && strstr(t, "pipeline_parallel_schedule = \"ZBVZeroBubble\"") &&
			strstr(t, "[\"layers.4\", \"layers.8\", \"layers.12\", \"layers.16\", \"layers.19\", \"layers.23\", \"layers.27\"]"),
			"zb-v: torchtitan gets ZBVZeroBubble and 7 split points");
	free(t);
	t = export_text(EXPORT_MEGATRON);
	CHECK(t && strstr(t, "not expressible: schedule zb-v") && strstr(t, "--decoder-first-pipeline-num-layers 7"),
			"zb-v: Megatron notes the schedule and keeps each rank's layers together");
	free(t);
}

static void test_layout_mtp(void)
{
	/* DeepSeek-V3 (61 layers + 1 MTP) on pp 4 x vpp 2: uneven chunks need the layout */
	if (!CHECK(!load("model: deepseek-v3\ncluster: dgx-h100\ndevices: 256\n"
			"strategy: {tp: 8, pp: 4, vpp: 2, ep: 8, schedule: interleaved, global_batch: 64}\n"),
			"layout: plan loads"))
		return;
	char *t = export_text(EXPORT_MEGATRON);
	const char *lay = t ? strstr(t, "--pipeline-model-parallel-layout 'E,") : NULL;
	const char *end = lay ? strchr(lay + 35, '\'') : NULL;
	CHECK(lay && end && !strncmp(end - 4, ",m,L", 4), "layout: embedding first, the MTP module and loss last");
	CHECK(t && !strstr(t, "--num-virtual-stages-per-pipeline-rank") && strstr(t, "--mtp-num-layers 1"),
			"layout: replaces the virtual-stage flag; --mtp-num-layers matches");
	free(t);
}

static void test_empty_stage(void)
{
	if (!CHECK(!load("model: llama3-8b\ncluster: dgx-h100\ndevices: 32\n"
			"strategy: {tp: 8, pp: 4, stage_layers: [0, 16, 16, 0]}\n"), "empty stage: plan loads"))
		return;
	char *t = export_text(EXPORT_TORCHTITAN);
	CHECK(t && strstr(t, "not expressible: a pipeline stage without layers") &&
			!strstr(t, "pipeline_parallel_split_points"),
			"empty stage: torchtitan gets a note instead of equal split points");
	free(t);
}

static void test_notes_overflow(void)
{
	static export_notes ns;
	for (int i = 0; i < EXPORT_MAX_LINES + 10; i++)
		export_note(&ns, "note %d", i);
	CHECK(ns.n == EXPORT_MAX_LINES && ns.overflow && strstr(ns.text[EXPORT_MAX_LINES - 1], "dropped") &&
			!strcmp(ns.text[EXPORT_MAX_LINES - 2], "note 38"),
			"notes: past the limit the last line says notes were dropped");
}

static void test_save(void)
{
	char dir[] = "/tmp/strata-export-XXXXXX", path[64], err[512];
	if (!CHECK(mkdtemp(dir) != NULL, "save: temporary directory"))
		return;
	if (load("model: llama3-8b\ncluster: dgx-h100\ndevices: 8\nstrategy: {tp: 8, pp: 1}\n"))
		return;
	snprintf(path, sizeof path, "%s/ds.json", dir);
	char *want = export_text(EXPORT_DEEPSPEED), got[8192] = {0};
	int rc = export_save(path, EXPORT_DEEPSPEED, &plan, err, sizeof err);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
	if (f)
		fclose(f);
	/* but for the run line, which names the file written instead of a placeholder */
	char named[8192] = "", *at = want ? strstr(want, "ds_config.json") : NULL;
	if (at)
		snprintf(named, sizeof named, "%.*s'%s'%s", (int)(at - want), want, path, at + strlen("ds_config.json"));
	CHECK(!rc && at && n == strlen(named) && !strcmp(got, named),
			"save: the file holds what export_write writes, its run line naming the file");
	free(want);
	snprintf(path, sizeof path, "%s/missing/ds.json", dir);
	rc = export_save(path, EXPORT_DEEPSPEED, &plan, err, sizeof err);
	CHECK(rc == -1 && strstr(err, path), "save: a missing directory is an error naming the file");
	snprintf(path, sizeof path, "%s/ds.json", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_targets();
	test_block_recompute();
	test_zbv_stages();
	test_layout_mtp();
	test_empty_stage();
	test_notes_overflow();
	test_save();
	return check_done();
}
