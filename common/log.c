/*
 * Logging to stderr with a level prefix.  Under systemd, journald stamps
 * the time, so we do not; the process name prefixes fatal messages.
 *
 * When stderr is the journal's stream (JOURNAL_STREAM names its device and
 * inode, see systemd.exec(5)), every line also starts with the sd-daemon(3)
 * priority ("<3>" ...), so that journald files each at its own level and
 * `journalctl -p warning` shows the warnings.  Anywhere else (a terminal,
 * a test's log file) the lines stay plain.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "common/log.h"

static const char *log_progname = "fabricd";
static enum log_level log_threshold = LOG_LVL_INFO;
static int log_to_journal;

static const char *const level_prio[] = {
	[LOG_LVL_ERROR] = SD_ERR, [LOG_LVL_WARN] = SD_WARNING,
	[LOG_LVL_NOTICE] = SD_NOTICE, [LOG_LVL_INFO] = SD_INFO,
	[LOG_LVL_DEBUG] = SD_DEBUG,
};

static const char *const level_names[] = {
	[LOG_LVL_ERROR] = "error", [LOG_LVL_WARN] = "warning",
	[LOG_LVL_NOTICE] = "notice", [LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug",
};

bool
log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void
log_init(const char *progname, enum log_level level)
{
	log_progname = progname;
	log_threshold = level;
	log_to_journal = log_stderr_is_journal();
}

/* "<N>" under journald, "" elsewhere. */
static const char *
prio(const char *sd_prefix)
{
	return log_to_journal ? sd_prefix : "";
}

void
log_set_level(enum log_level level)
{
	log_threshold = level;
}

enum log_level
log_get_level(void)
{
	return log_threshold;
}

const char *
log_level_name(enum log_level level)
{
	return level <= LOG_LVL_DEBUG ? level_names[level] : "?";
}

int
log_level_parse(const char *name, enum log_level *out)
{
	for (int i = LOG_LVL_ERROR; i <= LOG_LVL_DEBUG; i++) {
		if (strcasecmp(name, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	if (strcasecmp(name, "warn") == 0) {
		*out = LOG_LVL_WARN;
		return 0;
	}
	return -1;
}

static void
log_vemit(enum log_level level, int errnum, const char *fmt, va_list ap)
{
	char msg[2048];

	if (level > log_threshold)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum)
		fprintf(stderr, "%s%s: %s: %s\n", prio(level_prio[level]), level_names[level], msg,
		    strerror(errnum));
	else
		fprintf(stderr, "%s%s: %s\n", prio(level_prio[level]), level_names[level], msg);
}

#define LOG_FN(name, level, with_errno)				\
void								\
name(const char *fmt, ...)					\
{								\
	int saved = errno;					\
	va_list ap;						\
	va_start(ap, fmt);					\
	log_vemit(level, with_errno ? saved : 0, fmt, ap);	\
	va_end(ap);						\
	errno = saved;						\
}

LOG_FN(log_debug, LOG_LVL_DEBUG, 0)
LOG_FN(log_info, LOG_LVL_INFO, 0)
LOG_FN(log_notice, LOG_LVL_NOTICE, 0)
LOG_FN(log_warn, LOG_LVL_WARN, 1)
LOG_FN(log_warnx, LOG_LVL_WARN, 0)

void
fatal(const char *fmt, ...)
{
	int saved = errno;
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s%s: fatal: %s: %s\n", prio(SD_CRIT), log_progname, msg, strerror(saved));
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s%s: fatal: %s\n", prio(SD_CRIT), log_progname, msg);
	exit(1);
}
