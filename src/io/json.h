/* json: a streaming JSON writer to a FILE*, compact or pretty-printed.
 *
 * Values are written as they are given; nothing is buffered beyond stdio.
 * Inside an object every value needs a key; inside an array or at the top
 * level the key must be NULL. Misuse (a missing key, an unbalanced end,
 * nesting past JSON_MAX_DEPTH) is reported by json_failed() and handled so the
 * output stays valid JSON: a container past the limit is written empty and
 * everything inside it is dropped. */
#ifndef STRATA_JSON_H
#define STRATA_JSON_H

#include <stdio.h>

#define JSON_MAX_DEPTH 64

/* Another consumer of the same calls (a Lua-table builder, ...): with a sink
 * set, every value goes to these callbacks, with its key, instead of being
 * written as text; numbers arrive as given (no rounding, NaN kept). This is
 * how code written once against json_w (the eval report) feeds other views
 * without their keys drifting apart. */
typedef struct json_sink {
	void (*open)(void *ctx, const char *key, int is_obj);  /* object or array */
	void (*close)(void *ctx);
	void (*num)(void *ctx, const char *key, double v);
	void (*integer)(void *ctx, const char *key, long long v);
	void (*str)(void *ctx, const char *key, const char *s); /* s may be NULL */
	void (*boolean)(void *ctx, const char *key, int v);
	void (*null)(void *ctx, const char *key);
	void *ctx;
} json_sink;

/* Writer state; public so it can live on the caller's stack. */
typedef struct json_w {
	FILE *f;
	const json_sink *sink;              /* set by json_init_sink; NULL = text */
	int depth;                          /* open containers */
	int pretty;                         /* newline + two-space indent */
	int misuse;                         /* set on API misuse, see json_failed */
	int top_count;                      /* values written at the top level */
	int overflow;                       /* containers open past JSON_MAX_DEPTH */
	unsigned char first[JSON_MAX_DEPTH]; /* no member written yet at level i+1 */
	unsigned char is_obj[JSON_MAX_DEPTH]; /* level i+1 is an object */
} json_w;

/* Start writing to F; PRETTY != 0 for indented output. */
void json_init(json_w *w, FILE *f, int pretty);
/* Send every following call to SINK instead of a stream (see json_sink). */
void json_init_sink(json_w *w, const json_sink *sink);
/* Open an object; KEY names it inside an object, NULL elsewhere. */
void json_obj_begin(json_w *w, const char *key);
/* Close the innermost object. */
void json_obj_end(json_w *w);
/* Open an array; KEY as for json_obj_begin. */
void json_arr_begin(json_w *w, const char *key);
/* Close the innermost array. */
void json_arr_end(json_w *w);
/* Number: NaN/inf -> null, integral values without decimals, else %.10g. */
void json_num(json_w *w, const char *key, double v);
/* Integer, exactly. */
void json_int(json_w *w, const char *key, long long v);
/* String, escaped; invalid UTF-8 becomes U+FFFD; NULL -> null. */
void json_str(json_w *w, const char *key, const char *s);
/* true or false. */
void json_bool(json_w *w, const char *key, int v);
/* null. */
void json_null(json_w *w, const char *key);
/* Finish the output with a newline. */
void json_end(json_w *w);
/* Nonzero if the API was misused or the stream reported an error. */
int json_failed(const json_w *w);

#endif
