/* ydoc: load a YAML or JSON file into an immutable tree that remembers where
 * every node came from, so later code can map it onto structs and report
 * "file:line:col: message" errors.
 *
 * The loader treats its input as hostile: it bounds the file size, the
 * nesting depth and refuses aliases (the "billion laughs" expansion), extra
 * documents, duplicate and non-scalar keys, and reads only regular files.
 * Tags and anchors are ignored. The tree is a compact tape owned by the
 * yd_doc (a few bytes a node; ydoc.c); every pointer handed out stays valid
 * until yd_free(). Messages are terminal-safe (io/text.h). */
#ifndef STRATA_YDOC_H
#define STRATA_YDOC_H

#include <stddef.h>

#define YD_MAX_BYTES ((size_t)64 << 20) /* largest input accepted: 64 MiB */
#define YD_MAX_DEPTH 64                 /* deepest nesting of maps/seqs */

typedef enum { YD_SCALAR, YD_MAP, YD_SEQ } yd_kind;

typedef struct yd_node yd_node; /* opaque; read through the accessors below */
typedef struct yd_doc yd_doc;   /* opaque; owns all its nodes */

/* Load PATH; NULL on error with "PATH: reason" or "PATH:LINE:COL: reason" in err. A FIFO,
 * device, socket or directory is refused before it is opened, never waited on. */
yd_doc *yd_load_file(const char *path, char *err, size_t errlen);
/* Load LEN bytes of TEXT; NAME (NULL -> "<string>") prefixes error messages. */
yd_doc *yd_load_string(const char *text, size_t len, const char *name, char *err,
		       size_t errlen);
/* Release a document and every node in it; NULL is allowed. */
void yd_free(yd_doc *d);

/* File name used in messages. */
const char *yd_name(const yd_doc *d);
/* Root node, or NULL for an empty document (no content, only comments). */
const yd_node *yd_root(const yd_doc *d);

/* Kind of a node. */
yd_kind yd_kind_of(const yd_node *n);
/* 1-based line where the node starts (0 for NULL). */
int yd_line(const yd_node *n);
/* 1-based column, in characters, where the node starts (0 for NULL). */
int yd_col(const yd_node *n);
/* Scalar text (an empty value such as "key:" gives ""); NULL if not a scalar. */
const char *yd_str(const yd_node *n);
/* 1 if the scalar was written plain (unquoted, not a block scalar), else 0. */
int yd_plain(const yd_node *n);
/* Number of entries of a map or items of a seq; 0 for scalars and NULL. */
size_t yd_len(const yd_node *n);
/* Text of the i-th key of a map, in document order; NULL if out of range. */
const char *yd_key(const yd_node *map, size_t i);
/* Node of the i-th key of a map (for its position); NULL if out of range. */
const yd_node *yd_keynode(const yd_node *map, size_t i);
/* Value of the i-th entry of a map; NULL if out of range. */
const yd_node *yd_val(const yd_node *map, size_t i);
/* i-th item of a seq; NULL if out of range or not a seq. */
const yd_node *yd_item(const yd_node *seq, size_t i);
/* Value for KEY in a map; NULL if absent or MAP is not a map. */
const yd_node *yd_get(const yd_node *map, const char *key);

/* Typed readers: 0 on success; on failure -1 and "NAME:LINE:COL: WHAT must be ..."
 * in err. Only plain scalars qualify: "8" in quotes is a string, not a number. */

/* Read a decimal integer in [lo, hi]; rejects "8.5", "1e3", "+1", "0x10". */
int yd_long(const yd_doc *d, const yd_node *n, const char *what, long long lo,
	    long long hi, long long *out, char *err, size_t errlen);
/* Read a finite number in [lo, hi] ("3", "-.5", "1e3"); rejects nan, inf, .inf, hex. */
int yd_double(const yd_doc *d, const yd_node *n, const char *what, double lo,
	      double hi, double *out, char *err, size_t errlen);
/* Read true/false/yes/no/on/off, any letter case, into 1 or 0. */
int yd_bool(const yd_doc *d, const yd_node *n, const char *what, int *out,
	    char *err, size_t errlen);
/* Format "NAME:LINE:COL: " (or "NAME: " when n is NULL) followed by the message. */
void yd_errat(const yd_doc *d, const yd_node *n, char *err, size_t errlen,
	      const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

#endif
