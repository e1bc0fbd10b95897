/*
 * Reading the files a client passed (FILE arguments, SCM_RIGHTS) off the
 * event loop.  A regular file can still block: a FUSE file that answers
 * late, a hung NFS mount.  Its fstat and preads run on a thread of their
 * own, and the result is posted back to the loop through a pipe (as the
 * MAD engine's receiver does), so a blocking file costs its caller, never
 * root's status or a sweep.
 *
 * Bounds: at most CTL_FILE_THREADS readers at once, CTL_FILE_PER_UID of
 * them for one uid (past either the request is "busy"); a read that has
 * not finished after CTL_FILE_DEADLINE_MS is answered "timeout" while its
 * thread, still stuck in the kernel, keeps its slot until it returns.
 * The daemon still opens nothing for a client: only the descriptors the
 * client passed are read.
 */
#ifndef FABRICD_CONTROL_FILES_H
#define FABRICD_CONTROL_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <event2/event.h>

#include "daemon/control_conn.h"

#define CTL_FILE_THREADS	16
#define CTL_FILE_PER_UID	4
#define CTL_FILE_DEADLINE_MS	30000

enum ctl_files_status { CTL_FILES_OK, CTL_FILES_REFUSED, CTL_FILES_TIMEOUT };

/* What the reader found, given to the callback on the loop.  On OK every
 * data[i] is a NUL-ended buffer of len[i] bytes that the callback may take
 * (set it to NULL); on REFUSED file `failed` gave reason `why`. */
struct ctl_files_result {
	enum ctl_files_status	 status;
	size_t			 n, failed;
	char			*data[CTL_MAX_FDS];
	size_t			 len[CTL_MAX_FDS];
	char			 why[96];
};

typedef void (*ctl_files_cb)(void *arg, struct ctl_files_result *r);

int ctl_files_init(struct event_base *base);
void ctl_files_shutdown(void);

/*
 * Read fds[0..n) (taken: closed by the reader, whatever happens) on a
 * reader thread; cb(arg, result) runs later on the loop, exactly once.
 * Returns -1 without taking the descriptors, with why set, when the
 * bounds above refuse (the caller answers "busy").
 */
int ctl_files_read(const int *fds, size_t n, uid_t uid, ctl_files_cb cb, void *arg,
    char *why, size_t whylen);

/* Readers running now (threads alive, timed-out ones included). */
unsigned ctl_files_running(void);

#endif
