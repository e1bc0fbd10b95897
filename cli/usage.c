/*
 * fabricctl's help, from common/commands.def: the list of commands, one
 * command's usage (positionals required or [optional], options in
 * brackets unless their description says they are required, each
 * argument with its description), and the bash completion script, so
 * that help and completion never drift from what the parser accepts.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/parser.h"
#include "common/spec.h"

/* Help fits a terminal of this many columns: longer text wraps at a
 * space, its next lines under the text's first column. */
#define HELP_WIDTH	100

/* text (len bytes) from column col on, wrapped as above; ends the line. */
static void
print_wrapped(FILE *out, const char *text, size_t len, size_t col)
{
	size_t start = col;

	if (len == 0)
		fputc('\n', out);
	while (len > 0) {
		size_t room = HELP_WIDTH > col ? HELP_WIDTH - col : 1, cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0)	/* one word longer than the room: whole */
				cut = strcspn(text, " ") < len ? strcspn(text, " ") : len;
		}
		fprintf(out, "%.*s\n", (int)cut, text);
		text += cut;
		len -= cut;
		while (len > 0 && *text == ' ') {
			text++;
			len--;
		}
		if (len > 0)
			fprintf(out, "%*s", (int)start, "");
		col = start;
	}
}

/* Who may run a command, when not every reader may. */
static const char *
access_note(const struct cli_command *c)
{
	return c->admin == 2 ? " (admin, jobs)" : c->admin ? " (admin)" : "";
}

/* The placeholder for an option's value: N, A,B,..., FILE, or its name. */
static const char *
value_word(const struct spec_arg *a, char *buf, size_t len)
{
	size_t i;

	switch (a->type) {
	case SPEC_INT:	return "N";
	case SPEC_LIST:	return "A,B,...";
	case SPEC_FILE:	return "FILE";
	case SPEC_STR:
		for (i = 0; a->key[i] && i + 1 < len; i++)
			buf[i] = (char)toupper((unsigned char)a->key[i]);
		buf[i] = '\0';
		return buf;
	default:	return "";
	}
}

/* "NAME", "[NAME]", "NAME...", "[--pkey PKEY]", "--hosts A,B,...". */
static const char *
arg_synopsis(const char *descs, const struct spec_arg *a, char *buf, size_t len)
{
	char v[SPEC_KEY_MAX];
	bool req = a->option ? spec_required_option(descs, a) : a->required;

	if (!a->option)
		snprintf(buf, len, "%s%s%s%s", req ? "" : "[", a->word,
		    a->type == SPEC_REST ? "..." : "", req ? "" : "]");
	else
		snprintf(buf, len, "%s%s%s%s%s", req ? "" : "[", a->word,
		    a->type == SPEC_FLAG ? "" : " ", value_word(a, v, sizeof(v)), req ? "" : "]");
	return buf;
}

void
cli_usage_one(FILE *out, const struct cli_command *c)
{
	struct spec sp;
	char buf[96], line[1024];
	size_t col;

	if (spec_parse(c->spec, &sp) != 0)
		sp.n = 0;
	fprintf(out, "usage: fabricctl [--json] %s", c->words);
	col = 26 + strlen(c->words);
	for (size_t i = 0; i < sp.n; i++) {
		const char *w = arg_synopsis(c->args_help, &sp.arg[i], buf, sizeof(buf));

		if (col + 1 + strlen(w) > HELP_WIDTH) {	/* wrapped under the first argument */
			fprintf(out, "\n%*s", 26 + (int)strlen(c->words), "");
			col = 26 + strlen(c->words);
		}
		fprintf(out, " %s", w);
		col += 1 + strlen(w);
	}
	snprintf(line, sizeof(line), "%s%s", c->help, access_note(c));
	fprintf(out, "\n       ");
	print_wrapped(out, line, strlen(line), 7);
	if (sp.n)
		fputc('\n', out);
	for (size_t i = 0; i < sp.n; i++) {
		const struct spec_arg *a = &sp.arg[i];
		char v[SPEC_KEY_MAX], word[64];
		size_t len;
		const char *d = spec_describe(c->args_help, a->word, &len);

		snprintf(word, sizeof(word), "%s%s%s", a->word, a->option && a->type != SPEC_FLAG ? " " : "",
		    a->option ? value_word(a, v, sizeof(v)) : "");
		fprintf(out, "  %-22s ", word);
		snprintf(line, sizeof(line), "%.*s", (int)len, d ? d : "");
		if (a->ranged)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%lld-%lld",
			    d ? ", " : "", a->min, a->max);
		if (!a->option && !a->required && !d)
			snprintf(line, sizeof(line), "optional");
		print_wrapped(out, line, strlen(line), strlen(word) > 22 ? 3 + strlen(word) : 25);
	}
}

void
cli_usage_all(FILE *out)
{
	fprintf(out, "usage: fabricctl [-s socket] [--json] [--subnet NAME] command [arguments]\n"
	    "       fabricctl --remote HOST:PORT[,HOST:PORT...] --cert FILE --key FILE --ca FILE\n"
	    "                 [--json] command [arguments]   (or --client-config FILE)\n"
	    "       fabricctl --version | help [command] | completion bash\n\ncommands:\n");
	for (size_t i = 0; i < cli_ncommands; i++) {
		char line[1024];

		snprintf(line, sizeof(line), "%s%s", cli_commands[i].help,
		    access_note(&cli_commands[i]));
		fprintf(out, "  %-28s ", cli_commands[i].words);
		print_wrapped(out, line, strlen(line), 31);
	}
	fprintf(out, "\n--subnet NAME: the subnet of a daemon that serves several (sm.subnets): the SM's\n"
	    "commands and status ask that subnet's SM; the others serve the first.\n"
	    "\"fabricctl COMMAND --help\" shows a command's arguments.\n");
}

/* "(one of a, b, c)" at the end of a description: the values offered. */
static void
print_choices(FILE *out, const char *d, size_t len)
{
	const char *p = d ? strstr(d, "(one of ") : NULL;

	if (p == NULL || p >= d + len)
		return;
	for (p += 8; p < d + len && *p != ')';) {
		size_t w = strcspn(p, ",)");
		fprintf(out, " %.*s", (int)w, p);
		p += w;
		while (*p == ',' || *p == ' ')
			p++;
	}
}

/*
 * The script: one case per command word path.  For a path that is a
 * group, its next words; for a command, its options, and after an option
 * with a value, that value's choices (or files for FILE).
 */
void
cli_completion_bash(FILE *out)
{
	fprintf(out, "# bash completion for fabricctl, generated from commands.def by\n"
	    "# \"fabricctl completion bash\"\n"
	    "_fabricctl_words() {\n\tcase \"$1\" in\n");
	/* every prefix of every command's words: the words that may follow */
	for (size_t i = 0; i < cli_ncommands; i++) {
		char w[CLI_MAX_WORDS][CLI_WORD_LEN];
		int nw = cli_words(&cli_commands[i], w);
		for (int d = 0; d < nw; d++) {
			char path[256] = "";
			bool first = true;
			size_t off = 0;
			for (int k = 0; k < d; k++)
				off += (size_t)snprintf(path + off, sizeof(path) - off, "%s%s", k ? " " : "", w[k]);
			/* print a path once: at its first command */
			for (size_t j = 0; j < i && first; j++) {
				char v[CLI_MAX_WORDS][CLI_WORD_LEN];
				int nv = cli_words(&cli_commands[j], v), k;
				for (k = 0; k < d && k < nv && strcmp(v[k], w[k]) == 0; k++)
					;
				first = !(k == d && nv > d);
			}
			if (!first)
				continue;
			fprintf(out, "\t\"%s\") echo \"", path);
			for (size_t j = i, n = 0; j < cli_ncommands; j++) {
				char v[CLI_MAX_WORDS][CLI_WORD_LEN];
				int nv = cli_words(&cli_commands[j], v), k;
				bool dup = false;
				for (k = 0; k < d && k < nv && strcmp(v[k], w[k]) == 0; k++)
					;
				if (k != d || nv <= d)
					continue;
				for (size_t m = i; m < j && !dup; m++) {
					char u[CLI_MAX_WORDS][CLI_WORD_LEN];
					int nu = cli_words(&cli_commands[m], u), q;
					for (q = 0; q < d && q < nu && strcmp(u[q], w[q]) == 0; q++)
						;
					dup = q == d && nu > d && strcmp(u[d], v[d]) == 0;
				}
				if (!dup)
					fprintf(out, "%s%s", n++ ? " " : "", v[d]);
			}
			/* the client's own words, not commands of the daemon */
			fprintf(out, "%s\" ;;\n", d == 0 ? " help completion" : "");
		}
	}
	fprintf(out, "\tesac\n}\n_fabricctl_options() {\n\tcase \"$1\" in\n");
	for (size_t i = 0; i < cli_ncommands; i++) {
		struct spec sp;
		if (spec_parse(cli_commands[i].spec, &sp) != 0)
			continue;
		fprintf(out, "\t\"%s\") echo \"--help", cli_commands[i].words);
		for (size_t k = 0; k < sp.n; k++)
			if (sp.arg[k].option)
				fprintf(out, " %s", sp.arg[k].word);
		fprintf(out, "\" ;;\n");
	}
	fprintf(out, "\tesac\n}\n_fabricctl_values() {\n\tcase \"$1 $2\" in\n");
	for (size_t i = 0; i < cli_ncommands; i++) {
		struct spec sp;
		if (spec_parse(cli_commands[i].spec, &sp) != 0)
			continue;
		for (size_t k = 0; k < sp.n; k++) {
			const struct spec_arg *a = &sp.arg[k];
			size_t len;
			const char *d = spec_describe(cli_commands[i].args_help, a->word, &len);
			if (!a->option || a->type == SPEC_FLAG)
				continue;
			fprintf(out, "\t\"%s %s\") ", cli_commands[i].words, a->word);
			if (a->type == SPEC_FILE)
				fprintf(out, "echo @file ;;\n");
			else {
				fprintf(out, "echo \"");
				print_choices(out, d, len);
				fprintf(out, "\" ;;\n");
			}
		}
	}
	fprintf(out, "\t*) return 1 ;;\n\tesac\n}\n_fabricctl_takes_file() {\n\tcase \"$1\" in\n");
	for (size_t i = 0; i < cli_ncommands; i++) {
		struct spec sp;
		if (spec_parse(cli_commands[i].spec, &sp) != 0)
			continue;
		for (size_t k = 0; k < sp.n; k++)
			if (!sp.arg[k].option && sp.arg[k].type == SPEC_FILE)
				fprintf(out, "\t\"%s\") return 0 ;;\n", cli_commands[i].words);
	}
	fprintf(out, "\t\"completion\") return 1 ;;\n\tesac\n\treturn 1\n}\n"
	    "_fabricctl() {\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	    "\tlocal path=\"\" i w next\n"
	    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	    "\t\tw=${COMP_WORDS[i]}\n"
	    "\t\tcase $w in --json) continue ;; -s|--socket) i=$((i + 1)); continue ;; -*) break ;; esac\n"
	    "\t\tnext=$(_fabricctl_words \"$path\")\n"
	    "\t\tcase \" $next \" in *\" $w \"*) path=${path:+$path }$w ;; *) break ;; esac\n"
	    "\tdone\n"
	    "\tif [[ $prev == --* ]] && vals=$(_fabricctl_values \"$path\" \"$prev\"); then\n"
	    "\t\tif [[ $vals == @file ]]; then COMPREPLY=($(compgen -f -- \"$cur\"));\n"
	    "\t\telif [[ -n $vals ]]; then COMPREPLY=($(compgen -W \"$vals\" -- \"$cur\")); fi\n"
	    "\t\treturn 0\n"
	    "\tfi\n"
	    "\tif [[ $path == completion ]]; then COMPREPLY=($(compgen -W bash -- \"$cur\")); return 0; fi\n"
	    "\tif [[ $cur != -* ]] && _fabricctl_takes_file \"$path\"; then\n"
	    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\")); return 0\n"
	    "\tfi\n"
	    "\tif [[ $cur == -* ]]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$(_fabricctl_options \"$path\") --json\" -- \"$cur\"))\n"
	    "\telse\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$(_fabricctl_words \"$path\")\" -- \"$cur\"))\n"
	    "\tfi\n"
	    "}\n"
	    "complete -F _fabricctl fabricctl\n");
}
