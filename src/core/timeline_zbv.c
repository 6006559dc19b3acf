/* timeline_zbv.c - ZB-V's per-device program (timeline_zbv.h has the steps and the
 * source). Pure: block pc of one rank, by arithmetic on the phase lengths. */
#include "core/timeline_zbv.h"
#include "core/timeline.h"

void tlz_next(int p, int m, int d, int pc, int *chunk, int *kind, int *mb)
{
	const int r = d, n = m > 2 * p - 1 ? m : 2 * p - 1;
	const int a = 2 * (p - r) - 1, full = n - 2 * p + r + 1, iters = n - p;
	int i = pc;
	if (i < a) { /* warm-up: chunk 0 forwards */
		*chunk = 0, *kind = TL_F, *mb = i;
		return;
	}
	if ((i -= a) < 2 * r) { /* F1 F0 */
		*chunk = i % 2 ? 0 : 1, *kind = TL_F, *mb = i % 2 ? a + i / 2 : i / 2;
		return;
	}
	if ((i -= 2 * r) < 3 * (p - r)) { /* F1 B1 W1 */
		*chunk = 1, *kind = i % 3, *mb = i % 3 ? i / 3 : r + i / 3;
		return;
	}
	i -= 3 * (p - r);
	if (i < 6 * full + 5 * (iters - full)) { /* steady: [F0] B0 W0 F1 B1 W1 */
		int k = i < 6 * full ? i / 6 : full + (i - 6 * full) / 5;
		int j = i < 6 * full ? i % 6 : (i - 6 * full) % 5 + 1;
		static const int ch[6] = {0, 0, 0, 1, 1, 1}, kd[6] = {TL_F, TL_B, TL_W, TL_F, TL_B, TL_W};
		*chunk = ch[j], *kind = kd[j];
		*mb = j == 0 ? 2 * p - r - 1 + k : j < 3 ? k : j == 3 ? p + k : p - r + k;
		return;
	}
	i -= 6 * full + 5 * (iters - full);
	if (i < 2 * r) { /* B0 B1 */
		*chunk = i % 2, *kind = TL_B, *mb = i % 2 ? n - r + i / 2 : n - p + i / 2;
		return;
	}
	if ((i -= 2 * r) < 2 * (p - r)) { /* B0 W0 */
		*chunk = 0, *kind = i % 2 ? TL_W : TL_B, *mb = i % 2 ? n - p + i / 2 : n - p + r + i / 2;
		return;
	}
	i -= 2 * (p - r); /* the W1 left, then the W0 left */
	*chunk = i < r ? 1 : 0, *kind = TL_W, *mb = n - r + (i < r ? i : i - r);
}
