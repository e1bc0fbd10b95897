/*
 * The MFT blocks fabricd programs (sm/core/mcast_mft.c) on the hand-built model
 * of fabric_route_fixture.h, behind a fake mad/io.h that keeps each switch's
 * MFT in memory: sm_mcast_program writes the group's tree, a second
 * programming writes nothing, sm_mcast_mft_verify finds a block another
 * host changed (and the next programming rewrites it), and the audit's
 * MFT checker (sm/audit/audit_mft.c) names the same change, fills the Set,
 * skips a block not settled, and after a repair keeps the SM's record in
 * step (the next programming neither reads nor writes it).
 *
 * Group: the default broadcast group with h1 (sw1 port 1) and h2 (sw2
 * port 1) as full members; its tree goes over one of the sw1-sw2 links.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "mad/io.h"
#include "sm/audit/audit.h"
#include "sm/mcast/mcast.h"
#include "fabric_route_fixture.h"

#define QMAX 256

struct reply {
	mad_cb	 cb;
	void	*arg;
	uint8_t	 mad[MAD_SIZE] MAD_ALIGNED;
};

struct tfix {
	struct rfix	 r;
	struct sm	 sm;
	uint8_t		 mft[2][64];	/* block 0 position 0 of sw1, sw2 */
	unsigned	 gets, sets;
	struct reply	 q[QMAX];
	size_t		 head, tail;
};

static int
fake_smp(void *ctx, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, mad_cb cb, void *arg)
{
	struct tfix *x = ctx;
	struct reply *r;
	ib_smp_t *smp;
	uint8_t *mft = x->mft[addr->hops == 1 ? 0 : 1];	/* sw1 is one hop from h1 */

	assert_true(x->tail < QMAX);
	r = &x->q[x->tail++];
	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->arg = arg;
	smp = (ib_smp_t *)r->mad;
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_DIR;
	smp->class_ver = 1;
	smp->method = IB_MAD_METHOD_GET_RESP;
	smp->attr_id = htobe16(attr_id);
	smp->attr_mod = htobe32(attr_mod);
	if (attr_id == 0x001B) {
		assert_int_equal(attr_mod, 0);	/* one MLID block, one position */
		if (method == IB_MAD_METHOD_SET) {
			memcpy(mft, data, 64);
			x->sets++;
		} else
			x->gets++;
		memcpy(smp->data, mft, 64);
	} else if (data)
		memcpy(smp->data, data, 64);	/* SwitchInfo: MulticastFDBTop */
	return 0;
}

static void
drain(struct tfix *x)
{
	while (x->head < x->tail) {
		struct reply *r = &x->q[x->head++];
		struct mad_result res = { .mad = r->mad, .len = MAD_SIZE };

		r->cb(&res, r->arg);
	}
	x->head = x->tail = 0;
}

static int
tfix_setup(void **state)
{
	struct tfix *x = calloc(1, sizeof(*x));
	struct mad_io io = { .smp = fake_smp, .ctx = x };
	struct mc_params bc = { .qkey = 0x0B1B, .pkey = 0xFFFF, .mtu = 4, .rate = 3, .scope = 2 };
	uint8_t mgid[16], gid[16] = { 0 };
	struct mc_group *g;

	rfix_build(&x->r);
	x->r.sw1->hops = 1;
	x->r.sw1->path[1] = 1;
	x->r.sw2->hops = 2;
	x->r.sw2->path[1] = 1;
	x->r.sw2->path[2] = 7;
	x->sm.fabric = x->r.f;
	mad_batch_init(&x->sm.batch, &io, &x->sm);
	x->sm.mc = mc_db_new();
	mc_ipoib_broadcast_mgid(0xFFFF, 2, mgid);
	assert_non_null(g = mc_create(x->sm.mc, mgid, &bc, true));
	assert_int_equal(g->mlid, MC_MLID_BASE);
	assert_non_null(mc_member_join(x->sm.mc, g, 0x101, gid, 1, false));
	assert_non_null(mc_member_join(x->sm.mc, g, 0x111, gid, 1, false));
	*state = x;
	return 0;
}

static int
tfix_teardown(void **state)
{
	struct tfix *x = *state;

	sm_mcast_free(&x->sm);
	mad_batch_free(&x->sm.batch);
	fabric_free(x->r.f);
	free(x);
	return 0;
}

static uint16_t
mask_of(const uint8_t *block, unsigned entry)
{
	return (uint16_t)(block[2 * entry] << 8 | block[2 * entry + 1]);
}

static void
program_verify_audit(void **state)
{
	struct tfix *x = *state;
	struct audit_get g;
	uint8_t data[64], set[64], held[2][64];
	char diff[AUDIT_DIFF_LEN];
	uint16_t m1, m2;

	/* first programming: read what the switches hold, write the tree */
	sm_mcast_program(&x->sm, x->r.f, true);
	drain(x);
	m1 = mask_of(x->mft[0], 0);
	m2 = mask_of(x->mft[1], 0);
	assert_true(m1 & 1u << 1);			/* h1 */
	assert_true(m2 & 1u << 1);			/* h2 */
	assert_true((m1 & (3u << 7)) != 0 && (m1 & (3u << 7)) != 3u << 7);	/* one link */
	assert_int_equal(m1 & (3u << 7), m2 & (3u << 7));
	assert_int_equal(x->sets, 2);
	memcpy(held, x->mft, sizeof(held));

	/* nothing changed: nothing written again, verify finds no mismatch */
	x->sets = 0;
	sm_mcast_program(&x->sm, x->r.f, false);
	drain(x);
	assert_int_equal(x->sets, 0);
	assert_int_equal(sm_mcast_mft_verify(&x->sm, x->r.f), 2);
	drain(x);
	assert_int_equal(x->sm.mft_verify_mismatches, 0);

	/* another host sends the group out of every port of sw2: verify
	 * counts it, and the next programming puts back that block only */
	x->mft[1][0] = 0x7f;
	x->mft[1][1] = 0xfe;
	sm_mcast_mft_verify(&x->sm, x->r.f);
	drain(x);
	assert_int_equal(x->sm.mft_verify_mismatches, 1);
	sm_mcast_program(&x->sm, x->r.f, false);
	drain(x);
	assert_int_equal(x->sets, 1);
	assert_memory_equal(x->mft, held, sizeof(held));

	/* the audit's checker: one item per switch, SAME as programmed */
	assert_int_equal(audit_mft_checker.items(&x->sm, x->r.sw2), 1);
	assert_int_equal(audit_mft_checker.items(&x->sm, x->r.h1), 0);
	assert_int_equal(audit_mft_checker.gets(&x->sm, x->r.sw2, 0, &g), 1);
	assert_int_equal(g.attr, 0x001B);
	assert_int_equal(g.mod, 0);
	assert_int_equal(g.port, 0);
	assert_int_equal(g.block, 0);
	memcpy(data, x->mft[1], 64);
	assert_int_equal(audit_mft_checker.check(&x->sm, x->r.sw2, &g, data, set, diff,
	    sizeof(diff)), AUDIT_SAME);
	data[1] ^= 0x10;				/* port 4 added */
	memcpy(set, data, 64);
	assert_int_equal(audit_mft_checker.check(&x->sm, x->r.sw2, &g, data, set, diff,
	    sizeof(diff)), AUDIT_DIFF);
	assert_non_null(strstr(diff, "MLID 0xc000 goes to port mask"));
	assert_memory_equal(set, held[1], 2 * 32);
	/* while a block is not settled (verify found it changed) the
	 * checker has nothing to compare with ... */
	x->mft[1][1] ^= 0x10;
	sm_mcast_mft_verify(&x->sm, x->r.f);
	drain(x);
	assert_int_equal(x->sm.mft_verify_mismatches, 2);
	assert_int_equal(audit_mft_checker.check(&x->sm, x->r.sw2, &g, data, set, diff,
	    sizeof(diff)), AUDIT_SKIP);
	/* ... and a repair the switch kept settles it again: the next
	 * programming neither reads nor writes the block */
	memcpy(x->mft[1], held[1], 64);
	audit_mft_checker.held(&x->sm, x->r.sw2, &g, held[1]);
	x->sets = x->gets = 0;
	sm_mcast_program(&x->sm, x->r.f, false);
	drain(x);
	assert_int_equal(x->sets, 0);
	assert_int_equal(x->gets, 0);
	assert_int_equal(audit_mft_checker.check(&x->sm, x->r.sw2, &g, held[1], set, diff,
	    sizeof(diff)), AUDIT_SAME);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(program_verify_audit, tfix_setup, tfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
