/*
 * Command words to a command (see cli_resolve in parser.h).  The words
 * are resolved one at a time against the words that can follow those
 * already taken, so that a group ("partition", "roce", "job") answers with
 * its subcommands, a prefix names every command it could be ("p":
 * partition, ports, preflight), and a typo gets the nearest words by edit
 * distance ("stauts": status).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parser.h"

int
cli_words(const struct cli_command *c, char w[][CLI_WORD_LEN])
{
	const char *s = c->words;
	int n = 0;

	while (*s && n < CLI_MAX_WORDS) {
		size_t len;
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		len = strcspn(s, " ");
		snprintf(w[n++], CLI_WORD_LEN, "%.*s", (int)(len < CLI_WORD_LEN - 1 ? len : CLI_WORD_LEN - 1), s);
		s += len;
	}
	return n;
}

/* Does c start with the words taken so far? */
static bool
under(const struct cli_command *c, char taken[][CLI_WORD_LEN], int depth, int *nwords,
    char w[][CLI_WORD_LEN])
{
	*nwords = cli_words(c, w);
	if (*nwords < depth)
		return false;
	for (int i = 0; i < depth; i++)
		if (strcmp(w[i], taken[i]) != 0)
			return false;
	return true;
}

/* The distinct words at position depth of the commands under taken. */
static size_t
next_words(char taken[][CLI_WORD_LEN], int depth, char out[][CLI_WORD_LEN], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < cli_ncommands; i++) {
		char w[CLI_MAX_WORDS][CLI_WORD_LEN];
		int nw;
		bool dup = false;
		if (!under(&cli_commands[i], taken, depth, &nw, w) || nw <= depth)
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(out[k], w[depth]) == 0;
		if (!dup && n < max)
			memcpy(out[n++], w[depth], CLI_WORD_LEN);
	}
	return n;
}

/* The command whose words are exactly taken, if any. */
static const struct cli_command *
exactly(char taken[][CLI_WORD_LEN], int depth)
{
	for (size_t i = 0; i < cli_ncommands; i++) {
		char w[CLI_MAX_WORDS][CLI_WORD_LEN];
		int nw;
		if (under(&cli_commands[i], taken, depth, &nw, w) && nw == depth)
			return &cli_commands[i];
	}
	return NULL;
}

/* Optimal string alignment distance: a transposed pair costs one. */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[CLI_WORD_LEN + 1][CLI_WORD_LEN + 1];

	if (la > CLI_WORD_LEN || lb > CLI_WORD_LEN)
		return CLI_WORD_LEN;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

static void
prefix_text(char taken[][CLI_WORD_LEN], int depth, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < depth && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s ", taken[i]);
}

/* Every command under taken, one usage line each. */
static void
list_group(char taken[][CLI_WORD_LEN], int depth)
{
	char pre[256];

	prefix_text(taken, depth, pre, sizeof(pre));
	fprintf(stderr, "fabricctl: \"%.*s\" needs a subcommand:\n", (int)(strlen(pre) - 1), pre);
	for (size_t i = 0; i < cli_ncommands; i++) {
		char w[CLI_MAX_WORDS][CLI_WORD_LEN];
		int nw;
		if (under(&cli_commands[i], taken, depth, &nw, w))
			fprintf(stderr, "  %-28s %s\n", cli_commands[i].words, cli_commands[i].help);
	}
}

static void
suggest(const char *word, char taken[][CLI_WORD_LEN], int depth, char cand[][CLI_WORD_LEN],
    size_t n)
{
	size_t best = CLI_WORD_LEN, limit = strlen(word) < 4 ? 1 : 2;
	char pre[256];
	bool any = false;

	for (size_t k = 0; k < n; k++) {
		size_t d = edit_distance(word, cand[k]);
		if (d < best)
			best = d;
	}
	prefix_text(taken, depth, pre, sizeof(pre));
	fprintf(stderr, "fabricctl: unknown command \"%s%s\"", pre, word);
	for (size_t k = 0; k < n && best <= limit; k++) {
		if (edit_distance(word, cand[k]) != best)
			continue;
		fprintf(stderr, "%s\"%s%s\"", any ? " or " : "; did you mean ", pre, cand[k]);
		any = true;
	}
	fprintf(stderr, "%s try \"fabricctl help\"\n", any ? "?" : ";");
}

const struct cli_command *
cli_resolve(int argc, char **argv, int *used)
{
	char taken[CLI_MAX_WORDS][CLI_WORD_LEN], cand[64][CLI_WORD_LEN];
	int depth = 0;

	for (;;) {
		size_t n = next_words(taken, depth, cand, 64), hits = 0, hit = 0;
		const struct cli_command *here = exactly(taken, depth);

		if (depth == argc || n == 0) {
			if (here == NULL) {
				list_group(taken, depth);
				return NULL;
			}
			*used = depth;
			return here;
		}
		for (size_t k = 0; k < n; k++) {
			if (strcmp(cand[k], argv[depth]) == 0) {
				hits = 1, hit = k;
				break;
			}
			if (argv[depth][0] && strncmp(cand[k], argv[depth], strlen(argv[depth])) == 0)
				hits++, hit = k;
		}
		if (hits == 1) {
			memcpy(taken[depth], cand[hit], CLI_WORD_LEN);
			depth++;
			continue;
		}
		if (hits > 1 && argv[depth][0] != '-') {
			char pre[256];
			prefix_text(taken, depth, pre, sizeof(pre));
			fprintf(stderr, "fabricctl: ambiguous command \"%s%s\"; it could be:\n", pre,
			    argv[depth]);
			for (size_t k = 0; k < n; k++)
				if (strncmp(cand[k], argv[depth], strlen(argv[depth])) == 0)
					fprintf(stderr, "  %s%s\n", pre, cand[k]);
			return NULL;
		}
		/* not a subcommand: the arguments of the command named so far */
		if (here != NULL) {
			*used = depth;
			return here;
		}
		if (argv[depth][0] == '-' && depth > 0) {
			list_group(taken, depth);
			return NULL;
		}
		suggest(argv[depth], taken, depth, cand, n);
		return NULL;
	}
}
