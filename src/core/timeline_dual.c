/* timeline_dual.c - DualPipe's per-device program (timeline_dual.h has the steps and the
 * source). Pure: the segment table of one rank. */
#include "core/timeline_dual.h"

/* Append reps x the n tokens of t to seg[*k] (nothing when reps <= 0). */
static void put(tld_seg *seg, int *k, int reps, int n, const unsigned char *t)
{
	if (reps <= 0)
		return;
	seg[*k].reps = reps;
	seg[*k].n = n;
	for (int i = 0; i < n; i++)
		seg[*k].tok[i] = t[i];
	(*k)++;
}

int tld_program(int p, int m, int d, tld_seg seg[TLD_MAX_SEGS])
{
	if (p < 2 || p % 2 || m % 2 || m < 2 * p || d < 0 || d >= p)
		return 0;
	int h = p / 2, r = d < p - 1 - d ? d : p - 1 - d, k = 0, mid = r == h - 1;
	enum { FN = TLD_F, FF = TLD_F | TLD_FAR, BN = TLD_B, BF = TLD_B | TLD_FAR, DN = TLD_BD, DF = TLD_BD | TLD_FAR };
	const unsigned char s1[] = {FN};
	const unsigned char s2[] = {FN, FF | TLD_EARLY_NEAR};
	const unsigned char s3[] = {DF, TLD_W | TLD_EARLY_FAR, FF};
	/* the middle ranks do not overlap their first pair (the repository's note: a smaller bubble) */
	const unsigned char s4a[] = {mid ? FN | TLD_HOLD : FN | TLD_PAIR, BF, FF | TLD_PAIR, BN};
	const unsigned char s4[] = {FN | TLD_PAIR, BF, FF | TLD_PAIR, BN};
	const unsigned char s5[] = {BF, FF | TLD_PAIR, BN};
	const unsigned char s6[] = {BF, BN}, s6h[] = {BF, DN}, s6d[] = {DF, DN};
	const unsigned char s7[] = {TLD_W, DN}, s8[] = {TLD_W};
	put(seg, &k, 2 * (h - r - 1), 1, s1);
	put(seg, &k, r + 1, 2, s2);
	put(seg, &k, h - r - 1, 3, s3);
	put(seg, &k, 1, 4, s4a);
	put(seg, &k, m / 2 - p + r, 4, s4);
	put(seg, &k, h - r - 1, 3, s5);
	/* step 6 defers the weight gradients from its middle iteration on: for odd r from the
	 * far backward of iteration (r+1)/2, for even r from the near one of iteration r/2 */
	if (r % 2) {
		put(seg, &k, (r + 1) / 2, 2, s6);
		put(seg, &k, (r + 1) / 2, 2, s6d);
	} else {
		put(seg, &k, r / 2, 2, s6);
		put(seg, &k, 1, 2, s6h);
		put(seg, &k, r / 2, 2, s6d);
	}
	put(seg, &k, h - r - 1, 2, s7);
	put(seg, &k, r + 1, 1, s8);
	return k;
}
