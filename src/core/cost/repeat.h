/* repeat.h - the sum a loop makes when it adds the same number again and again, rounded
 * after every addition exactly as the loop rounds, without running the loop.
 *
 * Why it is exact (IEEE 754 binary64, round to nearest, ties to even): while a running sum
 * s and s + x stay inside one binade [2^e, 2^(e+1)), every sum is a multiple of that
 * binade's ulp u, so each addition adds x rounded to a multiple of u. Away from a tie that
 * increment d is the same for every addition; at a tie (x a multiple of u plus u/2) the
 * result is the even multiple, and from an even sum the even choice is the same every time,
 * so after one addition in the binade the increment is constant too. rep_add therefore adds
 * one by one until two additions inside a binade give d, then jumps k additions at once
 * (s + k d is exact: a multiple of u below 2^(e+1)) while s + k d + u stays at most
 * 2^(e+1), where no addition can round into the next binade; and so on per binade. A sum
 * over n additions crosses about log2 of its growth binades, so the cost is logarithmic in
 * n, not linear. Goldberg, "What every computer scientist should know about floating-point
 * arithmetic" (1991), sec. 1.2 and Theorem 11 (Sterbenz: x - y is exact for y/2 <= x <= 2y),
 * which makes lim - u - s and the increment d exact.
 * Used where a pipeline's alike stages add the same figures to the step's sums. */
#ifndef STRATA_CORE_COST_REPEAT_H
#define STRATA_CORE_COST_REPEAT_H

/* Below this many additions the loop is cheaper than finding the binades. */
#define REP_LOOP 16

/* rep_add for any n (its out-of-line part). */
double rep_add_far(double s, double x, int n);

/* s + x + x + ... with n additions of x, each rounded: the bits of
 * `for (i = 0; i < n; i++) s += x;`. When s, x and every partial sum are whole multiples of
 * one power of two with at most 53 significant bits (FLOP counts often are), every addition
 * is exact and so is s + n x at once. */
static inline double rep_add(double s, double x, int n)
{
	if (n >= REP_LOOP)
		return rep_add_far(s, x, n);
	for (; n > 0; n--)
		s += x;
	return s;
}

#endif
