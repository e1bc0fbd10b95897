/* commands.def argument specs (see spec.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/spec.h"
#include "common/utf8.h"

static void
key_of(const char *name, size_t n, char *key)
{
	size_t i;

	for (i = 0; i < n && i + 1 < SPEC_KEY_MAX; i++)
		key[i] = name[i] == '-' ? '_' : (char)tolower((unsigned char)name[i]);
	key[i] = '\0';
}

/* "" or ":MIN-MAX" after INT */
static int
parse_int_type(const char *t, size_t len, struct spec_arg *a)
{
	char buf[64], *end;

	a->type = SPEC_INT;
	if (len == 0)
		return 0;
	if (t[0] != ':' || len >= sizeof(buf))
		return -1;
	memcpy(buf, t + 1, len - 1);
	buf[len - 1] = '\0';
	a->min = strtoll(buf, &end, 10);
	if (end == buf || *end != '-')
		return -1;
	a->max = strtoll(end + 1, &end, 10);
	if (*end != '\0' || a->max < a->min)
		return -1;
	a->ranged = true;
	return 0;
}

static int
parse_option(const char *w, size_t len, struct spec_arg *a)
{
	const char *eq = memchr(w, '=', len);
	size_t nlen = eq ? (size_t)(eq - w) - 2 : len - 2;
	size_t tlen = eq ? len - (size_t)(eq - w) - 1 : 0;

	if (nlen == 0 || nlen + 1 >= SPEC_KEY_MAX)
		return -1;
	a->option = true;
	key_of(w + 2, nlen, a->key);
	snprintf(a->word, sizeof(a->word), "--%.*s", (int)nlen, w + 2);
	if (eq == NULL)
		a->type = SPEC_FLAG;
	else if (tlen == 3 && strncmp(eq + 1, "STR", 3) == 0)
		a->type = SPEC_STR;
	else if (tlen >= 3 && strncmp(eq + 1, "INT", 3) == 0)
		return parse_int_type(eq + 4, tlen - 3, a);
	else if (tlen == 4 && strncmp(eq + 1, "LIST", 4) == 0)
		a->type = SPEC_LIST;
	else if (tlen == 4 && strncmp(eq + 1, "FILE", 4) == 0)
		a->type = SPEC_FILE;
	else
		return -1;
	return 0;
}

static int
parse_positional(const char *w, size_t len, struct spec_arg *a)
{
	bool opt = w[0] == '[';
	const char *name = w + opt;
	size_t nlen = len - opt - (opt ? 1 : 0);

	if (opt && w[len - 1] != ']')
		return -1;
	a->required = !opt;
	a->type = SPEC_STR;
	if (nlen > 3 && strncmp(name + nlen - 3, "...", 3) == 0) {
		a->type = SPEC_REST;
		nlen -= 3;
	}
	if (nlen == 0 || nlen + 1 >= SPEC_KEY_MAX)
		return -1;
	if (nlen == 4 && strncmp(name, "FILE", 4) == 0)
		a->type = SPEC_FILE;
	key_of(name, nlen, a->key);
	snprintf(a->word, sizeof(a->word), "%.*s", (int)nlen, name);
	return 0;
}

int
spec_parse(const char *text, struct spec *out)
{
	memset(out, 0, sizeof(*out));
	while (*text) {
		size_t len;
		struct spec_arg *a;

		text += strspn(text, " \t");
		if (*text == '\0')
			break;
		len = strcspn(text, " \t");
		if (out->n == SPEC_MAX_ARGS)
			return -1;
		a = &out->arg[out->n++];
		if (len > 2 && strncmp(text, "--", 2) == 0 ? parse_option(text, len, a) != 0 :
		    parse_positional(text, len, a) != 0)
			return -1;
		text += len;
	}
	return 0;
}

const struct spec_arg *
spec_find(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->arg[i].key, key) == 0)
			return &s->arg[i];
	return NULL;
}

static bool
all_strings(json_t *a)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, v)
		if (!json_is_string(v))
			return false;
	return true;
}

/*
 * One element of a LIST or NAME... is one item as fabricctl splits a
 * comma-separated value (cli/parser.c): not empty, no comma outside
 * brackets (the commas of gpu[001-064,070] are inside), no space around
 * it and no control character.  A hand-made request with ["a,b"] would
 * otherwise reach a handler that expands each element as a hostlist and
 * becomes two hosts where the caller meant one.  0, or -1 with why.
 */
static int
list_item_check(const struct spec_arg *a, size_t i, const char *s, char *why, size_t len)
{
	size_t n = strlen(s);
	int depth = 0;
	const char *bad = NULL;

	if (n == 0)
		bad = "is empty";
	else if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1]))
		bad = "has spaces around it";
	for (size_t k = 0; bad == NULL && k < n; k++) {
		unsigned char ch = (unsigned char)s[k];
		depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
		if (ch < 0x20 || ch == 0x7f)
			bad = "holds a control character";
		else if (ch == ',' && depth <= 0)
			bad = "holds a comma outside brackets (one element is one name: "
			    "send [\"a\", \"b\"], not [\"a,b\"])";
	}
	if (bad == NULL)
		return 0;
	snprintf(why, len, "argument \"%s\": element %zu \"%.*s\" %s", a->key, i,
	    utf8_cut(s, 64), s, bad);
	return -1;
}

static int
list_check(const struct spec_arg *a, json_t *v, char *why, size_t len)
{
	size_t i;
	json_t *e;

	json_array_foreach(v, i, e)
		if (list_item_check(a, i, json_string_value(e), why, len) != 0)
			return -1;
	return 0;
}

static bool
type_ok(enum spec_type t, json_t *v)
{
	switch (t) {
	case SPEC_STR:	return json_is_string(v);
	case SPEC_INT:	return json_is_integer(v);
	case SPEC_LIST:
	case SPEC_REST:	return all_strings(v);
	case SPEC_FLAG:	return json_is_boolean(v);
	/* a descriptor's index on the socket, the text inline over TLS
	 * (which of the two the channel takes is the daemon's check) */
	case SPEC_FILE:	return json_is_object(v) && json_is_string(json_object_get(v, "name")) &&
			    (json_is_integer(json_object_get(v, "fd")) ||
			    json_is_string(json_object_get(v, "data")));
	}
	return false;
}

static const char *
type_name(enum spec_type t)
{
	static const char *const names[] = {
		[SPEC_STR] = "a string", [SPEC_INT] = "an integer",
		[SPEC_LIST] = "a list of strings", [SPEC_FLAG] = "true or false",
		[SPEC_REST] = "a list of strings",
		[SPEC_FILE] = "a file passed as a descriptor ({\"fd\", \"name\"}) or, over TLS, "
		    "inline ({\"data\", \"name\"})",
	};
	return names[t];
}

int
spec_check_range(const struct spec_arg *a, long long v, char *why, size_t len)
{
	if (!a->ranged || (v >= a->min && v <= a->max))
		return 0;
	snprintf(why, len, "argument \"%s\" must be between %lld and %lld, not %lld", a->key,
	    a->min, a->max, v);
	return -1;
}

int
spec_check(const struct spec *s, json_t *args, char *why, size_t len)
{
	const char *key;
	json_t *v;

	json_object_foreach(args, key, v) {
		const struct spec_arg *a = spec_find(s, key);
		if (a == NULL) {
			snprintf(why, len, "unknown argument \"%.*s\"", utf8_cut(key, 64), key);
			return -1;
		}
		if (!type_ok(a->type, v)) {
			snprintf(why, len, "argument \"%s\" must be %s", a->key, type_name(a->type));
			return -1;
		}
		if (a->type == SPEC_INT &&
		    spec_check_range(a, (long long)json_integer_value(v), why, len) != 0)
			return -1;
		if ((a->type == SPEC_LIST || a->type == SPEC_REST) && list_check(a, v, why, len) != 0)
			return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->arg[i].required && json_object_get(args, s->arg[i].key) == NULL) {
			snprintf(why, len, "missing argument \"%s\"", s->arg[i].key);
			return -1;
		}
	}
	return 0;
}

const char *
spec_describe(const char *descs, const char *word, size_t *len)
{
	size_t wl = strlen(word);

	for (const char *p = descs; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, word, wl) == 0 && p[wl] == ':') {
			const char *t = p + wl + 1 + (p[wl + 1] == ' ');
			*len = strcspn(t, "\n");
			return t;
		}
	}
	*len = 0;
	return NULL;
}

bool
spec_required_option(const char *descs, const struct spec_arg *a)
{
	size_t len;
	const char *t = a->option ? spec_describe(descs, a->word, &len) : NULL;

	return t && len >= 8 && strncmp(t, "required", 8) == 0;
}
