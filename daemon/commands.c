/*
 * The control socket's commands: commands.def, each with its module's
 * handler.  It names every module's handlers, so it sits at the top with
 * main.c, which hands it to control_init(): the dispatcher (control.c)
 * and the handlers, which answer through it, then do not call each other.
 */
#include <stddef.h>

#include "daemon/commands.h"

const struct ctl_command fabricd_commands[] = {
#define CMD(ident, wire, access, words, spec, help, ...) { wire, CTL_##access, ctl_##ident, spec },
#include "common/commands.def"
#undef CMD
};
const size_t fabricd_ncommands = sizeof(fabricd_commands) / sizeof(fabricd_commands[0]);
