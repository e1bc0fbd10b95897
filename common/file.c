/* Bounded reads of regular files (see file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/xmalloc.h"

int
file_read_fd(int fd, size_t max, char **buf, size_t *len, const char **why)
{
	/* per thread: passed files are read on reader threads (daemon/control_files.c) */
	static __thread char too_large[64];
	struct stat st;
	size_t have = 0;
	char *b;
	int fl;

	*buf = NULL;
	*len = 0;
	if (fstat(fd, &st) != 0) {
		*why = "cannot be examined";
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) < 0 || (fl & O_ACCMODE) == O_WRONLY) {
		*why = "not open for reading";
		return -1;
	}
	if ((size_t)st.st_size > max) {
		snprintf(too_large, sizeof(too_large), "larger than %zu bytes", max);
		*why = too_large;
		return -1;
	}
	/* read up to max + 1 from the start, whatever the descriptor's offset:
	 * a file that grew since fstat is still refused */
	b = xmalloc(max + 2);
	for (;;) {
		ssize_t n = pread(fd, b + have, max + 1 - have, (off_t)have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(b);
			*why = "read error";
			return -1;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > max) {
			free(b);
			snprintf(too_large, sizeof(too_large), "larger than %zu bytes", max);
			*why = too_large;
			return -1;
		}
	}
	b[have] = '\0';
	*buf = b;
	*len = have;
	return 0;
}

int
file_read_path(const char *path, size_t max, char **buf, size_t *len, const char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), rc;

	if (fd < 0) {
		*buf = NULL;
		*len = 0;
		*why = strerror(errno);
		return -1;
	}
	rc = file_read_fd(fd, max, buf, len, why);
	close(fd);
	return rc;
}
