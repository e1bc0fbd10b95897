/*
 * One logging API for the daemon and its tools.  Messages go to stderr
 * (journald picks them up under systemd) with a level prefix.  log_warn and
 * fatal append strerror(errno); the x variants do not.  Libraries we link
 * never print on their own: every message passes through here.
 */
#ifndef FABRICD_LOG_H
#define FABRICD_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_NOTICE, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Also decides, once, whether lines carry journald's "<N>" priority. */
void log_init(const char *progname, enum log_level level);
/* stderr is the stream systemd connected to the journal (JOURNAL_STREAM). */
bool log_stderr_is_journal(void);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
int log_level_parse(const char *name, enum log_level *out);
const char *log_level_name(enum log_level level);

void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
