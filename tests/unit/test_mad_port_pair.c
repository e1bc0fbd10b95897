/*
 * mad/port_pair.c's sysfs reading (where libibumad has no
 * umad_get_smi_gsi_pair_by_ca_name(), rdma-core before v56) against a
 * fake class/infiniband tree under a temporary root: a plane found from
 * either of its devices with the GSI the one whose port says
 * IsSMDisabled, a legacy HCA and an unknown device no pair, two devices
 * sharing a GUID that the bit does not tell apart refused, a pair on
 * port 2, and a tree without the files no pair.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "mad/port_pair.h"

#define GSI_CAP	"0x02510c6a"	/* bit 10 (IsSMDisabled) set, as on a plane's parent */
#define SMI_CAP	"0x0251086a"

static char root[64];

/* mkdir -p of root/REL */
static void
mkdirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = 0;
		(void)mkdir(path, 0700);
		*p = '/';
	}
	(void)mkdir(path, 0700);
}

static void
put(const char *dev, unsigned port, const char *file, const char *text)
{
	char rel[256], path[512];
	FILE *f;

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/gids", dev, port);
	mkdirs(rel);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/%s", root, dev, port, file);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* A port of GUID 0002:c903:00f0:00NN with capability mask cap. */
static void
port(const char *dev, unsigned num, unsigned guid_low, const char *cap)
{
	char gid[64];

	snprintf(gid, sizeof(gid), "fe80:0000:0000:0000:0002:c903:00f0:%04x", guid_low);
	put(dev, num, "gids/0", gid);
	put(dev, num, "cap_mask", cap);
}

static int
setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/fabricd-pair.XXXXXX");
	assert_non_null(mkdtemp(root));
	port("mlx5_0", 1, 0x11, GSI_CAP);	/* a plane: its parent ... */
	port("smi0", 1, 0x11, SMI_CAP);		/* ... and its SMI sub-device */
	port("mlx5_1", 1, 0x22, SMI_CAP);	/* a legacy HCA */
	port("mlx5_2", 1, 0x33, SMI_CAP);	/* two that share a GUID, */
	port("mlx5_3", 1, 0x33, SMI_CAP);	/* neither IsSMDisabled */
	port("mlx5_4", 1, 0x44, SMI_CAP);	/* a plane on the parent's port 2 */
	port("mlx5_4", 2, 0x45, GSI_CAP);
	port("smi1", 1, 0x45, SMI_CAP);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_plane_from_either_device(void **state)
{
	struct mad_port_pair p;

	memset(&p, 0, sizeof(p));
	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_0", 1, &p), 1);
	assert_string_equal(p.smi, "smi0");
	assert_string_equal(p.gsi, "mlx5_0");
	assert_int_equal(p.smi_port, 1);
	assert_int_equal(p.gsi_port, 1);
	memset(&p, 0, sizeof(p));
	assert_int_equal(mad_port_pair_sysfs(root, "smi0", 1, &p), 1);
	assert_string_equal(p.smi, "smi0");
	assert_string_equal(p.gsi, "mlx5_0");
}

static void
test_no_pair(void **state)
{
	struct mad_port_pair p;

	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_1", 1, &p), 0);
	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_9", 1, &p), 0);
	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_1", 2, &p), 0);
	assert_int_equal(mad_port_pair_sysfs("/nonexistent-fabricd-root", "mlx5_0", 1, &p), 0);
}

static void
test_ambiguous_refused(void **state)
{
	struct mad_port_pair p;

	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_2", 1, &p), -1);
}

static void
test_second_port(void **state)
{
	struct mad_port_pair p;

	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_4", 1, &p), 0);
	memset(&p, 0, sizeof(p));
	assert_int_equal(mad_port_pair_sysfs(root, "mlx5_4", 2, &p), 1);
	assert_string_equal(p.smi, "smi1");
	assert_int_equal(p.smi_port, 1);
	assert_string_equal(p.gsi, "mlx5_4");
	assert_int_equal(p.gsi_port, 2);
	memset(&p, 0, sizeof(p));
	assert_int_equal(mad_port_pair_sysfs(root, "smi1", 1, &p), 1);
	assert_string_equal(p.gsi, "mlx5_4");
	assert_int_equal(p.gsi_port, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plane_from_either_device),
		cmocka_unit_test(test_no_pair),
		cmocka_unit_test(test_ambiguous_refused),
		cmocka_unit_test(test_second_port),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
