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
	int		 admin;	/* 0 any reader, 1 admin, 2 admin or jobs (commands.def) */
	const char	*args_help;	/* "WORD: text\n"... (commands.def) */
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

/*
 * The command argv's leading words name (cli/resolve.c): each word exact
 * or a unique prefix of the words that can follow ("part l" is
 * "partition list").  *used gets how many words it took.  NULL after
 * saying why on stderr: a group without its subcommand lists the
 * subcommands; an ambiguous prefix lists what it could be; an unknown word
 * offers the nearest ones (did you mean).
 */
const struct cli_command *cli_resolve(int argc, char **argv, int *used);

/* The words of c: "partition member add" -> 3 words into w. */
#define CLI_MAX_WORDS	8
#define CLI_WORD_LEN	48
int cli_words(const struct cli_command *c, char w[][CLI_WORD_LEN]);

/* The bash completion script for fabricctl, from the same table. */
void cli_completion_bash(FILE *out);

#endif
