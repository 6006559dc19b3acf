/* test_cand_filter.c - the search table's `/` filter: terms, operators, names, errors. */
#include "check.h"
#include "solve/cand_filter.h"

#include <string.h>

static search_item item(int tp, int pp, int rc, double step, double mfu)
{
	search_item it;
	memset(&it, 0, sizeof it);
	it.s = strat_default();
	it.s.tp = tp;
	it.s.pp = pp;
	it.s.recompute = (uint8_t)rc;
	it.step = step;
	it.mfu = mfu;
	it.peak_gib = 60;
	return it;
}

int main(void)
{
	cand_filter f;
	char err[200];
	search_item a = item(8, 4, RC_FULL, 9.5, 0.41), b = item(16, 2, RC_NONE, 12, 0.33);
	CHECK(cand_filter_parse("", &f, err, sizeof err) == 0 && f.n == 0 && cand_filter_match(&f, &a),
			"an empty filter matches everything");
	CHECK(cand_filter_parse("tp<=8 pp=4", &f, err, sizeof err) == 0 && f.n == 2, "two terms");
	CHECK(cand_filter_match(&f, &a) && !cand_filter_match(&f, &b), "tp<=8 pp=4: keeps tp8 pp4, drops tp16 pp2");
	CHECK(cand_filter_parse("step<10 mfu>=40", &f, err, sizeof err) == 0 && cand_filter_match(&f, &a) &&
			!cand_filter_match(&f, &b), "figures: step in seconds, mfu in percent");
	CHECK(cand_filter_parse("recompute=full", &f, err, sizeof err) == 0 && cand_filter_match(&f, &a) &&
			!cand_filter_match(&f, &b), "names: recompute=full");
	CHECK(cand_filter_parse("rc!=sel tp>8", &f, err, sizeof err) == 0 && !cand_filter_match(&f, &a) &&
			cand_filter_match(&f, &b), "!= and > ; sel for selective");
	CHECK(cand_filter_parse("tq=8", &f, err, sizeof err) == -1 && strstr(err, "unknown key"), "an unknown key is named");
	CHECK(cand_filter_parse("tp~8", &f, err, sizeof err) == -1 && strstr(err, "OP"), "a bad operator");
	CHECK(cand_filter_parse("tp=eight", &f, err, sizeof err) == -1 && strstr(err, "not a number"), "a bad number");
	CHECK(cand_filter_parse("recompute<full", &f, err, sizeof err) == -1 && strstr(err, "= or != only"),
			"names take = and != only");
	CHECK(cand_filter_parse("schedule=zigzag", &f, err, sizeof err) == -1, "an unknown schedule");
	return check_done();
}
