/* ydoc: YAML/JSON -> immutable positioned tree, built from libyaml events.
 *
 * The event API is used (not yaml_parser_load) because it lets us stop at
 * the first alias, the first over-deep container or the second document,
 * before libyaml has built anything large; the document API would expand
 * the whole input first.
 *
 * Storage. The input may be 64 MiB, and a flow sequence of one-digit
 * numbers is one node per two bytes of it, so the tree is not one struct
 * per node (24 bytes, a pointer to it in its parent, a copy of the text:
 * 1.6 GB for such a file) but a byte-packed "tape" of records in document
 * order, in 4 KiB pages of one page-aligned block:
 *
 *   scalar      header byte (kind, plain, a length up to 29), position,
 *               [u32 length], text and NUL: 4 bytes for "1"; text longer
 *               than YD_INLINE_MAX lives in the arena and the record points
 *               at it
 *   map, seq    header byte, position, u32 count (entries of a map, items of
 *               a seq), u32 offset from the header to what follows the
 *               subtree; the children follow the header
 *   index       after the subtree of a container with more than YD_STRIDE
 *               children: a pointer to the offsets (from the container's
 *               header) of its children 0, 16, 32, ..., so yd_item() walks
 *               at most 15 siblings
 *   page end    the rest of the page is unused: no record crosses a page
 *
 * A position is stored as the difference from the node written before it,
 * one byte on the same line or a few lines down (pos_put), and
 * every page starts with the absolute position of the node before its
 * first record, so yd_line() finds the page from the node's address and
 * reads at most that page. Multi-byte fields are unaligned and go through
 * memcpy. The tape takes at most about 3.5 times the input (empty
 * collections, keys without values), so loading peaks at 2 to 5 times the
 * input size with the input itself (docs/formats.md has the measurements). */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */

#include "ydoc.h"
#include "io/paths.h"
#include "io/text.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

/* Maps with fewer keys are checked for duplicates pairwise; larger ones are
 * sorted so a 100k-key map does not cost 10^10 comparisons. */
#define YD_PAIRWISE_KEYS 64
/* How much of a user string is echoed in a message. */
#define YD_QUOTE_MAX 48

#define YD_PAGE 4096u      /* tape page: records never cross one */
#define YD_CKPT 8u         /* a page starts with u32 line, u32 col */
#define YD_STRIDE 16u      /* a container's index lists every 16th child */
#define YD_INLINE_MAX 256u /* longer scalar text lives in the arena */
#define YD_POS_MAX 11u     /* largest position field: 0xC0 and two LEB128 u32 */

/* Header byte: the low two bits are the kind (yd_kind values) or REC_SPECIAL. */
#define REC_SPECIAL 3u
#define REC_PAGE_END 0x03u /* REC_SPECIAL: the rest of the page is unused */
#define REC_INDEX 0x07u    /* REC_SPECIAL: a container's child index */
#define REC_PLAIN 0x04u    /* scalar: written plain */
#define REC_LEN_U32 30u    /* scalar length code (bits 3-7): u32 length follows */
#define REC_LEN_PTR 31u    /* ... u32 length and a pointer to the text follow */

/* A node is the first byte of its record; it is only ever read as bytes. */
struct yd_node {
	unsigned char hdr;
};

/* Arena chunk; the doc name, long scalar text and child indexes are carved
 * from these so a document is freed in a few calls whatever its size. */
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
	unsigned char *tape; /* YD_PAGE-aligned; offsets into it fit in a u32 */
	size_t cap, used;
	uint32_t line, col; /* position of the last node written */
	const char *name;
	const yd_node *root;
};

/* An open container whose children are still arriving. */
typedef struct {
	size_t off;   /* tape offset of its header */
	size_t nkids; /* children so far (keys and values of a map) */
	size_t base;  /* its first entry in the loader's index stack */
} yd_frame;

/* Parse state. The index entries of all open containers share one stack,
 * so growth is amortised over the whole document. */
typedef struct {
	yd_doc *doc;
	uint32_t *idx;
	size_t nidx, capidx;
	size_t root_off;
	int has_root;
	yd_frame open[YD_MAX_DEPTH];
	int depth;
	int ndocs;
	char *err;
	size_t errlen;
} yd_loader;

/* ---- small helpers ---------------------------------------------------- */

/* The message is made terminal-safe as a whole (io/text.h): file names,
 * keys and values from the input go into it and it ends up on a terminal. */
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
	if (k >= 0 && (size_t)k < errlen)
		vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
	text_safe(err, errlen, err);
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
 * and make them terminal-safe, since a quoted YAML string can carry
 * terminal escape sequences and messages go to a terminal. */
static void
yd_quote(char *dst, size_t dstlen, const char *s, size_t len)
{
	size_t cut = len;

	if (dstlen < YD_QUOTE_MAX + 4) {
		if (dstlen > 0)
			dst[0] = '\0';
		return;
	}
	if (cut > YD_QUOTE_MAX) {
		cut = YD_QUOTE_MAX;
		while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
			cut--;
	}
	memcpy(dst, s, cut);
	dst[cut] = '\0';
	text_safe(dst, dstlen, dst);
	if (cut < len)
		strcat(dst, "...");
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

/* ---- tape: reading records -------------------------------------------- */

static uint32_t
get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static const unsigned char *
rec(const yd_node *n)
{
	return (const unsigned char *)n;
}

static size_t
get_uleb(const unsigned char *p, uint32_t *v)
{
	uint32_t x = 0;
	unsigned shift = 0;
	size_t k = 0;
	unsigned char b;

	do {
		b = p[k++];
		if (shift < 32)
			x |= (uint32_t)(b & 0x7F) << shift;
		shift += 7;
	} while ((b & 0x80) != 0 && k < 5);
	*v = x;
	return k;
}

static size_t
put_uleb(unsigned char *p, uint32_t v)
{
	size_t k = 0;

	do {
		unsigned char b = (unsigned char)(v & 0x7F);

		v >>= 7;
		p[k++] = (unsigned char)(b | (v != 0 ? 0x80 : 0));
	} while (v != 0);
	return k;
}

/* Apply the position field at P to the position (*l, *c) of the node
 * before; returns the field's size. */
static size_t
pos_get(const unsigned char *p, uint32_t *l, uint32_t *c)
{
	size_t k = 1;

	if (p[0] < 0x80) {
		*c += p[0];
	} else if (p[0] < 0xC0) {
		*l += (uint32_t)((p[0] >> 4) & 3) + 1;
		*c = (uint32_t)(p[0] & 15) + 1;
	} else {
		k += get_uleb(p + k, l);
		k += get_uleb(p + k, c);
	}
	return k;
}

/* Write position (l, c) at P as a difference from (*pl, *pc), which
 * become (l, c): one byte for up to 127 columns on the same line, or up to
 * 4 lines down to a column of at most 16; else 0xC0 and both as LEB128. */
static size_t
pos_put(unsigned char *p, uint32_t *pl, uint32_t *pc, uint32_t l, uint32_t c)
{
	size_t k = 1;

	if (l == *pl && c >= *pc && c - *pc < 0x80) {
		p[0] = (unsigned char)(c - *pc);
	} else if (l > *pl && l - *pl <= 4 && c >= 1 && c <= 16) {
		p[0] = (unsigned char)(0x80 | (l - *pl - 1) << 4 | (c - 1));
	} else {
		p[0] = 0xC0;
		k += put_uleb(p + k, l);
		k += put_uleb(p + k, c);
	}
	*pl = l;
	*pc = c;
	return k;
}

/* The fields of the node record at P, after its position. */
static const unsigned char *
rec_fields(const unsigned char *p)
{
	uint32_t l = 0, c = 0;

	return p + 1 + pos_get(p + 1, &l, &c);
}

/* The record after the one at P in tape order (a container's first child
 * follows its header). */
static const unsigned char *
rec_next(const unsigned char *p)
{
	const unsigned char *q;
	unsigned code = p[0] >> 3;

	if (p[0] == REC_INDEX)
		return p + 1 + sizeof(const uint32_t *);
	q = rec_fields(p);
	if ((p[0] & 3) != YD_SCALAR)
		return q + 8;
	if (code < REC_LEN_U32)
		return q + code + 1;
	if (code == REC_LEN_U32)
		return q + 4 + get32(q) + 1;
	return q + 4 + sizeof(const char *);
}

/* P, or the first record of the next page when P is a page end. */
static const unsigned char *
rec_norm(const unsigned char *p)
{
	while (p[0] == REC_PAGE_END)
		p = (const unsigned char *)(((uintptr_t)p & ~(uintptr_t)(YD_PAGE - 1)) +
					    YD_PAGE + YD_CKPT);
	return p;
}

/* Text and length of the scalar record at P. */
static const char *
rec_text(const unsigned char *p, size_t *len)
{
	const unsigned char *q = rec_fields(p);
	unsigned code = p[0] >> 3;
	const char *s;

	if (code < REC_LEN_U32) {
		*len = code;
		return (const char *)q;
	}
	*len = get32(q);
	if (code == REC_LEN_U32)
		return (const char *)q + 4;
	memcpy(&s, q + 4, sizeof s);
	return s;
}

/* Entries of a map or items of a seq. */
static size_t
rec_count(const unsigned char *p)
{
	return get32(rec_fields(p));
}

/* Children of a container: a map's keys and values both count. */
static size_t
rec_kids(const unsigned char *p)
{
	size_t c = rec_count(p);

	return (p[0] & 3) == YD_MAP ? 2 * c : c;
}

/* What follows the subtree of the container at P: its index, or its next
 * sibling. */
static const unsigned char *
rec_after(const unsigned char *p)
{
	return rec_norm(p + get32(rec_fields(p) + 4));
}

/* The next sibling of the child at P, which must not be the last one. */
static const unsigned char *
rec_step(const unsigned char *p)
{
	if ((p[0] & 3) == YD_SCALAR)
		return rec_norm(rec_next(p));
	p = rec_after(p);
	if (p[0] == REC_INDEX) /* its own: the next sibling is never one */
		p = rec_norm(rec_next(p));
	return p;
}

/* Child J of the container at P (J < rec_kids(P)). */
static const unsigned char *
rec_child(const unsigned char *p, size_t j)
{
	const uint32_t *offs;
	size_t r = j;

	if (rec_kids(p) > YD_STRIDE) {
		memcpy(&offs, rec_after(p) + 1, sizeof offs);
		r = j % YD_STRIDE;
		p += offs[j / YD_STRIDE];
	} else {
		p = rec_norm(rec_next(p));
	}
	while (r-- > 0)
		p = rec_step(p);
	return p;
}

/* Position of the node at T: from the checkpoint of its page, add the
 * differences of the records before it on that page. */
static void
rec_pos(const unsigned char *t, uint32_t *line, uint32_t *col)
{
	const unsigned char *p =
		(const unsigned char *)((uintptr_t)t & ~(uintptr_t)(YD_PAGE - 1));
	uint32_t l = get32(p), c = get32(p + 4);

	for (p += YD_CKPT; p < t; p = rec_next(p))
		if (p[0] != REC_INDEX)
			pos_get(p + 1, &l, &c);
	pos_get(t + 1, &l, &c);
	*line = l;
	*col = c;
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

/* A tape for an input of LEN bytes, with room reserved for the most any
 * input of that size needs (an empty flow collection, "[],", is 3 bytes of
 * input and 10 of tape; a key without a value, "abcd,", 5 and 10), so it
 * never has to grow by copying: only the pages written become resident. */
static int
yd_tape_init(yd_doc *d, size_t len)
{
	size_t cap = len / 2 * 7 + 4 * YD_PAGE;
	void *p;

	cap -= cap % YD_PAGE;
	if (posix_memalign(&p, YD_PAGE, cap) != 0)
		return -1;
	d->tape = p;
	d->cap = cap;
	put32(d->tape, 0);
	put32(d->tape + 4, 0);
	d->used = YD_CKPT;
	return 0;
}

/* Half as much tape again; offsets into it must fit in a u32. */
static int
yd_grow(yd_loader *L)
{
	yd_doc *d = L->doc;
	size_t cap = d->cap + d->cap / 2;
	void *p;

	cap -= cap % YD_PAGE;
	if (cap > UINT32_MAX) {
		yd_fail(L, NULL, "document too large");
		return -1;
	}
	if (posix_memalign(&p, YD_PAGE, cap) != 0) {
		yd_fail(L, NULL, "out of memory");
		return -1;
	}
	memcpy(p, d->tape, d->used);
	free(d->tape);
	d->tape = p;
	d->cap = cap;
	return 0;
}

/* Room for a record of at most SIZE bytes at the end of the tape: on the
 * current page when it fits with a byte to spare for a page end, else on a
 * new page whose checkpoint is the position of the last node. */
static int
yd_room(yd_loader *L, size_t size)
{
	yd_doc *d = L->doc;
	size_t in_page = d->used % YD_PAGE;

	if (in_page + size + 1 <= YD_PAGE)
		return 0;
	d->tape[d->used] = REC_PAGE_END;
	d->used += YD_PAGE - in_page;
	if (d->used + YD_PAGE > d->cap && yd_grow(L) != 0)
		return -1;
	put32(d->tape + d->used, d->line);
	put32(d->tape + d->used + 4, d->col);
	d->used += YD_CKPT;
	return 0;
}

/* Start a node record with header byte HDR at mark M, then its position; the
 * caller has made room. Returns the first byte after the position. */
static unsigned char *
yd_put_head(yd_doc *d, unsigned hdr, const yaml_mark_t *m)
{
	unsigned char *p = d->tape + d->used;

	p[0] = (unsigned char)hdr;
	return p + 1 + pos_put(p + 1, &d->line, &d->col, (uint32_t)m->line + 1,
			       (uint32_t)m->column + 1);
}

/* Count the node at tape offset OFF as the next child of the innermost
 * open container (or make it the root); every 16th goes to the index. */
static int
yd_attach(yd_loader *L, size_t off)
{
	yd_frame *f;

	if (L->depth == 0) {
		L->root_off = off;
		L->has_root = 1;
		return 0;
	}
	f = &L->open[L->depth - 1];
	if (f->nkids % YD_STRIDE == 0) {
		if (L->nidx == L->capidx) {
			size_t cap = L->capidx ? L->capidx * 2 : 256;
			uint32_t *p;

			if (cap > SIZE_MAX / sizeof *p ||
			    (p = realloc(L->idx, cap * sizeof *p)) == NULL) {
				yd_fail(L, NULL, "out of memory");
				return -1;
			}
			L->idx = p;
			L->capidx = cap;
		}
		L->idx[L->nidx++] = (uint32_t)(off - f->off);
	}
	f->nkids++;
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
	return (L->doc->tape[f->off] & 3) == YD_MAP && f->nkids % 2 == 0;
}

static int
yd_keycmp(const unsigned char *a, const unsigned char *b)
{
	size_t la, lb;
	const char *sa = rec_text(a, &la), *sb = rec_text(b, &lb);
	int c = memcmp(sa, sb, la < lb ? la : lb);

	if (c != 0)
		return c;
	return (la > lb) - (la < lb);
}

/* The tape qsort compares keys of: its comparator takes no context, and
 * documents may load on several threads at once (the explorer's jobs). */
static _Thread_local const unsigned char *yd_sort_base;

/* qsort order of key offsets: by key text, then document order (the
 * tape's) so equal keys line up with the first occurrence leading its
 * group. Offsets, not pointers: glibc's qsort copies the array once, and a
 * map may hold millions of keys. */
static int
yd_keysort(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = yd_keycmp(yd_sort_base + a, yd_sort_base + b);

	if (c != 0)
		return c;
	return (a > b) - (a < b);
}

static int
yd_dupfound(yd_loader *L, const unsigned char *dup, const unsigned char *first)
{
	char q[YD_QUOTE_MAX + 8];
	uint32_t dl, dc, fl, fc;
	size_t len;
	const char *s = rec_text(dup, &len);

	rec_pos(dup, &dl, &dc);
	rec_pos(first, &fl, &fc);
	yd_quote(q, sizeof q, s, len);
	yd_format(L->err, L->errlen, L->doc->name, (int)dl, (int)dc,
		  "duplicate key '%s' (first at %d:%d)", q, (int)fl, (int)fc);
	return -1;
}

/* Reject repeated keys; reports the earliest repeat in document order, the
 * same answer whichever strategy runs. */
static int
yd_check_dups(yd_loader *L, const unsigned char *map)
{
	const unsigned char *base = L->doc->tape, *few[YD_PAIRWISE_KEYS], *p;
	const unsigned char *dup = NULL, *first = NULL;
	size_t n = rec_count(map), i, j;
	uint32_t *keys;

	if (n < 2)
		return 0;
	p = rec_norm(rec_next(map));
	if (n < YD_PAIRWISE_KEYS) {
		for (i = 0; i < n; i++) {
			few[i] = p;
			if (i + 1 < n)
				p = rec_step(rec_step(p));
		}
		for (i = 1; i < n && dup == NULL; i++)
			for (j = 0; j < i; j++)
				if (yd_keycmp(few[i], few[j]) == 0) {
					dup = few[i];
					first = few[j];
					break;
				}
	} else {
		if ((keys = malloc(n * sizeof *keys)) == NULL) {
			yd_fail(L, NULL, "out of memory");
			return -1;
		}
		for (i = 0; i < n; i++) {
			keys[i] = (uint32_t)(p - base);
			if (i + 1 < n)
				p = rec_step(rec_step(p));
		}
		yd_sort_base = base;
		qsort(keys, n, sizeof *keys, yd_keysort);
		for (i = 1; i < n; i++) {
			if (yd_keycmp(base + keys[i - 1], base + keys[i]) != 0)
				continue;
			if (i >= 2 && yd_keycmp(base + keys[i - 2], base + keys[i - 1]) == 0)
				continue; /* only the second of a group is a candidate */
			if (dup == NULL || base + keys[i] < dup) {
				dup = base + keys[i];
				first = base + keys[i - 1];
			}
		}
		free(keys);
	}
	if (dup != NULL)
		return yd_dupfound(L, dup, first);
	return 0;
}

static int
yd_on_scalar(yd_loader *L, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length, off;
	yd_doc *d = L->doc;
	char *ext = NULL;
	unsigned code;
	unsigned char *q;

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
	if (len > YD_INLINE_MAX && (ext = yd_strdup(&d->arena, v, len)) == NULL) {
		yd_fail(L, NULL, "out of memory");
		return -1;
	}
	if (yd_room(L, 1 + YD_POS_MAX + 4 + (ext ? sizeof ext : len + 1)) != 0)
		return -1;
	off = d->used;
	code = ext ? REC_LEN_PTR : len < REC_LEN_U32 ? (unsigned)len : REC_LEN_U32;
	q = yd_put_head(d, YD_SCALAR | code << 3 |
			(ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? REC_PLAIN : 0),
			&ev->start_mark);
	if (code >= REC_LEN_U32) {
		put32(q, (uint32_t)len);
		q += 4;
	}
	if (ext != NULL) {
		memcpy(q, &ext, sizeof ext);
		q += sizeof ext;
	} else {
		memcpy(q, v, len);
		q[len] = '\0';
		q += len + 1;
	}
	d->used = (size_t)(q - d->tape);
	return yd_attach(L, off);
}

static int
yd_on_start(yd_loader *L, const yaml_event_t *ev, yd_kind kind)
{
	yd_doc *d = L->doc;
	unsigned char *q;
	size_t off;

	if (yd_expect_key(L)) {
		yd_fail(L, &ev->start_mark, "mapping keys must be scalars");
		return -1;
	}
	if (L->depth == YD_MAX_DEPTH) {
		yd_fail(L, &ev->start_mark, "nesting deeper than %d levels",
			YD_MAX_DEPTH);
		return -1;
	}
	if (yd_room(L, 1 + YD_POS_MAX + 8) != 0)
		return -1;
	off = d->used;
	q = yd_put_head(d, (unsigned)kind, &ev->start_mark);
	memset(q, 0, 8); /* count and end, filled in when it closes */
	d->used = (size_t)(q + 8 - d->tape);
	if (yd_attach(L, off) != 0)
		return -1;
	L->open[L->depth].off = off;
	L->open[L->depth].nkids = 0;
	L->open[L->depth].base = L->nidx;
	L->depth++;
	return 0;
}

static int
yd_on_end(yd_loader *L)
{
	yd_frame *f = &L->open[--L->depth];
	yd_doc *d = L->doc;
	unsigned char *fields = (unsigned char *)rec_fields(d->tape + f->off);
	int map = (d->tape[f->off] & 3) == YD_MAP;
	size_t count = map ? f->nkids / 2 : f->nkids; /* libyaml pairs keys with values */
	size_t n = L->nidx - f->base;
	uint32_t *ix;
	unsigned char *p;

	if (count > UINT32_MAX) {
		yd_fail(L, NULL, "too many entries");
		return -1;
	}
	put32(fields, (uint32_t)count);
	put32(fields + 4, (uint32_t)(d->used - f->off));
	if (f->nkids > YD_STRIDE) {
		if ((ix = yd_alloc(&d->arena, n * sizeof *ix, _Alignof(uint32_t))) == NULL) {
			yd_fail(L, NULL, "out of memory");
			return -1;
		}
		memcpy(ix, L->idx + f->base, n * sizeof *ix);
		if (yd_room(L, 1 + sizeof ix) != 0)
			return -1;
		p = d->tape + d->used;
		p[0] = REC_INDEX;
		memcpy(p + 1, &ix, sizeof ix);
		d->used += 1 + sizeof ix;
	}
	L->nidx = f->base;
	if (map && yd_check_dups(L, d->tape + f->off) != 0)
		return -1;
	return 0;
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
	if (yd_tape_init(d, len) != 0 || !yaml_parser_initialize(&parser)) {
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
	free(L.idx);
	if (rc != 0) {
		yd_free(d);
		return NULL;
	}
	if (L.has_root)
		d->root = (const yd_node *)(d->tape + L.root_off);
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
 * only advisory (/proc files and growing files lie about it). */
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
	unsigned char *buf;
	size_t len = 0, hint = 0;
	long long size = 0;
	int e = 0;
	FILE *f;
	yd_doc *d;

	/* only a regular file: never blocks on a FIFO or reads a device */
	if ((f = paths_fopen_regular(path, &size, err, errlen)) == NULL) {
		if (err != NULL && errlen > 0)
			text_safe(err, errlen, err);
		return NULL;
	}
	if (size < 0 || (unsigned long long)size > YD_MAX_BYTES) {
		fclose(f);
		yd_format(err, errlen, path, 0, 0,
			  "file is larger than %zu MiB (%lld bytes)",
			  YD_MAX_BYTES >> 20, size);
		return NULL;
	}
	hint = (size_t)size;
	errno = 0;
	buf = yd_slurp(f, hint, &len, &e);
	fclose(f);
	if (buf == NULL) {
		yd_format(err, errlen, path, 0, 0, "read: %s", strerror(e));
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
	free(d->tape);
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
	return n ? (yd_kind)(rec(n)[0] & 3) : YD_SCALAR;
}

int
yd_line(const yd_node *n)
{
	uint32_t l, c;

	if (n == NULL)
		return 0;
	rec_pos(rec(n), &l, &c);
	return (int)l;
}

int
yd_col(const yd_node *n)
{
	uint32_t l, c;

	if (n == NULL)
		return 0;
	rec_pos(rec(n), &l, &c);
	return (int)c;
}

const char *
yd_str(const yd_node *n)
{
	size_t len;

	return n && yd_kind_of(n) == YD_SCALAR ? rec_text(rec(n), &len) : NULL;
}

int
yd_plain(const yd_node *n)
{
	return n && yd_kind_of(n) == YD_SCALAR && (rec(n)[0] & REC_PLAIN) != 0;
}

size_t
yd_len(const yd_node *n)
{
	return n && yd_kind_of(n) != YD_SCALAR ? rec_count(rec(n)) : 0;
}

const yd_node *
yd_keynode(const yd_node *map, size_t i)
{
	if (map == NULL || yd_kind_of(map) != YD_MAP || i >= yd_len(map))
		return NULL;
	return (const yd_node *)rec_child(rec(map), 2 * i);
}

const char *
yd_key(const yd_node *map, size_t i)
{
	return yd_str(yd_keynode(map, i));
}

const yd_node *
yd_val(const yd_node *map, size_t i)
{
	if (map == NULL || yd_kind_of(map) != YD_MAP || i >= yd_len(map))
		return NULL;
	return (const yd_node *)rec_child(rec(map), 2 * i + 1);
}

const yd_node *
yd_item(const yd_node *seq, size_t i)
{
	if (seq == NULL || yd_kind_of(seq) != YD_SEQ || i >= yd_len(seq))
		return NULL;
	return (const yd_node *)rec_child(rec(seq), i);
}

const yd_node *
yd_get(const yd_node *map, const char *key)
{
	const unsigned char *k, *v;
	size_t i, n, len, klen;
	const char *s;

	if (map == NULL || yd_kind_of(map) != YD_MAP || key == NULL)
		return NULL;
	n = yd_len(map);
	len = strlen(key);
	for (i = 0, k = rec_norm(rec_next(rec(map))); i < n; i++) {
		v = rec_step(k); /* a key is never the last child */
		s = rec_text(k, &klen);
		if (klen == len && memcmp(s, key, len) == 0)
			return (const yd_node *)v;
		if (i + 1 < n)
			k = rec_step(v);
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
	const char *s;
	size_t len;

	if (n == NULL) {
		yd_errat(d, NULL, err, errlen, "%s is missing", what);
		return NULL;
	}
	if (yd_kind_of(n) != YD_SCALAR) {
		yd_errat(d, n, err, errlen, "%s must be %s, got a %s", what, kind,
			 yd_kind_of(n) == YD_MAP ? "mapping" : "sequence");
		return NULL;
	}
	s = rec_text(rec(n), &len);
	if (!yd_plain(n)) {
		yd_quote(q, sizeof q, s, len);
		yd_errat(d, n, err, errlen,
			 "%s must be %s, got the quoted string '%s'", what, kind, q);
		return NULL;
	}
	if (len == 0) {
		yd_errat(d, n, err, errlen, "%s must be %s, got an empty value",
			 what, kind);
		return NULL;
	}
	return s;
}

static int
yd_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static void
yd_got(char *q, size_t qlen, const yd_node *n)
{
	size_t len;
	const char *s = rec_text(rec(n), &len);

	yd_quote(q, qlen, s, len);
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
