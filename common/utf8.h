/*
 * UTF-8 for text that leaves the daemon.  jansson refuses a string that is
 * not valid UTF-8, so a message cut in the middle of a character (or one
 * quoting bytes from a file or a client) would turn into a reply without
 * its error.  Everything that builds a message from outside text passes it
 * through utf8_clean() first.
 */
#ifndef FABRICD_UTF8_H
#define FABRICD_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the first well-formed character at s (1-4), 0 if s[0..len)
 * does not start with one (a stray, overlong or truncated sequence). */
size_t utf8_char_len(const unsigned char *s, size_t len);

bool utf8_valid(const char *s, size_t len);

/* The length of the longest prefix of s of at most max bytes that ends on
 * a character boundary: for "%.*s" instead of a bare precision, which can
 * cut a character in two. */
int utf8_cut(const char *s, size_t max);

/*
 * A heap copy of s that is valid UTF-8 and at most max bytes long (max >=
 * 8), NUL included: each malformed byte becomes '?', a character cut short
 * at the very end (by a bounded printf) is dropped, and a text longer than
 * max is cut on a character boundary and ends in "...".
 */
char *utf8_clean(const char *s, size_t max);

#endif
