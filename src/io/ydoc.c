/* ydoc: YAML/JSON -> immutable positioned tree, built from libyaml events.
 *
 * The event API is used (not yaml_parser_load) because it lets us stop at
 * the first alias, the first over-deep container or the second document,
 * before libyaml has built anything large; the document API would expand
 * the whole input first. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */

#include "ydoc.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

/* Maps with fewer keys are checked for duplicates pairwise; larger ones are
 * sorted so a 100k-key map does not cost 10^10 comparisons. */
#define YD_PAIRWISE_KEYS 64
/* How much of a user string is echoed in a message. */
#define YD_QUOTE_MAX 48

/* 24 bytes on LP64: a flow sequence of one-digit numbers costs about 12x its
 * source size, which matters because the input may be 64 MiB. */
struct yd_node {
	union {
		const char *s;              /* YD_SCALAR: NUL-terminated text */
		const yd_node *const *kids; /* YD_SEQ: items; YD_MAP: key, value, key, ... */
	} u;
	uint32_t n;    /* scalar: bytes; map: entries; seq: items */
	uint32_t line; /* 1-based */
	uint32_t col;  /* 1-based, in characters as libyaml counts them */
	unsigned char kind;
	unsigned char plain;
};

/* Arena chunk; nodes, strings and child arrays are carved from these so a
 * document is freed in a few calls whatever its size or the error path. */
struct yd_chunk {
	struct yd_chunk *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char mem[];
};

typedef struct {
	struct yd_chunk *head;
	size_t next_cap; /* chunks grow geometrically to keep malloc calls O(log n) */
} yd_arena;

struct yd_doc {
	yd_arena arena;
	const char *name;
	const yd_node *root;
};

/* An open container whose children are still arriving. */
typedef struct {
	yd_node *node;
	size_t base; /* index in the pending stack of its first child */
} yd_frame;

/* Parse state. All open containers share one pending stack of children, so
 * growth is amortised over the whole document rather than per container. */
typedef struct {
	yd_doc *doc;
	const yd_node **pend;
	size_t npend, cappend;
	yd_frame open[YD_MAX_DEPTH];
	int depth;
	int ndocs;
	char *err;
	size_t errlen;
} yd_loader;

/* ---- small helpers ---------------------------------------------------- */

static void
yd_vformat(char *err, size_t errlen, const char *name, int line, int col,
	   const char *fmt, va_list ap)
{
	int k;

	if (err == NULL || errlen == 0)
		return;
	if (line > 0)
		k = snprintf(err, errlen, "%s:%d:%d: ", name, line, col);
	else
		k = snprintf(err, errlen, "%s: ", name);
	if (k < 0 || (size_t)k >= errlen)
		return;
	vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
}

static void
yd_format(char *err, size_t errlen, const char *name, int line, int col,
	  const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;

static void
yd_format(char *err, size_t errlen, const char *name, int line, int col,
	  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yd_vformat(err, errlen, name, line, col, fmt, ap);
	va_end(ap);
}

/* Copy user text into a message: cut long values at a character boundary
 * and replace control characters, since a quoted YAML string can carry
 * terminal escape sequences and messages go to a terminal. */
static void
yd_quote(char *dst, size_t dstlen, const char *s, size_t len)
{
	size_t i, o = 0, cut = len;

	if (cut > YD_QUOTE_MAX) {
		cut = YD_QUOTE_MAX;
		while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
			cut--;
	}
	for (i = 0; i < cut && o + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[o++] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
	}
	if (cut < len && o + 4 < dstlen) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

/* ---- arena ------------------------------------------------------------ */

static void *
yd_alloc(yd_arena *a, size_t size, size_t align)
{
	struct yd_chunk *c = a->head;
	size_t off = 0, cap;

	if (c != NULL) {
		off = (c->used + align - 1) & ~(align - 1);
		if (off <= c->cap && size <= c->cap - off) {
			c->used = off + size;
			return c->mem + off;
		}
	}
	if (a->next_cap == 0)
		a->next_cap = 16384;
	if (size > a->next_cap / 4) {
		/* A big block gets a chunk of its own behind the head, so the
		 * head's free space stays usable for the small nodes around it. */
		if (size > SIZE_MAX - sizeof *c)
			return NULL;
		c = malloc(sizeof *c + size);
		if (c == NULL)
			return NULL;
		c->used = c->cap = size;
		if (a->head != NULL) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = NULL;
			a->head = c;
		}
		return c->mem;
	}
	cap = a->next_cap;
	if (a->next_cap < ((size_t)4 << 20))
		a->next_cap *= 2;
	c = malloc(sizeof *c + cap);
	if (c == NULL)
		return NULL;
	c->next = a->head;
	c->cap = cap;
	c->used = size;
	a->head = c;
	return c->mem;
}

static void
yd_arena_free(yd_arena *a)
{
	struct yd_chunk *c, *next;

	for (c = a->head; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

static char *
yd_strdup(yd_arena *a, const char *s, size_t len)
{
	char *p = yd_alloc(a, len + 1, 1);

	if (p != NULL) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

/* ---- loader ----------------------------------------------------------- */

static void
yd_fail(yd_loader *L, const yaml_mark_t *m, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void
yd_fail(yd_loader *L, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yd_vformat(L->err, L->errlen, L->doc->name, m ? (int)m->line + 1 : 0,
		   m ? (int)m->column + 1 : 0, fmt, ap);
	va_end(ap);
}

static yd_node *
yd_new_node(yd_loader *L, yd_kind kind, const yaml_mark_t *m)
{
	yd_node *n = yd_alloc(&L->doc->arena, sizeof *n, _Alignof(yd_node));

	if (n == NULL) {
		yd_fail(L, NULL, "out of memory");
		return NULL;
	}
	memset(n, 0, sizeof *n);
	n->kind = (unsigned char)kind;
	n->line = (uint32_t)m->line + 1;
	n->col = (uint32_t)m->column + 1;
	return n;
}

/* Hand a finished node to its parent (or make it the root). */
static int
yd_attach(yd_loader *L, const yd_node *n)
{
	if (L->depth == 0) {
		L->doc->root = n;
		return 0;
	}
	if (L->npend == L->cappend) {
		size_t cap = L->cappend ? L->cappend * 2 : 256;
		const yd_node **p;

		if (cap > SIZE_MAX / sizeof *p ||
		    (p = realloc(L->pend, cap * sizeof *p)) == NULL) {
			yd_fail(L, NULL, "out of memory");
			return -1;
		}
		L->pend = p;
		L->cappend = cap;
	}
	L->pend[L->npend++] = n;
	return 0;
}

/* Is the next child of the innermost container a mapping key? */
static int
yd_expect_key(const yd_loader *L)
{
	const yd_frame *f;

	if (L->depth == 0)
		return 0;
	f = &L->open[L->depth - 1];
	return f->node->kind == YD_MAP && (L->npend - f->base) % 2 == 0;
}

static int
yd_keycmp(const yd_node *a, const yd_node *b)
{
	size_t n = a->n < b->n ? a->n : b->n;
	int c = memcmp(a->u.s, b->u.s, n);

	if (c != 0)
		return c;
	return (a->n > b->n) - (a->n < b->n);
}

/* Document order of two nodes; keys never share a start position. */
static int
yd_before(const yd_node *a, const yd_node *b)
{
	return a->line < b->line || (a->line == b->line && a->col < b->col);
}

/* qsort order: by key text, then document order so equal keys line up
 * with the first occurrence leading its group. */
static int
yd_keysort(const void *pa, const void *pb)
{
	const yd_node *a = *(const yd_node *const *)pa;
	const yd_node *b = *(const yd_node *const *)pb;
	int c = yd_keycmp(a, b);

	if (c != 0)
		return c;
	return yd_before(a, b) ? -1 : (yd_before(b, a) ? 1 : 0);
}

static int
yd_dupfound(yd_loader *L, const yd_node *dup, const yd_node *first)
{
	char q[YD_QUOTE_MAX + 8];

	yd_quote(q, sizeof q, dup->u.s, dup->n);
	yd_format(L->err, L->errlen, L->doc->name, (int)dup->line, (int)dup->col,
		  "duplicate key '%s' (first at %d:%d)", q, (int)first->line,
		  (int)first->col);
	return -1;
}

/* Reject repeated keys; reports the earliest repeat in document order, the
 * same answer whichever strategy runs. */
static int
yd_check_dups(yd_loader *L, const yd_node *map)
{
	const yd_node *const *kv = map->u.kids;
	const yd_node **keys, *dup = NULL, *first = NULL;
	size_t n = map->n, i, j;

	if (n < YD_PAIRWISE_KEYS) {
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				if (yd_keycmp(kv[2 * i], kv[2 * j]) == 0)
					return yd_dupfound(L, kv[2 * i], kv[2 * j]);
		return 0;
	}
	keys = malloc(n * sizeof *keys);
	if (keys == NULL) {
		yd_fail(L, NULL, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++)
		keys[i] = kv[2 * i];
	qsort(keys, n, sizeof *keys, yd_keysort);
	for (i = 1; i < n; i++) {
		if (yd_keycmp(keys[i - 1], keys[i]) != 0)
			continue;
		if (i >= 2 && yd_keycmp(keys[i - 2], keys[i - 1]) == 0)
			continue; /* only the second of a group is a candidate */
		if (dup == NULL || yd_before(keys[i], dup)) {
			dup = keys[i];
			first = keys[i - 1];
		}
	}
	free(keys);
	if (dup != NULL)
		return yd_dupfound(L, dup, first);
	return 0;
}

static int
yd_on_scalar(yd_loader *L, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	yd_node *n;

	/* "\0" in a quoted string would make yd_str() disagree with the key
	 * comparisons; no configuration value needs it. */
	if (memchr(v, '\0', len) != NULL) {
		yd_fail(L, &ev->start_mark, "NUL character in a string");
		return -1;
	}
	if (len > UINT32_MAX) {
		yd_fail(L, &ev->start_mark, "string too long");
		return -1;
	}
	if ((n = yd_new_node(L, YD_SCALAR, &ev->start_mark)) == NULL)
		return -1;
	if ((n->u.s = yd_strdup(&L->doc->arena, v, len)) == NULL) {
		yd_fail(L, NULL, "out of memory");
		return -1;
	}
	n->n = (uint32_t)len;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return yd_attach(L, n);
}

static int
yd_on_start(yd_loader *L, const yaml_event_t *ev, yd_kind kind)
{
	yd_node *n;

	if (yd_expect_key(L)) {
		yd_fail(L, &ev->start_mark, "mapping keys must be scalars");
		return -1;
	}
	if (L->depth == YD_MAX_DEPTH) {
		yd_fail(L, &ev->start_mark, "nesting deeper than %d levels",
			YD_MAX_DEPTH);
		return -1;
	}
	if ((n = yd_new_node(L, kind, &ev->start_mark)) == NULL)
		return -1;
	L->open[L->depth].node = n;
	L->open[L->depth].base = L->npend;
	L->depth++;
	return 0;
}

static int
yd_on_end(yd_loader *L)
{
	yd_frame *f = &L->open[--L->depth];
	yd_node *n = f->node;
	size_t count = L->npend - f->base;
	const yd_node **kids = NULL;

	if (count > 0) {
		if (count > SIZE_MAX / sizeof *kids ||
		    (kids = yd_alloc(&L->doc->arena, count * sizeof *kids,
				     _Alignof(const yd_node *))) == NULL) {
			yd_fail(L, NULL, "out of memory");
			return -1;
		}
		memcpy(kids, L->pend + f->base, count * sizeof *kids);
	}
	L->npend = f->base;
	if (n->kind == YD_MAP)
		count /= 2; /* libyaml always pairs keys with values */
	if (count > UINT32_MAX) {
		yd_fail(L, NULL, "too many entries");
		return -1;
	}
	n->u.kids = kids;
	n->n = (uint32_t)count;
	if (n->kind == YD_MAP && yd_check_dups(L, n) != 0)
		return -1;
	return yd_attach(L, n);
}

static int
yd_on_event(yd_loader *L, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++L->ndocs > 1) {
			yd_fail(L, &ev->start_mark,
				"multiple documents are not supported");
			return -1;
		}
		return 0;
	case YAML_ALIAS_EVENT:
		yd_fail(L, &ev->start_mark, "aliases are not supported");
		return -1;
	case YAML_SCALAR_EVENT:
		/* "---" with nothing after it is an empty document, like an
		 * empty file: no root rather than a root of "". */
		if (L->depth == 0 && ev->data.scalar.length == 0 &&
		    ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return 0;
		return yd_on_scalar(L, ev);
	case YAML_SEQUENCE_START_EVENT:
		return yd_on_start(L, ev, YD_SEQ);
	case YAML_MAPPING_START_EVENT:
		return yd_on_start(L, ev, YD_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return yd_on_end(L);
	default: /* stream start/end, document end, no-event */
		return 0;
	}
}

/* libyaml reader errors carry only a byte offset; turn it into the same
 * line:col (characters, not bytes) its scanner would have printed. */
static void
yd_offset_pos(const unsigned char *buf, size_t len, size_t off, int *line,
	      int *col)
{
	size_t i;
	int l = 1, c = 1;

	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			l++;
			c = 1;
		} else if ((buf[i] & 0xC0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*col = c;
}

/* 1-based position of a scanner/parser mark. At end of input libyaml
 * pretends a final line break and reports the start of a line that does
 * not exist; point at the real end of the text instead. */
static void
yd_eof_mark(const unsigned char *buf, size_t len, const yaml_mark_t *m,
	    int *line, int *col)
{
	size_t i, breaks = 0;

	*line = (int)m->line + 1;
	*col = (int)m->column + 1;
	if (m->column != 0 || len == 0 || buf[len - 1] == '\n')
		return;
	for (i = 0; i < len; i++)
		breaks += buf[i] == '\n';
	if (m->line == breaks + 1)
		yd_offset_pos(buf, len, len, line, col);
}

static void
yd_syntax_error(yd_loader *L, const yaml_parser_t *p, const unsigned char *buf,
		size_t len)
{
	const char *name = L->doc->name;
	const char *problem = p->problem ? p->problem : "unknown error";
	int line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		yd_fail(L, NULL, "out of memory");
		break;
	case YAML_READER_ERROR:
		yd_offset_pos(buf, len, p->problem_offset, &line, &col);
		if (p->problem_value != -1)
			yd_format(L->err, L->errlen, name, line, col,
				  "%s (0x%02X)", problem, (unsigned)p->problem_value);
		else
			yd_format(L->err, L->errlen, name, line, col, "%s", problem);
		break;
	default: /* scanner and parser errors carry marks */
		yd_eof_mark(buf, len, &p->problem_mark, &line, &col);
		if (p->context != NULL)
			yd_format(L->err, L->errlen, name, line, col,
				  "%s (%s at %d:%d)", problem, p->context,
				  (int)p->context_mark.line + 1,
				  (int)p->context_mark.column + 1);
		else
			yd_format(L->err, L->errlen, name, line, col, "%s", problem);
		break;
	}
}

static yd_doc *
yd_parse(const unsigned char *buf, size_t len, const char *name, char *err,
	 size_t errlen)
{
	yd_loader L;
	yaml_parser_t parser;
	yaml_event_t ev;
	yaml_event_type_t type;
	yd_doc *d;
	int rc;

	if ((d = calloc(1, sizeof *d)) == NULL) {
		yd_format(err, errlen, name, 0, 0, "out of memory");
		return NULL;
	}
	memset(&L, 0, sizeof L);
	L.doc = d;
	L.err = err;
	L.errlen = errlen;
	if ((d->name = yd_strdup(&d->arena, name, strlen(name))) == NULL) {
		yd_format(err, errlen, name, 0, 0, "out of memory");
		free(d);
		return NULL;
	}
	if (len > YD_MAX_BYTES) {
		yd_fail(&L, NULL, "input is larger than %zu MiB (%zu bytes)",
			YD_MAX_BYTES >> 20, len);
		yd_free(d);
		return NULL;
	}
	if (!yaml_parser_initialize(&parser)) {
		yd_fail(&L, NULL, "out of memory");
		yd_free(d);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, buf, len);
	do {
		if (!yaml_parser_parse(&parser, &ev)) {
			yd_syntax_error(&L, &parser, buf, len);
			rc = -1;
			break;
		}
		type = ev.type;
		rc = yd_on_event(&L, &ev);
		yaml_event_delete(&ev);
	} while (rc == 0 && type != YAML_STREAM_END_EVENT);
	yaml_parser_delete(&parser);
	free(L.pend);
	if (rc != 0) {
		yd_free(d);
		return NULL;
	}
	return d;
}

/* ---- public: loading -------------------------------------------------- */

yd_doc *
yd_load_string(const char *text, size_t len, const char *name, char *err,
	       size_t errlen)
{
	if (name == NULL)
		name = "<string>";
	if (text == NULL)
		len = 0;
	return yd_parse((const unsigned char *)(text ? text : ""), len, name,
			err, errlen);
}

/* Read at most YD_MAX_BYTES + 1 bytes: the size check before reading is
 * only advisory (pipes, /proc files and growing files lie about it). */
static unsigned char *
yd_slurp(FILE *f, size_t hint, size_t *lenp, int *errnop)
{
	size_t cap = hint + 1, len = 0, got;
	unsigned char *buf, *p;

	if (cap < 4096)
		cap = 4096;
	if (cap > YD_MAX_BYTES + 1)
		cap = YD_MAX_BYTES + 1;
	if ((buf = malloc(cap)) == NULL) {
		*errnop = ENOMEM;
		return NULL;
	}
	for (;;) {
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len > YD_MAX_BYTES)
			break;
		if (got == 0 || len < cap) {
			if (ferror(f)) {
				*errnop = errno ? errno : EIO;
				free(buf);
				return NULL;
			}
			if (feof(f))
				break;
			continue;
		}
		cap = cap * 2 > YD_MAX_BYTES + 1 ? YD_MAX_BYTES + 1 : cap * 2;
		if ((p = realloc(buf, cap)) == NULL) {
			*errnop = ENOMEM;
			free(buf);
			return NULL;
		}
		buf = p;
	}
	*lenp = len;
	return buf;
}

yd_doc *
yd_load_file(const char *path, char *err, size_t errlen)
{
	struct stat st;
	unsigned char *buf;
	size_t len = 0, hint = 0;
	int e = 0;
	FILE *f;
	yd_doc *d;

	if ((f = fopen(path, "rb")) == NULL) {
		yd_format(err, errlen, path, 0, 0, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fclose(f);
			yd_format(err, errlen, path, 0, 0, "%s", strerror(EISDIR));
			return NULL;
		}
		if (S_ISREG(st.st_mode) && st.st_size > 0) {
			if ((uintmax_t)st.st_size > YD_MAX_BYTES) {
				fclose(f);
				yd_format(err, errlen, path, 0, 0,
					  "file is larger than %zu MiB (%jd bytes)",
					  YD_MAX_BYTES >> 20, (intmax_t)st.st_size);
				return NULL;
			}
			hint = (size_t)st.st_size;
		}
	}
	errno = 0;
	buf = yd_slurp(f, hint, &len, &e);
	fclose(f);
	if (buf == NULL) {
		yd_format(err, errlen, path, 0, 0, "%s", strerror(e));
		return NULL;
	}
	if (len > YD_MAX_BYTES) {
		free(buf);
		yd_format(err, errlen, path, 0, 0, "file is larger than %zu MiB",
			  YD_MAX_BYTES >> 20);
		return NULL;
	}
	d = yd_parse(buf, len, path, err, errlen);
	free(buf);
	return d;
}

void
yd_free(yd_doc *d)
{
	if (d == NULL)
		return;
	yd_arena_free(&d->arena);
	free(d);
}

/* ---- public: tree access ---------------------------------------------- */

const char *
yd_name(const yd_doc *d)
{
	return d ? d->name : "<input>";
}

const yd_node *
yd_root(const yd_doc *d)
{
	return d ? d->root : NULL;
}

yd_kind
yd_kind_of(const yd_node *n)
{
	return n ? (yd_kind)n->kind : YD_SCALAR;
}

int
yd_line(const yd_node *n)
{
	return n ? (int)n->line : 0;
}

int
yd_col(const yd_node *n)
{
	return n ? (int)n->col : 0;
}

const char *
yd_str(const yd_node *n)
{
	return n && n->kind == YD_SCALAR ? n->u.s : NULL;
}

int
yd_plain(const yd_node *n)
{
	return n && n->kind == YD_SCALAR && n->plain;
}

size_t
yd_len(const yd_node *n)
{
	return n && n->kind != YD_SCALAR ? n->n : 0;
}

const yd_node *
yd_keynode(const yd_node *map, size_t i)
{
	if (map == NULL || map->kind != YD_MAP || i >= map->n)
		return NULL;
	return map->u.kids[2 * i];
}

const char *
yd_key(const yd_node *map, size_t i)
{
	const yd_node *k = yd_keynode(map, i);

	return k ? k->u.s : NULL;
}

const yd_node *
yd_val(const yd_node *map, size_t i)
{
	if (map == NULL || map->kind != YD_MAP || i >= map->n)
		return NULL;
	return map->u.kids[2 * i + 1];
}

const yd_node *
yd_item(const yd_node *seq, size_t i)
{
	if (seq == NULL || seq->kind != YD_SEQ || i >= seq->n)
		return NULL;
	return seq->u.kids[i];
}

const yd_node *
yd_get(const yd_node *map, const char *key)
{
	size_t i, n;

	if (map == NULL || map->kind != YD_MAP || key == NULL)
		return NULL;
	n = strlen(key);
	for (i = 0; i < map->n; i++) {
		const yd_node *k = map->u.kids[2 * i];

		if (k->n == n && memcmp(k->u.s, key, n) == 0)
			return map->u.kids[2 * i + 1];
	}
	return NULL;
}

/* ---- public: typed readers -------------------------------------------- */

void
yd_errat(const yd_doc *d, const yd_node *n, char *err, size_t errlen,
	 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yd_vformat(err, errlen, yd_name(d), yd_line(n), yd_col(n), fmt, ap);
	va_end(ap);
}

/* Common gate of the typed readers: the node must be a non-empty plain
 * scalar. On failure writes "WHAT must be KIND, got ..." and returns NULL. */
static const char *
yd_scalar_for(const yd_doc *d, const yd_node *n, const char *what,
	      const char *kind, char *err, size_t errlen)
{
	char q[YD_QUOTE_MAX + 8];

	if (n == NULL) {
		yd_errat(d, NULL, err, errlen, "%s is missing", what);
		return NULL;
	}
	if (n->kind != YD_SCALAR) {
		yd_errat(d, n, err, errlen, "%s must be %s, got a %s", what, kind,
			 n->kind == YD_MAP ? "mapping" : "sequence");
		return NULL;
	}
	if (!n->plain) {
		yd_quote(q, sizeof q, n->u.s, n->n);
		yd_errat(d, n, err, errlen,
			 "%s must be %s, got the quoted string '%s'", what, kind, q);
		return NULL;
	}
	if (n->n == 0) {
		yd_errat(d, n, err, errlen, "%s must be %s, got an empty value",
			 what, kind);
		return NULL;
	}
	return n->u.s;
}

static int
yd_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static void
yd_got(char *q, size_t qlen, const yd_node *n)
{
	yd_quote(q, qlen, n->u.s, n->n);
}

int
yd_long(const yd_doc *d, const yd_node *n, const char *what, long long lo,
	long long hi, long long *out, char *err, size_t errlen)
{
	const char *s, *p;
	char q[YD_QUOTE_MAX + 8], *end;
	long long v;

	if (what == NULL)
		what = "value";
	if ((s = yd_scalar_for(d, n, what, "an integer", err, errlen)) == NULL)
		return -1;
	/* strtoll alone would accept " 8", "+8" and stop silently at "8.5". */
	p = s + (*s == '-');
	if (*p == '\0')
		goto notint;
	for (; *p != '\0'; p++)
		if (!yd_isdigit(*p))
			goto notint;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE || *end != '\0' || v < lo || v > hi) {
		yd_got(q, sizeof q, n);
		if (hi == LLONG_MAX)
			yd_errat(d, n, err, errlen, "%s must be at least %lld, got %s",
				 what, lo, q);
		else if (lo == LLONG_MIN)
			yd_errat(d, n, err, errlen, "%s must be at most %lld, got %s",
				 what, hi, q);
		else
			yd_errat(d, n, err, errlen,
				 "%s must be between %lld and %lld, got %s", what, lo,
				 hi, q);
		return -1;
	}
	*out = v;
	return 0;
notint:
	yd_got(q, sizeof q, n);
	yd_errat(d, n, err, errlen, "%s must be an integer, got '%s'", what, q);
	return -1;
}

/* JSON number grammar, minus the JSON ban on ".5" and "5.": strtod would
 * also take "inf", "nan", "0x1p3" and leading blanks, none of which a
 * configuration value should be. */
static int
yd_numeric(const char *s)
{
	int digits = 0;

	if (*s == '-')
		s++;
	for (; yd_isdigit(*s); s++)
		digits++;
	if (*s == '.')
		for (s++; yd_isdigit(*s); s++)
			digits++;
	if (digits == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!yd_isdigit(*s))
			return 0;
		while (yd_isdigit(*s))
			s++;
	}
	return *s == '\0';
}

/* strtod follows LC_NUMERIC, which a curses program may have set from the
 * environment; swap '.' for the locale's radix so "1.5" never reads as 1. */
static int
yd_strtod(const char *s, double *out)
{
	const char *dp = localeconv()->decimal_point;
	const char *dot;
	char *copy = NULL, *end;
	size_t dl, pre;
	int ok;

	if (dp == NULL || strcmp(dp, ".") == 0 || (dot = strchr(s, '.')) == NULL) {
		*out = strtod(s, &end);
		return *end == '\0';
	}
	dl = strlen(dp);
	pre = (size_t)(dot - s);
	if ((copy = malloc(strlen(s) + dl + 1)) == NULL)
		return -1;
	memcpy(copy, s, pre);
	memcpy(copy + pre, dp, dl);
	strcpy(copy + pre + dl, dot + 1);
	*out = strtod(copy, &end);
	ok = *end == '\0';
	free(copy);
	return ok;
}

int
yd_double(const yd_doc *d, const yd_node *n, const char *what, double lo,
	  double hi, double *out, char *err, size_t errlen)
{
	const char *s;
	char q[YD_QUOTE_MAX + 8];
	double v;
	int ok;

	if (what == NULL)
		what = "value";
	if ((s = yd_scalar_for(d, n, what, "a number", err, errlen)) == NULL)
		return -1;
	yd_got(q, sizeof q, n);
	if (!yd_numeric(s)) {
		yd_errat(d, n, err, errlen, "%s must be a number, got '%s'", what, q);
		return -1;
	}
	ok = yd_strtod(s, &v);
	if (ok < 0) {
		yd_errat(d, n, err, errlen, "out of memory");
		return -1;
	}
	if (!ok || !isfinite(v)) { /* overflow such as 1e999 */
		yd_errat(d, n, err, errlen, "%s must be a finite number, got '%s'",
			 what, q);
		return -1;
	}
	if (v < lo || v > hi) {
		if (isinf(hi))
			yd_errat(d, n, err, errlen, "%s must be at least %g, got %s",
				 what, lo, q);
		else if (isinf(lo))
			yd_errat(d, n, err, errlen, "%s must be at most %g, got %s",
				 what, hi, q);
		else
			yd_errat(d, n, err, errlen,
				 "%s must be between %g and %g, got %s", what, lo, hi, q);
		return -1;
	}
	*out = v;
	return 0;
}

/* ASCII-only case folding: tolower() depends on the locale. */
static int
yd_ieq(const char *a, const char *b)
{
	for (; *a != '\0' && *b != '\0'; a++, b++) {
		char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;

		if (x != *b)
			return 0;
	}
	return *a == *b;
}

int
yd_bool(const yd_doc *d, const yd_node *n, const char *what, int *out,
	char *err, size_t errlen)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *s;
	char q[YD_QUOTE_MAX + 8];
	size_t i;

	if (what == NULL)
		what = "value";
	if ((s = yd_scalar_for(d, n, what, "true or false", err, errlen)) == NULL)
		return -1;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (yd_ieq(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (yd_ieq(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	yd_got(q, sizeof q, n);
	yd_errat(d, n, err, errlen, "%s must be true or false, got '%s'", what, q);
	return -1;
}
