/* paths.h - where strata finds its data: presets, themes and Lua recipes.
 * Search order: $STRATA_DATA, the user's $XDG_CONFIG_HOME/strata (or ~/.config/strata),
 * the source tree next to the binary (build/strata -> ./), the installed share dir. */
#ifndef STRATA_IO_PATHS_H
#define STRATA_IO_PATHS_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#define PATHS_MAX 6

typedef struct {
	int n;
	char dir[PATHS_MAX][PATH_MAX];
} paths_t;

/* What a file of st_mode MODE is, for messages about files that are not regular ("a FIFO",
 * "a directory", "a character device", ...). */
const char *paths_file_kind(unsigned mode);
/* Open PATH for reading when it is a regular file, without ever blocking: a FIFO, device,
 * socket or directory is refused before it is opened ("PATH: not a regular file (a FIFO)",
 * "PATH: Is a directory"; otherwise "PATH: reason", naming the call when it is not open).
 * *SIZE (if SIZE) gets the file's size. The stream, or NULL with the message in err. */
FILE *paths_fopen_regular(const char *path, long long *size, char *err, size_t errlen);
/* Build the search list; argv0 locates the source tree or install prefix. */
void paths_init(paths_t *p, const char *argv0);
/* Find SUB (e.g. "presets/models/llama3-8b.yaml") in the list; 0 and out filled, or -1. */
int paths_find(const paths_t *p, const char *sub, char *out, size_t outlen);
/* Call fn for every "*.yaml" under SUB in every dir (user files first; a name seen once
 * is not repeated). fn gets the preset name and the full path. */
void paths_each(const paths_t *p, const char *sub, void (*fn)(const char *name, const char *path, void *arg),
		void *arg);
/* The same for files ending in ext (".lua": the recipes under "lua"); names lose ext. */
void paths_each_ext(const paths_t *p, const char *sub, const char *ext,
		void (*fn)(const char *name, const char *path, void *arg), void *arg);

#endif
