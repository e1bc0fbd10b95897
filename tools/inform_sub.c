/*
 * inform_sub: subscribe this port to an SA trap with InformInfo, as an
 * SA client (ibacm, a fabric monitor) does, and optionally wait for the
 * Reports.  No infiniband-diags tool subscribes, so the InformInfo tests
 * need this raw libibumad client.
 *
 * usage: inform_sub [-t TRAP] [-u] [-w SECS]
 *
 *   TRAP   generic trap number (default 64; 0xFFFF: all)
 *   -u     unsubscribe instead
 *   -w     then wait up to SECS for Reports, answer each with ReportResp
 *          and print "report trap N gid GID"; on real hardware they
 *          arrive on QP1.  (Under ibsim a request on QP1 reaches only an
 *          IsSM client, so this one never sees them there.)
 *
 * Prints "status 0xSSSS trap N subscribe S"; exits 0 on status 0, 3 when
 * the SA refused, 1 when nothing came back, 2 on a usage or port error.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define MAD_LEN		256
#define SA_HDR		56
#define QP1_QKEY	0x80010000u

static void
usage(void)
{
	fprintf(stderr, "usage: inform_sub [-t TRAP] [-u] [-w SECS]\n");
	exit(2);
}

/* Answer a Report with ReportResp and print it. */
static void
take_report(int fd, int agent, void *umad)
{
	ib_sa_mad_t *sa = umad_get_mad(umad);
	const ib_mad_notice_attr_t *n = (const ib_mad_notice_attr_t *)sa->data;
	ib_mad_addr_t *a = umad_get_mad_addr(umad);
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, &n->data_details.ntc_64_67.gid, gid, sizeof(gid));
	printf("report trap %u gid %s\n", be16toh(n->g_or_v.generic.trap_num), gid);
	fflush(stdout);
	sa->method = IB_MAD_METHOD_REPORT_RESP;
	umad_set_addr(umad, be16toh(a->lid), be32toh(a->qpn), 0, QP1_QKEY);
	umad_send(fd, agent, umad, SA_HDR + (int)sizeof(*n), 0, 0);
}

int
main(int argc, char **argv)
{
	unsigned trap = 64, wait_s = 0;
	int subscribe = 1, c, fd, agent, len = MAD_LEN, st;
	long mask[16 / sizeof(long)] = { 0 };
	umad_port_t up;
	void *umad;
	ib_sa_mad_t *sa;
	ib_inform_info_t *ii;
	time_t until;

	while ((c = getopt(argc, argv, "t:uw:")) != -1) {
		switch (c) {
		case 't': trap = (unsigned)strtoul(optarg, NULL, 0) & 0xFFFF; break;
		case 'u': subscribe = 0; break;
		case 'w': wait_s = (unsigned)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	((uint8_t *)mask)[IB_MAD_METHOD_REPORT / 8] |= 1 << (IB_MAD_METHOD_REPORT % 8);
	if (umad_init() < 0 || umad_get_port(NULL, 0, &up) < 0 ||
	    (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_MCLASS_SUBN_ADM, 2, 1, mask)) < 0) {
		fprintf(stderr, "inform_sub: cannot open the port or register for class 0x03\n");
		return 2;
	}
	umad = calloc(1, umad_size() + MAD_LEN);
	sa = umad_get_mad(umad);
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = 2;
	sa->method = IB_MAD_METHOD_SET;
	sa->trans_id = htobe64(0x69690000u ^ (uint32_t)getpid());
	sa->attr_id = IB_MAD_ATTR_INFORM_INFO;
	ii = (ib_inform_info_t *)sa->data;
	ii->lid_range_begin = htobe16(0xFFFF);
	ii->is_generic = 1;
	ii->subscribe = (uint8_t)subscribe;
	ii->trap_type = htobe16(0xFFFF);
	ii->g_or_v.generic.trap_num = htobe16((uint16_t)trap);
	ii->g_or_v.generic.qpn_resp_time_val = htobe32(1u << 8);	/* QP1 */
	ii->g_or_v.generic.node_type_lsb = htobe16(0xFFFF);
	umad_set_addr(umad, (int)up.sm_lid, 1, 0, QP1_QKEY);
	if (umad_send(fd, agent, umad, SA_HDR + 40, 1000, 2) < 0 ||
	    umad_recv(fd, umad, &len, 5000) < 0 || umad_status(umad) != 0) {
		printf("no answer\n");
		return 1;
	}
	st = be16toh(((ib_sa_mad_t *)umad_get_mad(umad))->status);
	printf("status 0x%04x trap %u subscribe %d\n", st, trap, subscribe);
	fflush(stdout);
	for (until = time(NULL) + wait_s; st == 0 && time(NULL) < until;) {
		len = MAD_LEN;
		if (umad_recv(fd, umad, &len, 500) < 0)
			continue;
		if (((ib_sa_mad_t *)umad_get_mad(umad))->method == IB_MAD_METHOD_REPORT)
			take_report(fd, agent, umad);
	}
	free(umad);
	umad_release_port(&up);
	umad_close_port(fd);
	umad_done();
	return st == 0 ? 0 : 3;
}
