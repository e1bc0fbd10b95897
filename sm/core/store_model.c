/*
 * The model's durable copy (sm_nodes, sm_ports; sm_links is a view) and
 * the new LID assignments, written behind the sweep in slices.
 *
 * Why not one transaction at the sweep's end: at 1,296 hosts the model is
 * 1,476 nodes and 9,000 ports, and writing every row held the loop for
 * 40-50 ms after each heavy sweep, while a storm's status polls waited.
 * So a heavy sweep only snapshots what changed since the rows last
 * written (a digest per node, its ports included) into a queue, and a
 * zero timer turns the queue into batches a few ms at a time, each one
 * transaction of the store's writer thread (store_writer.h): the loop
 * never waits for the disk or for the write lock on their account.  One
 * node's rows (its ports with it) are always in the same batch, so the
 * record is never a node without its ports; a crash between batches
 * leaves some nodes as of the sweep before,
 * which the next run's first sweep rewrites (every node stored then is
 * looked at again: the digests start unknown).  LIDs are written in the
 * first slices, before any node: a LID handed out must survive a crash
 * before any record does.
 */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/guid.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/store_writer.h"
#include "sm/core/store_model.h"

#define SLICE_US	1000		/* one slice's budget */
#define LIDS_PER_STEP	64		/* LID rows between two clock reads */
/* A batch is one transaction of the writer thread: a few ms of its time,
 * so that a transaction of the loop's never waits long behind one. */
#define BATCH_STATEMENTS 2048

struct port_row {
	uint64_t	guid, peer_guid;
	uint16_t	lid;
	uint8_t		num, state, phys_state, width, speed, ext_speed, degraded, peer_port;
	bool		has_peer;
};

enum op_kind { OP_NODE, OP_GONE, OP_LIDS };

struct op {
	enum op_kind	 kind;
	uint64_t	 guid;
	/* OP_NODE */
	const char	*type;		/* a static name */
	unsigned	 nports, hops;
	uint16_t	 lid;
	char		*desc, *path;
	struct port_row	*ports;
	size_t		 nrows;
	/* OP_LIDS */
	uint64_t	*lid_guid;
	uint16_t	*lid_lid;
	size_t		 nlids, lids_done;
};

struct digest_slot {
	uint64_t	guid;		/* 0: empty */
	uint64_t	digest;
};

struct digest_map {
	struct digest_slot *slot;
	size_t		 cap;		/* a power of two, or 0 */
	size_t		 n;
};

struct model_writer {
	struct store	*store;
	char		*subnet;	/* the rows' tag (sm.subnets' name, or "") */
	struct event	*ev;
	struct op	*q;
	size_t		 head, tail, cap;
	struct digest_map stored;	/* what the rows hold, by node GUID */
	uint64_t	 slices, rows;
	double		 slice_max_ms;
	uint64_t	 last_batch;	/* the store's number of the last handed over */
	uint64_t	 failures_seen;	/* store_write_failures() when last looked */
};

/* ---- digests ---- */

static uint64_t
mix(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;	/* FNV-1a */
	return h;
}

/* One port's row; zeroed first, as the digest hashes its bytes. */
static void
fill_row(const struct fabric_node *n, unsigned j, struct port_row *r)
{
	const struct fabric_port *p = &n->ports[j];

	memset(r, 0, sizeof(*r));
	r->guid = p->guid;
	r->num = p->num;
	r->lid = n->type == FABRIC_SWITCH ? n->lid : p->lid;
	r->state = p->state;
	r->phys_state = p->phys_state;
	r->width = p->width_active;
	r->speed = p->speed_active;
	r->ext_speed = p->ext_speed_active;
	r->degraded = p->degraded;
	if (p->peer) {
		r->has_peer = true;
		r->peer_guid = p->peer->node->guid;
		r->peer_port = p->peer->num;
	}
}

/* The ports a node has rows for: a switch's port 0 too. */
static unsigned
first_port(const struct fabric_node *n)
{
	return n->type == FABRIC_SWITCH ? 0 : 1;
}

static void
path_text(const struct fabric_node *n, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "0");

	for (unsigned i = 1; i <= n->hops && at + 5 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, ",%u", n->path[i]);
}

static uint64_t
node_digest(const struct fabric_node *n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char path[4 * FABRIC_MAX_HOPS + 2];
	uint16_t lid = n->lid;
	unsigned type = n->type, nports = n->nports, hops = n->hops;

	path_text(n, path, sizeof(path));
	h = mix(h, &type, sizeof(type));
	h = mix(h, &nports, sizeof(nports));
	h = mix(h, n->desc, strlen(n->desc) + 1);
	h = mix(h, &lid, sizeof(lid));
	h = mix(h, &hops, sizeof(hops));
	h = mix(h, path, strlen(path) + 1);
	for (unsigned j = first_port(n); j <= n->nports; j++) {
		struct port_row r;

		fill_row(n, j, &r);
		h = mix(h, &r, sizeof(r));
	}
	return h ? h : 1;	/* 0 means "unknown": rewrite */
}

/* ---- GUID -> digest, open addressing (no deletions: rebuilt per sweep) ---- */

static size_t
slot_of(const struct digest_map *m, uint64_t guid)
{
	size_t i = (size_t)((guid * 0x9E3779B97F4A7C15ULL) >> 17) & (m->cap - 1);

	while (m->slot[i].guid != 0 && m->slot[i].guid != guid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
map_init(struct digest_map *m, size_t want)
{
	m->cap = 64;
	while (m->cap < want * 2)
		m->cap *= 2;
	m->slot = xcalloc(m->cap, sizeof(*m->slot));
	m->n = 0;
}

static void
map_put(struct digest_map *m, uint64_t guid, uint64_t digest)
{
	size_t i = slot_of(m, guid);

	if (m->slot[i].guid == 0)
		m->n++;
	m->slot[i].guid = guid;
	m->slot[i].digest = digest;
}

/* 0: not there (or there with an unknown digest). */
static uint64_t
map_get(const struct digest_map *m, uint64_t guid)
{
	if (m->cap == 0)
		return 0;
	return m->slot[slot_of(m, guid)].digest;
}

static bool
map_has(const struct digest_map *m, uint64_t guid)
{
	return m->cap != 0 && m->slot[slot_of(m, guid)].guid == guid;
}

/* ---- the queue ---- */

static void
op_free(struct op *o)
{
	free(o->desc);
	free(o->path);
	free(o->ports);
	free(o->lid_guid);
	free(o->lid_lid);
	memset(o, 0, sizeof(*o));
}

static struct op *
op_push(struct model_writer *w, enum op_kind kind, uint64_t guid)
{
	struct op *o;

	if (w->tail == w->cap) {
		if (w->head > 0) {
			memmove(w->q, w->q + w->head, (w->tail - w->head) * sizeof(*w->q));
			w->tail -= w->head;
			w->head = 0;
		}
		if (w->tail == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 256;
			w->q = xreallocarray(w->q, w->cap, sizeof(*w->q));
		}
	}
	o = &w->q[w->tail++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->guid = guid;
	return o;
}

static void
push_node(struct model_writer *w, const struct fabric_node *n)
{
	struct op *o = op_push(w, OP_NODE, n->guid);
	char path[4 * FABRIC_MAX_HOPS + 2];

	path_text(n, path, sizeof(path));
	o->type = fabric_node_type_name(n->type);
	o->nports = n->nports;
	o->hops = n->hops;
	o->lid = n->lid;
	o->desc = xstrdup(n->desc);
	o->path = xstrdup(path);
	o->ports = xreallocarray(NULL, n->nports + 1u, sizeof(*o->ports));
	for (unsigned j = first_port(n); j <= n->nports; j++)
		fill_row(n, j, &o->ports[o->nrows++]);
}

/* ---- writing ---- */

/* The rows go to the store's writer thread (store_writer.h) in batches,
 * one transaction each; the loop only builds them.  sql must be a
 * literal: statements are cached by its address. */
static void
add_guid_stmt(struct store_batch *b, const char *sql, const char *subnet, const char *guid)
{
	store_batch_sql(b, sql);
	store_batch_text(b, subnet);
	store_batch_text(b, guid);
}

static void
add_port(struct store_batch *b, const char *subnet, const char *node, const struct port_row *r)
{
	char g[GUID_STR_LEN], peer[GUID_STR_LEN];

	store_batch_sql(b, "INSERT INTO sm_ports (subnet, node_guid, num, guid, lid, state,"
	    " phys_state, width_active, speed_active, ext_speed_active, degraded, peer_guid, peer_port)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	store_batch_text(b, subnet);
	store_batch_text(b, node);
	store_batch_int(b, r->num);
	store_batch_text(b, guid_format(r->guid, g, sizeof(g)));
	store_batch_int(b, r->lid);
	store_batch_int(b, r->state);
	store_batch_int(b, r->phys_state);
	store_batch_int(b, r->width);
	store_batch_int(b, r->speed);
	store_batch_int(b, r->ext_speed);
	store_batch_int(b, r->degraded);
	if (r->has_peer) {
		store_batch_text(b, guid_format(r->peer_guid, peer, sizeof(peer)));
		store_batch_int(b, r->peer_port);
	} else {
		store_batch_text(b, NULL);
		store_batch_text(b, NULL);
	}
}

/* A node's rows replace what was stored for it: ports first (they
 * reference the node). */
static void
add_node(struct store_batch *b, const char *subnet, const struct op *o)
{
	char g[GUID_STR_LEN];

	guid_format(o->guid, g, sizeof(g));
	add_guid_stmt(b, "DELETE FROM sm_ports WHERE subnet = ? AND node_guid = ?", subnet, g);
	add_guid_stmt(b, "DELETE FROM sm_nodes WHERE subnet = ? AND guid = ?", subnet, g);
	if (o->kind == OP_GONE)
		return;
	store_batch_sql(b, "INSERT INTO sm_nodes (subnet, guid, type, nports, description, lid,"
	    " hops, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	store_batch_text(b, subnet);
	store_batch_text(b, g);
	store_batch_text(b, o->type);
	store_batch_int(b, (int)o->nports);
	store_batch_text(b, o->desc);
	store_batch_int(b, o->lid);
	store_batch_int(b, (int)o->hops);
	store_batch_text(b, o->path);
	for (size_t i = 0; i < o->nrows; i++)
		add_port(b, subnet, g, &o->ports[i]);
}

static void
add_lid(struct store_batch *b, const char *subnet, uint64_t guid, uint16_t lid)
{
	char g[GUID_STR_LEN];

	store_batch_sql(b, "INSERT OR REPLACE INTO sm_lids (subnet, guid, lid, time_ms)"
	    " VALUES (?, ?, ?, ?)");
	store_batch_text(b, subnet);
	store_batch_text(b, guid_format(guid, g, sizeof(g)));
	store_batch_int(b, lid);
	store_batch_int(b, event_now_ms());
}

/* Some of the op, within the slice's deadline and the batch's size: true
 * when it is all done.  A node op is never split. */
static bool
add_op(struct model_writer *w, struct store_batch *b, struct op *o, int64_t deadline_us)
{
	if (o->kind != OP_LIDS) {
		add_node(b, w->subnet, o);
		w->rows += 1 + o->nrows;
		return true;
	}
	while (o->lids_done < o->nlids) {
		size_t end = o->lids_done + LIDS_PER_STEP;

		for (; o->lids_done < o->nlids && o->lids_done < end; o->lids_done++, w->rows++)
			add_lid(b, w->subnet, o->lid_guid[o->lids_done], o->lid_lid[o->lids_done]);
		if (clock_mono_us() >= deadline_us || store_batch_statements(b) >= BATCH_STATEMENTS)
			break;
	}
	return o->lids_done == o->nlids;
}

/* A batch of ops, until the deadline or the batch's size; false when the
 * queue is not empty yet. */
static bool
write_some(struct model_writer *w, int64_t budget_us)
{
	int64_t t0 = clock_mono_us(), deadline = budget_us == INT64_MAX ? INT64_MAX : t0 + budget_us;
	struct store_batch *b;
	double ms;

	if (w->head == w->tail)
		return true;
	b = store_batch_new();
	while (w->head < w->tail && clock_mono_us() < deadline &&
	    store_batch_statements(b) < BATCH_STATEMENTS) {
		struct op *o = &w->q[w->head];

		if (!add_op(w, b, o, deadline))
			break;
		op_free(o);
		w->head++;
	}
	w->last_batch = store_write_later(w->store, b);
	ms = (double)(clock_mono_us() - t0) / 1000.0;
	w->slices++;
	if (ms > w->slice_max_ms)
		w->slice_max_ms = ms;
	return w->head == w->tail;
}

static void
slice_cb(evutil_socket_t fd, short what, void *arg)
{
	struct model_writer *w = arg;
	struct timeval zero = { 0, 0 };

	(void)fd;
	(void)what;
	if (!write_some(w, SLICE_US))
		evtimer_add(w->ev, &zero);	/* the rest after whatever else waits */
}

static void
schedule(struct model_writer *w)
{
	struct timeval zero = { 0, 0 };

	if (w->head == w->tail)
		return;
	if (w->ev == NULL) {		/* no loop: write now */
		while (!write_some(w, INT64_MAX))
			;
		store_write_wait(w->store);
		return;
	}
	if (!evtimer_pending(w->ev, NULL))
		evtimer_add(w->ev, &zero);
}

/* ---- the API ---- */

static void
map_grow(struct digest_map *m)
{
	struct digest_map bigger;

	map_init(&bigger, m->cap);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].guid != 0)
			map_put(&bigger, m->slot[i].guid, m->slot[i].digest);
	free(m->slot);
	*m = bigger;
}

/* What the table held at start: every stored node has an unknown digest,
 * so that the first sweep rewrites it or deletes it. */
static void
load_stored(struct model_writer *w)
{
	sqlite3_stmt *s = store_prepare(w->store, "SELECT guid FROM sm_nodes WHERE subnet = ?");

	map_init(&w->stored, 1024);
	if (s == NULL)
		return;
	sqlite3_bind_text(s, 1, w->subnet, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t g;

		if (guid_parse((const char *)sqlite3_column_text(s, 0), &g) != 0 || g == 0)
			continue;
		if (w->stored.n * 2 >= w->stored.cap)
			map_grow(&w->stored);
		map_put(&w->stored, g, 0);
	}
	sqlite3_reset(s);
}

struct model_writer *
model_writer_new(struct event_base *base, struct store *store, const char *subnet)
{
	struct model_writer *w = xcalloc(1, sizeof(*w));

	w->store = store;
	w->subnet = xstrdup(subnet);
	w->failures_seen = store_write_failures(store);
	if (base)
		w->ev = evtimer_new(base, slice_cb, w);
	load_stored(w);
	return w;
}

void
model_writer_lids(struct model_writer *w, uint64_t *guids, uint16_t *lids, size_t n)
{
	struct op *o;

	if (n == 0) {
		free(guids);
		free(lids);
		return;
	}
	o = op_push(w, OP_LIDS, 0);
	o->lid_guid = guids;
	o->lid_lid = lids;
	o->nlids = n;
	schedule(w);
}

/* A batch the writer thread could not store (any module's: the store does
 * not say whose) leaves rows behind the digests: forget them all, so that
 * this sweep rewrites every node.  Rare, and never wrong. */
static void
forget_if_lost(struct model_writer *w)
{
	uint64_t failed = store_write_failures(w->store);

	if (failed == w->failures_seen)
		return;
	w->failures_seen = failed;
	log_warnx("sm: a batch of stored rows was lost: every node is written again");
	memset(w->stored.slot, 0, w->stored.cap * sizeof(*w->stored.slot));
	w->stored.n = 0;
}

size_t
model_writer_update(struct model_writer *w, const struct fabric *f)
{
	struct digest_map now;
	struct fabric_node *n;
	size_t i, queued = 0;

	forget_if_lost(w);
	map_init(&now, fabric_node_count(f) + 1);
	FABRIC_FOREACH_NODE(f, i, n) {
		uint64_t d = node_digest(n);

		if (n->guid == 0 || map_has(&now, n->guid))
			continue;	/* a duplicate GUID: the first one is the record */
		map_put(&now, n->guid, d);
		if (map_get(&w->stored, n->guid) != d) {
			push_node(w, n);
			queued++;
		}
	}
	for (i = 0; i < w->stored.cap; i++) {
		uint64_t g = w->stored.slot[i].guid;

		if (g != 0 && !map_has(&now, g)) {
			op_push(w, OP_GONE, g);
			queued++;
		}
	}
	free(w->stored.slot);
	w->stored = now;
	schedule(w);
	return queued;
}

size_t
model_writer_pending(const struct model_writer *w)
{
	return w->tail - w->head + (store_written(w->store) < w->last_batch);
}

json_t *
model_writer_status(const struct model_writer *w)
{
	return json_pack("{s:I, s:I, s:I, s:f}", "queued", (json_int_t)(w->tail - w->head),
	    "rows", (json_int_t)w->rows, "slices", (json_int_t)w->slices,
	    "slice_max_ms", w->slice_max_ms);
}

void
model_writer_free(struct model_writer *w)
{
	if (w == NULL)
		return;
	while (!write_some(w, INT64_MAX))
		;
	store_write_wait(w->store);
	while (w->head < w->tail)
		op_free(&w->q[w->head++]);
	if (w->ev)
		event_free(w->ev);
	free(w->q);
	free(w->stored.slot);
	free(w->subnet);
	free(w);
}
