/* atomic.c - whole-file replacement by temporary file and rename. */
#include "io/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* write(2) until everything is out; a short write on a full disk ends in ENOSPC. */
static int put_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Flush the directory entry of a rename to disk; best effort, as some file systems
 * refuse fsync on directories. */
static void sync_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY);
	if (dfd < 0)
		return;
	(void)fsync(dfd);
	close(dfd);
}

int atomic_replace(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char target[PATH_MAX], tmp[PATH_MAX + 32], dir[PATH_MAX];
	mode_t mode = 0644;
	struct stat st;

	/* rename() replaces a symlink itself; resolve it so the file it names is replaced */
	if (realpath(path, target)) {
		if (!stat(target, &st)) {
			if (!S_ISREG(st.st_mode)) {
				snprintf(err, errlen, "%s: not a regular file", path);
				return -1;
			}
			mode = st.st_mode & 07777;
		}
	} else if (snprintf(target, sizeof target, "%s", path) >= (int)sizeof target) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	const char *base = strrchr(target, '/');
	if (base) {
		snprintf(dir, sizeof dir, "%.*s", base == target ? 1 : (int)(base - target), target);
		base++;
	} else {
		snprintf(dir, sizeof dir, ".");
		base = target;
	}
	if (!*base) {
		snprintf(err, errlen, "%s: names a directory, not a file", path);
		return -1;
	}
	/* same directory as the target, so the rename never crosses file systems */
	int plen = (int)(base - target);
	if (snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", plen, target, base) >= (int)sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create a file in %s: %s", path, dir, strerror(errno));
		return -1;
	}
	int bad = put_all(fd, data, len) || fchmod(fd, mode) || fsync(fd);
	int saved = errno;
	if (close(fd) && !bad) {
		bad = 1;
		saved = errno;
	}
	if (!bad && rename(tmp, target)) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s (the previous file is unchanged)", path, strerror(saved));
		return -1;
	}
	sync_dir(dir);
	return 0;
}

int atomic_write_with(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen), void *arg,
		char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	if (!mf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	int rc = write(mf, arg, err, errlen);
	if (fclose(mf) && !rc) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -1;
	}
	if (!rc)
		rc = atomic_replace(path, text, len, err, errlen);
	free(text);
	return rc;
}
