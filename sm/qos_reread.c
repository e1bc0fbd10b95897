/*
 * Reading a few ports' QoS tables again, outside any sweep, for the
 * pre-flight: a table changed behind the SM's back (another host's raw
 * Set) is what the fabric does, and the pre-flight must see it.  What is
 * read goes into the SM's mirror of the published model, so the next
 * heavy sweep finds the table differing and writes it back.  `qos show`
 * of a node reads the same way, first, the tables it would otherwise give
 * as not read (sm_qos_read: a list of tables, not of ports).
 *
 * The published model may be replaced while the Gets are out: each answer
 * finds its port again by node GUID and port number.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/xmalloc.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"


struct reread {
	/* the daemon whose SM's model the answers go into: its SM is read
	 * again at each answer (NULL once it stopped) */
	struct fabricd		*fd;
	struct mad_batch	 batch;
	struct sm_qos_target	*t;		/* sm_qos_reread: ports */
	struct sm_qos_table	*tables;	/* sm_qos_read: one table each */
	size_t			 n;
	size_t			 next;		/* the next target to send for */
	sm_qos_done_fn		 done;
	void			*arg;
};

static struct fabric_port *
port_now(const struct reread *r, const struct sm_qos_target *t)
{
	const struct sm *sm = sm_of_daemon(r->fd);
	struct fabric_node *n = sm && sm->fabric ? fabric_node_by_guid(sm->fabric, t->node_guid) : NULL;

	return n && t->port <= n->nports && n->qos ? &n->ports[t->port] : NULL;
}

static void
on_reply(const struct mad_result *res, void *owner, void *arg)
{
	const struct sm_qos_target *t = arg;
	struct fabric_port *p = port_now(owner, t);
	const ib_smp_t *smp = (const ib_smp_t *)res->mad;

	if (p == NULL || !mad_reply_ok(res))
		return;
	sm_qos_note_held(p, be16toh(smp->attr_id), be32toh(smp->attr_mod), smp->data);
}

static void
finished(void *owner)
{
	struct reread *r = owner;

	r->done(r->arg);
	mad_batch_free(&r->batch);
	free(r->t);
	free(r->tables);
	free(r);
}

static void
send_gets(struct reread *r, struct sm_qos_target *t)
{
	struct fabric_port *p = port_now(r, t);
	struct mad_addr a;

	if (p == NULL || !sm_qos_port_addr(p, &a))
		return;
	mad_batch_smp(&r->batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE, sm_qos_sl2vl_mod(p, t->in),
	    NULL, on_reply, t);
	for (unsigned b = 0; b < QOS_VLARB_BLOCKS; b += 2)	/* the first block of each table */
		mad_batch_smp(&r->batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE, sm_qos_vlarb_mod(p, b),
		    NULL, on_reply, t);
}

static void
send_table(struct reread *r, struct sm_qos_table *t)
{
	struct fabric_port *p = port_now(r, &t->at);
	struct mad_addr a;

	if (p == NULL || !sm_qos_port_addr(p, &a))
		return;
	if (t->sl2vl)
		mad_batch_smp(&r->batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE,
		    sm_qos_sl2vl_mod(p, t->at.in), NULL, on_reply, &t->at);
	else
		mad_batch_smp(&r->batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE,
		    sm_qos_vlarb_mod(p, t->block), NULL, on_reply, &t->at);
}

/* The producer (mad_batch_feed): one target's Gets a call, so that a
 * pre-flight over 1,296 hosts (7,853 route ports, 23,559 Gets) keeps the
 * MAD window's worth in flight instead of queuing them all in one step
 * of the loop (28 ms). */
static bool
feed(void *owner, void *arg)
{
	struct reread *r = owner;

	(void)arg;
	if (r->next == r->n)
		return false;
	if (r->tables)
		send_table(r, &r->tables[r->next++]);
	else
		send_gets(r, &r->t[r->next++]);
	return true;
}

/* A reading of n items, or NULL when the SM reads nothing now. */
static struct reread *
reread_new(struct sm *sm, size_t n, sm_qos_done_fn done, void *arg)
{
	struct reread *r;

	if (sm == NULL || sm->state != SM_STATE_MASTER || sm->fabric == NULL ||
	    !sm->cfg.qos.enabled || n == 0)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->n = n;
	r->fd = sm->fd;
	r->done = done;
	r->arg = arg;
	return r;
}

static void
reread_start(struct sm *sm, struct reread *r)
{
	mad_batch_init(&r->batch, &sm->batch.io, r);
	mad_batch_set_base(&r->batch, sm->fd->base);
	mad_batch_feed(&r->batch, sm_feed_cap(sm), feed, NULL);
	mad_batch_wait(&r->batch, finished);
}

int
sm_qos_reread(struct sm *sm, const struct sm_qos_target *t, size_t n, sm_qos_done_fn done,
    void *arg)
{
	struct reread *r = reread_new(sm, n, done, arg);

	if (r == NULL)
		return -1;
	r->t = xcalloc(n, sizeof(*t));
	memcpy(r->t, t, n * sizeof(*t));
	reread_start(sm, r);
	return 0;
}

int
sm_qos_read(struct sm *sm, const struct sm_qos_table *t, size_t n, sm_qos_done_fn done,
    void *arg)
{
	struct reread *r = reread_new(sm, n, done, arg);

	if (r == NULL)
		return -1;
	r->tables = xcalloc(n, sizeof(*t));
	memcpy(r->tables, t, n * sizeof(*t));
	reread_start(sm, r);
	return 0;
}

int
sm_qos_sl_usable(const struct sm *sm, const struct fabric_port *p, uint8_t in, uint8_t sl,
    char *why, size_t len)
{
	uint8_t vl;
	unsigned w;
	int rc;

	if (sm == NULL || !sm->cfg.qos.enabled)
		return -1;
	rc = qos_sl_usable(p->node->qos, p, in, sl, &vl, &w);
	if (rc == 0 && (vl == 15 || w == 0))
		snprintf(why, len, "SL %u maps to VL %u%s", sl, vl, vl == 15 ? " (dropped)" :
		    ", which has no arbitration weight");
	else if (rc == 0)
		snprintf(why, len, "SL %u maps to VL %u, which the port does not operate", sl, vl);
	return rc;
}

int
sm_qos_class_info(const struct sm *sm, const char *name, uint64_t *sid)
{
	const struct qos_class *c;

	if (sm == NULL || !sm->cfg.qos.enabled || (c = qos_class_by_name(&sm->cfg.qos, name)) == NULL)
		return -1;
	if (sid)
		*sid = c->nsids ? c->sids[0].lo : 0;
	return c->sl;
}

int
sm_qos_class_sl(const struct sm *sm, const char *name)
{
	return sm_qos_class_info(sm, name, NULL);
}

int
sm_qos_path_sl(const struct sm *sm, bool has_sid, uint64_t sid, uint16_t pkey)
{

	return qos_select_sl(sm ? &sm->cfg.qos : NULL, has_sid, sid, pkey);
}
