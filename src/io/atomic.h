/* atomic.h - replace a file so that readers see either the old or the new contents,
 * never a mix, and a failure (full disk, unwritable directory, a text that would not load
 * back) leaves the old file.
 *
 * The temporary file is NAME's sibling `.NAME.strata-tmp.PID` (NAME cut on a character
 * boundary so the whole stays within 255 bytes; `-2`, `-3`, ... appended if that exists).
 * A save killed before its rename leaves one behind: the next save of the same file
 * removes those whose PID is no longer running. */
#ifndef STRATA_IO_ATOMIC_H
#define STRATA_IO_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

/* Look at the written temporary file TMP before it replaces the target: 0 to go on, or -1
 * with the reason in err (the target is then left as it was). */
typedef int (*atomic_check_fn)(const char *tmp, void *arg, char *err, size_t errlen);

/* Write LEN bytes of DATA to PATH through a temporary file in the same directory, fsync
 * it, rename it over PATH and fsync the directory. A symlink is followed to its target;
 * an existing file keeps its permission bits (not set-user-ID, set-group-ID or sticky), a
 * new one gets 0666 less the umask. 0, or -1 + err naming the call that failed. */
int atomic_replace(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* Run WRITE(f, arg, err, errlen) into memory and, when it returns 0, replace PATH with the
 * text as atomic_replace does: nothing touches the disk unless the whole text was made.
 * 0, or -1 + err (WRITE's own reason when it failed). */
int atomic_write_with(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen), void *arg,
		char *err, size_t errlen);
/* atomic_write_with, and CHECK(tmp, arg, ...) on the written temporary file before the
 * rename: a text CHECK refuses never replaces PATH. 0, or -1 + err. */
int atomic_write_checked(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen),
		atomic_check_fn check, void *arg, char *err, size_t errlen);
/* atomic_write_with for a script: the file also ends executable by whoever may read it
 * (a new file 0777 less the umask, usually 0755; an existing one gains x where it has r).
 * 0, or -1 + err. */
int atomic_write_exec(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen), void *arg,
		char *err, size_t errlen);

#endif
