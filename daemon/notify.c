/*
 * sd_notify(3) through libsystemd.  The watchdog ping is a libevent timer
 * on the daemon's one loop, not a thread: a callback that never returns
 * (or a loop that is stopped) stops the pings, and systemd restarts the
 * service after WatchdogSec.  That is the point of pinging from the loop.
 */
#include <stdint.h>
#include <systemd/sd-daemon.h>

#include "common/log.h"
#include "daemon/notify.h"

static struct event *watchdog_timer;

static void
on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	sd_notify(0, "WATCHDOG=1");
}

static void
start_watchdog(struct event_base *base)
{
	uint64_t usec = 0;
	struct timeval half;

	/* > 0 only when WATCHDOG_USEC is set (and WATCHDOG_PID, if set, is us) */
	if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0)
		return;
	half.tv_sec = (time_t)(usec / 2 / 1000000);
	half.tv_usec = (suseconds_t)(usec / 2 % 1000000);
	watchdog_timer = event_new(base, -1, EV_PERSIST, on_watchdog, NULL);
	if (watchdog_timer == NULL || event_add(watchdog_timer, &half) != 0) {
		log_warnx("systemd: cannot arm the watchdog timer");
		return;
	}
	sd_notify(0, "WATCHDOG=1");
	log_info("systemd: watchdog every %llu ms (WatchdogSec %llu ms)",
	    (unsigned long long)(usec / 2000), (unsigned long long)(usec / 1000));
}

void
notify_ready(struct event_base *base)
{
	sd_notify(0, "READY=1\nSTATUS=running");
	start_watchdog(base);
}

void
notify_reloading(void)
{
	sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
}

void
notify_reloaded(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void
notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}

void
notify_shutdown(void)
{
	if (watchdog_timer)
		event_free(watchdog_timer);
	watchdog_timer = NULL;
}
