/* Alarm state machine: see alarms.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "health/alarms.h"

static const char *const hchk_names[HCHK_COUNT] = {
	[HCHK_SYMBOL_ERRORS] = "symbol_errors",
	[HCHK_LINK_RECOVERIES] = "link_error_recovery",
	[HCHK_FLAPPING] = "flapping",
	[HCHK_RCV_ERRORS] = "rcv_errors",
	[HCHK_XMIT_DISCARDS] = "xmit_discards",
	[HCHK_CONGESTION] = "congestion",
	[HCHK_DEGRADED] = "degraded",
	[HCHK_NOT_ACTIVE] = "not_active",
	[HCHK_LINK_DOWN] = "link_down",
	[HCHK_PFC_STORM] = "pfc_storm",
	[HCHK_ROCE_LOSS] = "roce_loss",
	[HCHK_BER] = "ber",
};

/*
 * Each alarm sits in two hash chains: by (object, check), what every
 * evaluation looks up, and by fabric port, what `ports` counts.  A storm
 * raises an alarm on thousands of ports in one round; a linear scan per
 * evaluation would make that round quadratic.
 */
#define ALARM_BUCKETS 8192

struct alarm_node {
	struct alarm	 a;		/* first: v[] holds &node->a */
	struct alarm_node *next_key, *next_port;
	uint32_t	 key_hash;
	size_t		 slot;		/* index in v[] */
};

struct alarm_table {
	struct alarm_node *by_key[ALARM_BUCKETS];
	struct alarm_node *by_port[ALARM_BUCKETS];
	struct alarm	**v;
	size_t		  n, cap;
	unsigned	  clear_after;
	uint64_t	  quiet_ms;
	struct alarm	  recent[ALARM_RECENT];	/* ring of cleared alarms, object owned */
	size_t		  recent_next, recent_n;
	/* ring entries per by_port bucket: a port whose bucket has none
	 * skips the ring (a pre-flight asks for thousands of ports) */
	uint16_t	  recent_in_bucket[ALARM_BUCKETS];
	alarm_notify_fn	  notify;
	void		 *arg;
};

const char *
hchk_name(enum hchk c)
{
	return (unsigned)c < HCHK_COUNT ? hchk_names[c] : "unknown";
}

struct alarm_table *
alarm_table_new(unsigned clear_after, alarm_notify_fn fn, void *arg)
{
	struct alarm_table *t = xcalloc(1, sizeof(*t));
	t->clear_after = clear_after ? clear_after : 1;
	t->notify = fn;
	t->arg = arg;
	return t;
}

static struct alarm_node *
node_of(const struct alarm *a)
{
	return (struct alarm_node *)(void *)a;	/* a is the node's first member */
}

static uint32_t
key_hash(const char *object, enum hchk check)
{
	uint32_t h = 2166136261u ^ (uint32_t)check;

	for (const unsigned char *s = (const unsigned char *)object; *s; s++)
		h = (h ^ *s) * 16777619u;
	return h;
}

static uint32_t
port_hash(uint64_t guid, uint8_t port)
{
	uint64_t x = (guid ^ port) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(x >> 40);
}

static void
alarm_free(struct alarm *a)
{
	free(a->object);
	free(node_of(a));
}

static void
chains_add(struct alarm_table *t, struct alarm_node *n)
{
	struct alarm_node **k = &t->by_key[n->key_hash % ALARM_BUCKETS];
	struct alarm_node **p = &t->by_port[port_hash(n->a.node_guid, n->a.port) % ALARM_BUCKETS];

	n->next_key = *k;
	*k = n;
	n->next_port = *p;
	*p = n;
}

static void
chains_del(struct alarm_table *t, struct alarm_node *n)
{
	struct alarm_node **pp;

	for (pp = &t->by_key[n->key_hash % ALARM_BUCKETS]; *pp; pp = &(*pp)->next_key)
		if (*pp == n) {
			*pp = n->next_key;
			break;
		}
	for (pp = &t->by_port[port_hash(n->a.node_guid, n->a.port) % ALARM_BUCKETS]; *pp;
	    pp = &(*pp)->next_port)
		if (*pp == n) {
			*pp = n->next_port;
			break;
		}
}

void
alarm_table_free(struct alarm_table *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		alarm_free(t->v[i]);
	for (size_t i = 0; i < t->recent_n; i++)
		free(t->recent[i].object);
	free(t->v);
	free(t);
}

void
alarm_table_reset(struct alarm_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		alarm_free(t->v[i]);
	for (size_t i = 0; i < t->recent_n; i++)
		free(t->recent[i].object);
	t->n = 0;
	t->recent_n = t->recent_next = 0;
	memset(t->by_key, 0, sizeof(t->by_key));
	memset(t->by_port, 0, sizeof(t->by_port));
	memset(t->recent_in_bucket, 0, sizeof(t->recent_in_bucket));
	memset(t->recent, 0, sizeof(t->recent));
}

static struct alarm *
alarm_lookup(const struct alarm_table *t, const char *object, enum hchk check)
{
	uint32_t h = key_hash(object, check);

	for (struct alarm_node *n = t->by_key[h % ALARM_BUCKETS]; n; n = n->next_key)
		if (n->key_hash == h && n->a.check == check && !strcmp(n->a.object, object))
			return &n->a;
	return NULL;
}

/* v[] keeps its order only for display; each alarm knows its slot. */
static size_t
alarm_slot(const struct alarm_table *t, const struct alarm *a)
{
	(void)t;
	return node_of(a)->slot;
}

static void
alarm_set_detail(struct alarm *a, const char *detail)
{
	if (detail)
		snprintf(a->detail, sizeof(a->detail), "%s", detail);
}

/* A new active alarm like tmpl (its object copied), without an event. */
static struct alarm *
alarm_insert(struct alarm_table *t, const struct alarm *tmpl)
{
	struct alarm_node *node = xcalloc(1, sizeof(*node));
	struct alarm *a = &node->a;

	*a = *tmpl;
	a->object = xstrdup(tmpl->object);
	a->cleared_ms = 0;
	node->key_hash = key_hash(a->object, a->check);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	node->slot = t->n;
	t->v[t->n++] = a;
	chains_add(t, node);
	return a;
}

static struct alarm *
alarm_raise(struct alarm_table *t, const char *object, uint64_t guid, uint8_t port,
    enum hchk check, enum event_severity sev, int64_t now_ms, const char *detail)
{
	struct alarm tmpl = { .object = (char *)object, .node_guid = guid, .port = port,
	    .check = check, .severity = sev, .first_seen_ms = now_ms, .last_seen_ms = now_ms,
	    .failures = 1 };
	struct alarm *a;

	alarm_set_detail(&tmpl, detail);
	a = alarm_insert(t, &tmpl);
	if (t->notify)
		t->notify(a, true, t->arg);
	return a;
}

/* Keep a cleared alarm in the ring, taking over its object string. */
static void
alarm_remember(struct alarm_table *t, struct alarm *a, int64_t now_ms)
{
	struct alarm *slot = &t->recent[t->recent_next];

	if (t->recent_n == ALARM_RECENT) {
		free(slot->object);
		t->recent_in_bucket[port_hash(slot->node_guid, slot->port) % ALARM_BUCKETS]--;
	} else
		t->recent_n++;
	t->recent_in_bucket[port_hash(a->node_guid, a->port) % ALARM_BUCKETS]++;
	*slot = *a;
	slot->cleared_ms = now_ms;
	a->object = NULL;
	t->recent_next = (t->recent_next + 1) % ALARM_RECENT;
}

static void
alarm_remove(struct alarm_table *t, size_t i, int64_t now_ms)
{
	struct alarm *a = t->v[i];

	/* Order matters for "worst first" only at display time: swap-remove. */
	chains_del(t, node_of(a));
	t->v[i] = t->v[--t->n];
	if (i < t->n)
		node_of(t->v[i])->slot = i;
	if (t->notify)
		t->notify(a, false, t->arg);
	alarm_remember(t, a, now_ms);
	alarm_free(a);
}

void
alarm_restore(struct alarm_table *t, const struct alarm *a)
{
	struct alarm copy = *a;

	if (a->cleared_ms == 0) {
		if (alarm_lookup(t, a->object, a->check) == NULL)
			(void)alarm_insert(t, a);
		return;
	}
	copy.object = xstrdup(a->object);
	alarm_remember(t, &copy, a->cleared_ms);	/* takes the copy's object */
}

int
hchk_by_name(const char *name)
{
	for (int c = 0; c < HCHK_COUNT; c++)
		if (strcmp(hchk_names[c], name) == 0)
			return c;
	return -1;
}

void
alarm_table_set_quiet(struct alarm_table *t, uint64_t quiet_ms)
{
	t->quiet_ms = quiet_ms;
}

int64_t
alarm_clears_at(const struct alarm_table *t, const struct alarm *a)
{
	return a->last_seen_ms + (int64_t)t->quiet_ms;
}

size_t
alarm_recent_count(const struct alarm_table *t)
{
	return t->recent_n;
}

const struct alarm *
alarm_recent_at(const struct alarm_table *t, size_t i)
{
	if (i >= t->recent_n)
		return NULL;
	/* Oldest first: the ring starts at recent_next once it is full. */
	return &t->recent[(t->recent_n == ALARM_RECENT ? t->recent_next + i : i) % ALARM_RECENT];
}

const struct alarm *
alarm_recent_of_port(const struct alarm_table *t, uint64_t node_guid, uint8_t port, size_t *i)
{
	const struct alarm *a;

	if (t->recent_in_bucket[port_hash(node_guid, port) % ALARM_BUCKETS] == 0)
		return NULL;
	while (*i > 0)
		if ((a = alarm_recent_at(t, --*i))->node_guid == node_guid && a->port == port)
			return a;
	return NULL;
}

const struct alarm *
alarm_update(struct alarm_table *t, const char *object, uint64_t node_guid,
    uint8_t port, enum hchk check, bool failing, enum event_severity sev,
    int64_t now_ms, const char *detail)
{
	struct alarm *a = alarm_lookup(t, object, check);

	if (a == NULL)
		return failing ? alarm_raise(t, object, node_guid, port, check, sev,
		    now_ms, detail) : NULL;
	if (!failing) {
		if (++a->passes >= t->clear_after && now_ms >= alarm_clears_at(t, a)) {
			alarm_remove(t, alarm_slot(t, a), now_ms);
			return NULL;
		}
		return a;
	}
	a->passes = 0;
	a->failures++;
	a->last_seen_ms = now_ms;
	alarm_set_detail(a, detail);
	if (sev > a->severity) {
		/* Worse than what operators were told: tell them again. */
		a->severity = sev;
		if (t->notify)
			t->notify(a, true, t->arg);
	}
	return a;
}

void
alarm_clear(struct alarm_table *t, const char *object, enum hchk check)
{
	const struct alarm *a = alarm_lookup(t, object, check);
	if (a != NULL)
		alarm_remove(t, alarm_slot(t, a), event_now_ms());
}

const struct alarm *
alarm_find(const struct alarm_table *t, const char *object, enum hchk check)
{
	return alarm_lookup(t, object, check);
}

const struct alarm *
alarm_release(struct alarm_table *t, const char *object, enum hchk check)
{
	struct alarm *a = alarm_lookup(t, object, check);

	if (a)
		a->released = true;
	return a;
}

size_t
alarm_count(const struct alarm_table *t)
{
	return t->n;
}

const struct alarm *
alarm_at(const struct alarm_table *t, size_t i)
{
	return i < t->n ? t->v[i] : NULL;
}

const struct alarm *
alarm_next_of_port(const struct alarm_table *t, uint64_t node_guid, uint8_t port,
    const void **cursor)
{
	const struct alarm_node *a = *cursor ? ((const struct alarm_node *)*cursor)->next_port :
	    t->by_port[port_hash(node_guid, port) % ALARM_BUCKETS];

	while (a && (a->a.node_guid != node_guid || a->a.port != port))
		a = a->next_port;
	*cursor = a;
	return a ? &a->a : NULL;
}

size_t
alarm_count_port(const struct alarm_table *t, uint64_t node_guid, uint8_t port)
{
	size_t n = 0;

	for (struct alarm_node *a = t->by_port[port_hash(node_guid, port) % ALARM_BUCKETS]; a;
	    a = a->next_port)
		if (a->a.node_guid == node_guid && a->a.port == port)
			n++;
	return n;
}
