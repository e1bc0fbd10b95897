/*
 * pkeys_read: the P_Key tables of several ports, read with directed-route
 * SubnGets in one process, as smpquery -D pkeys reads them one process
 * each.  The crash test reads ten ports twice per killed change: one
 * smpquery start-up each (umad2sim's included) made most of its time.
 * libibmad does the MADs; nothing of fabricd is used.
 *
 * usage: pkeys_read ROUTE[:PORT] ...
 *
 *   ROUTE  a directed route, "0,1,3" (smpquery -D's form)
 *   PORT   a switch's port (default 0)
 *
 * For each argument one line: the non-zero entries as "index=key ...",
 * as many as the node's table holds (NodeInfo PartitionCap for a CA,
 * SwitchInfo PartitionEnforcementCap for a switch's external port); an
 * empty line (and a word on stderr) when a read got no answer, as
 * smpquery prints nothing then.  Exits 0 when every read answered, 1
 * otherwise, 2 on a usage or port error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#define BLOCK	32	/* P_Keys per P_KeyTable block */

static struct ibmad_port *port;

static void
usage(void)
{
	fprintf(stderr, "usage: pkeys_read ROUTE[:PORT] ...\n");
	exit(2);
}

/* How many P_Keys the port's table holds (0: no answer). */
static unsigned
table_size(ib_portid_t *id, unsigned portnum)
{
	uint8_t ni[IB_SMP_DATA_SIZE] = { 0 }, si[IB_SMP_DATA_SIZE] = { 0 };
	unsigned type, cap;

	if (smp_query_via(ni, id, IB_ATTR_NODE_INFO, 0, 0, port) == NULL)
		return 0;
	mad_decode_field(ni, IB_NODE_TYPE_F, &type);
	mad_decode_field(ni, IB_NODE_PARTITION_CAP_F, &cap);
	if (type == IB_NODE_SWITCH && portnum > 0) {
		if (smp_query_via(si, id, IB_ATTR_SWITCH_INFO, 0, 0, port) == NULL)
			return 0;
		mad_decode_field(si, IB_SW_PARTITION_ENFORCE_CAP_F, &cap);
	}
	return cap;
}

static int
read_one(const char *arg)
{
	char route[256], *colon;
	unsigned portnum = 0, cap;
	ib_portid_t id = { 0 };

	snprintf(route, sizeof(route), "%s", arg);
	if ((colon = strchr(route, ':')) != NULL) {
		*colon = '\0';
		portnum = (unsigned)strtoul(colon + 1, NULL, 0);
	}
	if (str2drpath(&id.drpath, route, 0, 0) < 0)
		usage();
	if ((cap = table_size(&id, portnum)) == 0) {
		fprintf(stderr, "pkeys_read: %s: no answer\n", arg);
		printf("\n");
		return 1;
	}
	for (unsigned b = 0; b * BLOCK < cap; b++) {
		uint8_t tbl[IB_SMP_DATA_SIZE] = { 0 };

		if (smp_query_via(tbl, &id, IB_ATTR_PKEY_TBL, portnum << 16 | b, 0, port) == NULL) {
			fprintf(stderr, "pkeys_read: %s: no answer to block %u\n", arg, b);
			printf("\n");
			return 1;
		}
		for (unsigned i = 0; i < BLOCK && b * BLOCK + i < cap; i++) {
			unsigned key = (unsigned)tbl[2 * i] << 8 | tbl[2 * i + 1];

			if (key)
				printf("%u=0x%04x ", b * BLOCK + i, key);
		}
	}
	printf("\n");
	return 0;
}

int
main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	int rc = 0;

	if (argc < 2)
		usage();
	if ((port = mad_rpc_open_port(NULL, 0, classes, 2)) == NULL) {
		fprintf(stderr, "pkeys_read: cannot open the port\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		rc |= read_one(argv[i]);
	mad_rpc_close_port(port);
	return rc;
}
