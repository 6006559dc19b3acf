/* atomic.c - whole-file replacement by temporary file and rename. */
#include "io/atomic.h"
#include "io/paths.h"
#include "io/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* What a temporary file's name carries between the target's name and the PID. */
#define TMP_TAG ".strata-tmp."
/* Room a temporary name needs beyond its stem: the tag, a PID, "-NN". */
#define TMP_TAIL (sizeof TMP_TAG - 1 + 10 + 3)

typedef struct {
	char target[PATH_MAX];          /* the file replaced (a symlink's target) */
	char dir[PATH_MAX];             /* its directory */
	char stem[NAME_MAX + 1];        /* "." and its name, cut so a temporary name fits */
	int exists;                     /* there is a previous file */
	mode_t mode;                    /* its permission bits */
} target_t;

/* write(2) until everything is out; a short write on a full disk ends in ENOSPC. */
static int put_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Flush the directory entry of a rename to disk; best effort, as some file systems
 * refuse fsync on directories. */
static void sync_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		return;
	(void)fsync(dfd);
	close(dfd);
}

/* "PATH: [WHAT: ]CALL FILE: reason (what happened to the previous file)". Returns -1. */
static int fail_in(char *err, size_t n, const char *path, const char *what, const char *call, const char *file,
		int e, const target_t *t)
{
	snprintf(err, n, "%s: %s%s%s%s%s: %s (%s)", path, what ? what : "", what ? ": " : "", call, file ? " " : "",
			file ? file : "", strerror(e), t->exists ? "the previous file is unchanged" : "nothing was written");
	return -1;
}

static int fail(char *err, size_t n, const char *path, const char *call, const char *file, int e,
		const target_t *t)
{
	return fail_in(err, n, path, NULL, call, file, e, t);
}

/* Which file PATH replaces and where its temporary file goes. 0, or -1 with err. */
static int resolve(const char *path, target_t *t, char *err, size_t n)
{
	struct stat st;
	memset(t, 0, sizeof *t);
	/* rename() replaces a symlink itself; resolve it so the file it names is replaced */
	if (realpath(path, t->target)) {
		if (stat(t->target, &st))
			return fail(err, n, path, "stat", t->target, errno, t);
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, n, "%s: not a regular file (%s)", path, paths_file_kind(st.st_mode));
			return -1;
		}
		t->exists = 1;
		/* the permission bits, not set-user-ID, set-group-ID or sticky: a plan is data */
		t->mode = st.st_mode & 0777;
	} else {
		int e = errno;
		if (e != ENOENT)
			return fail(err, n, path, "realpath", NULL, e, t);
		if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
			snprintf(err, n, "%s: a symbolic link to a file that does not exist (nothing was written)", path);
			return -1;
		}
		if (strlen(path) >= sizeof t->target)
			return fail(err, n, path, "open", NULL, ENAMETOOLONG, t);
		strcpy(t->target, path);
	}
	char *slash = strrchr(t->target, '/');
	const char *base = slash ? slash + 1 : t->target;
	if (!*base) {
		snprintf(err, n, "%s: names a directory, not a file", path);
		return -1;
	}
	if (slash)
		snprintf(t->dir, sizeof t->dir, "%.*s", slash == t->target ? 1 : (int)(slash - t->target), t->target);
	else
		strcpy(t->dir, ".");
	t->stem[0] = '.';
	text_copy(t->stem + 1, NAME_MAX - TMP_TAIL, base);
	return 0;
}

/* Remove the temporary files that saves of this target killed before their rename left
 * behind: `STEM.strata-tmp.PID[-N]`, regular files, whose PID no longer runs. */
static void remove_stale(const target_t *t)
{
	DIR *d = opendir(t->dir);
	if (!d)
		return;
	size_t sl = strlen(t->stem), tl = strlen(TMP_TAG);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *q = e->d_name + sl;
		char *end, full[PATH_MAX];
		struct stat st;
		if (strncmp(e->d_name, t->stem, sl) || strncmp(q, TMP_TAG, tl) || q[tl] < '0' || q[tl] > '9')
			continue;
		errno = 0;
		long pid = strtol(q + tl, &end, 10);
		if (*end == '-' && end[1] >= '0' && end[1] <= '9')
			(void)strtol(end + 1, &end, 10);
		if (*end || errno || pid <= 0 || pid > INT_MAX || (pid_t)pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* running, or not ours to ask about (EPERM): keep it */
		if (snprintf(full, sizeof full, "%s/%s", t->dir, e->d_name) >= (int)sizeof full)
			continue;
		if (!lstat(full, &st) && S_ISREG(st.st_mode))
			unlink(full);
	}
	closedir(d);
}

/* Create the temporary file beside the target; the fd, or -1 with err. */
static int create_tmp(const char *path, const target_t *t, char *tmp, size_t n, char *err, size_t errlen)
{
	int e = 0;
	for (int k = 1; k < 100; k++) {
		char sfx[8] = "";
		if (k > 1)
			snprintf(sfx, sizeof sfx, "-%d", k);
		if (snprintf(tmp, n, "%s/%s%s%ld%s", strcmp(t->dir, "/") ? t->dir : "", t->stem, TMP_TAG,
					(long)getpid(), sfx) >= (int)n)
			return fail(err, errlen, path, "open", "(a temporary file beside it)", ENAMETOOLONG, t);
		/* 0666: a new file follows the umask */
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if ((e = errno) != EEXIST)
			break;
	}
	char what[PATH_MAX + 32];
	snprintf(what, sizeof what, "cannot create a file in %s", t->dir);
	return fail_in(err, errlen, path, what, "open", strrchr(tmp, '/') + 1, e, t);
}

/* atomic_replace with a look at the temporary file before the rename. */
static int replace(const char *path, const char *data, size_t len, atomic_check_fn check, void *arg, int exec,
		char *err, size_t errlen)
{
	target_t t;
	char tmp[PATH_MAX];
	if (resolve(path, &t, err, errlen))
		return -1;
	remove_stale(&t);
	int fd = create_tmp(path, &t, tmp, sizeof tmp, err, errlen);
	if (fd < 0)
		return -1;
	const char *tmpname = strrchr(tmp, '/') + 1; /* its directory is the target's */
	const char *call = NULL;
	char why[1024] = "";
	int refused = 0;
	struct stat st;
	if (fstat(fd, &st))
		call = "fstat";
	/* the mode it ends with: the old file's permission bits, or a new file's as created
	 * (0666 less the umask) */
	mode_t mode = t.exists || call ? t.mode : st.st_mode & 0777;
	if (exec) /* whoever may read it may run it (chmod a+x within the read bits) */
		mode |= (mode & 0444) >> 2;
	if (!call && put_all(fd, data, len))
		call = "write";
	if (!call && check && fchmod(fd, mode | 0400)) /* the owner reads it back for the check */
		call = "fchmod";
	if (!call && check && check(tmp, arg, why, sizeof why))
		refused = 1;
	if (!call && !refused && fchmod(fd, mode))
		call = "fchmod";
	if (!call && !refused && fsync(fd))
		call = "fsync";
	int e = errno;
	if (close(fd) && !call && !refused) {
		call = "close";
		e = errno;
	}
	if (call || refused)
		unlink(tmp);
	if (call)
		return fail(err, errlen, path, call, tmpname, e, &t);
	if (refused) {
		snprintf(err, errlen, "%s: not replaced: %s (%s)", path, why,
				t.exists ? "the previous file is unchanged" : "nothing was written");
		return -1;
	}
	if (rename(tmp, t.target)) {
		e = errno;
		unlink(tmp);
		return fail(err, errlen, path, "rename", tmpname, e, &t);
	}
	sync_dir(t.dir);
	return 0;
}

int atomic_replace(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	return replace(path, data, len, NULL, NULL, 0, err, errlen);
}

/* Make the text in memory, then replace PATH with it (executable when exec is set). */
static int write_replace(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen),
		atomic_check_fn check, void *arg, int exec, char *err, size_t errlen)
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
		rc = replace(path, text, len, check, arg, exec, err, errlen);
	free(text);
	return rc;
}

int atomic_write_checked(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen),
		atomic_check_fn check, void *arg, char *err, size_t errlen)
{
	return write_replace(path, write, check, arg, 0, err, errlen);
}

int atomic_write_exec(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen), void *arg,
		char *err, size_t errlen)
{
	return write_replace(path, write, NULL, arg, 1, err, errlen);
}

int atomic_write_with(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen), void *arg,
		char *err, size_t errlen)
{
	return atomic_write_checked(path, write, NULL, arg, err, errlen);
}
