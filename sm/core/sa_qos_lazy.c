/*
 * SL2VL and VLArb records of tables the SM has not read: read them, then
 * answer.  Without a QoS policy the sweep leaves a switch's (in, out)
 * pairs alone and unread (qos_program.c: reading 1,332 tables a switch is
 * what bring-up cannot afford), so the SA's mirror does not hold them;
 * the SA answers from what the ports hold, not from made-up tables.  So a
 * query whose answer would name an unknown table sends Gets for the
 * first SA_LAZY_MAX of them, and is answered once they are back (what
 * could not be read is left out).  A requester waits a few MADs' time; a
 * table read once stays known (the mirror is carried from sweep to sweep).
 *
 * The published model may be replaced while the Gets are out: each
 * answer finds its port again by node GUID and port number.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "sm/sa/sa.h"
#include "sm/core/sm_internal.h"

#define SA_LAZY_MAX	32	/* tables read for one query: more than an answer holds */
#define SA_LAZY_RUNNING	8	/* queries waiting at once; past that, answered as known */

struct lazy_table {
	uint64_t	node_guid;
	uint8_t		port, in, block;
	bool		sl2vl;
};

struct sa_lazy {
	struct sm		*sm;
	void			(*answer)(struct sm *, const struct mad_in *);
	struct sa_lazy		*next;		/* sm->sa_lazy: the queries waiting */
	struct mad_batch	 batch;
	struct mad_in		 in;
	uint8_t			 mad[MAD_SIZE] MAD_ALIGNED;
	struct lazy_table	 t[SA_LAZY_MAX];
	size_t			 n;
};

static void
collect(void *arg, const struct fabric_port *p, bool sl2vl, unsigned in, unsigned block)
{
	struct sa_lazy *l = arg;

	if (l->n < SA_LAZY_MAX)
		l->t[l->n++] = (struct lazy_table){ .node_guid = p->node->guid, .port = p->num,
		    .in = (uint8_t)in, .block = (uint8_t)block, .sl2vl = sl2vl };
}

static struct fabric_port *
port_now(struct sm *sm, const struct lazy_table *t)
{
	struct fabric_node *n = sm->fabric ? fabric_node_by_guid(sm->fabric, t->node_guid) : NULL;

	return n && n->qos && t->port <= n->nports ? &n->ports[t->port] : NULL;
}

static void
on_reply(const struct mad_result *res, void *owner, void *arg)
{
	struct sa_lazy *l = owner;
	struct fabric_port *p = port_now(l->sm, arg);
	const ib_smp_t *smp = (const ib_smp_t *)res->mad;

	if (p && mad_reply_ok(res))
		sm_qos_note_held(p, be16toh(smp->attr_id), be32toh(smp->attr_mod), smp->data);
}

static void
forget(struct sa_lazy *l)
{
	struct sa_lazy **pp;

	for (pp = &l->sm->sa_lazy; *pp != NULL; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	if (l->sm->sa_lazy_running)
		l->sm->sa_lazy_running--;
	mad_batch_free(&l->batch);
	free(l);
}

static void
finished(void *owner)
{
	struct sa_lazy *l = owner;

	if (l->sm->state == SM_STATE_MASTER)
		l->answer(l->sm, &l->in);
	forget(l);
}

/* The SM stops: the queries still waiting go unanswered, their Gets are
 * cancelled (nothing of theirs reaches the freed SM). */
void
sa_qos_lazy_stop(struct sm *sm)
{
	while (sm->sa_lazy != NULL)
		forget(sm->sa_lazy);
}

bool
sa_qos_lazy(struct sm *sm, const struct mad_in *in, const struct sa_ctx *asked,
    void (*answer)(struct sm *sm, const struct mad_in *in))
{
	const ib_sa_mad_t *q = (const ib_sa_mad_t *)in->mad;
	uint8_t scratch[MAD_SIZE] MAD_ALIGNED;
	size_t len = 0;
	struct sa_ctx ctx;
	struct sa_lazy *l;

	if (in->len < sizeof(ib_sa_mad_t) || sm->fabric == NULL || sm->sa_lazy_running >= SA_LAZY_RUNNING ||
	    (q->attr_id != IB_MAD_ATTR_SLVL_RECORD && q->attr_id != IB_MAD_ATTR_VLARB_RECORD) ||
	    (q->method != IB_MAD_METHOD_GET && q->method != IB_MAD_METHOD_GETTABLE))
		return false;
	l = xcalloc(1, sizeof(*l));
	/* A dry run of the answer names the tables it would leave out. */
	ctx = *asked;
	ctx.counters = NULL;
	ctx.qos_unknown = collect;
	ctx.qos_unknown_arg = l;
	(void)sa_answer(&ctx, in->mad, in->len, scratch, &len);
	if (l->n == 0) {
		free(l);
		return false;
	}
	l->in = *in;
	memcpy(l->mad, in->mad, in->len < MAD_SIZE ? in->len : MAD_SIZE);
	l->in.mad = l->mad;
	if (l->in.len > MAD_SIZE)
		l->in.len = MAD_SIZE;
	l->sm = sm;
	l->answer = answer;
	l->next = sm->sa_lazy;
	sm->sa_lazy = l;
	sm->sa_lazy_running++;
	mad_batch_init(&l->batch, &sm->batch.io, l);
	for (size_t i = 0; i < l->n; i++) {
		const struct lazy_table *t = &l->t[i];
		struct fabric_port *p = port_now(sm, t);
		struct mad_addr a;

		if (p == NULL || !sm_qos_port_addr(p, &a))
			continue;
		mad_batch_smp(&l->batch, &a, IB_MAD_METHOD_GET, t->sl2vl ? UMAD_SM_ATTR_SLVL_TABLE : UMAD_SM_ATTR_VL_ARB_TABLE,
		    t->sl2vl ? sm_qos_sl2vl_mod(p, t->in) : sm_qos_vlarb_mod(p, t->block), NULL,
		    on_reply, (void *)t);
	}
	log_debug("sa: %zu QoS tables read before answering LID %u", l->n, in->slid);
	mad_batch_wait(&l->batch, finished);
	return true;
}
