/* Unit tests for src/io/ydoc.c: tree shape and positions, every loader
 * error, hostile inputs and the typed readers. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, ftruncate */

#include "check.h"
#include "io/ydoc.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ERRLEN 512

static yd_doc *
load(const char *text, char *err)
{
	err[0] = '\0';
	return yd_load_string(text, strlen(text), "t.yaml", err, ERRLEN);
}

/* Loading TEXT must fail with exactly WANT. */
static void
check_error(const char *text, const char *want, const char *name)
{
	char err[ERRLEN];
	yd_doc *d = load(text, err);

	if (!CHECK(d == NULL && strcmp(err, want) == 0, name))
		printf("  got \"%s\"\n  want \"%s\"\n", d ? "(loaded)" : err, want);
	yd_free(d);
}

/* Write LEN bytes to a fresh temporary file; its path goes to PATH. */
static int
write_tmp(char *path, size_t pathlen, const void *data, size_t len)
{
	int fd;

	snprintf(path, pathlen, "/tmp/strata-ydoc-XXXXXX");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (len > 0 && write(fd, data, len) != (ssize_t)len) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

static int
at(const yd_node *n, int line, int col)
{
	return n != NULL && yd_line(n) == line && yd_col(n) == col;
}

static void
test_block(void)
{
	static const char text[] =
		"# a plan\n"
		"model:\n"
		"  name: llama\n"
		"  layers: 80\n"
		"list:\n"
		"  - 1\n"
		"  - {x: 2}\n"
		"  - [a, \"b\"]\n"
		"  -\n"
		"    - deep\n"
		"empty:\n";
	char err[ERRLEN];
	yd_doc *d = load(text, err);
	const yd_node *r, *m, *l, *it;

	if (!CHECK(d != NULL, "block: loads")) {
		printf("  %s\n", err);
		return;
	}
	r = yd_root(d);
	CHECK(yd_kind_of(r) == YD_MAP && yd_len(r) == 3, "block: root map of 3");
	CHECK(at(r, 2, 1), "block: root position 2:1");
	CHECK(strcmp(yd_key(r, 0), "model") == 0 && strcmp(yd_key(r, 1), "list") == 0 &&
		      strcmp(yd_key(r, 2), "empty") == 0,
	      "block: keys in document order");
	CHECK(yd_key(r, 3) == NULL && yd_val(r, 3) == NULL && yd_keynode(r, 3) == NULL,
	      "block: out-of-range entry is NULL");
	m = yd_get(r, "model");
	CHECK(yd_kind_of(m) == YD_MAP && yd_len(m) == 2, "block: nested map");
	CHECK(at(yd_keynode(m, 1), 4, 3), "block: key 'layers' at 4:3");
	CHECK(at(yd_get(m, "layers"), 4, 11), "block: value 80 at 4:11");
	CHECK(strcmp(yd_str(yd_get(m, "layers")), "80") == 0, "block: scalar text");
	CHECK(yd_plain(yd_get(m, "name")) == 1, "block: plain scalar");
	l = yd_get(r, "list");
	CHECK(yd_kind_of(l) == YD_SEQ && yd_len(l) == 4, "block: seq of 4");
	CHECK(at(l, 6, 3), "block: seq position 6:3");
	CHECK(at(yd_item(l, 0), 6, 5), "block: item 0 at 6:5");
	it = yd_item(l, 1);
	CHECK(yd_kind_of(it) == YD_MAP && at(it, 7, 5) && at(yd_get(it, "x"), 7, 9),
	      "block: flow map inside block seq, positions");
	it = yd_item(l, 2);
	CHECK(yd_kind_of(it) == YD_SEQ && yd_len(it) == 2 && yd_plain(yd_item(it, 1)) == 0 &&
		      strcmp(yd_str(yd_item(it, 1)), "b") == 0 && at(yd_item(it, 1), 8, 9),
	      "block: quoted item, not plain, at 8:9 (its opening quote)");
	it = yd_item(l, 3);
	CHECK(yd_kind_of(it) == YD_SEQ && strcmp(yd_str(yd_item(it, 0)), "deep") == 0 &&
		      at(yd_item(it, 0), 10, 7),
	      "block: seq in seq");
	CHECK(yd_item(l, 4) == NULL && yd_item(r, 0) == NULL, "block: yd_item bounds and kind");
	CHECK(yd_str(yd_get(r, "empty")) != NULL && yd_str(yd_get(r, "empty"))[0] == '\0' &&
		      yd_plain(yd_get(r, "empty")),
	      "block: empty value is plain \"\"");
	CHECK(yd_get(r, "nope") == NULL && yd_get(l, "x") == NULL && yd_get(NULL, "x") == NULL,
	      "block: yd_get absent / not a map");
	CHECK(yd_str(m) == NULL && yd_len(yd_get(m, "name")) == 0, "block: str/len kind checks");
	CHECK(strcmp(yd_name(d), "t.yaml") == 0, "block: yd_name");
	yd_free(d);
}

static void
test_flow_and_json(void)
{
	char err[ERRLEN];
	yd_doc *d = load("{a: 1, b: [1,2]}", err);
	const yd_node *r, *b;
	long long v;
	double x;
	int t;

	if (CHECK(d != NULL, "flow: loads")) {
		r = yd_root(d);
		b = yd_get(r, "b");
		CHECK(yd_kind_of(r) == YD_MAP && yd_len(r) == 2 && at(r, 1, 1), "flow: map at 1:1");
		CHECK(at(yd_get(r, "a"), 1, 5), "flow: a's value at 1:5");
		CHECK(yd_kind_of(b) == YD_SEQ && yd_len(b) == 2 && at(b, 1, 11) &&
			      at(yd_item(b, 1), 1, 14),
		      "flow: b seq positions");
		CHECK(yd_long(d, yd_item(b, 1), "b[1]", 0, 10, &v, err, ERRLEN) == 0 && v == 2,
		      "flow: read b[1]");
	}
	yd_free(d);

	d = load("{\"hidden_size\": 8192, \"act\": \"silu\", \"tie\": false,\n"
		 " \"drop\": 0.1, \"x\": null, \"arr\": [1.5, -2e3, {}], \"e\": []}",
		 err);
	if (CHECK(d != NULL, "json: loads")) {
		r = yd_root(d);
		CHECK(yd_len(r) == 7, "json: 7 keys");
		CHECK(yd_long(d, yd_get(r, "hidden_size"), "hidden_size", 1, LLONG_MAX, &v, err,
			      ERRLEN) == 0 &&
			      v == 8192,
		      "json: integer");
		CHECK(strcmp(yd_str(yd_get(r, "act")), "silu") == 0 && !yd_plain(yd_get(r, "act")),
		      "json: string is quoted");
		CHECK(yd_bool(d, yd_get(r, "tie"), "tie", &t, err, ERRLEN) == 0 && t == 0,
		      "json: false");
		CHECK(yd_double(d, yd_get(r, "drop"), "drop", 0, 1, &x, err, ERRLEN) == 0,
		      "json: fraction reads");
		CHECK_NEAR(x, 0.1, 1e-15, "json: fraction value");
		CHECK(yd_plain(yd_get(r, "x")) && strcmp(yd_str(yd_get(r, "x")), "null") == 0,
		      "json: null is the plain scalar 'null'");
		b = yd_get(r, "arr");
		CHECK(yd_double(d, yd_item(b, 1), "arr[1]", -1e9, 1e9, &x, err, ERRLEN) == 0 &&
			      x == -2000.0,
		      "json: exponent number");
		CHECK(yd_kind_of(yd_item(b, 2)) == YD_MAP && yd_len(yd_item(b, 2)) == 0,
		      "json: empty object");
		CHECK(yd_kind_of(yd_get(r, "e")) == YD_SEQ && yd_len(yd_get(r, "e")) == 0,
		      "json: empty array");
		CHECK(at(yd_get(r, "drop"), 2, 10), "json: position on line 2");
	}
	yd_free(d);
}

static void
test_positions_misc(void)
{
	char err[ERRLEN];
	yd_doc *d;

	/* Columns count characters, not bytes (libyaml's convention). */
	d = load("ключ: [1, x]\n", err);
	CHECK(d && at(yd_item(yd_get(yd_root(d), "ключ"), 1), 1, 11),
	      "pos: column counts UTF-8 characters");
	yd_free(d);
	d = load("a: 1\r\nb:\r\n  c: 2\r\n", err);
	CHECK(d && at(yd_get(yd_get(yd_root(d), "b"), "c"), 3, 6), "pos: CRLF line endings");
	yd_free(d);
	d = load("plain scalar root", err);
	CHECK(d && yd_kind_of(yd_root(d)) == YD_SCALAR &&
		      strcmp(yd_str(yd_root(d)), "plain scalar root") == 0,
	      "pos: scalar root");
	yd_free(d);
	d = load("a: &anchor 1\nb: 2\n", err);
	CHECK(d != NULL && strcmp(yd_str(yd_get(yd_root(d), "a")), "1") == 0,
	      "anchor without alias is ignored");
	yd_free(d);
	d = load("a: !!str 5\n", err);
	CHECK(d != NULL && strcmp(yd_str(yd_get(yd_root(d), "a")), "5") == 0, "tags are ignored");
	yd_free(d);
	d = load("text: |\n  line one\n  line two\n", err);
	CHECK(d && strcmp(yd_str(yd_get(yd_root(d), "text")), "line one\nline two\n") == 0 &&
		      !yd_plain(yd_get(yd_root(d), "text")),
	      "block scalar text, not plain");
	yd_free(d);
	d = load("\"\": 1\n", err);
	CHECK(d && yd_get(yd_root(d), "") != NULL, "empty quoted key");
	yd_free(d);
	d = load("a: 1\n...\n", err);
	CHECK(d != NULL, "explicit document end is fine");
	yd_free(d);
	d = load("--- {a: 1}\n", err);
	CHECK(d != NULL && yd_len(yd_root(d)) == 1, "single explicit document");
	yd_free(d);
}

static void
test_syntax_errors(void)
{
	check_error("{a: 1, b: 2",
		    "t.yaml:1:12: did not find expected ',' or '}' (while parsing a flow mapping at 1:1)",
		    "err: unclosed flow mapping points at end of input");
	check_error("key: {a: 1,\n  b: 2\n",
		    "t.yaml:3:1: did not find expected ',' or '}' (while parsing a flow mapping at 1:6)",
		    "err: unclosed flow mapping over lines");
	check_error("a: [1, 2\nb: 3\n",
		    "t.yaml:2:2: did not find expected ',' or ']' (while parsing a flow sequence at 1:4)",
		    "err: unclosed flow sequence");
	check_error("a: 1\n\tb: 2\n",
		    "t.yaml:2:1: found a tab character that violates indentation (while scanning a "
		    "plain scalar at 1:4)",
		    "err: tab indentation");
	check_error("a:\n\tb: 2\n",
		    "t.yaml:2:1: found character that cannot start any token (while scanning for the "
		    "next token at 2:1)",
		    "err: tab before a nested key");
	check_error("a: 1\n b: 2\n", "t.yaml:2:3: mapping values are not allowed in this context",
		    "err: bad indentation");
	check_error("x: \"abc",
		    "t.yaml:1:8: found unexpected end of stream (while scanning a quoted scalar at 1:4)",
		    "err: unterminated quote");
	check_error("a: [1,\n  2,\n  }",
		    "t.yaml:3:3: did not find expected node content (while parsing a flow node at 3:3)",
		    "err: stray brace");
}

static void
test_semantic_errors(void)
{
	char text[600], *p;
	char err[ERRLEN];
	yd_doc *d;
	int i;

	check_error("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key 'a' (first at 1:1)",
		    "err: duplicate key");
	check_error("{x: 1, \"x\": 2}", "t.yaml:1:8: duplicate key 'x' (first at 1:2)",
		    "err: duplicate key, plain vs quoted");
	check_error("m:\n  k: 1\n  \"\\e[31m\": 1\n  \"\\e[31m\": 2\n",
		    "t.yaml:4:3: duplicate key '?[31m' (first at 3:3)",
		    "err: duplicate key message neutralises control characters");
	d = load("a: {x: 1}\nb: {x: 1}\n", err);
	CHECK(d != NULL, "same key in two maps is fine");
	yd_free(d);

	check_error("a: &x 1\nb: *x\n", "t.yaml:2:4: aliases are not supported", "err: alias");
	check_error("base: &b {x: 1}\nderived:\n  <<: *b\n", "t.yaml:3:7: aliases are not supported",
		    "err: merge key via alias");
	check_error("a: 1\n---\nb: 2\n", "t.yaml:2:1: multiple documents are not supported",
		    "err: two documents");
	check_error("--- a\n--- b\n", "t.yaml:2:1: multiple documents are not supported",
		    "err: two explicit documents");
	check_error("? [a, b]\n: 1\n", "t.yaml:1:3: mapping keys must be scalars",
		    "err: sequence key");
	check_error("{{a: 1}: 2}", "t.yaml:1:2: mapping keys must be scalars", "err: flow map key");
	check_error("a: \"x\\0y\"\n", "t.yaml:1:4: NUL character in a string", "err: NUL in string");

	/* Depth: 64 nested sequences load, 65 do not. */
	for (p = text, i = 0; i < 64; i++)
		*p++ = '[';
	for (i = 0; i < 64; i++)
		*p++ = ']';
	*p = '\0';
	d = load(text, err);
	CHECK(d != NULL, "depth 64 loads");
	yd_free(d);
	for (p = text, i = 0; i < 65; i++)
		*p++ = '[';
	for (i = 0; i < 65; i++)
		*p++ = ']';
	*p = '\0';
	check_error(text, "t.yaml:1:65: nesting deeper than 64 levels", "err: depth 65 sequences");
	for (p = text, i = 0; i < 65; i++)
		p += sprintf(p, "{a: ");
	p += sprintf(p, "1");
	for (i = 0; i < 65; i++)
		*p++ = '}';
	*p = '\0';
	check_error(text, "t.yaml:1:257: nesting deeper than 64 levels", "err: depth 65 maps");
	/* Unclosed nesting far past the limit stops at the limit, not at EOF. */
	memset(text, '[', 500);
	text[500] = '\0';
	check_error(text, "t.yaml:1:65: nesting deeper than 64 levels", "err: 500 open brackets");
}

static void
test_hostile_bytes(void)
{
	static const char garbage[] = "a: 1\nb: \x01\x02\x7f\xfe binary";
	char err[ERRLEN];
	yd_doc *d;

	check_error(garbage, "t.yaml:2:4: control characters are not allowed (0x01)",
		    "err: control bytes");
	check_error("a: b\nc: \x80\n", "t.yaml:2:4: invalid leading UTF-8 octet (0x80)",
		    "err: invalid UTF-8 lead byte");
	check_error("é: \xc3", "t.yaml:1:4: incomplete UTF-8 octet sequence",
		    "err: truncated UTF-8, column in characters");
	/* Embedded NUL bytes: yd_load_string takes a length, not a C string. */
	d = yd_load_string("a: 1\n\0\0\0\0", 9, "t.yaml", err, ERRLEN);
	CHECK(d == NULL && strcmp(err, "t.yaml:2:1: control characters are not allowed (0x00)") == 0,
	      "err: NUL bytes in the input");
	yd_free(d);
	d = yd_load_string("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01", 12, "t.yaml", err, ERRLEN);
	CHECK(d == NULL && strncmp(err, "t.yaml:1:1: ", 12) == 0, "err: JPEG header");
	yd_free(d);
}

static void
test_empty_and_files(void)
{
	char path[64], err[ERRLEN], big[32];
	yd_doc *d;
	FILE *f;

	d = load("", err);
	CHECK(d != NULL && yd_root(d) == NULL, "empty string: no root");
	yd_free(d);
	d = load("# only a comment\n\n", err);
	CHECK(d != NULL && yd_root(d) == NULL, "comment only: no root");
	yd_free(d);
	d = load("---\n", err);
	CHECK(d != NULL && yd_root(d) == NULL, "bare '---': no root");
	yd_free(d);
	d = yd_load_string(NULL, 0, NULL, err, ERRLEN);
	CHECK(d != NULL && yd_root(d) == NULL && strcmp(yd_name(d), "<string>") == 0,
	      "NULL text and name");
	yd_free(d);

	if (write_tmp(path, sizeof path, "", 0) == 0) {
		d = yd_load_file(path, err, ERRLEN);
		CHECK(d != NULL && yd_root(d) == NULL, "empty file: no root");
		yd_free(d);
		unlink(path);
	}
	if (write_tmp(path, sizeof path, "a:\n  - 1\n  - 2\n", 15) == 0) {
		d = yd_load_file(path, err, ERRLEN);
		CHECK(d != NULL && yd_len(yd_get(yd_root(d), "a")) == 2 &&
			      strcmp(yd_name(d), path) == 0,
		      "file: loads, name is the path");
		yd_free(d);
		unlink(path);
	}
	if (write_tmp(path, sizeof path, "a: [1,\n", 7) == 0) {
		char want[ERRLEN];

		d = yd_load_file(path, err, ERRLEN);
		snprintf(want, sizeof want,
			 "%s:2:1: did not find expected node content (while parsing a flow node at 2:1)",
			 path);
		if (!CHECK(d == NULL && strcmp(err, want) == 0, "file: syntax error names the path"))
			printf("  got \"%s\"\n", err);
		yd_free(d);
		unlink(path);
	}
	if (write_tmp(path, sizeof path, "x: \xff\xfe\x00garbage", 13) == 0) {
		char want[ERRLEN];

		d = yd_load_file(path, err, ERRLEN);
		snprintf(want, sizeof want, "%s:1:4: invalid leading UTF-8 octet (0xFF)", path);
		CHECK(d == NULL && strcmp(err, want) == 0, "file: binary garbage");
		yd_free(d);
		unlink(path);
	}

	d = yd_load_file("/nonexistent/strata.yaml", err, ERRLEN);
	CHECK(d == NULL && strcmp(err, "/nonexistent/strata.yaml: No such file or directory") == 0,
	      "file: nonexistent path");
	d = yd_load_file("/tmp", err, ERRLEN);
	CHECK(d == NULL && strcmp(err, "/tmp: Is a directory") == 0, "file: directory");

	/* A sparse 65 MiB file is refused from its size, without reading it. */
	if (write_tmp(path, sizeof path, "", 0) == 0) {
		if ((f = fopen(path, "r+")) != NULL) {
			if (ftruncate(fileno(f), (off_t)65 << 20) == 0) {
				d = yd_load_file(path, err, ERRLEN);
				snprintf(big, sizeof big, "%s", strstr(err, "file is larger") ? "y" : "n");
				CHECK(d == NULL && big[0] == 'y' && strncmp(err, path, strlen(path)) == 0,
				      "file: larger than 64 MiB refused");
				yd_free(d);
			}
			fclose(f);
		}
		unlink(path);
	}
	{
		/* The string entry point has the same limit. */
		size_t n = ((size_t)64 << 20) + 1;
		char *buf = calloc(1, n);

		if (buf != NULL) {
			d = yd_load_string(buf, n, "big", err, ERRLEN);
			CHECK(d == NULL && strcmp(err, "big: input is larger than 64 MiB (67108865 bytes)") == 0,
			      "string: larger than 64 MiB refused");
			yd_free(d);
			free(buf);
		}
	}
}

static double
seconds(clock_t since)
{
	return (double)(clock() - since) / CLOCKS_PER_SEC;
}

static void
test_big_inputs(void)
{
	size_t n = 2500000, i, len;
	char *text, *p, err[ERRLEN];
	yd_doc *d;
	clock_t t0;
	long long v = 0;

	/* 10 MB block sequence. */
	text = malloc(n * 4 + 1);
	if (text == NULL)
		return;
	for (p = text, i = 0; i < n; i++, p += 4)
		memcpy(p, "- 7\n", 4);
	*p = '\0';
	t0 = clock();
	d = yd_load_string(text, n * 4, "big", err, ERRLEN);
	CHECK(d != NULL && yd_len(yd_root(d)) == n, "big: 10 MB sequence loads");
	CHECK(d && yd_long(d, yd_item(yd_root(d), n - 1), "last", 0, 9, &v, err, ERRLEN) == 0 &&
		      v == 7 && at(yd_item(yd_root(d), n - 1), (int)n, 3),
	      "big: last item and its position");
	CHECK(seconds(t0) < 30.0, "big: sequence in bounded time");
	yd_free(d);
	free(text);

	/* A 200k-key flow map exercises the sorted duplicate check... */
	n = 200000;
	text = malloc(n * 16 + 16);
	if (text == NULL)
		return;
	p = text;
	*p++ = '{';
	for (i = 0; i < n; i++)
		p += sprintf(p, "k%zu: %zu, ", i, i);
	strcpy(p, "}");
	len = strlen(text);
	t0 = clock();
	d = yd_load_string(text, len, "big", err, ERRLEN);
	CHECK(d != NULL && yd_len(yd_root(d)) == n, "big: 200k-key map loads");
	CHECK(d && yd_get(yd_root(d), "k199999") != NULL, "big: last key found");
	CHECK(seconds(t0) < 30.0, "big: map in bounded time");
	yd_free(d);
	/* ...and finds the earliest repeat, with its first occurrence. */
	{
		char want[128];

		p = text + len - 1; /* overwrite the closing brace */
		sprintf(p, "k5: 0, k150000: 1, k10: 2}");
		snprintf(want, sizeof want, "big:1:%zu: duplicate key 'k5' (first at 1:%zu)", len,
			 (size_t)(strstr(text, "k5:") - text) + 1);
		d = yd_load_string(text, strlen(text), "big", err, ERRLEN);
		if (!CHECK(d == NULL && strcmp(err, want) == 0,
			   "big: earliest duplicate reported in a large map"))
			printf("  got \"%s\"\n  want \"%s\"\n", err, want);
	}
	yd_free(d);
	free(text);
}

static void
test_long(void)
{
	char err[ERRLEN];
	yd_doc *d = load("ok: 42\nneg: -7\nfrac: 8.5\nexp: 1e3\nplus: +1\npow: 2^62\n"
			 "huge: 99999999999999999999\nq: \"8\"\nm: {a: 1}\ns: [1]\nempty:\n"
			 "hex: 0x10\nlead: 007\nmax: 9223372036854775807\nmin: -9223372036854775808\n"
			 "sp: 1 2\n",
			 err);
	const yd_node *r = yd_root(d);
	long long v = 0;

	if (!CHECK(d != NULL, "long: doc loads"))
		return;
	CHECK(yd_long(d, yd_get(r, "ok"), "ok", 0, 100, &v, err, ERRLEN) == 0 && v == 42,
	      "long: plain integer");
	CHECK(yd_long(d, yd_get(r, "neg"), "neg", -10, 0, &v, err, ERRLEN) == 0 && v == -7,
	      "long: negative");
	CHECK(yd_long(d, yd_get(r, "lead"), "lead", 0, 10, &v, err, ERRLEN) == 0 && v == 7,
	      "long: leading zeros are decimal");
	CHECK(yd_long(d, yd_get(r, "max"), "max", LLONG_MIN, LLONG_MAX, &v, err, ERRLEN) == 0 &&
		      v == LLONG_MAX,
	      "long: LLONG_MAX");
	CHECK(yd_long(d, yd_get(r, "min"), "min", LLONG_MIN, LLONG_MAX, &v, err, ERRLEN) == 0 &&
		      v == LLONG_MIN,
	      "long: LLONG_MIN");
	v = 123;
	CHECK(yd_long(d, yd_get(r, "frac"), "tp", 1, 64, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:3:7: tp must be an integer, got '8.5'") == 0 && v == 123,
	      "long: 8.5 rejected, output untouched");
	CHECK(yd_long(d, yd_get(r, "exp"), "exp", 0, 10000, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:4:6: exp must be an integer, got '1e3'") == 0,
	      "long: 1e3 rejected");
	CHECK(yd_long(d, yd_get(r, "plus"), "plus", 0, 10, &v, err, ERRLEN) != 0 &&
		      strstr(err, "must be an integer") != NULL,
	      "long: leading + rejected");
	CHECK(yd_long(d, yd_get(r, "pow"), "pow", 0, LLONG_MAX, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:6:6: pow must be an integer, got '2^62'") == 0,
	      "long: 2^62 rejected");
	CHECK(yd_long(d, yd_get(r, "hex"), "hex", 0, 100, &v, err, ERRLEN) != 0 &&
		      strstr(err, "must be an integer") != NULL,
	      "long: hex rejected");
	CHECK(yd_long(d, yd_get(r, "sp"), "sp", 0, 100, &v, err, ERRLEN) != 0 &&
		      strstr(err, "must be an integer, got '1 2'") != NULL,
	      "long: trailing garbage rejected");
	CHECK(yd_long(d, yd_get(r, "huge"), "huge", 0, LLONG_MAX, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:7:7: huge must be at least 0, got 99999999999999999999") == 0,
	      "long: overflow is a range error");
	CHECK(yd_long(d, yd_get(r, "ok"), "ok", 1, 8, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:1:5: ok must be between 1 and 8, got 42") == 0,
	      "long: above range");
	CHECK(yd_long(d, yd_get(r, "neg"), "neg", 0, 8, &v, err, ERRLEN) != 0 &&
		      strstr(err, "neg must be between 0 and 8, got -7") != NULL,
	      "long: below range");
	CHECK(yd_long(d, yd_get(r, "ok"), "ok", LLONG_MIN, 8, &v, err, ERRLEN) != 0 &&
		      strstr(err, "ok must be at most 8, got 42") != NULL,
	      "long: at most");
	CHECK(yd_long(d, yd_get(r, "q"), "q", 0, 10, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:8:4: q must be an integer, got the quoted string '8'") == 0,
	      "long: quoted number rejected");
	CHECK(yd_long(d, yd_get(r, "m"), "m", 0, 10, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:9:4: m must be an integer, got a mapping") == 0,
	      "long: mapping rejected");
	CHECK(yd_long(d, yd_get(r, "s"), "s", 0, 10, &v, err, ERRLEN) != 0 &&
		      strstr(err, "got a sequence") != NULL,
	      "long: sequence rejected");
	CHECK(yd_long(d, yd_get(r, "empty"), "empty", 0, 10, &v, err, ERRLEN) != 0 &&
		      strstr(err, "empty must be an integer, got an empty value") != NULL,
	      "long: empty value rejected");
	CHECK(yd_long(d, yd_get(r, "absent"), "devices", 0, 10, &v, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml: devices is missing") == 0,
	      "long: missing node");
	yd_free(d);
}

static void
test_double(void)
{
	static const char *const good[][2] = {
		{ "7", "7" }, { ".5", "0.5" }, { "5.", "5" }, { "-0.25", "-0.25" },
		{ "1e3", "1000" }, { "2.5E-3", "0.0025" }, { "-1e+2", "-100" }, { "1e-400", "0" },
	};
	static const char *const bad[] = {
		".inf", "-.inf", ".nan", "nan", "inf", "infinity", "0x10", "1e", "e3", ".",
		"--1", "+1", "1.2.3", "1,5", "1e3x", "1e+", "1_000", "-.e1", "1 000",
	};
	char err[ERRLEN], text[64], name[80];
	double x = 0;
	size_t i;
	yd_doc *d;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		snprintf(text, sizeof text, "v: %s\n", good[i][0]);
		snprintf(name, sizeof name, "double: accepts '%s'", good[i][0]);
		d = load(text, err);
		CHECK(d && yd_double(d, yd_get(yd_root(d), "v"), "v", -1e9, 1e9, &x, err, ERRLEN) == 0 &&
			      x == strtod(good[i][1], NULL),
		      name);
		yd_free(d);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char want[128];

		snprintf(text, sizeof text, "v: %s\n", bad[i]);
		snprintf(name, sizeof name, "double: rejects '%s'", bad[i]);
		snprintf(want, sizeof want, "t.yaml:1:4: v must be a number, got '%s'", bad[i]);
		d = load(text, err);
		if (!CHECK(d && yd_double(d, yd_get(yd_root(d), "v"), "v", -1e9, 1e9, &x, err,
					 ERRLEN) != 0 &&
				       strcmp(err, want) == 0,
			   name))
			printf("  got \"%s\"\n", err);
		yd_free(d);
	}
	d = load("a: 1e999\nb: 0.5\nc: 3\n", err);
	CHECK(d && yd_double(d, yd_get(yd_root(d), "a"), "a", -HUGE_VAL, HUGE_VAL, &x, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:1:4: a must be a finite number, got '1e999'") == 0,
	      "double: overflow rejected");
	CHECK(d && yd_double(d, yd_get(yd_root(d), "b"), "b", 0, 0.25, &x, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:2:4: b must be between 0 and 0.25, got 0.5") == 0,
	      "double: above range");
	CHECK(d && yd_double(d, yd_get(yd_root(d), "c"), "c", 5, HUGE_VAL, &x, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:3:4: c must be at least 5, got 3") == 0,
	      "double: at least");
	CHECK(d && yd_double(d, yd_get(yd_root(d), "c"), "c", 0, 3, &x, err, ERRLEN) == 0 && x == 3.0,
	      "double: inclusive upper bound");
	yd_free(d);

	/* A comma-radix LC_NUMERIC must not change how "1.5" reads. */
	{
		static const char *const locs[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "nl_NL.UTF-8" };
		const char *got = NULL;

		for (i = 0; i < sizeof locs / sizeof locs[0] && got == NULL; i++)
			got = setlocale(LC_NUMERIC, locs[i]);
		if (got != NULL) {
			d = load("v: 1.5\n", err);
			CHECK(d && yd_double(d, yd_get(yd_root(d), "v"), "v", 0, 9, &x, err, ERRLEN) == 0 &&
				      x == 1.5,
			      "double: independent of LC_NUMERIC");
			yd_free(d);
			setlocale(LC_NUMERIC, "C");
		} else {
			printf("SKIP double: no comma-radix locale installed\n");
		}
	}
}

static void
test_bool_and_errat(void)
{
	static const char *const truthy[] = { "true", "True", "TRUE", "yes", "Yes", "on", "ON" };
	static const char *const falsy[] = { "false", "False", "no", "NO", "off", "Off" };
	char err[ERRLEN], text[64], name[64];
	yd_doc *d;
	size_t i;
	int b;

	for (i = 0; i < sizeof truthy / sizeof truthy[0]; i++) {
		snprintf(text, sizeof text, "v: %s", truthy[i]);
		snprintf(name, sizeof name, "bool: '%s' is true", truthy[i]);
		b = 0;
		d = load(text, err);
		CHECK(d && yd_bool(d, yd_get(yd_root(d), "v"), "v", &b, err, ERRLEN) == 0 && b == 1, name);
		yd_free(d);
	}
	for (i = 0; i < sizeof falsy / sizeof falsy[0]; i++) {
		snprintf(text, sizeof text, "v: %s", falsy[i]);
		snprintf(name, sizeof name, "bool: '%s' is false", falsy[i]);
		b = 1;
		d = load(text, err);
		CHECK(d && yd_bool(d, yd_get(yd_root(d), "v"), "v", &b, err, ERRLEN) == 0 && b == 0, name);
		yd_free(d);
	}
	d = load("a: maybe\nb: 1\nc: 'true'\nd: truely\n", err);
	CHECK(d && yd_bool(d, yd_get(yd_root(d), "a"), "sp", &b, err, ERRLEN) != 0 &&
		      strcmp(err, "t.yaml:1:4: sp must be true or false, got 'maybe'") == 0,
	      "bool: 'maybe' rejected");
	CHECK(d && yd_bool(d, yd_get(yd_root(d), "b"), "b", &b, err, ERRLEN) != 0, "bool: 1 rejected");
	CHECK(d && yd_bool(d, yd_get(yd_root(d), "c"), "c", &b, err, ERRLEN) != 0 &&
		      strstr(err, "quoted string 'true'") != NULL,
	      "bool: quoted 'true' rejected");
	CHECK(d && yd_bool(d, yd_get(yd_root(d), "d"), "d", &b, err, ERRLEN) != 0,
	      "bool: prefix match rejected");

	yd_errat(d, yd_get(yd_root(d), "b"), err, ERRLEN, "unknown key '%s'", "b");
	CHECK(strcmp(err, "t.yaml:2:4: unknown key 'b'") == 0, "errat: with node");
	yd_errat(d, NULL, err, ERRLEN, "missing %s", "model");
	CHECK(strcmp(err, "t.yaml: missing model") == 0, "errat: NULL node");
	memset(err, 'x', sizeof err);
	yd_errat(d, yd_root(d), err, 8, "a long message that cannot fit");
	CHECK(strlen(err) == 7 && strcmp(err, "t.yaml:") == 0, "errat: truncates to errlen");
	yd_errat(d, yd_root(d), NULL, 0, "nowhere");
	CHECK(1, "errat: NULL buffer is allowed");
	yd_free(d);

	/* Loader errors respect a tiny buffer too. */
	d = yd_load_string("a: *x", 5, "t.yaml", err, 4);
	CHECK(d == NULL && strcmp(err, "t.y") == 0, "load: error truncated to errlen");
	d = yd_load_string("a: *x", 5, "t.yaml", NULL, 0);
	CHECK(d == NULL, "load: NULL error buffer");
}

int
main(void)
{
	test_block();
	test_flow_and_json();
	test_positions_misc();
	test_syntax_errors();
	test_semantic_errors();
	test_hostile_bytes();
	test_empty_and_files();
	test_big_inputs();
	test_long();
	test_double();
	test_bool_and_errat();
	return check_done();
}
