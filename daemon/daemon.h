/* Daemon lifecycle functions shared by main.c and the control handlers. */
#ifndef FABRICD_DAEMON_H
#define FABRICD_DAEMON_H

#include <stddef.h>
#include <jansson.h>

enum daemon_reload_outcome {
	DAEMON_RELOADED,		/* the new configuration runs */
	DAEMON_RELOAD_REJECTED,		/* it has errors */
	DAEMON_RELOAD_RESTART_NEEDED,	/* valid, but a module cannot take it in place */
};

/* Re-read the configuration file.  Unless it is applied, the running
 * configuration is kept whole: each error, or the reason a restart is
 * needed, is logged, posted as an event and appended (as a string) to
 * errors. */
enum daemon_reload_outcome daemon_reload(json_t *errors);

/* Start modules in table order (a failure is recorded, not fatal); stop
 * them in reverse. */
void daemon_start_modules(void);
/* "sm master, health polling, ...": each module's state, for STATUS=. */
void daemon_status_line(char *buf, size_t len);
void daemon_stop_modules(void);

#endif
