/* UTF-8 validation and cutting on a character boundary (see utf8.h). */
#include <string.h>

#include "common/utf8.h"
#include "common/xmalloc.h"

size_t
utf8_char_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n;
	unsigned min;	/* smallest code point this length may encode */
	unsigned cp;

	if (len == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

bool
utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len > 0) {
		size_t n = utf8_char_len(p, len);
		if (n == 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

int
utf8_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n < max || s[n] == '\0')
		return (int)n;
	/* back off over continuation bytes to the start of the cut character */
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return (int)n;
}

/* s[0..len) is the start of a character cut short by the end of the
 * text (what a printf precision or a full buffer leaves). */
static bool
truncated_char(const unsigned char *s, size_t len)
{
	size_t need = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;

	if (s[0] < 0xc2 || s[0] > 0xf4 || len >= need)
		return false;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	return true;
}

char *
utf8_clean(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), out = 0;
	/* '?' replaces one byte by one, so the length tells whether it all
	 * fits; if not, keep room for "..." and the NUL */
	bool cut = len > max - 1;
	size_t room = cut ? max - 4 : len;
	char *buf = xmalloc(max);

	while (len > 0) {
		size_t n = utf8_char_len(p, len);
		size_t take = n ? n : 1;

		if (out + take > room || (n == 0 && truncated_char(p, len)))
			break;
		if (n)
			memcpy(buf + out, p, n);
		else
			buf[out] = '?';
		out += take;
		p += take;
		len -= take;
	}
	if (cut) {
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out] = '\0';
	return buf;
}
