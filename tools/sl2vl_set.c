/*
 * sl2vl_set: write one SLtoVLMappingTable with a LID-routed SubnSet from
 * whatever host it runs on, as another management tool (or another SM)
 * would behind fabricd's back.  infiniband-diags reads the table
 * (smpquery sl2vl) but has no tool that writes it; libibmad does the MAD.
 *
 * usage: sl2vl_set LID IN OUT VL0,VL1,...,VL15
 *
 *   LID   the node's LID (a switch's port 0 LID, or a CA port's)
 *   IN    switches: the in port of the pair; CAs: 0
 *   OUT   switches: the out port; CAs: 0
 *   VLs   sixteen VLs, SL 0 first
 *
 * Prints the table the node answers, SL 0 first, and exits 0; 1 when the
 * Set got no answer; 2 on a usage or port error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

static void
usage(void)
{
	fprintf(stderr, "usage: sl2vl_set LID IN OUT VL0,VL1,...,VL15\n");
	exit(2);
}

static int
parse_vls(const char *s, uint8_t tbl[8])
{
	char *end;

	memset(tbl, 0, 8);
	for (int sl = 0; sl < 16; sl++) {
		unsigned long vl = strtoul(s, &end, 0);

		if (end == s || vl > 15 || (sl < 15 && *end != ',') || (sl == 15 && *end != '\0'))
			return -1;
		tbl[sl / 2] |= (uint8_t)(sl & 1 ? vl : vl << 4);
		s = end + 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	struct ibmad_port *port;
	ib_portid_t id = { 0 };
	unsigned in, out;

	if (argc != 5)
		usage();
	in = (unsigned)strtoul(argv[2], NULL, 0);
	out = (unsigned)strtoul(argv[3], NULL, 0);
	if (in > 255 || out > 255 || parse_vls(argv[4], buf) != 0)
		usage();
	if ((port = mad_rpc_open_port(NULL, 0, classes, 2)) == NULL) {
		fprintf(stderr, "sl2vl_set: cannot open the port\n");
		return 2;
	}
	ib_portid_set(&id, (int)strtol(argv[1], NULL, 0), 0, 0);
	if (smp_set_via(buf, &id, IB_ATTR_SLVL_TABLE, in << 8 | out, 0, port) == NULL) {
		fprintf(stderr, "sl2vl_set: no answer from LID %s\n", argv[1]);
		mad_rpc_close_port(port);
		return 1;
	}
	for (int sl = 0; sl < 16; sl++)
		printf("%s%u", sl ? "," : "", sl & 1 ? buf[sl / 2] & 0x0F : buf[sl / 2] >> 4);
	printf("\n");
	mad_rpc_close_port(port);
	return 0;
}
