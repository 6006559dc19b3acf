/* The model-zoo cases (tests/validation/public/moezoo_*.yaml) under Megatron-LM: each is set,
 * key by key through plan_set (what the explorer's :set calls), to framework megatron, then
 * to DeepSeek-style fine-grained recomputation (Megatron-Core's --recompute-modules
 * core_attn moe_act layernorm), bf16 Adam moments (--exp-avg-dtype/--exp-avg-sq-dtype bf16,
 * with the distributed optimizer) and the fused loss, and exported to Megatron-LM: every
 * variant must pass export_check and export with no "not expressible" line, and the
 * script must carry the flags of what was set. */
#include "check.h"
#include "fixture.h"
#include "io/export.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZOO_DIR "tests/validation/public"

static paths_t paths;
static plan_t plan; /* large: off the stack */

/* Apply "key=value" settings (NULL-terminated) with plan_set; 0, or -1 naming the first
 * refused one in the check named by case and key. */
static int set_all(const char *id, const char *const *kv)
{
	char err[300], key[64];
	for (int i = 0; kv[i]; i += 2) {
		snprintf(key, sizeof key, "%s", kv[i]);
		if (plan_set(&plan, key, kv[i + 1], err, sizeof err))
			return CHECK(0, check_fmt("zoo %s: :set %s=%s (%s)", id, kv[i], kv[i + 1], err)), -1;
	}
	return 0;
}

/* Export the loaded plan to Megatron-LM into a malloc'd string; NULL when it is refused. */
static char *megatron_text(void)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	if (export_check(EXPORT_MEGATRON, &plan, NULL))
		return NULL;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = export_write(f, EXPORT_MEGATRON, &plan, err, sizeof err);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One variant of case id: load it, set kv, export; the script must contain want (NULL:
 * nothing particular). Returns 1 when it exported exactly. */
static int variant(const char *path, const char *id, const char *const *kv, const char *want)
{
	char err[512];
	if (plan_load_file(&plan, path, &paths, err, sizeof err))
		return CHECK(0, check_fmt("zoo %s: loads (%s)", id, err)), 0;
	if (set_all(id, kv) || strat_resolve(&plan.strategy, plan.devices, err, sizeof err))
		return 0;
	char *text = megatron_text();
	int ok = text && !strstr(text, "not expressible") && !strstr(text, "approximat") &&
		(!want || strstr(text, want));
	CHECK(ok, check_fmt("zoo %s: exports to megatron exactly%s%s", id, want ? ", with " : "", want ? want : ""));
	free(text);
	return ok;
}

static void test_zoo(void)
{
	static const char *const as_is[] = {"framework", "megatron", NULL};
	static const char *const fine[] = {"framework", "megatron", "recompute", "selective",
		"recompute_modules", "core_attn,moe_act,layernorm", NULL};
	static const char *const moments[] = {"framework", "megatron", "zero", "1", "exp_avg_dtype", "bf16",
		"exp_avg_sq_dtype", "bf16", NULL};
	static const char *const loss[] = {"framework", "megatron", "loss_fusion", "true", NULL};
	DIR *d = opendir(ZOO_DIR);
	if (!d) {
		CHECK(0, "zoo: " ZOO_DIR " opens");
		return;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "moezoo_", 7) || l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		char path[512], id[128];
		snprintf(path, sizeof path, "%s/%s", ZOO_DIR, e->d_name);
		snprintf(id, sizeof id, "%.*s", (int)(l - 5), e->d_name);
		n++;
		variant(path, id, as_is, NULL);
		variant(path, id, fine, "--recompute-modules core_attn layernorm moe_act");
		variant(path, id, moments, "--exp-avg-dtype bf16");
		variant(path, id, loss, "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te");
	}
	closedir(d);
	CHECK(n >= 10, "zoo: the ten model-zoo cases were read");
}

int main(void)
{
	fixture_paths(&paths);
	test_zoo();
	return check_done();
}
