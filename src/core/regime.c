/* regime.c - regimes no validation case measures (regime.h). The list follows the published
 * runs of tests/validation/public: 1F1B, interleaved, ZB-H1 and ZB-H2 schedules; context
 * parallelism inside a node at any length, across nodes only from 16K tokens, and at most
 * 32 cp ranks of at least 2,048 tokens each (the NeMo long-sequence runs: cp 32 at 1M
 * tokens; 4,096 tokens a rank at the shortest). A test checks
 * that no validation case falls in a regime listed here, so the list cannot claim less than
 * the cases cover. */
#include "core/regime.h"

#include <stdio.h>

unsigned regime_unvalidated(const model_t *m, const cluster_t *c, const strategy_t *s)
{
	(void)m;
	unsigned r = 0;
	if (s->pp > 1 && (s->schedule == SCHED_GPIPE || s->schedule == SCHED_ZBV || s->schedule == SCHED_DUALPIPE))
		r |= REGIME_SCHEDULE;
	if (s->cp > 1 && s->seq < 16384 && (long long)s->cp * s->tp > cluster_domain_devices(c))
		r |= REGIME_SHORT_CP;
	if (s->cp > 32 || (s->cp > 1 && s->seq / s->cp < 2048))
		r |= REGIME_CP_SCALE;
	if (c->eff_from[0])
		r |= REGIME_UNCALIBRATED;
	return r;
}

const char *regime_name(int i)
{
	static const char *const n[REGIME_COUNT] = {"schedule", "short-context cp", "cp scale", "uncalibrated family"};
	return i >= 0 && i < REGIME_COUNT ? n[i] : "?";
}

void regime_text(unsigned r, const strategy_t *s, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < REGIME_COUNT && k < n; i++) {
		if (!(r & (1u << i)))
			continue;
		int w = i == 0 ? snprintf(buf + k, n - k, "%s%s", k ? ", " : "", strat_schedule_name(s->schedule))
			: i == 2 ? snprintf(buf + k, n - k, "%scp %d (%d tokens a rank)", k ? ", " : "", s->cp, s->seq / s->cp)
			: snprintf(buf + k, n - k, "%s%s", k ? ", " : "", regime_name(i));
		if (w < 0)
			break;
		k += (size_t)w;
	}
}
