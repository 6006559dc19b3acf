/* atomic.h - replace a file so that readers see either the old or the new contents,
 * never a mix, and a failure (full disk, unwritable directory) leaves the old file. */
#ifndef STRATA_IO_ATOMIC_H
#define STRATA_IO_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

/* Write LEN bytes of DATA to PATH through a temporary file in the same directory, fsync
 * it, rename it over PATH and fsync the directory. A symlink is followed to its target;
 * an existing file keeps its permission bits, a new one gets 0644. 0, or -1 + err. */
int atomic_replace(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* Run WRITE(f, arg, err, errlen) into memory and, when it returns 0, replace PATH with the
 * text as atomic_replace does: nothing touches the disk unless the whole text was made.
 * 0, or -1 + err (WRITE's own reason when it failed). */
int atomic_write_with(const char *path, int (*write)(FILE *f, void *arg, char *err, size_t errlen), void *arg,
		char *err, size_t errlen);

#endif
