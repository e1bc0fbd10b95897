/*
 * fabricctl's command table, made from common/commands.def as the daemon's
 * is: the parser, the name resolution and the usage text all read it.
 */
#include <stddef.h>

#include "cli/parser.h"

enum { CLI_READ, CLI_ADMIN, CLI_JOBS };

const struct cli_command cli_commands[] = {
/* "" __VA_ARGS__: the arguments' descriptions, "" where a line has none */
#define CMD(ident, wire, access, words, spec, help, ...) \
	{ wire, words, spec, help, CLI_##access, "" __VA_ARGS__ },
#include "common/commands.def"
#undef CMD
};
const size_t cli_ncommands = sizeof(cli_commands) / sizeof(cli_commands[0]);
