/*
 * Reading a file that someone else named.  Only a regular file is read,
 * and only up to a size limit: a FIFO, a device or a socket would block or
 * never end, and a huge file would hold the event loop.  Opening a path
 * uses O_NONBLOCK so that even the open of a FIFO with no writer returns
 * at once (it is then refused as not a regular file).
 */
#ifndef FABRICD_FILE_H
#define FABRICD_FILE_H

#include <stddef.h>

#define FILE_MAX_INPUT	(1u << 20)	/* 1 MiB: any real config or partition file */

/*
 * Read all of fd (a regular file of at most max bytes) into a NUL-ended
 * heap buffer.  Returns 0 and sets *buf, *len; or -1 with *why a static
 * reason ("not a regular file", "larger than 1048576 bytes", "not open for
 * reading", ...), valid in the calling thread until its next call.  The
 * fd is left open.
 */
int file_read_fd(int fd, size_t max, char **buf, size_t *len, const char **why);

/* The same for a path the daemon may open itself (its own config).  On
 * failure *why is the open error's text or one of the reasons above. */
int file_read_path(const char *path, size_t max, char **buf, size_t *len, const char **why);

#endif
