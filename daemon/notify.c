/*
 * sd_notify(3) through libsystemd.  The watchdog ping is a libevent timer
 * on the daemon's one loop, not a thread: a callback that never returns
 * (or a loop that is stopped) stops the pings, and systemd restarts the
 * service after WatchdogSec.  That is the point of pinging from the loop.
 *
 * The same timer keeps STATUS= (what `systemctl status` shows) current:
 * each module's state, sent when it changes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/notify.h"

#define STATUS_EVERY_US	5000000ULL	/* without a watchdog, or a slower one */

static struct event *tick;
static bool pinging;
static notify_status_fn status_of;
static char said[512];

static void
send_status(void)
{
	char now[sizeof(said)];

	if (status_of == NULL)
		return;
	status_of(now, sizeof(now));
	if (strcmp(now, said) == 0)
		return;
	memcpy(said, now, sizeof(said));
	sd_notifyf(0, "STATUS=%s", said);
}

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (pinging)
		sd_notify(0, "WATCHDOG=1");
	send_status();
}

/* The tick: half WatchdogSec when the unit has one (> 0 only when
 * WATCHDOG_USEC is set and WATCHDOG_PID, if set, is us), else the status
 * interval; nothing at all outside systemd. */
static void
start_tick(struct event_base *base)
{
	uint64_t usec = 0, every = STATUS_EVERY_US;
	struct timeval tv;

	if (getenv("NOTIFY_SOCKET") == NULL)
		return;
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		pinging = true;
		if (usec / 2 < every)
			every = usec / 2;
		log_info("systemd: watchdog every %llu ms (WatchdogSec %llu ms)",
		    (unsigned long long)(usec / 2000), (unsigned long long)(usec / 1000));
	}
	tv = clock_tv_us(every);
	tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	if (tick == NULL || event_add(tick, &tv) != 0)
		log_warnx("systemd: cannot arm the watchdog and status timer");
	on_tick(-1, 0, NULL);
}

void
notify_ready(struct event_base *base, notify_status_fn status)
{
	status_of = status;
	sd_notify(0, "READY=1\nSTATUS=running");
	start_tick(base);
}

void
notify_reloading(void)
{
	sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
	said[0] = '\0';
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
	if (tick)
		event_free(tick);
	tick = NULL;
}
