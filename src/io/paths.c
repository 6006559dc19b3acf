/* paths.c - data directory search. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "io/paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef STRATA_DATADIR
#define STRATA_DATADIR "/usr/local/share/strata"
#endif

const char *paths_file_kind(unsigned mode)
{
	mode_t m = (mode_t)mode;
	return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
		S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
		S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* Refuse a file that is not regular with "PATH: reason" in err: -1, or 0. */
static int not_regular(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (S_ISREG(st->st_mode))
		return 0;
	if (S_ISDIR(st->st_mode))
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
	else
		snprintf(err, errlen, "%s: not a regular file (%s)", path, paths_file_kind(st->st_mode));
	return -1;
}

/* A FIFO would block until a writer came, a device may never end, and opening some devices
 * has effects of its own: stat() refuses them before anything is opened, and O_NONBLOCK with
 * fstat() on the descriptor covers a file swapped in between. */
FILE *paths_fopen_regular(const char *path, long long *size, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;
	FILE *f;
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (not_regular(path, &st, err, errlen))
		return NULL;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "%s: fstat: %s", path, strerror(e));
		return NULL;
	}
	if (not_regular(path, &st, err, errlen)) {
		close(fd);
		return NULL;
	}
	if (!(f = fdopen(fd, "rb"))) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "%s: fdopen: %s", path, strerror(e));
		return NULL;
	}
	if (size)
		*size = (long long)st.st_size;
	return f;
}

static void add(paths_t *p, const char *dir)
{
	struct stat st;
	if (!dir || !dir[0] || p->n >= PATHS_MAX || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	if (strlen(dir) >= sizeof p->dir[0])
		return; /* longer than PATH_MAX: nothing in it could be opened */
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->dir[i], dir))
			return;
	strcpy(p->dir[p->n++], dir);
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
		if ((size_t)snprintf(out, outlen, "%s/%s", p->dir[i], sub) >= outlen)
			continue;
		if (!access(out, R_OK))
			return 0;
	}
	return -1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define EACH_MAX 512 /* files listed per directory */

/* Whether name is among the first n of seen. */
static int seen_has(char *const *seen, int n, const char *name)
{
	for (int j = 0; j < n; j++)
		if (!strcmp(seen[j], name))
			return 1;
	return 0;
}

void paths_each_ext(const paths_t *p, const char *sub, const char *ext,
		void (*fn)(const char *, const char *, void *), void *arg)
{
	char *seen[EACH_MAX];
	int nseen = 0;
	size_t el = strlen(ext);
	for (int i = 0; i < p->n; i++) {
		char dir[PATH_MAX];
		if ((size_t)snprintf(dir, sizeof dir, "%s/%s", p->dir[i], sub) >= sizeof dir)
			continue;
		DIR *d = opendir(dir);
		if (!d)
			continue;
		char *names[EACH_MAX];
		int nn = 0;
		struct dirent *e;
		while ((e = readdir(d)) && nn < EACH_MAX) {
			size_t l = strlen(e->d_name);
			if (l > el && !strcmp(e->d_name + l - el, ext) && (names[nn] = strdup(e->d_name)))
				nn++;
		}
		closedir(d);
		qsort(names, nn, sizeof names[0], cmp);
		for (int k = 0; k < nn; k++) {
			char full[PATH_MAX];
			int fits = (size_t)snprintf(full, sizeof full, "%s/%s", dir, names[k]) < sizeof full;
			names[k][strlen(names[k]) - el] = 0;
			if (fits && nseen < EACH_MAX && !seen_has(seen, nseen, names[k])) {
				seen[nseen++] = names[k];
				fn(names[k], full, arg);
			} else {
				free(names[k]);
			}
		}
	}
	for (int j = 0; j < nseen; j++)
		free(seen[j]);
}

void paths_each(const paths_t *p, const char *sub, void (*fn)(const char *, const char *, void *), void *arg)
{
	paths_each_ext(p, sub, ".yaml", fn, arg);
}
