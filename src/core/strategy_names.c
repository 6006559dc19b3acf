/* strategy_names.c - the names strategy enums take in plan files, JSON and messages, and
 * their parsers (strategy.h). */
#include "core/strategy.h"

#include <stdio.h>
#include <string.h>

static const char *rc_names[] = {"none", "selective", "full"};
static const char *sched_names[] = {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "zb-v", "dualpipe"};
static const char *prec_names[] = {"bf16", "fp16", "fp8", "mxfp8", "fp4"};
static const char *cp_names[CP_MODES] = {"ring", "ulysses", "usp"};
static const char *fw_names[] = {"auto", "megatron", "torchtitan", "deepspeed"};
static const char *fp8c_names[FP8C_COUNT] = {"none", "deepseek"};
static const char *moed_names[MOED_COUNT] = {"alltoall", "deepep"};
static const char *moer_names[MOER_COUNT] = {"spread", "contiguous"};
static const char *rcm_names[RCM_COUNT] = {"core_attn", "layernorm", "mla_up_proj", "moe_act", "mlp", "moe",
	"shared_experts"};

static const char *odt_names[ODT_COUNT] = {"fp32", "fp16", "bf16", "fp8"};
static const char *opt_keys[OPT_KEYS] = {"exp_avg_dtype", "exp_avg_sq_dtype", "main_grads_dtype", "main_params_dtype"};
/* Megatron-LM's choices (megatron/training/arguments.py): the moments fp32, fp16, bf16 or
 * fp8; main grads fp32 or bf16; main params fp32 or fp16. */
static const unsigned opt_masks[OPT_KEYS] = {0xf, 0xf, 1u << ODT_FP32 | 1u << ODT_BF16, 1u << ODT_FP32 | 1u << ODT_FP16};

static int find(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

const char *strat_recompute_name(int v) { return v >= 0 && v < RC_COUNT ? rc_names[v] : "?"; }
const char *strat_schedule_name(int v) { return v >= 0 && v < SCHED_COUNT ? sched_names[v] : "?"; }
const char *strat_precision_name(int v) { return v >= 0 && v < PREC_COUNT ? prec_names[v] : "?"; }
const char *strat_cp_kind_name(int v) { return v >= 0 && v < CP_MODES ? cp_names[v] : "?"; }
int strat_parse_recompute(const char *s) { return find(rc_names, RC_COUNT, s); }
int strat_parse_precision(const char *s) { return find(prec_names, PREC_COUNT, s); }
int strat_parse_cp_kind(const char *s) { return find(cp_names, 2, s); }
const char *strat_framework_name(int v) { return v >= 0 && v < FW_COUNT ? fw_names[v] : "?"; }
int strat_parse_framework(const char *s) { return find(fw_names, FW_COUNT, s); }
const char *strat_fp8_cache_name(int v) { return v >= 0 && v < FP8C_COUNT ? fp8c_names[v] : "?"; }
int strat_parse_fp8_cache(const char *s) { return find(fp8c_names, FP8C_COUNT, s); }
const char *strat_moe_dispatcher_name(int v) { return v >= 0 && v < MOED_COUNT ? moed_names[v] : "?"; }
int strat_parse_moe_dispatcher(const char *s) { return find(moed_names, MOED_COUNT, s); }
const char *strat_moe_routing_name(int v) { return v >= 0 && v < MOER_COUNT ? moer_names[v] : "?"; }
int strat_parse_moe_routing(const char *s) { return find(moer_names, MOER_COUNT, s); }
const char *strat_opt_key(int k) { return k >= 0 && k < OPT_KEYS ? opt_keys[k] : "?"; }
unsigned strat_opt_dtypes(int k) { return k >= 0 && k < OPT_KEYS ? opt_masks[k] : 0; }
const char *strat_opt_dtype_name(int v) { return v >= 0 && v < ODT_COUNT ? odt_names[v] : "?"; }
int strat_parse_opt_dtype(const char *s) { return find(odt_names, ODT_COUNT, s); }
const char *strat_rc_module_name(int i) { return i >= 0 && i < RCM_COUNT ? rcm_names[i] : "?"; }

int strat_parse_rc_modules(const char *list, uint8_t *out, char *bad, size_t n)
{
	unsigned m = 0;
	const char *p = list;
	while (*p) {
		const char *e = p;
		while (*e && *e != ',')
			e++;
		size_t len = (size_t)(e - p);
		while (len && p[0] == ' ')
			p++, len--;
		while (len && p[len - 1] == ' ')
			len--;
		int i;
		for (i = 0; i < RCM_COUNT; i++)
			if (strlen(rcm_names[i]) == len && !strncmp(p, rcm_names[i], len))
				break;
		if (i == RCM_COUNT) {
			snprintf(bad, n, "%.*s", (int)(len < 64 ? len : 64), p);
			return -1;
		}
		m |= 1u << i;
		p = *e ? e + 1 : e;
	}
	if (!m) {
		snprintf(bad, n, "(none)");
		return -1;
	}
	*out = (uint8_t)m;
	return 0;
}

void strat_rc_modules_text(unsigned m, char *buf, size_t n)
{
	size_t used = 0;
	if (n)
		buf[0] = 0;
	for (int i = 0; i < RCM_COUNT && used < n; i++)
		if (m >> i & 1)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "," : "", rcm_names[i]);
}

int strat_parse_schedule(const char *s)
{
	int v = find(sched_names, SCHED_COUNT, s);
	if (v < 0 && (!strcmp(s, "interleaved-1f1b") || !strcmp(s, "1f1b-interleaved")))
		v = SCHED_INTERLEAVED;
	if (v < 0 && !strcmp(s, "zbv"))
		v = SCHED_ZBV;
	return v;
}
