/* QoS: the tables a policy gives a port, the checker, the policy's lint. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <iba/ib_types.h>

#include "daemon/config.h"
#include "daemon/fabricd.h"
#include "sm/qos/qos.h"
#include "sm/core/sm_internal.h"

#define OP_VL0_7 4
#define OP_VL0_14 5

static const char POLICY[] =
    "sm:\n"
    "  qos:\n"
    "    classes:\n"
    "      training:   { sl: 1, vl: 1, share: 50, priority: high, pkeys: [0x8001] }\n"
    "      storage:    { sl: 2, vl: 2, share: 30, services: [nvme-of, 20049] }\n"
    "      kv:         { sl: 3, vl: 3, share: 15 }\n"
    "      management: { sl: 0, vl: 0, share: 5 }\n";

static int
load(const char *text, struct fabricd_config **cfg, char ***errs, size_t *n)
{
	return config_load_text("t.yaml", text, strlen(text), fabricd_modules, cfg, errs, n);
}

static const struct qos_policy *
policy_of(const struct fabricd_config *cfg)
{
	return &((const struct sm_config *)cfg->module[MOD_SM])->qos;
}

/* The one error containing needle, else a failure listing them all. */
static void
expect_error(const char *text, const char *where, const char *needle)
{
	struct fabricd_config *cfg = NULL;
	char **errs = NULL;
	size_t n = 0, i;

	assert_int_equal(load(text, &cfg, &errs, &n), -1);
	for (i = 0; i < n; i++)
		if (strstr(errs[i], needle) && strncmp(errs[i], where, strlen(where)) == 0)
			break;
	if (i == n)
		for (size_t j = 0; j < n; j++)
			print_message("error: %s\n", errs[j]);
	assert_true(i < n);
	cfg_errors_free(errs, n);
}

static void
test_defaults_fit_vl0_7(void **state)
{
	struct qos_policy p;
	struct qos_tables t;
	uint8_t b[QOS_SL2VL_BYTES], v[QOS_VLARB_BLOCK_BYTES];
	const uint8_t want[] = { 0x01, 0x23, 0x45, 0x67, 0x01, 0x23, 0x45, 0x67 };
	const uint8_t wide[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xE7 };

	(void)state;
	qos_policy_init(&p);
	qos_tables_build(&p, &t);
	qos_sl2vl_bytes(&t, OP_VL0_7, b);
	assert_memory_equal(b, want, sizeof(want));	/* SL 8-14 on VLs that exist */
	for (unsigned sl = 0; sl < 16; sl++)
		assert_true(qos_sl2vl_get(b, (uint8_t)sl) < 8);
	qos_sl2vl_bytes(&t, OP_VL0_14, b);
	assert_memory_equal(b, wide, sizeof(wide));
	/* low table: VL 0 weight 0, VLs 1..7 weight 4 (cap 8) */
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 8, 8, 0, v), 16);
	assert_int_equal(qos_vlarb_weight(v, 16, 0), 0);
	assert_int_equal(qos_vlarb_weight(v, 16, 7), 4);
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 8, 8, 2, v), 16);
	assert_int_equal(qos_vlarb_weight(v, 16, 0), 4);
}

static void
test_vlarb_caps(void **state)
{
	struct qos_policy p;
	struct qos_tables t;
	uint8_t v[QOS_VLARB_BLOCK_BYTES];

	(void)state;
	qos_policy_init(&p);
	qos_tables_build(&p, &t);
	assert_int_equal(qos_vlarb_bytes(&t, 1, 1, 8, 8, 0, v), 0);	/* one data VL */
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 0, 8, 0, v), 0);
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 8, 8, 1, v), 0);	/* no second block */
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 40, 8, 0, v), 64);
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 40, 8, 1, v), 16);
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 8, 8, 4, v), 0);
}

static void
test_policy_tables(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;
	struct qos_tables t;
	uint8_t b[QOS_SL2VL_BYTES], v[QOS_VLARB_BLOCK_BYTES];
	const uint8_t sl2vl[] = { 0x01, 0x23, 0, 0, 0, 0, 0, 0 };
	const uint8_t low[] = { 2, 30, 3, 15, 0, 5, 0, 0 }, high[] = { 1, 50, 0, 0 };
	const struct qos_policy *p;

	(void)state;
	assert_int_equal(load(POLICY, &cfg, &errs, &n), 0);
	p = policy_of(cfg);
	assert_int_equal(p->nclasses, 4);
	assert_string_equal(qos_class_of_sl(p, 2)->name, "storage");
	assert_int_equal(qos_class_by_name(p, "storage")->nsids, 2);
	assert_true(qos_class_by_name(p, "storage")->sids[0].lo == QOS_SID_RDMA_TCP(4420));
	assert_int_equal(qos_class_by_name(p, "training")->pkeys[0], 0x0001);
	qos_tables_build(p, &t);
	qos_sl2vl_bytes(&t, OP_VL0_7, b);
	assert_memory_equal(b, sl2vl, sizeof(sl2vl));
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 8, 8, 0, v), 16);
	assert_memory_equal(v, low, sizeof(low));
	assert_int_equal(qos_vlarb_bytes(&t, OP_VL0_7, 4, 8, 8, 2, v), 16);
	assert_memory_equal(v, high, sizeof(high));
	config_free(cfg);
}

/* ---- the SA's choice ---- */

static void
test_select_sl(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;
	struct qos_policy *p, none;

	(void)state;
	assert_int_equal(load(POLICY, &cfg, &errs, &n), 0);
	p = &((struct sm_config *)cfg->module[MOD_SM])->qos;
	assert_int_equal(qos_select_sl(p, true, QOS_SID_RDMA_TCP(4420), 0), 2);
	assert_int_equal(qos_select_sl(p, true, QOS_SID_RDMA_TCP(20049), 0x7fff), 2);
	assert_int_equal(qos_select_sl(p, false, 0, 0x8001), 1);	/* membership bit ignored */
	assert_int_equal(qos_select_sl(p, false, 0, 0x0001), 1);
	/* the ServiceID wins over the partition, as in OpenSM's qos-ulps */
	assert_int_equal(qos_select_sl(p, true, QOS_SID_RDMA_TCP(4420), 0x8001), 2);
	/* a ServiceID not in the mask is not looked at */
	assert_int_equal(qos_select_sl(p, false, QOS_SID_RDMA_TCP(4420), 0x7fff), 0);
	assert_int_equal(qos_select_sl(p, true, QOS_SID_RDMA_TCP(4421), 0x7fff), 0);
	assert_string_equal(qos_select_class(p, false, 0, 0x7fff)->name, "management");
	p->enabled = false;
	assert_int_equal(qos_select_sl(p, false, 0, 0x8001), 0);
	assert_null(qos_select_class(NULL, false, 0, 0x8001));
	qos_policy_init(&none);
	assert_int_equal(qos_select_sl(&none, true, QOS_SID_RDMA_TCP(4420), 0x8001), 0);
	config_free(cfg);
}

/* ---- the checker ---- */

struct diffs {
	unsigned	n;
	char		last[32];
};

static void
count_diff(void *arg, const char *what, unsigned in, unsigned block)
{
	struct diffs *d = arg;

	d->n++;
	snprintf(d->last, sizeof(d->last), "%s %u %u", what, in, block);
}

static void
set_port(struct fabric_port *p, struct fabric_node *n, uint8_t num, uint8_t state)
{
	ib_port_info_t *pi = (ib_port_info_t *)p->pi;

	memset(p, 0, sizeof(*p));
	p->node = n;
	p->num = num;
	p->guid = 0x10;
	p->linkup = true;
	p->state = state;
	pi->capability_mask = IB_PORT_CAP_HAS_SL_MAP;
	pi->vl_cap = (uint8_t)(4 << 4);		/* VLCap VL0-7 */
	ib_port_info_set_op_vls(pi, OP_VL0_7);
	pi->vl_arb_low_cap = 8;
	pi->vl_arb_high_cap = 8;
}

static struct qos_held *
fill_held(const struct qos_tables *t, const struct fabric_node *n, struct qos_held *h)
{
	uint8_t b[QOS_VLARB_BLOCK_BYTES];

	for (unsigned out = 0; out <= n->nports; out++) {
		struct qos_port_caps c;

		qos_port_caps_of(&n->ports[out], &c);
		qos_sl2vl_bytes(t, c.op_vls, b);
		for (unsigned in = 0; in <= n->nports; in++)
			h = qos_held_set_sl2vl(h, in, out, b);
		for (unsigned blk = 0; blk < QOS_VLARB_BLOCKS; blk++) {
			qos_vlarb_bytes(t, c.op_vls, c.vl_cap, c.low_cap, c.high_cap, blk, b);
			h = qos_held_set_vlarb(h, out, blk, b);
		}
	}
	return h;
}

/* One byte of a held table changed (as another tool's Set would). */
static struct qos_held *
poke_sl2vl(struct qos_held *h, uint8_t in, uint8_t out, unsigned i, uint8_t v)
{
	uint8_t t[QOS_SL2VL_BYTES];

	memcpy(t, qos_held_sl2vl_c(h, in, out), sizeof(t));
	t[i] = v;
	return qos_held_set_sl2vl(h, in, out, t);
}

static struct qos_held *
poke_vlarb(struct qos_held *h, uint8_t port, unsigned block, unsigned i, uint8_t v)
{
	uint8_t t[QOS_VLARB_BLOCK_BYTES];

	memcpy(t, qos_held_vlarb_c(h, port, block), sizeof(t));
	t[i] = v;
	return qos_held_set_vlarb(h, port, block, t);
}

static void
test_checker_on_a_switch(void **state)
{
	struct fabric_node sw = { .type = FABRIC_SWITCH, .nports = 3 };
	struct fabric_port ports[4];
	struct qos_policy p;
	struct qos_tables t;
	struct qos_held *h = qos_held_new(3, true);
	struct diffs d = { 0 };

	(void)state;
	((ib_switch_info_t *)sw.si)->flags = 0x08;	/* EnhancedPort0 */
	sw.ports = ports;
	for (uint8_t i = 0; i <= 3; i++)
		set_port(&ports[i], &sw, i, i == 3 ? IB_LINK_DOWN : IB_LINK_ACTIVE);
	qos_policy_init(&p);
	qos_tables_build(&p, &t);
	assert_true(t.keep);	/* no policy: see test_no_policy_keeps_tables */
	t.keep = false;		/* the checker with a policy (OpenSM's defaults as one) */
	assert_true(qos_port_programmed(&ports[0]));
	assert_false(qos_port_programmed(&ports[3]));	/* DOWN */
	/* nothing known: the tables of in ports 0-2 (3 is DOWN) and both
	 * VLArb blocks */
	assert_int_equal(qos_port_diff(&t, &ports[1], h, count_diff, &d), 3 + 2);
	assert_int_equal(qos_port_diff(&t, &ports[1], NULL, count_diff, &d), 3 + 2);
	h = fill_held(&t, &sw, h);
	d.n = 0;
	for (uint8_t i = 0; i <= 3; i++)
		qos_port_diff(&t, &ports[i], h, count_diff, &d);
	assert_int_equal(d.n, 0);
	/* the pre-flight's question: can SL leave port 1 arriving on port 2 */
	{
		uint8_t vl;
		unsigned w;
		struct qos_held *unknown = qos_held_new(3, true);

		assert_int_equal(qos_sl_usable(h, &ports[1], 2, 1, &vl, &w), 1);
		assert_int_equal(vl, 1);
		assert_int_equal(w, 4);
		assert_int_equal(qos_sl_usable(h, &ports[1], 2, 8, &vl, &w), 1);	/* VL 0, high */
		assert_int_equal(qos_sl_usable(unknown, &ports[1], 2, 1, &vl, &w), -1);
		/* the SL2VL table known, the VL arbitration not (a heavy
		 * sweep's new model): unknown, not "no weight" */
		unknown = poke_sl2vl(unknown, 2, 1, 0, 0x01);
		assert_int_equal(qos_sl_usable(unknown, &ports[1], 2, 1, &vl, &w), -1);
		h = poke_vlarb(h, 1, 0, 3, 0);		/* VL 1's low weight gone */
		assert_int_equal(qos_sl_usable(h, &ports[1], 2, 1, &vl, &w), 0);
		assert_int_equal(w, 0);
		h = poke_sl2vl(h, 2, 1, 0, 0x0F);	/* SL 1 on VL 15: dropped */
		assert_int_equal(qos_sl_usable(h, &ports[1], 2, 1, &vl, &w), 0);
		assert_int_equal(vl, 15);
		h = poke_sl2vl(h, 2, 1, 0, 0x09);	/* VL 9 on a VL0-7 port */
		assert_int_equal(qos_sl_usable(h, &ports[1], 2, 1, &vl, &w), 0);
		h = fill_held(&t, &sw, h);
		free(unknown);
	}
	/* a table changed behind our back: SL 1 on VL 7 for in 2 -> out 1 */
	h = poke_sl2vl(h, 2, 1, 0, 0x07);
	assert_int_equal(qos_port_diff(&t, &ports[1], h, count_diff, &d), 1);
	assert_string_equal(d.last, "sl2vl 2 0");
	/* a weight set to 0 */
	h = poke_vlarb(h, 2, 0, 3, 0);
	assert_int_equal(qos_port_diff(&t, &ports[2], h, count_diff, &d), 1);
	assert_string_equal(d.last, "vlarb 0 0");
	free(h);
}

/* No policy: tables are left as they are, VLArb included, except where
 * SL 0 (the SLs in use) goes to VL 15 or a VL the port does not operate:
 * only that entry moves (to VL 0), the factory's others stay. */
static void
test_no_policy_keeps_tables(void **state)
{
	static const uint8_t factory[QOS_SL2VL_BYTES] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7 };
	struct fabric_node sw = { .type = FABRIC_SWITCH, .nports = 2 };
	struct fabric_port ports[3];
	struct qos_policy p;
	struct qos_tables t;
	struct qos_held *h = qos_held_new(2, true);
	struct diffs d = { 0 };
	uint8_t want[QOS_SL2VL_BYTES];

	(void)state;
	((ib_switch_info_t *)sw.si)->flags = 0x08;
	sw.ports = ports;
	for (uint8_t i = 0; i <= 2; i++)
		set_port(&ports[i], &sw, i, IB_LINK_ACTIVE);
	qos_policy_init(&p);
	qos_tables_build(&p, &t);
	/* unknown: nothing to mend, nothing counted (and no VLArb at all) */
	assert_int_equal(qos_port_diff(&t, &ports[1], h, count_diff, &d), 0);
	assert_int_equal(qos_port_diff(&t, &ports[1], NULL, count_diff, &d), 0);
	assert_int_equal(qos_port_tables(&t, &ports[1], count_diff, &d), 3);	/* SL2VL of in 0-2 */
	/* ibsim's factory table: SL 8-14 on VLs a VL0-7 port lacks, SL 0 fine */
	for (uint8_t in = 0; in <= 2; in++)
		h = qos_held_set_sl2vl(h, in, 1, factory);
	assert_false(qos_sl2vl_want(&t, OP_VL0_7, factory, want));
	assert_int_equal(qos_port_diff(&t, &ports[1], h, count_diff, &d), 0);
	/* SL 0 on VL 9 of a VL0-7 port: that entry moves to VL 0, the rest stays */
	h = poke_sl2vl(h, 2, 1, 0, 0x91);
	assert_int_equal(qos_port_diff(&t, &ports[1], h, count_diff, &d), 1);
	assert_string_equal(d.last, "sl2vl 2 0");
	assert_true(qos_sl2vl_want(&t, OP_VL0_7, qos_held_sl2vl_c(h, 2, 1), want));
	assert_int_equal(want[0], 0x01);
	assert_memory_equal(want + 1, factory + 1, sizeof(factory) - 1);
	/* SL 0 on VL 15: dropped, mended the same way */
	h = poke_sl2vl(h, 2, 1, 0, 0xF1);
	assert_true(qos_sl2vl_want(&t, OP_VL0_7, qos_held_sl2vl_c(h, 2, 1), want));
	assert_int_equal(want[0], 0x01);
	/* a weight of 0 everywhere is not the SM's business without a policy */
	h = qos_held_set_vlarb(h, 1, 0, (const uint8_t[QOS_VLARB_BLOCK_BYTES]){ 0 });
	h = poke_sl2vl(h, 2, 1, 0, 0x01);
	assert_int_equal(qos_port_diff(&t, &ports[1], h, count_diff, &d), 0);
	free(h);
}

/* What qos show may give as read (issue 42): a table the mirror holds,
 * never the 0xFF of one it does not; a VLArb table only when every block
 * holding its entries is known. */
static void
test_what_was_read(void **state)
{
	struct fabric_node sw = { .type = FABRIC_SWITCH, .nports = 3 };
	struct fabric_port ports[4];
	struct qos_policy p;
	struct qos_tables t;
	struct qos_held *h = qos_held_new(3, true);
	struct diffs d = { 0 };
	uint8_t b[QOS_VLARB_BLOCK_BYTES];
	ib_port_info_t *pi = (ib_port_info_t *)ports[1].pi;

	(void)state;
	((ib_switch_info_t *)sw.si)->flags = 0x08;
	sw.ports = ports;
	for (uint8_t i = 0; i <= 3; i++)
		set_port(&ports[i], &sw, i, i == 3 ? IB_LINK_DOWN : IB_LINK_ACTIVE);
	qos_policy_init(&p);
	qos_tables_build(&p, &t);
	assert_int_equal(qos_vlarb_nblocks(0), 0);
	assert_int_equal(qos_vlarb_nblocks(8), 1);
	assert_int_equal(qos_vlarb_nblocks(32), 1);
	assert_int_equal(qos_vlarb_nblocks(33), 2);
	assert_int_equal(qos_vlarb_nblocks(64), 2);
	/* shown: SL2VL of in 0 (of every in port, DOWN too, with pairs) and
	 * the first block of each VLArb table (caps 8) */
	assert_int_equal(qos_port_shown(&ports[1], false, count_diff, &d), 1 + 2);
	assert_int_equal(qos_port_shown(&ports[1], true, count_diff, &d), 4 + 2);
	assert_string_equal(d.last, "vlarb 0 2");
	/* nothing read: no table, and with no policy the pairs only are
	 * looked after (VLArb is left alone) */
	assert_false(qos_table_read(NULL, &ports[1], true, 0, 0));
	assert_false(qos_table_read(h, &ports[1], true, 0, 0));
	assert_false(qos_vlarb_read(h, &ports[1], true));
	assert_false(qos_vlarb_read(NULL, &ports[1], false));
	assert_int_equal(qos_port_unread(&t, &ports[1], h, NULL, NULL), 3);	/* in 0-2 */
	t.keep = false;		/* a policy: the VLArb blocks too */
	assert_int_equal(qos_port_unread(&t, &ports[1], h, NULL, NULL), 3 + 2);
	assert_int_equal(qos_port_unread(&t, &ports[1], NULL, count_diff, &d), 3 + 2);
	/* a block read that begins as an unknown one would is still read */
	memset(b, 0, sizeof(b));
	b[0] = 0xFF;
	b[1] = 0xFF;
	h = qos_held_set_vlarb(h, 1, 2, b);
	assert_true(qos_table_read(h, &ports[1], false, 0, 2));
	assert_true(qos_vlarb_read(h, &ports[1], true));
	assert_false(qos_vlarb_read(h, &ports[1], false));
	assert_false(qos_vlarb_read(h, &ports[2], true));	/* another port's */
	/* 40 high entries: blocks 2 and 3, and one of them is not enough */
	pi->vl_arb_high_cap = 40;
	assert_false(qos_vlarb_read(h, &ports[1], true));
	h = qos_held_set_vlarb(h, 1, 3, b);
	assert_true(qos_vlarb_read(h, &ports[1], true));
	/* no entries: nothing to read */
	pi->vl_arb_low_cap = 0;
	assert_true(qos_vlarb_read(NULL, &ports[1], false));
	assert_int_equal(qos_port_shown(&ports[1], false, count_diff, &d), 1 + 2);
	pi->vl_arb_low_cap = 8;
	pi->vl_arb_high_cap = 8;
	/* all read, policy's or not: none unread */
	h = fill_held(&t, &sw, h);
	assert_int_equal(qos_port_unread(&t, &ports[1], h, NULL, NULL), 0);
	h = qos_held_set_sl2vl(h, 2, 1, (const uint8_t[QOS_SL2VL_BYTES]){ 0xFF, 0xFF, 0xFF, 0xFF,
	    0xFF, 0xFF, 0xFF, 0xFF });		/* forgotten (a Set with no answer) */
	assert_int_equal(qos_port_unread(&t, &ports[1], h, count_diff, &d), 1);
	assert_string_equal(d.last, "sl2vl 2 0");
	assert_false(qos_table_read(h, &ports[1], true, 2, 0));
	/* a port that maps no SLs shows no SL2VL table */
	((ib_port_info_t *)ports[0].pi)->capability_mask = 0;	/* port 0 speaks for all */
	assert_int_equal(qos_port_shown(&ports[1], true, count_diff, &d), 2);
	free(h);
}

/* OperationalVLs: what both ends of the link support */
static void
test_op_vls_of_a_link(void **state)
{
	struct fabric_node ca = { .type = FABRIC_CA, .nports = 1 }, sw = { .type = FABRIC_SWITCH, .nports = 1 };
	struct fabric_port cp[2], sp[2];

	(void)state;
	ca.ports = cp;
	sw.ports = sp;
	set_port(&cp[1], &ca, 1, IB_LINK_INIT);
	set_port(&sp[1], &sw, 1, IB_LINK_INIT);
	set_port(&sp[0], &sw, 0, IB_LINK_ACTIVE);
	cp[1].peer = &sp[1];
	sp[1].peer = &cp[1];
	((ib_port_info_t *)sp[1].pi)->vl_cap = (uint8_t)(3 << 4);	/* VL0-3 */
	assert_int_equal(sm_qos_op_vls(&cp[1]), 3);
	assert_int_equal(sm_qos_op_vls(&sp[1]), 3);
	assert_int_equal(sm_qos_op_vls(&sp[0]), OP_VL0_7);	/* port 0: as it is */
	cp[1].peer = NULL;
	assert_int_equal(sm_qos_op_vls(&cp[1]), OP_VL0_7);
}

/* ---- lint: each rule has a failing example at its FILE:LINE:COLUMN ---- */

static void
test_lint_shares_sum_to_100(void **state)
{
	(void)state;
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 0, share: 50 }\n"
	    "      b: { sl: 1, vl: 1, share: 40 }\n",
	    "t.yaml:4:7:", "add up to 90, not 100");
}

static void
test_lint_sl_once(void **state)
{
	(void)state;
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 0, share: 50 }\n"
	    "      b: { sl: 0, vl: 1, share: 50 }\n",
	    "t.yaml:5:16:", "class b has SL 0, as class a does");
}

static void
test_lint_vl_without_weight(void **state)
{
	(void)state;
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 0, share: 100 }\n"
	    "      b: { sl: 1, vl: 1, share: 0 }\n",
	    "t.yaml:5:33:", "class b's SL 1 runs on VL 1, which no class gives a share");
}

static void
test_lint_vls_collide_on_vl0_7(void **state)
{
	(void)state;
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 1, share: 50 }\n"
	    "      b: { sl: 1, vl: 9, share: 50 }\n",
	    "t.yaml:5:23:", "the same VL on a port operating VL0-7");
}

static void
test_lint_unclassified_sls(void **state)
{
	(void)state;
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 1, vl: 1, share: 100 }\n",
	    "t.yaml:4:7:", "the SLs of no class run on VL 0");
}

static void
test_lint_membership_once(void **state)
{
	(void)state;
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 0, share: 50, pkeys: [0x8001] }\n"
	    "      b: { sl: 1, vl: 1, share: 50, pkeys: [0x0001] }\n",
	    "t.yaml:5:44:", "names a P_Key class a names too");
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 0, share: 50, services: [4420] }\n"
	    "      b: { sl: 1, vl: 1, share: 50, services: [nvme-of] }\n",
	    "t.yaml:5:47:", "services overlap class a's");
	expect_error("sm:\n  qos:\n    classes:\n"
	    "      a: { sl: 0, vl: 0, share: 100, services: [nvme] }\n",
	    "t.yaml:4:49:", "expected nvme-of, iser, nfs-rdma");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_fit_vl0_7),
		cmocka_unit_test(test_vlarb_caps),
		cmocka_unit_test(test_policy_tables),
		cmocka_unit_test(test_select_sl),
		cmocka_unit_test(test_checker_on_a_switch),
		cmocka_unit_test(test_no_policy_keeps_tables),
		cmocka_unit_test(test_what_was_read),
		cmocka_unit_test(test_op_vls_of_a_link),
		cmocka_unit_test(test_lint_shares_sum_to_100),
		cmocka_unit_test(test_lint_sl_once),
		cmocka_unit_test(test_lint_vl_without_weight),
		cmocka_unit_test(test_lint_vls_collide_on_vl0_7),
		cmocka_unit_test(test_lint_unclassified_sls),
		cmocka_unit_test(test_lint_membership_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
