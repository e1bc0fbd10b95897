/*
 * Import of OpenSM's partitions.conf, a strict subset:
 *
 *   Name=PKey[,flag...] : member[=full|limited], ... ;
 *
 * members: a port GUID, ALL, ALL_CAS, ALL_SWITCHES, NONE (and SELF, only
 * in the default partition); flags: defmember=full|limited, and the
 * multicast-group flags ipoib, indx0, mtu=, rate=, sl=, scope=, Q_Key=,
 * TClass=, FlowLabel=, which are accepted and ignored (groups are the
 * SM's business, not the partition table's).
 *
 * Where OpenSM is lenient this is not (opensm-and-peers §2.1): an error
 * anywhere rejects the whole file instead of falling back to "every port a
 * full member of 0x7fff"; an unknown membership is an error, not
 * "limited"; keywords match in full only ("A" is not ALL); a file with no
 * partition besides the default is refused.  Each error names
 * file:line:column.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "partitions/files.h"

struct osm_parser {
	const char		*name;
	const char		*text;	/* comments blanked, offsets as in the file */
	struct pt_config	*model;
	char			*errors;
	size_t			 nerrors;
	size_t			 ndropped;	/* past CFG_MAX_ERRORS: counted only */
	bool			 default_seen;
};

static void
osm_error(struct osm_parser *p, size_t off, const char *fmt, ...)
{
	unsigned line = 1, col = 1;
	char *msg, *all;
	va_list ap;

	/* each message costs a scan for its line and a copy of the others:
	 * bounded, so that a megabyte of garbage costs no more than a page */
	if (p->nerrors >= CFG_MAX_ERRORS) {
		p->ndropped++;
		return;
	}
	for (size_t i = 0; i < off && p->text[i]; i++) {
		if (p->text[i] == '\n')
			line++, col = 1;
		else
			col++;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	xasprintf(&all, "%s%s%s:%u:%u: %s", p->errors ? p->errors : "", p->errors ? "\n" : "",
	    p->name, line, col, msg ? msg : "error");
	free(msg);
	free(p->errors);
	p->errors = all;
	p->nerrors++;
}

/* A piece of the text: [start, end) trimmed of blanks. */
struct span {
	size_t start, end;
};

static struct span
trim(const char *t, size_t s, size_t e)
{
	while (s < e && isspace((unsigned char)t[s]))
		s++;
	while (e > s && isspace((unsigned char)t[e - 1]))
		e--;
	return (struct span){ s, e };
}

static char *
span_str(const struct osm_parser *p, struct span s)
{
	return xstrndup(p->text + s.start, s.end - s.start);
}

/* Split [s, e) at '=' into left and right (right empty if none). */
static void
split_eq(const char *t, struct span in, struct span *l, struct span *r)
{
	const char *eq = memchr(t + in.start, '=', in.end - in.start);

	if (eq == NULL) {
		*l = in;
		*r = (struct span){ in.end, in.end };
		return;
	}
	*l = trim(t, in.start, (size_t)(eq - t));
	*r = trim(t, (size_t)(eq - t) + 1, in.end);
}

static const char *const ignored_flags[] = {
	"ipoib", "indx0", "mtu", "rate", "sl", "scope", "Q_Key", "TClass", "FlowLabel",
};

/* Membership text: "full" or "limited" exactly; *ok false otherwise. */
static bool
parse_membership(struct osm_parser *p, struct span s, bool *full)
{
	char *m = span_str(p, s);
	bool ok = true;

	if (strcmp(m, "full") == 0)
		*full = true;
	else if (strcmp(m, "limited") == 0)
		*full = false;
	else {
		osm_error(p, s.start, "membership \"%s\": expected full or limited%s", m,
		    strcmp(m, "both") == 0 ? " (fabricd gives one membership per port)" : "");
		ok = false;
	}
	free(m);
	return ok;
}

/* Header flags after the name; returns false on an error. */
static bool
parse_flags(struct osm_parser *p, struct span hdr, size_t from, bool *defmember_full)
{
	const char *t = p->text;
	size_t s = from;

	while (s < hdr.end) {
		const char *c = memchr(t + s, ',', hdr.end - s);
		size_t e = c ? (size_t)(c - t) : hdr.end;
		struct span f = trim(t, s, e), k, v;
		char *key;
		bool known = false;

		split_eq(t, f, &k, &v);
		key = span_str(p, k);
		if (strcmp(key, "defmember") == 0) {
			if (!parse_membership(p, v, defmember_full)) {
				free(key);
				return false;
			}
			known = true;
		}
		for (size_t i = 0; !known && i < sizeof(ignored_flags) / sizeof(*ignored_flags); i++)
			known = strcmp(key, ignored_flags[i]) == 0;
		if (!known) {
			osm_error(p, f.start, "unknown flag \"%s\" (known: defmember, ipoib, "
			    "indx0, mtu, rate, sl, scope, Q_Key, TClass, FlowLabel)", key);
			free(key);
			return false;
		}
		free(key);
		s = e + 1;
	}
	return true;
}

static void
default_partition(struct osm_parser *p, struct span members)
{
	const char *t = p->text;
	bool others_full = false;
	size_t s = members.start;

	p->default_seen = true;
	while (s < members.end) {
		const char *c = memchr(t + s, ',', members.end - s);
		size_t e = c ? (size_t)(c - t) : members.end;
		struct span m = trim(t, s, e), k, v;
		char *key;
		bool full = false;

		split_eq(t, m, &k, &v);
		key = span_str(p, k);
		if (v.end > v.start && !parse_membership(p, v, &full)) {
			free(key);
			return;
		}
		if (strcmp(key, "ALL") == 0 || strcmp(key, "ALL_CAS") == 0)
			others_full |= full;
		else if (strcmp(key, "SELF") != 0 && strcmp(key, "ALL_SWITCHES") != 0 &&
		    strcmp(key, "NONE") != 0 && key[0] != '\0')
			osm_error(p, m.start, "default partition member \"%s\": fabricd "
			    "supports ALL, ALL_CAS, ALL_SWITCHES and SELF here (the SM's "
			    "port is always full, every other port follows ALL's membership)",
			    key);
		free(key);
		s = e + 1;
	}
	p->model->default_policy = others_full ? PT_DEFAULT_OTHERS_FULL : PT_DEFAULT_OTHERS_LIMITED;
}

static void
add_member(struct osm_parser *p, const char *name, struct span m, bool defmember_full)
{
	const char *t = p->text;
	struct span k, v;
	struct pt_err e;
	bool full = defmember_full;
	char *key;

	split_eq(t, m, &k, &v);
	if (v.end > v.start && !parse_membership(p, v, &full))
		return;
	key = span_str(p, k);
	if (strcmp(key, "NONE") == 0) {
		free(key);
		return;
	}
	if (strcmp(key, "ALL") == 0) {
		if (pt_member_add(p->model, name, "all-cas", full, &e) != 0 ||
		    pt_member_add(p->model, name, "switches", full, &e) != 0)
			osm_error(p, m.start, "%s", e.msg);
	} else if (strcmp(key, "ALL_CAS") == 0 || strcmp(key, "ALL_SWITCHES") == 0) {
		if (pt_member_add(p->model, name, key[4] == 'C' ? "all-cas" : "switches",
		    full, &e) != 0)
			osm_error(p, m.start, "%s", e.msg);
	} else if (strncmp(key, "0x", 2) == 0 || strncmp(key, "0X", 2) == 0) {
		if (pt_member_add(p->model, name, key, full, &e) != 0)
			osm_error(p, m.start, "%s", e.msg);
	} else
		osm_error(p, m.start, "member \"%s\": expected a port GUID (0x...), ALL, "
		    "ALL_CAS, ALL_SWITCHES or NONE (keywords are matched in full)", key);
	free(key);
}

static void
statement(struct osm_parser *p, struct span st)
{
	const char *t = p->text;
	const char *colon = memchr(t + st.start, ':', st.end - st.start);
	struct span hdr, members, first, nm, pk;
	const char *comma;
	bool defmember_full = false;
	char *name, *pkey_text;
	struct pt_err e;
	uint16_t pkey;
	size_t s;

	if (colon == NULL) {
		osm_error(p, st.start, "expected \"Name=PKey : members ;\" (no ':')");
		return;
	}
	hdr = trim(t, st.start, (size_t)(colon - t));
	members = trim(t, (size_t)(colon - t) + 1, st.end);
	comma = memchr(t + hdr.start, ',', hdr.end - hdr.start);
	first = trim(t, hdr.start, comma ? (size_t)(comma - t) : hdr.end);
	split_eq(t, first, &nm, &pk);
	if (!parse_flags(p, hdr, comma ? (size_t)(comma - t) + 1 : hdr.end, &defmember_full))
		return;
	name = span_str(p, nm);
	pkey_text = span_str(p, pk);
	if (strcmp(name, "Default") == 0 || strcmp(pkey_text, "0x7fff") == 0 ||
	    strcmp(pkey_text, "0xffff") == 0) {
		default_partition(p, members);
		goto out;
	}
	if (pk.end == pk.start) {
		osm_error(p, nm.end, "partition \"%s\": a P_Key is required (Name=0x...)", name);
		goto out;
	}
	if (pt_pkey_parse(pkey_text, &pkey, &e) != 0) {
		osm_error(p, pk.start, "%s", e.msg);
		goto out;
	}
	if (pt_partition_add(p->model, name, NULL, pkey, &e) != 0) {
		osm_error(p, nm.start, "%s", e.msg);
		goto out;
	}
	for (s = members.start; s < members.end; ) {
		const char *c = memchr(t + s, ',', members.end - s);
		size_t end = c ? (size_t)(c - t) : members.end;
		struct span m = trim(t, s, end);

		if (m.end == m.start)
			osm_error(p, m.start, "empty member in the list");
		else
			add_member(p, name, m, defmember_full);
		s = end + 1;
	}
out:
	free(name);
	free(pkey_text);
}

int
pt_osm_parse_text(const char *name, const char *text, struct pt_config **out, char **err)
{
	struct osm_parser p = { .name = name };
	char *copy = xstrdup(text);
	size_t n = strlen(copy), s = 0;

	/* blank comments in place so that offsets still give line:column */
	for (size_t i = 0; i < n; i++)
		if (copy[i] == '#')
			while (i < n && copy[i] != '\n')
				copy[i++] = ' ';
	p.text = copy;
	p.model = pt_config_new();
	while (s < n) {
		const char *semi = memchr(copy + s, ';', n - s);
		struct span st = trim(copy, s, semi ? (size_t)(semi - copy) : n);

		if (semi == NULL) {
			if (st.end > st.start)
				osm_error(&p, st.end, "missing ';' at the end of the statement");
			break;
		}
		if (st.end > st.start)
			statement(&p, st);
		s = (size_t)(semi - copy) + 1;
	}
	if (p.nerrors == 0 && p.model->nparts == 0)
		osm_error(&p, 0, "no partition besides the default: refusing a file that "
		    "would put every port in the default partition only");
	free(copy);
	if (p.ndropped > 0) {
		char *all;
		xasprintf(&all, "%s\n%s: and %zu more error%s", p.errors, p.name, p.ndropped,
		    p.ndropped == 1 ? "" : "s");
		free(p.errors);
		p.errors = all;
	}
	if (p.nerrors > 0) {
		pt_config_free(p.model);
		*out = NULL;
		*err = p.errors;
		return -1;
	}
	*out = p.model;
	*err = NULL;
	return 0;
}
