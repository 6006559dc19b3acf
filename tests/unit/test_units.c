/* Unit tests of the human number formats (io/units.h: engineering units, four significant
 * digits, fixed decimals, never an exponent), the nearest-word suggestions (core/nearest.h)
 * and the OSC 52 clipboard sequence (tui/clip.h). */
#include "check.h"
#include "core/nearest.h"
#include "io/units.h"
#include "tui/clip.h"

#include <string.h>

static void time_is(double s, const char *want)
{
	char out[32], name[96];
	units_time(s, out, sizeof out);
	snprintf(name, sizeof name, "units_time(%g) = '%s' (got '%s')", s, want, out);
	CHECK(!strcmp(out, want), name);
}

static void rate_is(double v, const char *want)
{
	char out[32], name[96];
	units_rate(v, out, sizeof out);
	snprintf(name, sizeof name, "units_rate(%g) = '%s' (got '%s')", v, want, out);
	CHECK(!strcmp(out, want), name);
}

static void near_is(const char *w, const char *want)
{
	static const char *const cmds[] = {"eval", "search", "ilp", "export", "validate", "presets", "run"};
	const char *got = nearest_word(w, cmds, sizeof cmds / sizeof cmds[0]);
	char name[96];
	snprintf(name, sizeof name, "nearest '%s' = %s (got %s)", w, want ? want : "none", got ? got : "none");
	CHECK(want ? got && !strcmp(got, want) : !got, name);
}

int main(void)
{
	time_is(7.4551, "7.455 s");
	time_is(9.859, "9.859 s");
	time_is(0.2897, "289.7 ms");
	time_is(0.02179, "21.79 ms");
	time_is(0.9999999, "1.000 s"); /* rounds up: the next unit, not 1000.0 ms */
	time_is(0.000512, "512.0 us");
	time_is(123.456, "123.5 s");
	time_is(12345.6, "12346 s");
	time_is(0, "0 s");
	rate_is(425400, "425.4k");
	rate_is(5.294e6, "5.294M");
	rate_is(812, "812.0");
	rate_is(999999, "1.000M");
	char c[16];
	units_count(812, c, sizeof c);
	CHECK(!strcmp(c, "812"), "units_count(812) = '812'");
	units_count(1069728, c, sizeof c);
	CHECK(!strcmp(c, "1.070M"), "units_count(1069728) = '1.070M'");
	near_is("evl", "eval");
	near_is("serch", "search");
	near_is("sarech", "search");
	near_is("exprot", "export");
	near_is("xyzzy", NULL);
	near_is("val", "eval");
	CHECK(nearest_distance("tp", "pt") == 1, "a swap of neighbours is one edit");
	CHECK(nearest_distance("TP", "tp") == 0, "case is ignored");

	char seq[128];
	size_t n = tui_osc52(seq, sizeof seq, "hi", 2, 0);
	CHECK(n == 12 && !strcmp(seq, "\033]52;c;aGk=\a"), "OSC 52: ESC ] 52 ; c ; base64 BEL");
	n = tui_osc52(seq, sizeof seq, "abc", 3, 1);
	CHECK(n == strlen(seq) && strstr(seq, "\033]52;c;YWJj\a") == seq &&
			!strcmp(seq + 12, "\033Ptmux;\033\033]52;c;YWJj\a\033\\"),
			"OSC 52 in tmux: also in the DCS passthrough, ESC doubled");
	CHECK(tui_osc52(seq, 8, "abc", 3, 0) == 0 && seq[0] == 0, "OSC 52: a short buffer gets nothing");
	return check_done();
}
