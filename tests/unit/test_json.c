/* Unit tests for src/io/json.c: layout, numbers, string escaping and
 * misuse handling. Output is captured in memory and compared exactly. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "check.h"
#include "io/json.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An in-memory FILE and what was written to it. */
typedef struct {
	FILE *f;
	char *buf;
	size_t len;
} capture;

static int
cap_open(capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f != NULL;
}

/* Close the stream and compare its text with WANT. */
static void
cap_check(capture *c, const char *want, const char *name)
{
	fclose(c->f);
	if (!CHECK(c->buf != NULL && strcmp(c->buf, want) == 0, name))
		printf("  got  \"%s\"\n  want \"%s\"\n", c->buf ? c->buf : "(null)", want);
	free(c->buf);
}

/* Text of one string written with json_str at the top level. */
static void
check_str(const char *in, const char *want, const char *name)
{
	capture c;
	json_w w;

	if (!cap_open(&c))
		return;
	json_init(&w, c.f, 0);
	json_str(&w, NULL, in);
	cap_check(&c, want, name);
}

/* Text of one number written with json_num at the top level. */
static void
check_num(double v, const char *want, const char *name)
{
	capture c;
	json_w w;

	if (!cap_open(&c))
		return;
	json_init(&w, c.f, 0);
	json_num(&w, NULL, v);
	cap_check(&c, want, name);
}

static void
write_sample(json_w *w)
{
	json_obj_begin(w, NULL);
	json_str(w, "name", "llama");
	json_int(w, "layers", 80);
	json_num(w, "peak_gib", 61.25);
	json_bool(w, "fits", 1);
	json_null(w, "note");
	json_arr_begin(w, "stages");
	json_obj_begin(w, NULL);
	json_int(w, "stage", 0);
	json_arr_end(w); /* deliberately the wrong end for an object */
}

static void
test_layout(void)
{
	capture c;
	json_w w;

	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		json_obj_begin(&w, NULL);
		json_str(&w, "name", "llama");
		json_int(&w, "layers", 80);
		json_num(&w, "peak_gib", 61.25);
		json_bool(&w, "fits", 1);
		json_bool(&w, "sp", 0);
		json_null(&w, "note");
		json_arr_begin(&w, "stages");
		json_obj_begin(&w, NULL);
		json_int(&w, "stage", 0);
		json_obj_end(&w);
		json_int(&w, NULL, 7);
		json_arr_end(&w);
		json_obj_begin(&w, "empty_obj");
		json_obj_end(&w);
		json_arr_begin(&w, "empty_arr");
		json_arr_end(&w);
		json_obj_end(&w);
		json_end(&w);
		CHECK(!json_failed(&w), "compact: no misuse");
		cap_check(&c,
			  "{\"name\":\"llama\",\"layers\":80,\"peak_gib\":61.25,\"fits\":true,"
			  "\"sp\":false,\"note\":null,\"stages\":[{\"stage\":0},7],"
			  "\"empty_obj\":{},\"empty_arr\":[]}\n",
			  "compact: exact output");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 1);
		json_obj_begin(&w, NULL);
		json_str(&w, "name", "llama");
		json_arr_begin(&w, "stages");
		json_obj_begin(&w, NULL);
		json_int(&w, "stage", 0);
		json_num(&w, "gib", 1.5);
		json_obj_end(&w);
		json_obj_begin(&w, NULL);
		json_obj_end(&w);
		json_arr_end(&w);
		json_arr_begin(&w, "none");
		json_arr_end(&w);
		json_obj_end(&w);
		json_end(&w);
		CHECK(!json_failed(&w), "pretty: no misuse");
		cap_check(&c,
			  "{\n"
			  "  \"name\": \"llama\",\n"
			  "  \"stages\": [\n"
			  "    {\n"
			  "      \"stage\": 0,\n"
			  "      \"gib\": 1.5\n"
			  "    },\n"
			  "    {}\n"
			  "  ],\n"
			  "  \"none\": []\n"
			  "}\n",
			  "pretty: exact output");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 1);
		json_int(&w, NULL, 1);
		json_arr_begin(&w, NULL);
		json_arr_end(&w);
		json_str(&w, NULL, "x");
		json_end(&w);
		CHECK(!json_failed(&w), "top level: several values allowed");
		cap_check(&c, "1\n[]\n\"x\"\n", "top level: one value per line");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		json_obj_begin(&w, NULL);
		json_str(&w, "k\"ey\n", "v");
		json_obj_end(&w);
		cap_check(&c, "{\"k\\\"ey\\n\":\"v\"}", "keys are escaped");
	}
}

static void
test_numbers(void)
{
	capture c;
	json_w w;

	check_num(NAN, "null", "num: NaN -> null");
	check_num(INFINITY, "null", "num: inf -> null");
	check_num(-INFINITY, "null", "num: -inf -> null");
	check_num(3.0, "3", "num: integral without decimals");
	check_num(-42.0, "-42", "num: negative integral");
	check_num(-0.0, "0", "num: negative zero");
	check_num(1e15, "1000000000000000", "num: 1e15 as an integer");
	check_num(0.1, "0.1", "num: 0.1");
	check_num(-2.5e-7, "-2.5e-07", "num: small exponent");
	check_num(1e300, "1e+300", "num: huge");
	check_num(1.0 / 3.0, "0.3333333333", "num: ten significant digits");
	check_num(123456.789012345, "123456.789", "num: rounds to ten digits");
	{
		/* Ten digits survive a round trip to within 5e-10 relative. */
		static const double vs[] = { 61.234567891, 1.0e-9 * 7.123456789, 9.87654321e12 + 0.5 };
		size_t i;

		for (i = 0; i < sizeof vs / sizeof vs[0]; i++) {
			char name[64];

			if (!cap_open(&c))
				return;
			json_init(&w, c.f, 0);
			json_num(&w, NULL, vs[i]);
			fclose(c.f);
			snprintf(name, sizeof name, "num: round trip %g", vs[i]);
			CHECK_NEAR(strtod(c.buf, NULL), vs[i], 5e-10, name);
			free(c.buf);
		}
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		json_arr_begin(&w, NULL);
		json_int(&w, NULL, LLONG_MIN);
		json_int(&w, NULL, LLONG_MAX);
		json_int(&w, NULL, 0);
		json_arr_end(&w);
		cap_check(&c, "[-9223372036854775808,9223372036854775807,0]", "int: extremes");
	}
	{
		/* A comma-radix LC_NUMERIC must not leak into the JSON. */
		static const char *const locs[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8" };
		const char *got = NULL;
		size_t i;

		for (i = 0; i < sizeof locs / sizeof locs[0] && got == NULL; i++)
			got = setlocale(LC_NUMERIC, locs[i]);
		if (got != NULL) {
			check_num(61.25, "61.25", "num: independent of LC_NUMERIC");
			setlocale(LC_NUMERIC, "C");
		} else {
			printf("SKIP num: no comma-radix locale installed\n");
		}
	}
}

static void
test_strings(void)
{
	check_str("plain", "\"plain\"", "str: plain");
	check_str("", "\"\"", "str: empty");
	check_str(NULL, "null", "str: NULL -> null");
	check_str("a\"b\\c/d", "\"a\\\"b\\\\c/d\"", "str: quote and backslash");
	check_str("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"", "str: short escapes");
	check_str("\x01\x1f\x1b[31m", "\"\\u0001\\u001f\\u001b[31m\"", "str: control chars as \\u00XX");
	check_str("del\x7f", "\"del\\u007f\"", "str: DEL escaped (a terminal control character)");
	check_str("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
		  "str: valid UTF-8 passes through");
	check_str("\xe2\x80\xa8|\xe2\x80\xa9", "\"\\u2028|\\u2029\"", "str: U+2028/2029 escaped");
	check_str("a\xff" "b", "\"a\xef\xbf\xbd" "b\"", "str: invalid byte -> U+FFFD");
	check_str("\x80\xbf", "\"\xef\xbf\xbd\xef\xbf\xbd\"", "str: lone continuation bytes");
	check_str("\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"", "str: overlong '/' rejected");
	check_str("\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "str: overlong 3-byte rejected");
	check_str("\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "str: UTF-16 surrogate rejected");
	check_str("\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
		  "str: above U+10FFFF rejected");
	check_str("\xe2\x82" "A", "\"\xef\xbf\xbd" "A\"", "str: truncated sequence is one U+FFFD");
	check_str("end\xf0\x9f\x98", "\"end\xef\xbf\xbd\"", "str: truncated at end of string");
	check_str("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"", "str: U+10FFFF is valid");
}

static void
test_misuse(void)
{
	char want[400], *p;
	capture c;
	json_w w;
	int i;

	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		json_obj_begin(&w, NULL);
		json_int(&w, NULL, 1);
		json_obj_end(&w);
		CHECK(json_failed(&w), "misuse: missing key in object flagged");
		cap_check(&c, "{\"\":1}", "misuse: missing key still gives valid JSON");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		json_arr_begin(&w, NULL);
		json_int(&w, "k", 1);
		json_arr_end(&w);
		CHECK(json_failed(&w), "misuse: key in array flagged");
		cap_check(&c, "[1]", "misuse: key in array dropped");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		write_sample(&w); /* ends an object with json_arr_end */
		CHECK(json_failed(&w), "misuse: mismatched end flagged");
		json_obj_end(&w);
		json_arr_end(&w);
		json_obj_end(&w);
		json_obj_end(&w); /* one too many */
		json_end(&w);
		cap_check(&c,
			  "{\"name\":\"llama\",\"layers\":80,\"peak_gib\":61.25,\"fits\":true,"
			  "\"note\":null,\"stages\":[{\"stage\":0}]}\n",
			  "misuse: extra ends are ignored");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		json_obj_begin(&w, NULL);
		json_end(&w);
		CHECK(json_failed(&w), "misuse: json_end with an open container flagged");
		fclose(c.f);
		free(c.buf);
	}
	if (cap_open(&c)) {
		/* 70 nested arrays: the 65th is written empty, deeper ones vanish. */
		json_init(&w, c.f, 0);
		for (i = 0; i < 70; i++)
			json_arr_begin(&w, NULL);
		json_int(&w, NULL, 1);
		for (i = 0; i < 70; i++)
			json_arr_end(&w);
		json_int(&w, NULL, 2); /* back at the top level */
		CHECK(json_failed(&w) && w.depth == 0, "misuse: nesting past 64 flagged, depth restored");
		for (p = want, i = 0; i < 64; i++)
			*p++ = '[';
		p += sprintf(p, "[]");
		for (i = 0; i < 64; i++)
			*p++ = ']';
		strcpy(p, "\n2");
		cap_check(&c, want, "misuse: nesting past 64 stays valid JSON");
	}
	if (cap_open(&c)) {
		json_init(&w, c.f, 0);
		for (i = 0; i < 64; i++)
			json_obj_begin(&w, i ? "k" : NULL);
		for (i = 0; i < 64; i++)
			json_obj_end(&w);
		CHECK(!json_failed(&w), "depth 64 is allowed");
		fclose(c.f);
		free(c.buf);
	}
}

int
main(void)
{
	test_layout();
	test_numbers();
	test_strings();
	test_misuse();
	return check_done();
}
