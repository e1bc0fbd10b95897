/* RoCE host counters on a fake sysfs tree: discovery, accumulation,
 * PFC storm on priority 3 after the window, loss on a lossless class. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "health/roce.h"

static char root[64];

static void
put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void
put_u64(const char *rel, unsigned long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", v);
	put(rel, buf);
}

static int
setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/health-roce-XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	put("class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet");
	put("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "fake0");
	put("class/infiniband/mlx5_1/ports/1/link_layer", "InfiniBand");
	put_u64("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", 100);
	put_u64("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence", 7);
	put_u64("class/infiniband/mlx5_0/ports/1/hw_counters/packet_seq_err", 0);
	for (int prio = 0; prio < 8; prio++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "class/net/fake0/statistics/rx_prio%d_pause", prio);
		put_u64(rel, 5);
		snprintf(rel, sizeof(rel), "class/net/fake0/statistics/tx_prio%d_pause", prio);
		put_u64(rel, 0);
	}
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

struct notes {
	int raised, cleared;
	char object[96];
	enum hchk check;
};

static void
note(const struct alarm *a, bool raised, void *arg)
{
	struct notes *n = arg;
	if (raised)
		n->raised++;
	else
		n->cleared++;
	n->check = a->check;
	snprintf(n->object, sizeof(n->object), "%s", a->object);
}

static void
discovers_only_ethernet_ports(void **state)
{
	struct roce_monitor m;

	roce_monitor_init(&m, root, 20000);
	assert_int_equal(roce_discover(&m), 1);
	assert_string_equal(m.ports[0].dev, "mlx5_0");
	assert_int_equal(m.ports[0].port, 1);
	assert_string_equal(m.ports[0].netdev, "fake0");
	roce_monitor_free(&m);
}

static void
pfc_storm_on_priority_3(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(2, note, &n);
	struct roce_monitor m;
	int64_t now = 1000000;

	roce_monitor_init(&m, root, 20000);
	roce_discover(&m);
	roce_sample(&m, now, t);			/* baseline */
	assert_int_equal(n.raised, 0);
	/* Priority 3 pauses rise every 5 s; storm once 20 s have passed. */
	for (int i = 1; i <= 4; i++) {
		put_u64("class/net/fake0/statistics/rx_prio3_pause", 5 + 1000 * i);
		roce_sample(&m, now + 5000 * i, t);
		if (i < 4)
			assert_int_equal(n.raised, 0);
	}
	assert_int_equal(n.raised, 1);
	assert_int_equal(n.check, HCHK_PFC_STORM);
	assert_string_equal(n.object, "mlx5_0/1 prio 3");
	assert_int_equal(m.ports[0].pfc[3][PFC_RX_PAUSE].total, 4000);
	/* Counters stop rising: the storm clears after two quiet samples. */
	roce_sample(&m, now + 25000, t);
	roce_sample(&m, now + 30000, t);
	assert_int_equal(n.cleared, 1);
	assert_int_equal(alarm_count(t), 0);
	roce_monitor_free(&m);
	alarm_table_free(t);
}

static void
short_burst_is_not_a_storm(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(2, note, &n);
	struct roce_monitor m;

	roce_monitor_init(&m, root, 20000);
	roce_discover(&m);
	roce_sample(&m, 0, t);
	put_u64("class/net/fake0/statistics/tx_prio5_pause", 10);
	roce_sample(&m, 5000, t);
	put_u64("class/net/fake0/statistics/tx_prio5_pause", 20);
	roce_sample(&m, 10000, t);
	roce_sample(&m, 15000, t);			/* pause */
	put_u64("class/net/fake0/statistics/tx_prio5_pause", 30);
	roce_sample(&m, 20000, t);
	roce_sample(&m, 25000, t);
	assert_int_equal(n.raised, 0);
	roce_monitor_free(&m);
	alarm_table_free(t);
}

static void
sequence_errors_are_loss(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(1, note, &n);
	struct roce_monitor m;

	roce_monitor_init(&m, root, 20000);
	roce_discover(&m);
	roce_sample(&m, 0, t);
	put_u64("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", 5000);
	roce_sample(&m, 5000, t);
	assert_int_equal(n.raised, 0);			/* CNPs are congestion control, not loss */
	put_u64("class/infiniband/mlx5_0/ports/1/hw_counters/packet_seq_err", 3);
	roce_sample(&m, 10000, t);
	assert_int_equal(n.raised, 1);
	assert_int_equal(n.check, HCHK_ROCE_LOSS);
	assert_string_equal(n.object, "mlx5_0/1");
	assert_int_equal(m.ports[0].hw[ROCE_CNP_SENT].total, 4900);
	assert_false(m.ports[0].hw_valid[ROCE_ECN_MARKED]);	/* file absent */
	roce_monitor_free(&m);
	alarm_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(discovers_only_ethernet_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(pfc_storm_on_priority_3, setup, teardown),
		cmocka_unit_test_setup_teardown(short_burst_is_not_a_storm, setup, teardown),
		cmocka_unit_test_setup_teardown(sequence_errors_are_loss, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
