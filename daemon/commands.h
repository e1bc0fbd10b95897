/* The command table for control_init() (daemon/commands.c): main.c's. */
#ifndef FABRICD_DAEMON_COMMANDS_H
#define FABRICD_DAEMON_COMMANDS_H

#include <stddef.h>

#include "daemon/control.h"

extern const struct ctl_command fabricd_commands[];
extern const size_t fabricd_ncommands;

#endif
