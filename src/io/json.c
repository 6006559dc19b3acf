/* json: streaming JSON writer. */
#include "json.h"
#include "io/text.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Largest magnitude printed as an integer: every integer below 2^53 is an
 * exact double, and %.0f of it is short and exact. */
#define JSON_INT_LIMIT 9007199254740992.0

static void
json_indent(json_w *w)
{
	int i;

	putc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Write the bytes of S as a JSON string body. Runs of bytes that need no
 * escaping are written in one fwrite. Control characters (C0, DEL and C1)
 * are escaped as \u00XX, so the output is safe to show on a terminal; a
 * bad UTF-8 sequence becomes one U+FFFD per maximal valid prefix, as
 * Unicode recommends. */
static void
json_escape(FILE *f, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str, *run = s;

	putc('"', f);
	while (*s != '\0') {
		unsigned char c = *s;
		const char *esc = NULL;
		char ubuf[7];
		unsigned cp = c;
		int valid;
		size_t k;

		if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
			s++;
			continue;
		}
		k = text_utf8_next((const char *)s, &valid);
		if (valid && k == 2 && c == 0xC2 && s[1] < 0xA0)
			cp = s[1]; /* C1 control, U+0080-U+009F */
		else if (valid && k > 1 &&
			 !(k == 3 && c == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))) {
			s += k; /* any other character stays in the run */
			continue;
		}
		fwrite(run, 1, (size_t)(s - run), f);
		if (!valid) {
			fputs("\xEF\xBF\xBD", f);
		} else if (k == 3) {
			/* U+2028/U+2029: valid JSON, but not valid inside JavaScript strings */
			fputs(s[2] == 0xA8 ? "\\u2028" : "\\u2029", f);
		} else {
			switch (cp) {
			case '"': esc = "\\\""; break;
			case '\\': esc = "\\\\"; break;
			case '\b': esc = "\\b"; break;
			case '\f': esc = "\\f"; break;
			case '\n': esc = "\\n"; break;
			case '\r': esc = "\\r"; break;
			case '\t': esc = "\\t"; break;
			default:
				memcpy(ubuf, "\\u00", 4);
				ubuf[4] = hex[cp >> 4];
				ubuf[5] = hex[cp & 15];
				ubuf[6] = '\0';
				esc = ubuf;
				break;
			}
			fputs(esc, f);
		}
		s += k;
		run = s;
	}
	fwrite(run, 1, (size_t)(s - run), f);
	putc('"', f);
}

/* Everything a value needs before it: separator, indentation and key.
 * Returns 0 when the value must be dropped (inside an over-deep container). */
static int
json_prefix(json_w *w, const char *key)
{
	int in_obj;

	if (w->overflow > 0)
		return 0;
	if (w->depth == 0) {
		if (key != NULL)
			w->misuse = 1;
		if (w->top_count++ > 0)
			putc('\n', w->f); /* several top-level values: one per line */
		return 1;
	}
	if (!w->first[w->depth - 1])
		putc(',', w->f);
	w->first[w->depth - 1] = 0;
	if (w->pretty)
		json_indent(w);
	in_obj = w->is_obj[w->depth - 1];
	if (in_obj) {
		if (key == NULL) {
			w->misuse = 1;
			key = ""; /* keep the output parseable */
		}
		json_escape(w->f, key);
		fputs(w->pretty ? ": " : ":", w->f);
	} else if (key != NULL) {
		w->misuse = 1;
	}
	return 1;
}

static void
json_open(json_w *w, const char *key, int obj)
{
	if (!json_prefix(w, key)) {
		w->overflow++;
		return;
	}
	putc(obj ? '{' : '[', w->f);
	if (w->depth == JSON_MAX_DEPTH) {
		/* No room to track it: close it at once and swallow its
		 * contents up to the caller's matching end. */
		putc(obj ? '}' : ']', w->f);
		w->misuse = 1;
		w->overflow = 1;
		return;
	}
	w->first[w->depth] = 1;
	w->is_obj[w->depth] = (unsigned char)obj;
	w->depth++;
}

static void
json_close(json_w *w, int obj)
{
	if (w->overflow > 0) {
		w->overflow--;
		return;
	}
	if (w->depth == 0 || w->is_obj[w->depth - 1] != obj) {
		w->misuse = 1;
		return;
	}
	w->depth--;
	if (w->pretty && !w->first[w->depth])
		json_indent(w);
	putc(obj ? '}' : ']', w->f);
}

void
json_init(json_w *w, FILE *f, int pretty)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->pretty = pretty != 0;
}

void
json_init_sink(json_w *w, const json_sink *sink)
{
	memset(w, 0, sizeof *w);
	w->sink = sink;
}

void
json_obj_begin(json_w *w, const char *key)
{
	if (w->sink != NULL) {
		w->sink->open(w->sink->ctx, key, 1);
		return;
	}
	json_open(w, key, 1);
}

void
json_obj_end(json_w *w)
{
	if (w->sink != NULL) {
		w->sink->close(w->sink->ctx);
		return;
	}
	json_close(w, 1);
}

void
json_arr_begin(json_w *w, const char *key)
{
	if (w->sink != NULL) {
		w->sink->open(w->sink->ctx, key, 0);
		return;
	}
	json_open(w, key, 0);
}

void
json_arr_end(json_w *w)
{
	if (w->sink != NULL) {
		w->sink->close(w->sink->ctx);
		return;
	}
	json_close(w, 0);
}

void
json_num(json_w *w, const char *key, double v)
{
	char buf[64], *p;
	const char *dp;
	size_t dl;

	if (w->sink != NULL) {
		w->sink->num(w->sink->ctx, key, v);
		return;
	}
	if (!json_prefix(w, key))
		return;
	if (!isfinite(v)) {
		fputs("null", w->f);
		return;
	}
	if (v == floor(v) && fabs(v) < JSON_INT_LIMIT) {
		fprintf(w->f, "%.0f", v == 0 ? 0.0 : v); /* no "-0" */
		return;
	}
	snprintf(buf, sizeof buf, "%.10g", v);
	/* printf uses LC_NUMERIC's radix (a curses program may have set it
	 * from the environment); JSON needs '.'. */
	dp = localeconv()->decimal_point;
	if (dp != NULL && strcmp(dp, ".") != 0 && (p = strstr(buf, dp)) != NULL) {
		dl = strlen(dp);
		*p = '.';
		memmove(p + 1, p + dl, strlen(p + dl) + 1);
	}
	fputs(buf, w->f);
}

void
json_int(json_w *w, const char *key, long long v)
{
	if (w->sink != NULL) {
		w->sink->integer(w->sink->ctx, key, v);
		return;
	}
	if (!json_prefix(w, key))
		return;
	fprintf(w->f, "%lld", v);
}

void
json_str(json_w *w, const char *key, const char *s)
{
	if (w->sink != NULL) {
		w->sink->str(w->sink->ctx, key, s);
		return;
	}
	if (!json_prefix(w, key))
		return;
	if (s == NULL)
		fputs("null", w->f);
	else
		json_escape(w->f, s);
}

void
json_bool(json_w *w, const char *key, int v)
{
	if (w->sink != NULL) {
		w->sink->boolean(w->sink->ctx, key, v);
		return;
	}
	if (!json_prefix(w, key))
		return;
	fputs(v ? "true" : "false", w->f);
}

void
json_null(json_w *w, const char *key)
{
	if (w->sink != NULL) {
		w->sink->null(w->sink->ctx, key);
		return;
	}
	if (!json_prefix(w, key))
		return;
	fputs("null", w->f);
}

void
json_end(json_w *w)
{
	if (w->sink != NULL)
		return;
	if (w->depth != 0 || w->overflow != 0)
		w->misuse = 1;
	putc('\n', w->f);
}

int
json_failed(const json_w *w)
{
	return w->misuse || (w->f != NULL && ferror(w->f));
}
