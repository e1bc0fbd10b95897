/*
 * The keys a standby follows (ha_watch): read once a second, each with
 * one read in flight at most; a change of mod revision (or the key gone)
 * is handed to its owner.  A poll rather than etcd's watch stream: the
 * gateway's stream is a chunked reply that never ends, and a second's
 * delay is well inside what a takeover allows (the new master reads the
 * latest intent itself before it writes, ha_get).
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ha/ha_internal.h"

void
ha_watch(struct ha *ha, const char *key, ha_watch_fn fn, void *arg)
{
	struct ha_watch *w;

	if (ha == NULL)
		return;
	for (size_t i = 0; i < ha->nwatches; i++)	/* a slot given up, for the same key */
		if (ha->watches[i].fn == NULL && strcmp(ha->watches[i].key, key) == 0) {
			w = &ha->watches[i];
			w->fn = fn;
			w->arg = arg;
			w->seen_rev = -1;
			return;
		}
	if (ha->nwatches == HA_MAX_WATCHES)
		return;
	w = &ha->watches[ha->nwatches++];
	w->key = xstrdup(key);
	w->fn = fn;
	w->arg = arg;
	w->seen_rev = -1;
}

void
ha_unwatch(struct ha *ha, ha_watch_fn fn, void *arg)
{
	if (ha == NULL)
		return;
	for (size_t i = 0; i < ha->nwatches; i++) {
		struct ha_watch *w = &ha->watches[i];

		if (w->fn != fn || w->arg != arg)
			continue;
		/* a read in flight finds fn NULL and only frees */
		w->fn = NULL;
	}
}

static void
on_read(json_t *reply, const char *err, void *arg)
{
	struct ha_watch *w = arg;
	size_t len = 0;
	int64_t rev = 0;
	char *v;

	w->out = false;
	if (reply == NULL || w->fn == NULL)
		return;
	v = ha_first_kv(reply, &len, &rev);
	if (rev != w->seen_rev) {
		w->seen_rev = rev;
		w->fn(v, len, rev, w->arg);
	}
	free(v);
}

void
ha_watch_poll(struct ha *ha)
{
	for (size_t i = 0; i < ha->nwatches; i++) {
		struct ha_watch *w = &ha->watches[i];
		char *k;

		if (w->out || w->fn == NULL)
			continue;
		k = ha_key64(ha, w->key);
		if (etcd_call(ha->etcd, "/v3/kv/range", json_pack("{s:s}", "key", k), on_read,
		    w) == 0)
			w->out = true;
		free(k);
	}
}
