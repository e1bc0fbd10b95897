/*
 * The partition model: parsing of keys and members, and the changes an
 * operator can make.  Unlike OpenSM's partitions.conf parser, nothing here
 * guesses: an unknown keyword is an error, keywords match only in full,
 * and a refused change leaves the model exactly as it was.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/guid.h"
#include "common/xmalloc.h"
#include "partitions/model.h"

void
pt_err_set(struct pt_err *e, enum proto_error code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

struct pt_config *
pt_config_new(void)
{
	struct pt_config *c = xcalloc(1, sizeof(*c));

	c->default_policy = PT_DEFAULT_OTHERS_LIMITED;
	return c;
}

void
pt_member_clear(struct pt_member *m)
{
	free(m->pattern);
	m->pattern = NULL;
}

static void
partition_clear(struct pt_partition *p)
{
	for (size_t i = 0; i < p->nmembers; i++)
		pt_member_clear(&p->members[i]);
	free(p->members);
	free(p->name);
	free(p->tenant);
	pt_job_free(p->job);
	p->job = NULL;
}

void
pt_job_free(struct pt_job *j)
{
	if (j == NULL)
		return;
	free(j->id);
	free(j->user);
	free(j->account);
	free(j->hosts);
	free(j);
}

void
pt_partition_set_job(struct pt_partition *p, const struct pt_job *job)
{
	struct pt_job *j = NULL;

	if (job != NULL) {
		j = xcalloc(1, sizeof(*j));
		j->id = xstrdup(job->id);
		j->user = xstrdup(job->user ? job->user : "");
		j->account = xstrdup(job->account ? job->account : "");
		j->hosts = xstrdup(job->hosts ? job->hosts : "");
		j->created_ms = job->created_ms;
	}
	pt_job_free(p->job);
	p->job = j;
}

struct pt_partition *
pt_find_job(const struct pt_config *c, const char *id)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (c->parts[i].job != NULL && strcmp(c->parts[i].job->id, id) == 0)
			return &c->parts[i];
	return NULL;
}

bool
pt_job_id_valid(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	return n >= 1 && n <= 40 && strspn(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz_.-") == n;
}

void
pt_config_free(struct pt_config *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nparts; i++)
		partition_clear(&c->parts[i]);
	free(c->parts);
	free(c);
}

static void
member_copy(struct pt_member *dst, const struct pt_member *src)
{
	*dst = *src;
	if (src->pattern != NULL)
		dst->pattern = xstrdup(src->pattern);
}

struct pt_config *
pt_config_dup(const struct pt_config *c)
{
	struct pt_config *d = pt_config_new();

	d->default_policy = c->default_policy;
	if (c->nparts == 0)
		return d;
	d->parts = xcalloc(c->nparts, sizeof(*d->parts));
	d->nparts = c->nparts;
	for (size_t i = 0; i < c->nparts; i++) {
		const struct pt_partition *s = &c->parts[i];
		struct pt_partition *p = &d->parts[i];

		p->name = xstrdup(s->name);
		p->tenant = xstrdup(s->tenant);
		p->pkey = s->pkey;
		p->ipoib = s->ipoib;
		p->nmembers = s->nmembers;
		if (s->nmembers > 0)
			p->members = xcalloc(s->nmembers, sizeof(*p->members));
		for (size_t j = 0; j < s->nmembers; j++)
			member_copy(&p->members[j], &s->members[j]);
		pt_partition_set_job(p, s->job);
	}
	return d;
}

static const char *const policy_names[] = {
	[PT_DEFAULT_OTHERS_LIMITED] = "limited",
	[PT_DEFAULT_OTHERS_FULL] = "full",
};

const char *
pt_default_policy_name(enum pt_default_policy p)
{
	return policy_names[p];
}

int
pt_default_policy_parse(const char *s, enum pt_default_policy *out)
{
	for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++)
		if (strcmp(s, policy_names[i]) == 0) {
			*out = (enum pt_default_policy)i;
			return 0;
		}
	return -1;
}

/* Strict hex: "0x" then 1..maxdigits hex digits and nothing else. */
static int
parse_hex(const char *s, unsigned maxdigits, uint64_t *out)
{
	size_t n;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	s += 2;
	n = strlen(s);
	if (n == 0 || n > maxdigits || strspn(s, "0123456789abcdefABCDEF") != n)
		return -1;
	*out = strtoull(s, NULL, 16);
	return 0;
}

int
pt_pkey_parse(const char *s, uint16_t *out, struct pt_err *e)
{
	uint64_t v;

	if (s == NULL || parse_hex(s, 4, &v) != 0) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "P_Key \"%s\": expected 0x0001-0x7ffe in hex", s ? s : "");
		return -1;
	}
	if (v == PT_PKEY_DEFAULT) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "P_Key 0x7fff is the default partition; its membership is the "
		    "default_membership policy, not a partition of its own");
		return -1;
	}
	if (v < PT_PKEY_MIN || v > PT_PKEY_MAX) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "P_Key %s out of range: expected 0x0001-0x7ffe (the top bit "
		    "is the membership bit, given per member)", s);
		return -1;
	}
	*out = (uint16_t)v;
	return 0;
}

bool
pt_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > PT_NAME_MAX || !isalnum((unsigned char)name[0]))
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_.-") == n;
}

int
pt_member_parse(const char *text, bool full, struct pt_member *out, struct pt_err *e)
{
	uint64_t guid;

	memset(out, 0, sizeof(*out));
	out->full = full;
	if (text == NULL || text[0] == '\0') {
		pt_err_set(e, PERR_INVALID_ARGUMENT, "empty member");
		return -1;
	}
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		if (parse_hex(text, 16, &guid) != 0 || guid == 0) {
			pt_err_set(e, PERR_INVALID_ARGUMENT,
			    "member \"%s\": a port GUID is 0x followed by 1-16 hex digits", text);
			return -1;
		}
		out->kind = PT_MEMBER_GUID;
		out->guid = guid;
		return 0;
	}
	if (strcmp(text, "all-cas") == 0) {
		out->kind = PT_MEMBER_ALL_CAS;
		return 0;
	}
	if (strcmp(text, "switches") == 0) {
		out->kind = PT_MEMBER_SWITCHES;
		return 0;
	}
	if (strlen(text) > 64 || strpbrk(text, "\n\t,;:=") != NULL) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "member \"%s\": expected a port GUID (0x...), all-cas, switches, "
		    "or a node name or glob of at most 64 characters without , ; : =", text);
		return -1;
	}
	out->kind = PT_MEMBER_NODE;
	out->pattern = xstrdup(text);
	return 0;
}

const char *
pt_member_text(const struct pt_member *m, char *buf, size_t len)
{
	switch (m->kind) {
	case PT_MEMBER_GUID:
		guid_format(m->guid, buf, len);
		break;
	case PT_MEMBER_NODE:
		snprintf(buf, len, "%s", m->pattern);
		break;
	case PT_MEMBER_ALL_CAS:
		snprintf(buf, len, "all-cas");
		break;
	case PT_MEMBER_SWITCHES:
		snprintf(buf, len, "switches");
		break;
	}
	return buf;
}

/* Same member regardless of membership. */
bool
pt_member_same(const struct pt_member *a, const struct pt_member *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == PT_MEMBER_GUID)
		return a->guid == b->guid;
	if (a->kind == PT_MEMBER_NODE)
		return strcmp(a->pattern, b->pattern) == 0;
	return true;
}

struct pt_partition *
pt_find(const struct pt_config *c, const char *name)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (strcmp(c->parts[i].name, name) == 0)
			return &c->parts[i];
	return NULL;
}

struct pt_partition *
pt_find_pkey(const struct pt_config *c, uint16_t pkey)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (c->parts[i].pkey == pkey)
			return &c->parts[i];
	return NULL;
}

int
pt_partition_add(struct pt_config *c, const char *name, const char *tenant,
    uint16_t pkey, struct pt_err *e)
{
	struct pt_partition *p, *other;

	if (name == NULL || !pt_name_valid(name) || strcmp(name, PT_DEFAULT_NAME) == 0) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "partition name \"%s\": expected 1-64 of A-Z a-z 0-9 _ . - "
		    "starting with a letter or digit (\"default\" is reserved)",
		    name ? name : "");
		return -1;
	}
	if (tenant != NULL && tenant[0] != '\0' && !pt_name_valid(tenant)) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "tenant name \"%s\": expected 1-64 of A-Z a-z 0-9 _ . -", tenant);
		return -1;
	}
	if (pkey < PT_PKEY_MIN || pkey > PT_PKEY_MAX) {
		pt_err_set(e, PERR_INVALID_ARGUMENT,
		    "P_Key 0x%04x out of range: expected 0x0001-0x7ffe", pkey);
		return -1;
	}
	if (pt_find(c, name) != NULL) {
		pt_err_set(e, PERR_CONFLICT, "partition \"%s\" already exists", name);
		return -1;
	}
	if ((other = pt_find_pkey(c, pkey)) != NULL) {
		pt_err_set(e, PERR_CONFLICT, "P_Key 0x%04x is already used by partition \"%s\"",
		    pkey, other->name);
		return -1;
	}
	c->parts = xreallocarray(c->parts, c->nparts + 1, sizeof(*c->parts));
	p = &c->parts[c->nparts++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	/* a partition without a tenant is its own tenant */
	p->tenant = xstrdup(tenant && tenant[0] ? tenant : name);
	p->pkey = pkey;
	return 0;
}

int
pt_partition_delete(struct pt_config *c, const char *name, struct pt_err *e)
{
	struct pt_partition *p = pt_find(c, name);
	size_t i;

	if (p == NULL) {
		pt_err_set(e, PERR_NOT_FOUND, "no partition \"%s\"", name);
		return -1;
	}
	i = (size_t)(p - c->parts);
	partition_clear(p);
	memmove(&c->parts[i], &c->parts[i + 1], (c->nparts - i - 1) * sizeof(*p));
	c->nparts--;
	return 0;
}

int
pt_member_add(struct pt_config *c, const char *partition, const char *member,
    bool full, struct pt_err *e)
{
	struct pt_partition *p = pt_find(c, partition);
	struct pt_member m;
	char buf[80];

	if (p == NULL) {
		pt_err_set(e, PERR_NOT_FOUND, "no partition \"%s\"", partition);
		return -1;
	}
	if (pt_member_parse(member, full, &m, e) != 0)
		return -1;
	for (size_t i = 0; i < p->nmembers; i++) {
		if (!pt_member_same(&p->members[i], &m))
			continue;
		if (p->members[i].full == full) {
			pt_err_set(e, PERR_CONFLICT, "%s is already a %s member of \"%s\"",
			    pt_member_text(&m, buf, sizeof(buf)), full ? "full" : "limited",
			    partition);
			pt_member_clear(&m);
			return -1;
		}
		p->members[i].full = full;
		pt_member_clear(&m);
		return 0;
	}
	p->members = xreallocarray(p->members, p->nmembers + 1, sizeof(*p->members));
	p->members[p->nmembers++] = m;
	return 0;
}

int
pt_member_remove(struct pt_config *c, const char *partition, const char *member,
    struct pt_err *e)
{
	struct pt_partition *p = pt_find(c, partition);
	struct pt_member m;

	if (p == NULL) {
		pt_err_set(e, PERR_NOT_FOUND, "no partition \"%s\"", partition);
		return -1;
	}
	if (pt_member_parse(member, false, &m, e) != 0)
		return -1;
	for (size_t i = 0; i < p->nmembers; i++) {
		if (!pt_member_same(&p->members[i], &m))
			continue;
		pt_member_clear(&p->members[i]);
		memmove(&p->members[i], &p->members[i + 1],
		    (p->nmembers - i - 1) * sizeof(m));
		p->nmembers--;
		pt_member_clear(&m);
		return 0;
	}
	pt_err_set(e, PERR_NOT_FOUND, "\"%s\" is not a member of \"%s\"", member, partition);
	pt_member_clear(&m);
	return -1;
}

int
pt_config_check(const struct pt_config *c, struct pt_err *e)
{
	char buf[80];

	for (size_t i = 0; i < c->nparts; i++) {
		const struct pt_partition *p = &c->parts[i];

		if (!pt_name_valid(p->name) || strcmp(p->name, PT_DEFAULT_NAME) == 0) {
			pt_err_set(e, PERR_INVALID_ARGUMENT, "invalid partition name \"%s\"", p->name);
			return -1;
		}
		if (p->pkey < PT_PKEY_MIN || p->pkey > PT_PKEY_MAX) {
			pt_err_set(e, PERR_INVALID_ARGUMENT,
			    "partition \"%s\": P_Key 0x%04x out of range 0x0001-0x7ffe",
			    p->name, p->pkey);
			return -1;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(c->parts[j].name, p->name) == 0) {
				pt_err_set(e, PERR_CONFLICT, "partition \"%s\" defined twice", p->name);
				return -1;
			}
			if (p->job != NULL && c->parts[j].job != NULL &&
			    strcmp(p->job->id, c->parts[j].job->id) == 0) {
				pt_err_set(e, PERR_CONFLICT, "job %s has two partitions, \"%s\" and "
				    "\"%s\"", p->job->id, c->parts[j].name, p->name);
				return -1;
			}
			if (c->parts[j].pkey == p->pkey) {
				pt_err_set(e, PERR_CONFLICT,
				    "P_Key 0x%04x used by both \"%s\" and \"%s\"",
				    p->pkey, c->parts[j].name, p->name);
				return -1;
			}
		}
		for (size_t k = 0; k < p->nmembers; k++)
			for (size_t j = 0; j < k; j++)
				if (pt_member_same(&p->members[j], &p->members[k])) {
					pt_err_set(e, PERR_CONFLICT,
					    "partition \"%s\": member %s listed twice", p->name,
					    pt_member_text(&p->members[k], buf, sizeof(buf)));
					return -1;
				}
	}
	return 0;
}
