/*
 * The service manager's side of the daemon (sd_notify(3)): READY when the
 * modules run, RELOADING around a reload, STOPPING at shutdown, STATUS
 * lines, and the watchdog.  Everything is a no-op outside systemd
 * (NOTIFY_SOCKET unset).
 */
#ifndef FABRICD_NOTIFY_H
#define FABRICD_NOTIFY_H

#include <stddef.h>
#include <event2/event.h>

/* Writes the one-line summary STATUS= carries. */
typedef void (*notify_status_fn)(char *buf, size_t len);

/* After start-up: READY=1, then a timer on the loop that pings the
 * watchdog at half WatchdogSec (when the unit has one) and sends status()
 * as STATUS= whenever it changes. */
void notify_ready(struct event_base *base, notify_status_fn status);
void notify_reloading(void);
/* After a reload, whatever its outcome: the daemon runs again. */
void notify_reloaded(const char *status);
void notify_stopping(void);
/* Cancel the watchdog timer (before the loop is freed). */
void notify_shutdown(void);

#endif
