/* Alarm state machine: see alarms.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

struct alarm_table {
	struct alarm	**v;
	size_t		  n, cap;
	unsigned	  clear_after;
	uint64_t	  quiet_ms;
	struct alarm	  recent[ALARM_RECENT];	/* ring of cleared alarms, object owned */
	size_t		  recent_next, recent_n;
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

static void
alarm_free(struct alarm *a)
{
	free(a->object);
	free(a);
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

static ssize_t
alarm_index(const struct alarm_table *t, const char *object, enum hchk check)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->check == check && !strcmp(t->v[i]->object, object))
			return (ssize_t)i;
	return -1;
}

static void
alarm_set_detail(struct alarm *a, const char *detail)
{
	if (detail)
		snprintf(a->detail, sizeof(a->detail), "%s", detail);
}

static struct alarm *
alarm_raise(struct alarm_table *t, const char *object, uint64_t guid, uint8_t port,
    enum hchk check, enum event_severity sev, int64_t now_ms, const char *detail)
{
	struct alarm *a = xcalloc(1, sizeof(*a));

	a->object = xstrdup(object);
	a->node_guid = guid;
	a->port = port;
	a->check = check;
	a->severity = sev;
	a->first_seen_ms = a->last_seen_ms = now_ms;
	a->failures = 1;
	alarm_set_detail(a, detail);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n++] = a;
	if (t->notify)
		t->notify(a, true, t->arg);
	return a;
}

/* Keep a cleared alarm in the ring, taking over its object string. */
static void
alarm_remember(struct alarm_table *t, struct alarm *a, int64_t now_ms)
{
	struct alarm *slot = &t->recent[t->recent_next];

	if (t->recent_n == ALARM_RECENT)
		free(slot->object);
	else
		t->recent_n++;
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
	t->v[i] = t->v[--t->n];
	if (t->notify)
		t->notify(a, false, t->arg);
	alarm_remember(t, a, now_ms);
	alarm_free(a);
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
alarm_update(struct alarm_table *t, const char *object, uint64_t node_guid,
    uint8_t port, enum hchk check, bool failing, enum event_severity sev,
    int64_t now_ms, const char *detail)
{
	ssize_t i = alarm_index(t, object, check);
	struct alarm *a;

	if (i < 0)
		return failing ? alarm_raise(t, object, node_guid, port, check, sev,
		    now_ms, detail) : NULL;
	a = t->v[i];
	if (!failing) {
		if (++a->passes >= t->clear_after && now_ms >= alarm_clears_at(t, a)) {
			alarm_remove(t, (size_t)i, now_ms);
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
	ssize_t i = alarm_index(t, object, check);
	if (i >= 0)
		alarm_remove(t, (size_t)i, event_now_ms());
}

const struct alarm *
alarm_find(const struct alarm_table *t, const char *object, enum hchk check)
{
	ssize_t i = alarm_index(t, object, check);
	return i < 0 ? NULL : t->v[i];
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

size_t
alarm_count_port(const struct alarm_table *t, uint64_t node_guid, uint8_t port)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->node_guid == node_guid && t->v[i]->port == port)
			n++;
	return n;
}
