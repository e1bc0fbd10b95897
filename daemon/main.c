/*
 * fabricd: the fabric management daemon.
 *
 * Runs in the foreground (systemd supervises it).  Start-up order: config,
 * database, control socket, modules; shutdown in reverse.  Signals only set
 * events on the loop: SIGTERM/SIGINT stop it, SIGHUP reloads.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "common/log.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "daemon/commands.h"
#include "daemon/control.h"
#include "daemon/control_conn.h"
#include "daemon/daemon.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/loopstat.h"
#include "daemon/metrics.h"
#include "daemon/notify.h"

static struct fabricd daemon_state;

static void
usage(void)
{
	fprintf(stderr, "usage: fabricd [-dnV] [-c file]\n"
	    "  -c file  configuration (default " FABRICD_DEFAULT_CONFIG ")\n"
	    "  -n       check the configuration and exit\n"
	    "  -d       debug logging\n"
	    "  -V       print the version and exit\n");
	exit(2);
}

/* Config errors at start are the service's errors: journald files them
 * as such (see common/log.c); `fabricd -n` in a terminal stays plain. */
static void
print_errors(char **errors, size_t n)
{
	const char *prio = log_stderr_is_journal() ? SD_ERR : "";

	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s\n", prio, errors[i]);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	(void)arg;
	if (sig == SIGHUP) {
		daemon_reload(NULL);
		return;
	}
	log_info("received signal %d, shutting down", (int)sig);
	notify_stopping();
	event_base_loopbreak(fabricd->base);
}

/*
 * The loop: CTL_PRIO_COUNT priorities (admin connections first, see
 * daemon/control_conn.h), and after every callback of ordinary priority
 * libevent looks for new events again, so that a queue of busy clients
 * (each served a few requests a turn) or of steps cannot hold back root's
 * request or a fabric event for longer than one of them, and the loop's
 * heartbeat (daemon/loopstat.c) measures one step, not a run of them.
 */
static struct event_base *
new_loop(void)
{
	struct event_config *ec = event_config_new();
	struct event_base *base = NULL;

	if (ec != NULL && event_config_set_max_dispatch_interval(ec, NULL, 1, 1) == 0)
		base = event_base_new_with_config(ec);
	if (ec != NULL)
		event_config_free(ec);
	if (base != NULL && event_base_priority_init(base, CTL_PRIO_COUNT) != 0) {
		event_base_free(base);
		base = NULL;
	}
	return base;
}

int
main(int argc, char **argv)
{
	const char *conffile = FABRICD_DEFAULT_CONFIG;
	struct event *sigs[3];
	static const int signums[3] = { SIGTERM, SIGINT, SIGHUP };
	int ch, check_only = 0, debug = 0;
	char **errs;
	size_t n;

	while ((ch = getopt(argc, argv, "c:dnVh")) != -1) {
		switch (ch) {
		case 'c': conffile = optarg; break;
		case 'd': debug = 1; break;
		case 'n': check_only = 1; break;
		case 'V': printf("fabricd %s (protocol %d)\n", FABRICD_VERSION, PROTO_VERSION);
			return 0;
		default: usage();
		}
	}
	if (optind != argc)
		usage();

	log_init("fabricd", LOG_LVL_INFO);
	fabricd = &daemon_state;
	if (config_load(conffile, fabricd_modules, &fabricd->config, &errs, &n) != 0) {
		print_errors(errs, n);
		cfg_errors_free(errs, n);
		return 1;
	}
	cfg_errors_free(errs, n);
	if (check_only) {
		printf("configuration OK\n");
		for (int m = 0; m < MOD_COUNT; m++)
			if (fabricd->config->modules[m]->config_notes)
				fabricd->config->modules[m]->config_notes(fabricd->config->module[m], stdout,
				    stderr);
		config_free(fabricd->config);
		return 0;
	}
	log_set_level(debug ? LOG_LVL_DEBUG : fabricd->config->log_level);
	signal(SIGPIPE, SIG_IGN);

	fabricd->started = time(NULL);
	if ((fabricd->base = new_loop()) == NULL)
		fatalx("cannot create the event loop");
	if (store_open(fabricd->config->state_dir, &fabricd->store) != 0)
		fatalx("cannot open the state database in %s", fabricd->config->state_dir);
	events_attach(fabricd->base, fabricd->store);
	if (control_init(fabricd, fabricd->config, fabricd_commands, fabricd_ncommands) != 0)
		fatalx("cannot open the control socket %s", fabricd->config->socket);
	/* a port already taken is told, not fatal: the SM matters more */
	if (metrics_http_start(fabricd) != 0)
		event_post(EV_ERROR, "daemon", fabricd->config->metrics_listen,
		    "cannot serve metrics on %s", fabricd->config->metrics_listen);
	for (int i = 0; i < 3; i++) {
		sigs[i] = evsignal_new(fabricd->base, signums[i], on_signal, NULL);
		evsignal_add(sigs[i], NULL);
	}
	event_post(EV_INFO, "daemon", NULL, "fabricd %s started (pid %d)", FABRICD_VERSION,
	    (int)getpid());
	if (loopstat_start(fabricd->base) != 0)
		log_warnx("cannot start the loop heartbeat");
	daemon_start_modules();
	log_notice("fabricd %s running", FABRICD_VERSION);
	notify_ready(fabricd->base, daemon_status_line);

	event_base_dispatch(fabricd->base);

	notify_shutdown();
	events_shutdown();
	daemon_stop_modules();
	event_post(EV_INFO, "daemon", NULL, "fabricd stopped");
	events_flush_all();
	events_shutdown();	/* the flush timer the last events made */
	loopstat_stop();
	metrics_builds_stop();
	metrics_http_stop();
	control_shutdown();
	for (int i = 0; i < 3; i++)
		event_free(sigs[i]);
	store_close(fabricd->store);
	config_free(fabricd->config);
	/* A TLS connection freed while libevent still held a deferred
	 * callback of its bufferevent (etcd's, stopped mid-handshake) is
	 * only let go when that callback runs; event_base_free cancels it
	 * instead.  One more turn, not blocking, runs it. */
	event_base_loop(fabricd->base, EVLOOP_NONBLOCK);
	event_base_free(fabricd->base);
	log_notice("stopped");
	return 0;
}
