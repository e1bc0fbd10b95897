/*
 * fabricctl's command-line parser, built from common/commands.def: the
 * command words accept unique prefixes ("part l" = "partition list"), and
 * the argument spec turns the remaining words into the request's args.
 */
#ifndef FABRICCTL_PARSER_H
#define FABRICCTL_PARSER_H

#include <stdio.h>
#include <jansson.h>

struct cli_command {
	const char	*wire;		/* name on the wire */
	const char	*words;		/* "partition member add" */
	const char	*spec;
	const char	*help;
	int		 admin;
};

extern const struct cli_command cli_commands[];
extern const size_t cli_ncommands;

/*
 * Match argv against the table and build args.  Returns the command, or
 * NULL after printing why to stderr (unknown, ambiguous, bad arguments).
 */
const struct cli_command *cli_parse(int argc, char **argv, json_t **args);
void cli_usage_all(FILE *out);
void cli_usage_one(FILE *out, const struct cli_command *cmd);

#endif
