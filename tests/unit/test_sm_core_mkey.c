/*
 * M_Key (sm/core/mkey.c, mad/smp.c): each port's key is the HMAC-SHA256 of
 * its GUID under the secret (checked against values computed outside
 * fabricd, Python's hmac module); an SMP built for any address carries
 * the key of the port that address reaches; and the lease logic that
 * recovers a port holding an unknown key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#include "mad/mad.h"
#include "sm/core/mkey.h"
#include "fabric_route_fixture.h"

#define SECRET "fabricd-test-secret"

static struct sm_mkey
keys(void)
{
	struct sm_mkey k;

	memset(&k, 0, sizeof(k));
	k.enabled = true;
	memcpy(k.secret, SECRET, strlen(SECRET));
	k.secret_len = strlen(SECRET);
	k.protect = 2;
	k.lease_s = 60;
	return k;
}

/* python3: hmac.new(b'fabricd-test-secret', struct.pack('>Q', g), sha256) */
static void
derive_matches_hmac_sha256(void **state)
{
	assert_int_equal(sm_mkey_derive((const uint8_t *)SECRET, strlen(SECRET),
	    0x0001000000000011ull), 0xab49f6dffff8dfd6ull);
	assert_int_equal(sm_mkey_derive((const uint8_t *)SECRET, strlen(SECRET),
	    0x0002000000000001ull), 0x1fbd31b1e213485eull);
	assert_int_not_equal(sm_mkey_derive((const uint8_t *)"other", 5, 0x0001000000000011ull),
	    0xab49f6dffff8dfd6ull);
}

static void
set_path(struct fabric_node *n, uint8_t hops, const uint8_t *path)
{
	n->hops = hops;
	memcpy(n->path + 1, path, hops);
}

/* The directed route and the LID of every port the SM reaches. */
static void
smp_to_each_port_carries_its_key(void **state)
{
	struct rfix *x = *state;
	struct sm_mkey k = keys();
	const struct fabric_port *ports[] = {
		&x->h1->ports[1], &x->sw1->ports[0], &x->sw2->ports[0], &x->h2->ports[1],
		&x->h3->ports[2],
	};
	uint64_t seen[5];
	size_t i, j;

	set_path(x->sw1, 1, (const uint8_t[]){ 1 });
	set_path(x->sw2, 2, (const uint8_t[]){ 1, 7 });
	set_path(x->h2, 3, (const uint8_t[]){ 1, 7, 1 });
	x->h3->path_port = 2;
	set_path(x->h3, 3, (const uint8_t[]){ 1, 7, 3 });
	for (i = 0; i < 5; i++) {
		const struct fabric_port *p = ports[i];
		struct mad_addr a = { .directed = true };
		uint8_t mad[MAD_SIZE];

		assert_true(fabric_port_path(p, a.path, &a.hops));
		assert_ptr_equal(sm_mkey_port_of(x->f, x->h1->ports[1].guid, &a), p);
		mad_smp_build(mad, &a, 0x02, 0x0015, p->num, NULL,
		    sm_mkey_of(&k, sm_mkey_port_of(x->f, x->h1->ports[1].guid, &a)->guid));
		seen[i] = be64toh(((const ib_smp_t *)mad)->m_key);
		assert_int_equal(seen[i], sm_mkey_derive(k.secret, k.secret_len, p->guid));
		for (j = 0; j < i; j++)
			assert_int_not_equal(seen[i], seen[j]);	/* per port */
	}
	/* LID routed: a CA port by its LID, a switch (any port) by port 0 */
	{
		struct mad_addr a = { .directed = false, .dlid = 2 };
		assert_ptr_equal(sm_mkey_port_of(x->f, x->h1->ports[1].guid, &a), &x->h2->ports[1]);
	}
	/* a route that leads nowhere: no key to give */
	{
		struct mad_addr a = { .directed = true, .hops = 2, .path = { 0, 1, 5 } };
		assert_null(sm_mkey_port_of(x->f, x->h1->ports[1].guid, &a));
	}
	/* a PortInfo Set made from a Get (key hidden: 0) keeps the key */
	{
		struct mad_addr a = { .directed = true, .hops = 1, .path = { 0, 1 } };
		uint8_t mad[MAD_SIZE], pi[64] = { 0 };
		uint64_t key = sm_mkey_of(&k, x->sw1->ports[0].guid);

		mad_smp_build(mad, &a, 0x02, 0x0015, 3, pi, key);
		assert_int_equal(be64toh(((const ib_port_info_t *)((const ib_smp_t *)mad)->data)->m_key),
		    key);
		mad_smp_build(mad, &a, 0x01, 0x0015, 3, NULL, key);	/* a Get: no payload */
		assert_int_equal(((const ib_smp_t *)mad)->data[0], 0);
	}
	/* off: every SMP carries 0 */
	k.enabled = false;
	assert_int_equal(sm_mkey_of(&k, x->h2->ports[1].guid), 0);
	k.enabled = true;
	sm_mkey_free(&k);
}

/* A port that refused our key: wait out its lease, then write again. */
static void
lease_recovery(void **state)
{
	struct sm_mkey k = keys();
	struct sm_mkey_port *p;
	uint64_t g = 0x0001000000000021ull, key = sm_mkey_of(&k, g);

	assert_int_equal(sm_mkey_recovery(NULL, 60, 0), SM_MKEY_SEND);
	p = sm_mkey_rejected(&k, g, 1000000);
	assert_int_equal(sm_mkey_recovery(p, 60, 1000000 + 30000), SM_MKEY_WAIT);
	assert_int_equal(sm_mkey_recovery(p, 60, 1000000 + 60000), SM_MKEY_WAIT);	/* margin */
	assert_int_equal(sm_mkey_recovery(p, 60, 1000000 + 61000), SM_MKEY_SEND);
	/* refused again: the port's timer restarted */
	p = sm_mkey_rejected(&k, g, 1000000 + 61000);
	assert_int_equal(sm_mkey_recovery(p, 60, 1000000 + 62000), SM_MKEY_WAIT);
	/* a lease of 0 never lapses */
	assert_int_equal(sm_mkey_recovery(p, 0, 1000000 + 999999999), SM_MKEY_STUCK);
	/* taken: known, news once, and the key is the one it holds */
	assert_int_equal(sm_mkey_accepted(&k, g, key), 1);
	assert_int_equal(sm_mkey_accepted(&k, g, key), 0);
	assert_int_equal(sm_mkey_recovery(p, 60, 1000000 + 62000), SM_MKEY_SEND);
	assert_int_equal(sm_mkey_of(&k, g), key);
	/* a key given under an older secret stays the one SMPs carry */
	assert_int_equal(sm_mkey_accepted(&k, g, 0x1234), 1);
	assert_int_equal(sm_mkey_of(&k, g), 0x1234);
	sm_mkey_free(&k);
}

/* The records sealed for etcd open with the same secret only, and a
 * flipped byte anywhere is refused; the ciphertext never holds the plain
 * text, and two seals of one text differ (a fresh nonce each). */
static void
sealed_records(void **state)
{
	struct sm_mkey a = { .enabled = true, .secret_len = 6 }, b = a;
	const char *plain = "[[\"0001000000000011\",\"8a3c0b2e9f1d4c55\"]]";
	char *s1, *s2, *back;
	size_t len = 0;

	(void)state;
	memcpy(a.secret, "secret", 6);
	memcpy(b.secret, "secreT", 6);
	s1 = sm_mkey_seal(&a, plain, strlen(plain));
	s2 = sm_mkey_seal(&a, plain, strlen(plain));
	assert_non_null(s1);
	assert_non_null(s2);
	assert_string_not_equal(s1, s2);
	assert_null(strstr(s1, "8a3c0b2e9f1d4c55"));
	back = sm_mkey_open(&a, s1, &len);
	assert_non_null(back);
	assert_int_equal(len, strlen(plain));
	assert_string_equal(back, plain);
	free(back);
	assert_null(sm_mkey_open(&b, s1, &len));	/* another secret */
	for (size_t i = 0; i + 4 <= strlen(s1); i += 4) {	/* each base64 quantum */
		char *t = strdup(s1);

		t[i] = t[i] == 'A' ? 'B' : 'A';
		assert_null(sm_mkey_open(&a, t, &len));
		free(t);
	}
	assert_null(sm_mkey_open(&a, "", &len));
	assert_null(sm_mkey_open(&a, "not base64 at all!", &len));
	free(s1);
	free(s2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(derive_matches_hmac_sha256),
		cmocka_unit_test_setup_teardown(smp_to_each_port_carries_its_key, rfix_setup,
		    rfix_teardown),
		cmocka_unit_test(lease_recovery),
		cmocka_unit_test(sealed_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
