/*
 * Paged replies (schemas/protocol.md, "Paged replies"): a result with a
 * string "next" is one page; fabricctl asks again with args.after = next
 * until a page comes without one, and prints the pages as the one result
 * they make: each array of the first page extended by the same array of
 * every later page, "next" dropped.  So the output is what one large
 * reply printed, and each page is its own request on the daemon's loop.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"

const char *
cli_page_next(json_t *result)
{
	return json_string_value(json_object_get(result, "next"));
}

/* A cursor must move forward (byte order is the daemon's key order): a
 * daemon whose pages went back, or stood still, would be followed for
 * ever, or print rows twice. */
bool
cli_page_advances(const char *prev, const char *next)
{
	return next != NULL && (prev == NULL || strcmp(next, prev) > 0);
}

int
cli_page_fold(json_t **acc, json_t *page)
{
	const char *key;
	json_t *v;

	if (*acc == NULL) {
		*acc = json_deep_copy(page);
		json_object_del(*acc, "next");
		return *acc ? 0 : -1;
	}
	json_object_foreach(page, key, v) {
		json_t *have = json_object_get(*acc, key);

		if (!json_is_array(v))
			continue;
		if (!json_is_array(have) || json_array_extend(have, v) != 0)
			return -1;
	}
	return 0;
}

/*
 * Text in parts (schemas/protocol.md, "Text in parts"): the daemon sends
 * a long text (the ibnetdiscover topology, 684 KB at 1,296 hosts) as
 * stream items so that no one step of its loop encodes all of it; the
 * result printed is what one reply with the whole "text" would have been.
 */
static int
text_append(struct cli_text_parts *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		char *b;

		while (cap < t->len + n + 1)
			cap *= 2;
		if ((b = realloc(t->buf, cap)) == NULL)
			return -1;
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}

int
cli_text_part_take(json_t *msg, struct cli_text_parts *t)
{
	json_t *part = json_object_get(json_object_get(msg, "stream"), "text_part");

	if (!json_is_string(part))
		return 0;
	return text_append(t, json_string_value(part), json_string_length(part)) == 0 ? 1 : -1;
}

int
cli_text_parts_join(json_t *msg, struct cli_text_parts *t)
{
	json_t *res = json_object_get(msg, "result");
	json_t *own = json_object_get(res, "text");

	if (t->len == 0 || !json_is_object(res))
		return 0;
	if (json_is_string(own) && text_append(t, json_string_value(own), json_string_length(own)) != 0)
		return -1;
	return json_object_set_new(res, "text", json_stringn(t->buf, t->len));
}
