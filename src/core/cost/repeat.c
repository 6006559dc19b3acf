/* repeat.c - repeated addition in closed form (repeat.h). */
#include <stdint.h>
#include <string.h>

#include "core/cost/repeat.h"

static double bits_double(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

/* The exponent of the lowest set bit of a positive normal double with bits b. */
static int low_bit(uint64_t b)
{
	uint64_t mant = (b & ((1ull << 52) - 1)) | (1ull << 52);
	return __builtin_ctzll(mant) + (int)(b >> 52) - 1075;
}

/* 1 and *out = s + n x when every partial sum is a whole multiple of 2^g (s and x are) below
 * 2^(52+g): then all of them are exact, and so is s + n x computed at once. */
static int rep_exact(double s, double x, int n, double *out)
{
	uint64_t bs, bx;
	memcpy(&bs, &s, sizeof bs);
	memcpy(&bx, &x, sizeof bx);
	int es = (int)(bs >> 52), ex = (int)(bx >> 52);
	if (es == 0 || ex == 0 || es >= 2047 || ex >= 2047) /* zero, subnormal, negative, inf, nan */
		return 0;
	int g = low_bit(bs) < low_bit(bx) ? low_bit(bs) : low_bit(bx);
	if (g < -1022 + 52 || g > 1023 - 53)
		return 0;
	double nx = (double)n * x, sum = s + nx; /* both exact if the bound below holds */
	if (!(sum < bits_double((uint64_t)(g + 52 + 1023) << 52)))
		return 0;
	*out = sum;
	return 1;
}

double rep_add_far(double s, double x, int n)
{
	double exact;
	if (s > 0 && x > 0 && rep_exact(s, x, n, &exact))
		return exact;
	while (n >= REP_LOOP && x > 0) {
		uint64_t b;
		memcpy(&b, &s, sizeof b);
		uint64_t E = b >> 52; /* biased exponent; the sign bit makes a negative s >= 2048 */
		if (E <= 53 || E >= 2045)
			break;
		const double lim = bits_double((E + 1) << 52); /* 2^(e+1): where the binade ends */
		const double top = lim - bits_double((E - 52) << 52); /* its largest number: lim - u */
		/* two additions inside the binade: the second's increment is every later one's */
		s += x;
		n--;
		if (s >= lim)
			continue;
		double s1 = s;
		s += x;
		n--;
		if (s >= lim)
			continue;
		const double d = s - s1;
		if (d == 0) /* x is below half an ulp of s: no further addition moves it */
			return s;
		/* the most additions k with s + k d <= top: the quotient rounds up by at most one */
		double q = (top - s) / d;
		int k = q < n ? (int)q : n;
		if (k > 0 && s + k * d > top)
			k--;
		s += k * d;
		n -= k;
		while (n > 0 && s < lim) { /* out of the binade one addition at a time */
			s += x;
			n--;
		}
	}
	for (; n > 0; n--)
		s += x;
	return s;
}
