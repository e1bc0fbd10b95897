/*
 * The partitions module's committed state (struct pt_state): the partition
 * set, the index of each key, and the tables last verified on the ports;
 * the partitions.h queries other modules ask of it, and the SA's view of
 * who holds which key.  The life cycle (module.c) and the change pipeline
 * (change.c) both work on it here, so neither calls into the other for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "partitions/internal.h"
#include "partitions/turns.h"
#include "partitions/partitions.h"
#include "sm/sm.h"

struct pt_state pt_state;

/* ---- committed port tables ---- */

/* By plane, node GUID as unsigned (sqlite's ORDER BY sorts them signed),
 * then port. */
static int
cmp_table(const void *a, const void *b)
{
	const struct pt_table *x = a, *y = b;

	if (x->plane != y->plane)
		return (int)x->plane - (int)y->plane;
	if (x->node_guid != y->node_guid)
		return x->node_guid < y->node_guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

const char *
pt_plane_name(size_t plane)
{
	return plane < pt_state.nplanes ? sm_subnet_name(pt_state.planes[plane]) : "";
}

const struct pt_table *
pt_table_find(size_t plane, uint64_t node_guid, uint8_t port)
{
	struct pt_table key = { .plane = (uint8_t)plane, .node_guid = node_guid, .port = port };

	if (pt_state.ntables == 0)
		return NULL;	/* bsearch wants a base even for no element */
	/* sorted (pt_tables_sort): a plan looks up every port of the fabric,
	 * 2,600 of them at 1,296 hosts, and a linear search each was most of
	 * a change's time */
	return bsearch(&key, pt_state.tables, pt_state.ntables, sizeof(key), cmp_table);
}

void
pt_tables_sort(struct pt_table *t, size_t n)
{
	if (n > 1)
		qsort(t, n, sizeof(*t), cmp_table);
}

bool
pt_have_committed(void *arg, uint64_t node_guid, uint8_t port, uint16_t *t, size_t n)
{
	const struct pt_table *tb = pt_table_find((uintptr_t)arg, node_guid, port);

	if (tb == NULL)
		return false;
	memset(t, 0, n * sizeof(*t));
	memcpy(t, tb->entries, (tb->n < n ? tb->n : n) * sizeof(*t));
	return true;
}

/* A port whose table is no longer known: dropped, so the next sweep reads it. */
static void
forget_table(struct pt_table *t)
{
	size_t i = (size_t)(t - pt_state.tables);

	if (pt_state.store != NULL)
		pt_store_forget_table(pt_state.store, t->subnet, t->node_guid, t->port);
	free(t->entries);
	memmove(t, t + 1, (pt_state.ntables - i - 1) * sizeof(*t));
	pt_state.ntables--;
}

void
pt_table_forget(size_t plane, uint64_t node_guid, uint8_t port)
{
	struct pt_table *t = (struct pt_table *)pt_table_find(plane, node_guid, port);

	if (t != NULL)
		forget_table(t);
}

/*
 * The plan's outcome in memory (what every port now holds); the rows that
 * changed come back as copies, for the store (pt_tables_rows_free).
 */
struct pt_table *
pt_tables_take(const struct pt_plan *p, size_t *nrows)
{
	size_t changed = 0, nadded = 0;
	struct pt_table *upd = xcalloc(p->nports ? p->nports : 1, sizeof(*upd)), *added = NULL;

	for (size_t i = 0; i < p->nports; i++) {
		const struct pt_port_plan *pp = &p->ports[i];
		struct pt_table *t = (struct pt_table *)pt_table_find(pp->plane, pp->node_guid,
		    pp->port);

		if (pp->have == NULL) {
			if (t != NULL)
				forget_table(t);
			continue;
		}
		if (t != NULL && t->n == pp->cap &&
		    memcmp(t->entries, pp->have, pp->cap * sizeof(uint16_t)) == 0)
			continue;
		if (t == NULL) {	/* new ports wait in added until the loop is done:
					   the tables stay sorted for pt_table_find */
			added = xreallocarray(added, nadded + 1, sizeof(*added));
			t = &added[nadded++];
			memset(t, 0, sizeof(*t));
		}
		free(t->entries);
		t->plane = pp->plane;
		t->subnet = pt_plane_name(pp->plane);
		t->node_guid = pp->node_guid;
		t->port = pp->port;
		t->port_guid = pp->port_guid;
		t->switch_ext = pp->switch_ext;
		snprintf(t->label, sizeof(t->label), "%s", pp->label);
		t->n = pp->cap;
		t->entries = xcalloc(pp->cap, sizeof(uint16_t));
		memcpy(t->entries, pp->have, pp->cap * sizeof(uint16_t));
		upd[changed] = *t;
		upd[changed].entries = xcalloc(pp->cap, sizeof(uint16_t));
		memcpy(upd[changed++].entries, pp->have, pp->cap * sizeof(uint16_t));
	}
	if (nadded > 0) {
		pt_state.tables = xreallocarray(pt_state.tables, pt_state.ntables + nadded,
		    sizeof(*pt_state.tables));
		memcpy(pt_state.tables + pt_state.ntables, added, nadded * sizeof(*added));
		pt_state.ntables += nadded;
		pt_tables_sort(pt_state.tables, pt_state.ntables);
		free(added);
	}
	*nrows = changed;
	return upd;
}

void
pt_tables_rows_free(struct pt_table *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].entries);
	free(rows);
}

void
pt_tables_update(const struct pt_plan *p)
{
	size_t n;
	struct pt_table *rows = pt_tables_take(p, &n);

	if (n > 0 && pt_state.store != NULL)
		pt_store_save_tables(pt_state.store, rows, n);
	pt_tables_rows_free(rows, n);
}

/*
 * Rows stored a slice a turn (turns.h), each slice its own transaction of
 * about TABLES_SLICE_US: 1,024 rows in one were 3.4-3.9 ms of the loop.
 * Committing them ahead of the change's own commit is safe because its
 * intent is still stored: a crash in between reads those ports back and
 * puts back, and stores, the tables the intent says they held.
 */
#define TABLES_SLICE_US	1000

struct tables_save {
	struct pt_table	*rows;
	size_t		 n, done;
	void		(*then)(void *);
	void		*arg;
};

static void
tables_save_turn(void *arg)
{
	struct tables_save *ts = arg;
	void (*then)(void *) = ts->then;
	void *then_arg = ts->arg;

	if (!pt_turns_stopping() && pt_state.store != NULL && ts->done < ts->n &&
	    pt_store_save_tables_slice(pt_state.store, ts->rows, ts->n, &ts->done,
	    TABLES_SLICE_US) == 0 && ts->done < ts->n) {
		pt_next_turn(tables_save_turn, ts);
		return;
	}
	pt_tables_rows_free(ts->rows, ts->n);
	free(ts);
	pt_next_turn(then, then_arg);
}

void
pt_tables_save_turns(struct pt_table *rows, size_t n, void (*then)(void *), void *arg)
{
	struct tables_save *ts = xcalloc(1, sizeof(*ts));

	*ts = (struct tables_save){ .rows = rows, .n = n, .then = then, .arg = arg };
	pt_next_turn(tables_save_turn, ts);
}

/* ---- public door (partitions.h) ---- */

int
pt_table_index(const struct pt_table *t, uint16_t pkey, bool *full)
{
	for (uint16_t k = 0; k < t->n; k++)
		if ((t->entries[k] & ~PT_PKEY_FULL) == (pkey & ~PT_PKEY_FULL) && t->entries[k] != 0) {
			if (full)
				*full = (t->entries[k] & PT_PKEY_FULL) != 0;
			return k;
		}
	return -1;
}

int
partitions_pkey_index(uint64_t port_guid, uint16_t pkey, bool *full)
{
	for (size_t i = 0; i < pt_state.ntables; i++) {
		const struct pt_table *t = &pt_state.tables[i];
		int k;

		if (!t->switch_ext && t->port_guid == port_guid &&
		    (k = pt_table_index(t, pkey, full)) >= 0)
			return k;
	}
	return -1;
}

bool
partitions_port_holds(uint64_t port_guid, uint16_t pkey)
{
	return partitions_pkey_index(port_guid, pkey, NULL) >= 0;
}

/* End ports of a host: NodeDescription is the host name, or starts with
 * "<host> " (the usual "host HCA-1" form). */
bool
pt_label_is_host(const char *label, const char *host)
{
	size_t n = strlen(host);
	/* "desc:port" (plan.h); "desc/port" in tables stored by older versions */
	const char *colon = strrchr(label, ':') ? strrchr(label, ':') : strrchr(label, '/');
	size_t desc_len = colon ? (size_t)(colon - label) : strlen(label);

	return strncmp(label, host, n) == 0 && (desc_len == n || label[n] == ' ');
}

/*
 * Over a plane group, NCCL_IB_PKEY holds for a host only when every other
 * plane has a port of it holding pkey at idx (the first plane's ports the
 * caller checked itself): NULL when so, else why, in buf.
 */
const char *
partitions_planes_refusal(const char *host, uint16_t pkey, int idx, char *buf, size_t len)
{
	for (size_t pl = 1; pl < pt_state.nplanes; pl++) {
		size_t found = 0;

		for (size_t i = 0; i < pt_state.ntables; i++) {
			const struct pt_table *t = &pt_state.tables[i];
			int k;

			if (t->plane != pl || t->switch_ext || t->port == 0 ||
			    !pt_label_is_host(t->label, host))
				continue;
			found++;
			if ((k = pt_table_index(t, pkey, NULL)) != idx) {
				snprintf(buf, len, "%s/%s holds P_Key 0x%04x %s%d", pt_plane_name(pl),
				    t->label, pkey, k >= 0 ? "at index " : "nowhere, not at ",
				    k >= 0 ? k : idx);
				return buf;
			}
		}
		if (found == 0) {
			snprintf(buf, len, "%s has no port known on %s", host, pt_plane_name(pl));
			return buf;
		}
	}
	return NULL;
}

int
pt_committed_index(uint16_t pkey)
{
	for (size_t i = 0; i < pt_state.nindex; i++)
		if (pt_state.index[i].pkey == pkey)
			return pt_state.index[i].index;
	return -1;
}

int
partitions_index_of(const char *partition, uint16_t *pkey)
{
	const struct pt_partition *p;

	if (pt_state.model == NULL || (p = pt_find(pt_state.model, partition)) == NULL)
		return -1;
	if (pkey)
		*pkey = p->pkey;
	return pt_committed_index(p->pkey);
}

/*
 * The SA's view of who is in which partition (sm_set_pkey_tables): the
 * tables last verified on the end ports, the same ones `partition show`
 * lists as the ports that hold a key.
 */
int
pt_sa_pkey_table(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg)
{
	const struct pt_table *t = pt_table_find((uintptr_t)arg, p->node->guid, p->num);
	size_t n = 0;

	if (t == NULL || t->switch_ext)
		return -1;
	for (uint16_t k = 0; k < t->n && n < max; k++)
		if (t->entries[k] != 0)
			keys[n++] = t->entries[k];
	return (int)n;
}

/*
 * The SM audit's view (sm_set_pkey_expect): the table committed for a
 * port, whole.  Nothing while a change or a sweep's tables are on the
 * fabric: what the ports hold is then in motion, and the pipeline reads
 * back what it wrote itself.
 */
int
pt_audit_expect(uint64_t node_guid, uint8_t port, uint16_t *entries, size_t max,
    bool *switch_ext, void *arg)
{
	const struct pt_table *t = pt_table_find((uintptr_t)arg, node_guid, port);
	size_t n;

	if (t == NULL || pt_state.busy)
		return -1;
	n = t->n < max ? t->n : max;
	memcpy(entries, t->entries, n * sizeof(*entries));
	*switch_ext = t->switch_ext;
	return (int)n;
}

/* The partitions flagged for IPoIB, for the SM (sm_set_ipoib_partitions). */
bool
pt_sa_ipoib(size_t i, struct sm_ipoib *out, void *arg)
{
	size_t k = 0;

	for (size_t j = 0; pt_state.model && j < pt_state.model->nparts; j++) {
		const struct pt_partition *p = &pt_state.model->parts[j];

		if (!p->ipoib.enabled || k++ != i)
			continue;
		*out = (struct sm_ipoib){ .pkey = p->pkey, .mtu = p->ipoib.mtu,
		    .rate = p->ipoib.rate, .sl = p->ipoib.sl, .qkey = p->ipoib.qkey };
		return true;
	}
	return false;
}

void
pt_set_index(const struct pt_index *idx, size_t n)
{
	free(pt_state.index);
	pt_state.index = n ? xcalloc(n, sizeof(*idx)) : NULL;
	if (n)
		memcpy(pt_state.index, idx, n * sizeof(*idx));
	pt_state.nindex = n;
}

/*
 * The daemon stopping: the MAD engine closes after every module has
 * stopped and answers what was still in flight with errors.  Partitions'
 * state, the SM that waits for a sweep hook and the control socket are
 * gone by then: nothing is stored, no one is answered or told; the next
 * start reads the intent (intent.c) and undoes what was half-written.
 */
bool
pt_stopped(void)
{
	return !pt_state.running || pt_turns_stopping();
}

void
pt_commit_model(struct pt_config *c, const struct pt_index *idx, size_t nidx)
{
	pt_config_free(pt_state.model);
	pt_state.model = c;
	pt_set_index(idx, nidx);
}

void
pt_state_free(void)
{
	pt_config_free(pt_state.model);
	free(pt_state.index);
	for (size_t i = 0; i < pt_state.ntables; i++)
		free(pt_state.tables[i].entries);
	free(pt_state.tables);
	memset(&pt_state, 0, sizeof(pt_state));
}

