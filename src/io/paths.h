/* paths.h - where strata finds its data: presets, themes and Lua recipes.
 * Search order: $STRATA_DATA, the user's $XDG_CONFIG_HOME/strata (or ~/.config/strata),
 * the source tree next to the binary (build/strata -> ./), the installed share dir. */
#ifndef STRATA_IO_PATHS_H
#define STRATA_IO_PATHS_H

#include <stddef.h>

#define PATHS_MAX 6

typedef struct {
	int n;
	char dir[PATHS_MAX][1024];
} paths_t;

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
