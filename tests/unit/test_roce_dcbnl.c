/*
 * roce_qos against an in-process double of the kernel's dcbnl side (and
 * its SIOCETHTOOL tunables) with mlx5 semantics
 * (tests/fixtures/roce/fake_mlx5.c) behind the transport seams.  Assertions look at the double's NIC state, its write and
 * link-toggle counters, never at what fabricd reports about itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/fixtures/roce/fake_mlx5.c"
#include "roce_qos/plan.h"

struct dbl {
	struct fake_nic	nic;
	char		q[8][4096];
	size_t		qlen[8];
	int		head, count;
	unsigned	sends;
};

static void
dbl_emit(void *ctx, const void *buf, size_t len)
{
	struct dbl *d = ctx;
	int slot = (d->head + d->count++) % 8;

	memcpy(d->q[slot], buf, len);
	d->qlen[slot] = len;
}

static ssize_t
dbl_send(void *ctx, const void *buf, size_t len)
{
	struct dbl *d = ctx;
	struct fake_out o = { dbl_emit, d };

	d->sends++;
	fake_handle(&d->nic, buf, len, 4242, &o);
	return len;
}

static ssize_t
dbl_recv(void *ctx, void *buf, size_t len)
{
	struct dbl *d = ctx;
	size_t n;

	if (d->count == 0) {
		errno = EAGAIN;
		return -1;
	}
	n = d->qlen[d->head] < len ? d->qlen[d->head] : len;
	memcpy(buf, d->q[d->head], n);
	d->head = (d->head + 1) % 8;
	d->count--;
	return n;
}

/* SIOCETHTOOL, answered by the same NIC */
static int
dbl_ioctl(void *ctx, struct ifreq *ifr)
{
	struct dbl *d = ctx;
	int changed, err = fake_ethtool(&d->nic, ifr->ifr_name, ifr->ifr_data, &changed);

	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static struct dbl dbl;
static struct dcb_conn conn;
static struct roce_tun tun;
static const struct roce_port port0 = { .ifname = "mlx0", .port = 1 };
#define NOROOT "/nonexistent-roce-root"

static int
setup(void **state)
{
	struct dcb_transport t = { dbl_send, dbl_recv, NULL, &dbl };

	memset(&dbl, 0, sizeof(dbl));
	fake_nic_init(&dbl.nic, "mlx0");
	dcb_conn_init(&conn, &t);
	memset(&tun, 0, sizeof(tun));
	tun.ioctl = dbl_ioctl;
	tun.ctx = &dbl;
	return 0;
}

static void
test_get_decodes_mlx5_defaults(void **state)
{
	static const uint8_t prio_tc[8] = { 1, 0, 2, 3, 4, 5, 6, 7 };
	struct dcb_state st;

	assert_int_equal(dcb_get_state(&conn, "mlx0", &st), 0);
	assert_true(st.has_ets && st.has_pfc && st.has_buffer && st.has_maxrate && st.has_dcbx);
	assert_memory_equal(st.ets.prio_tc, prio_tc, 8);
	assert_int_equal(st.ets.tc_tsa[0], IEEE_8021QAZ_TSA_VENDOR);
	assert_int_equal(st.pfc.delay, 7);
	assert_int_equal(st.pfc.pfc_en, 0);
	assert_int_equal(st.buffer.buffer_size[0], 262016);
	assert_int_equal(st.dcbx, DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
	assert_int_equal(st.dscp_prio[26], ROCE_NO_PRIO);
}

static void
apply(const struct roce_profile *p, int expect, size_t *writes, char *err, size_t errlen)
{
	struct roce_plan *plan = calloc(1, sizeof(*plan));

	assert_non_null(plan);
	assert_int_equal(roce_apply_port(&conn, &tun, NOROOT, p, &port0, plan, writes, err, errlen), expect);
	free(plan);
}

static void
test_apply_lossless_lands_and_twice_writes_nothing(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";
	unsigned after_first;

	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	apply(&p, 0, &writes, err, sizeof(err));
	assert_true(writes > 0);
	/* the double's NIC, not fabricd's view */
	assert_int_equal(dbl.nic.pfc.pfc_en, 0x08);
	assert_int_equal(dbl.nic.app[26], 3);
	assert_int_equal(dbl.nic.app[48], 6);
	assert_int_equal(dbl.nic.ets.tc_tsa[6], IEEE_8021QAZ_TSA_STRICT);
	assert_int_equal(dbl.nic.ets.tc_tx_bw[0], 50);
	assert_int_equal(dbl.nic.ets.tc_tx_bw[3], 50);
	assert_int_equal(dbl.nic.ets.prio_tc[3], 3);
	assert_int_equal(dbl.nic.ets.prio_tc[6], 6);
	assert_int_equal(dbl.nic.ets.prio_tc[1], 0);
	assert_true(dbl.nic.host);
	assert_int_equal(dbl.nic.link_toggles, 1);
	/* dcbx + ets + pfc + one APP table: one attribute per message */
	assert_int_equal(dbl.nic.writes, 4);
	after_first = dbl.nic.writes;

	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 0);
	assert_int_equal(dbl.nic.writes, after_first);
	assert_int_equal(dbl.nic.link_toggles, 1);
}

static void
test_pfc_written_once_across_profiles_with_same_mask(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256];

	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	apply(&p, 0, &writes, err, sizeof(err));
	/* change only ETS shares: PFC must not be touched again */
	p.tc_bw[0] = 60;
	p.tc_bw[3] = 40;
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 1);
	assert_int_equal(dbl.nic.ets.tc_tx_bw[0], 60);
	assert_int_equal(dbl.nic.link_toggles, 1);
}

static void
test_driver_error_in_reply_stops_apply(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	dbl.nic.fail_attr = DCB_ATTR_IEEE_ETS;
	dbl.nic.fail_errno = EINVAL;
	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	apply(&p, -1, &writes, err, sizeof(err));
	assert_non_null(strstr(err, "ets"));
	assert_non_null(strstr(err, strerror(EINVAL)));
	/* ETS failed in the reply (ACK 0); PFC after it was never sent */
	assert_int_equal(dbl.nic.pfc.pfc_en, 0);
	assert_int_equal(dbl.nic.link_toggles, 0);
}

static void
test_mlx5_ets_sum_rule_is_a_driver_error(void **state)
{
	struct dcb_state st;
	struct ieee_ets ets;

	assert_int_equal(dcb_get_state(&conn, "mlx0", &st), 0);
	ets = st.ets;
	memset(ets.tc_tsa, IEEE_8021QAZ_TSA_ETS, 8);
	memset(ets.tc_tx_bw, 10, 8);
	assert_int_equal(dcb_set_ets(&conn, "mlx0", &ets), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(conn.err, "driver"));
}

static void
test_eopnotsupp_device(void **state)
{
	struct dcb_state st;

	dbl.nic.no_ops = 1;
	assert_int_equal(dcb_get_state(&conn, "mlx0", &st), -1);
	assert_int_equal(errno, EOPNOTSUPP);
}

static void
test_eperm_on_set_get_still_works(void **state)
{
	struct roce_profile p;
	struct dcb_state st;
	size_t writes;
	char err[256] = "";

	dbl.nic.unprivileged = 1;
	assert_int_equal(dcb_get_state(&conn, "mlx0", &st), 0);
	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	apply(&p, -1, &writes, err, sizeof(err));
	assert_non_null(strstr(err, strerror(EPERM)));
	assert_int_equal(dbl.nic.writes, 0);
}

static void
test_unknown_device_enodev(void **state)
{
	struct dcb_state st;

	assert_int_equal(dcb_get_state(&conn, "eth9", &st), -1);
	assert_int_equal(errno, ENODEV);
}

static void
test_sdcbx_failure_status_byte(void **state)
{
	assert_int_equal(dcb_set_dcbx(&conn, "mlx0", DCB_CAP_DCBX_LLD_MANAGED), -1);
	assert_int_equal(dbl.nic.host, 0);
}

static void
test_trust_pcp_deletes_with_current_priority(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	dbl.nic.app[26] = 5;
	dbl.nic.app[48] = 6;
	roce_profile_empty(&p);
	p.trust = ROCE_TRUST_PCP;
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 1);
	assert_int_equal(dbl.nic.app[26], FAKE_DCB_APP_NONE);
	assert_int_equal(dbl.nic.app[48], FAKE_DCB_APP_NONE);
}

static void
test_remap_replaces_without_delete(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	dbl.nic.app[26] = 5;
	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(dbl.nic.app[26], 3);
}

static void
test_ignored_setting_is_caught_by_read_back(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	/* a driver without ieee_setmaxrate: the kernel ACKs and drops it */
	roce_profile_empty(&p);
	p.maxrate_managed = true;
	p.maxrate_kbps[3] = 10000000;
	dbl.nic.fail_attr = DCB_ATTR_IEEE_MAXRATE;
	dbl.nic.fail_errno = -1;
	apply(&p, -1, &writes, err, sizeof(err));
	assert_non_null(strstr(err, "maxrate.3"));
	assert_int_equal(dbl.nic.maxrate.tc_maxrate[3], 0);
}

/* ---- PFC storm prevention (ethtool tunable) ---- */

static void
storm_profile(struct roce_profile *p, int ms)
{
	roce_profile_empty(p);
	p->storm_ms = ms;
}

static void
test_storm_written_once_and_read_back(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	storm_profile(&p, 500);
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 1);
	assert_int_equal(dbl.nic.storm_critical, 500);
	assert_int_equal(dbl.nic.storm_minor, 425);	/* mlx5: 85 % of critical */
	assert_int_equal(dbl.nic.tunable_writes, 1);
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 0);
	assert_int_equal(dbl.nic.tunable_writes, 1);
	/* no dcbnl write for a storm-only profile */
	assert_int_equal(dbl.nic.writes, 0);
}

static void
test_storm_auto_reads_back_resolved(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	storm_profile(&p, ROCE_STORM_AUTO);
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 1);
	assert_int_equal(dbl.nic.storm_critical, 100);	/* mlx5's auto */
	/* the NIC says 100, not 0xffff: still in sync, nothing written */
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(writes, 0);
	assert_int_equal(dbl.nic.tunable_writes, 1);
	storm_profile(&p, 0);
	apply(&p, 0, &writes, err, sizeof(err));
	assert_int_equal(dbl.nic.storm_critical, 0);
}

static void
test_storm_plan_names_the_difference(void **state)
{
	struct roce_plan *plan = calloc(1, sizeof(*plan));
	struct roce_profile p;
	struct dcb_state cur;
	char err[256] = "";

	storm_profile(&p, ROCE_STORM_AUTO);
	assert_int_equal(roce_plan_port(&conn, &tun, NOROOT, &p, &port0, &cur, plan, err, sizeof(err)), 0);
	assert_int_equal(plan->ndiffs, 1);
	assert_string_equal(plan->diffs[0].setting, "pfc_storm_prevention");
	assert_string_equal(plan->diffs[0].expected, "auto");
	assert_string_equal(plan->diffs[0].found, "8000");
	assert_int_equal(roce_plan_writes(plan), 1);
	assert_int_equal(dbl.nic.tunable_writes, 0);	/* planning writes nothing */
	free(plan);
}

static void
test_storm_eopnotsupp_is_reported_after_other_writes(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	dbl.nic.stall_detect = 0;
	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	p.storm_ms = ROCE_STORM_AUTO;
	apply(&p, -1, &writes, err, sizeof(err));
	assert_non_null(strstr(err, "mlx0: pfc_storm_prevention"));
	assert_non_null(strstr(err, strerror(EOPNOTSUPP)));
	/* the rest of the profile still landed */
	assert_int_equal(dbl.nic.pfc.pfc_en, 0x08);
	assert_int_equal(dbl.nic.tunable_writes, 0);
	/* and a second apply says so again instead of going quiet */
	err[0] = '\0';
	apply(&p, -1, &writes, err, sizeof(err));
	assert_int_equal(writes, 0);
	assert_non_null(strstr(err, strerror(EOPNOTSUPP)));
}

static void
test_storm_eperm_and_einval(void **state)
{
	struct roce_profile p;
	size_t writes;
	char err[256] = "";

	dbl.nic.unprivileged = 1;
	storm_profile(&p, 500);
	apply(&p, -1, &writes, err, sizeof(err));
	assert_non_null(strstr(err, "set-tunable"));
	assert_non_null(strstr(err, strerror(EPERM)));
	assert_int_equal(dbl.nic.storm_critical, 8000);
	dbl.nic.unprivileged = 0;
	storm_profile(&p, 50);		/* lint stops this; the driver does too */
	apply(&p, -1, &writes, err, sizeof(err));
	assert_non_null(strstr(err, strerror(EINVAL)));
	assert_int_equal(dbl.nic.storm_critical, 8000);
	assert_int_equal(dbl.nic.tunable_writes, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_get_decodes_mlx5_defaults, setup),
		cmocka_unit_test_setup(test_apply_lossless_lands_and_twice_writes_nothing, setup),
		cmocka_unit_test_setup(test_pfc_written_once_across_profiles_with_same_mask, setup),
		cmocka_unit_test_setup(test_driver_error_in_reply_stops_apply, setup),
		cmocka_unit_test_setup(test_mlx5_ets_sum_rule_is_a_driver_error, setup),
		cmocka_unit_test_setup(test_eopnotsupp_device, setup),
		cmocka_unit_test_setup(test_eperm_on_set_get_still_works, setup),
		cmocka_unit_test_setup(test_unknown_device_enodev, setup),
		cmocka_unit_test_setup(test_sdcbx_failure_status_byte, setup),
		cmocka_unit_test_setup(test_trust_pcp_deletes_with_current_priority, setup),
		cmocka_unit_test_setup(test_remap_replaces_without_delete, setup),
		cmocka_unit_test_setup(test_ignored_setting_is_caught_by_read_back, setup),
		cmocka_unit_test_setup(test_storm_written_once_and_read_back, setup),
		cmocka_unit_test_setup(test_storm_auto_reads_back_resolved, setup),
		cmocka_unit_test_setup(test_storm_plan_names_the_difference, setup),
		cmocka_unit_test_setup(test_storm_eopnotsupp_is_reported_after_other_writes, setup),
		cmocka_unit_test_setup(test_storm_eperm_and_einval, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
