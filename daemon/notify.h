/*
 * The service manager's side of the daemon (sd_notify(3)): READY when the
 * modules run, RELOADING around a reload, STOPPING at shutdown, STATUS
 * lines, and the watchdog.  Everything is a no-op outside systemd
 * (NOTIFY_SOCKET unset).
 */
#ifndef FABRICD_NOTIFY_H
#define FABRICD_NOTIFY_H

#include <event2/event.h>

/* After start-up: READY=1 with a STATUS, and, when the unit has
 * WatchdogSec=, a timer on the loop pinging at half that interval. */
void notify_ready(struct event_base *base);
void notify_reloading(void);
/* After a reload, whatever its outcome: the daemon runs again. */
void notify_reloaded(const char *status);
void notify_stopping(void);
/* Cancel the watchdog timer (before the loop is freed). */
void notify_shutdown(void);

#endif
