/* Daemon lifecycle functions shared by main.c and the control handlers. */
#ifndef FABRICD_DAEMON_H
#define FABRICD_DAEMON_H

#include <jansson.h>

/* Re-read the configuration file.  On errors the running configuration is
 * kept, each error is logged and appended (as a string) to errors. */
int daemon_reload(json_t *errors);

/* Start modules in table order (a failure is recorded, not fatal); stop
 * them in reverse. */
void daemon_start_modules(void);
void daemon_stop_modules(void);

#endif
