/*
 * The argument spec of common/commands.def, parsed once for both binaries:
 * fabricctl turns words into a request with it, and the daemon checks every
 * request against it before dispatch, so a request crafted by hand on the
 * socket meets the same rules as one built by fabricctl (unknown and
 * wrong-typed arguments are invalid_argument, naming the argument).
 *
 * Spec words (see commands.def): NAME, [NAME], NAME..., --opt=STR|INT|LIST|
 * FILE, --opt; an INT may carry its range, --opt=INT:MIN-MAX (decimal).  A positional named FILE, like a --opt=FILE option, is a
 * path that fabricctl opens with the caller's rights and passes to the
 * daemon as a descriptor (schemas/protocol.md): the daemon never opens a
 * path on a client's behalf.
 */
#ifndef FABRICD_SPEC_H
#define FABRICD_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define SPEC_MAX_ARGS	16
#define SPEC_KEY_MAX	32

enum spec_type {
	SPEC_STR,	/* positional word or --opt=STR: a string */
	SPEC_INT,	/* --opt=INT: an integer */
	SPEC_LIST,	/* --opt=LIST: an array of strings */
	SPEC_FLAG,	/* --opt: true */
	SPEC_REST,	/* NAME...: an array of strings */
	SPEC_FILE,	/* FILE or --opt=FILE: {"fd": index, "name": path} */
};

struct spec_arg {
	char		 key[SPEC_KEY_MAX];	/* args member: lower case, '-' -> '_' */
	char		 word[SPEC_KEY_MAX];	/* as written: "NAME", "--dry-run" */
	enum spec_type	 type;
	bool		 option;		/* --opt rather than positional */
	bool		 required;		/* a positional without [] */
	bool		 ranged;		/* INT:MIN-MAX */
	long long	 min, max;
};

struct spec {
	struct spec_arg	 arg[SPEC_MAX_ARGS];
	size_t		 n;
};

/* Parse a spec string; -1 if it is malformed (a bug in commands.def: the
 * unit test parses every spec). */
int spec_parse(const char *text, struct spec *out);
const struct spec_arg *spec_find(const struct spec *s, const char *key);

/* For a ranged INT: 0, or -1 with "argument \"KEY\" must be between ..." */
int spec_check_range(const struct spec_arg *a, long long v, char *why, size_t len);

/*
 * Check a request's args object: every member declared, of its type and
 * within its range, every required positional present.  Returns 0, or -1 with a message
 * naming the argument in why.
 */
int spec_check(const struct spec *s, json_t *args, char *why, size_t len);

/*
 * The description of an argument (word as the spec writes it: "NAME",
 * "--pkey") in a command's argument descriptions (commands.def's last
 * field: "WORD: text\n" lines); NULL when it has none.  *len gets the
 * length of the text, which ends at a newline.
 */
const char *spec_describe(const char *descs, const char *word, size_t *len);
/* An option whose description starts with "required". */
bool spec_required_option(const char *descs, const struct spec_arg *a);

#endif
