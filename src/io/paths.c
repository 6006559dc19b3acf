/* paths.c - data directory search. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "io/paths.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef STRATA_DATADIR
#define STRATA_DATADIR "/usr/local/share/strata"
#endif

static void add(paths_t *p, const char *dir)
{
	struct stat st;
	if (!dir || !dir[0] || p->n >= PATHS_MAX || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->dir[i], dir))
			return;
	snprintf(p->dir[p->n++], sizeof p->dir[0], "%s", dir);
}

/* dst = a + b when it fits; -1 otherwise (paths longer than PATH_MAX are skipped). */
static int join(char *dst, size_t n, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + lb + 1 > n)
		return -1;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb + 1);
	return 0;
}

void paths_init(paths_t *p, const char *argv0)
{
	char buf[PATH_MAX];
	p->n = 0;
	add(p, getenv("STRATA_DATA"));
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0]) {
		if (!join(buf, sizeof buf, xdg, "/strata"))
			add(p, buf);
	} else if (home && home[0]) {
		if (!join(buf, sizeof buf, home, "/.config/strata"))
			add(p, buf);
	}
	/* the directory of the executable: build/strata in a source tree, bin/strata when
	 * installed under PREFIX */
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0)
		exe[n] = 0;
	else if (!argv0 || !realpath(argv0, exe))
		exe[0] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		goto installed;
	*slash = 0;
	char real[PATH_MAX], probe[PATH_MAX];
	struct stat st;
	if (join(buf, sizeof buf, exe, "/..") || !realpath(buf, real))
		goto installed;
	if (!join(probe, sizeof probe, real, "/presets") && !stat(probe, &st))
		add(p, real);
	if (!join(probe, sizeof probe, real, "/share/strata"))
		add(p, probe);
installed:
	add(p, STRATA_DATADIR);
}

int paths_find(const paths_t *p, const char *sub, char *out, size_t outlen)
{
	for (int i = 0; i < p->n; i++) {
		snprintf(out, outlen, "%s/%s", p->dir[i], sub);
		if (!access(out, R_OK))
			return 0;
	}
	return -1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void paths_each_ext(const paths_t *p, const char *sub, const char *ext,
		void (*fn)(const char *, const char *, void *), void *arg)
{
	char seen[512][64];
	int nseen = 0;
	size_t el = strlen(ext);
	for (int i = 0; i < p->n; i++) {
		char dir[1200];
		snprintf(dir, sizeof dir, "%s/%s", p->dir[i], sub);
		DIR *d = opendir(dir);
		if (!d)
			continue;
		char *names[512];
		int nn = 0;
		struct dirent *e;
		while ((e = readdir(d)) && nn < 512) {
			size_t l = strlen(e->d_name);
			if (l > el && l < 64 && !strcmp(e->d_name + l - el, ext))
				names[nn++] = strdup(e->d_name);
		}
		closedir(d);
		qsort(names, nn, sizeof names[0], cmp);
		for (int k = 0; k < nn; k++) {
			if (!names[k])
				continue;
			names[k][strlen(names[k]) - el] = 0;
			int dup = 0;
			for (int j = 0; j < nseen; j++)
				if (!strcmp(seen[j], names[k]))
					dup = 1;
			if (!dup && nseen < 512) {
				snprintf(seen[nseen++], sizeof seen[0], "%s", names[k]);
				char full[1400];
				snprintf(full, sizeof full, "%s/%s%s", dir, names[k], ext);
				fn(names[k], full, arg);
			}
			free(names[k]);
		}
	}
}

void paths_each(const paths_t *p, const char *sub, void (*fn)(const char *, const char *, void *), void *arg)
{
	paths_each_ext(p, sub, ".yaml", fn, arg);
}
