/*
 * mcast_join: join or leave a multicast group as the kernel's IPoIB does
 * (drivers/infiniband/ulp/ipoib/ipoib_multicast.c), from this port, with
 * one SA MCMemberRecord Set or Delete.  No infiniband-diags tool joins a
 * group, so the multicast tests need this raw libibumad client.
 *
 * usage: mcast_join [-p PKEY] [-m MGID] [-s STATE] [-c] [-l] [-q]
 *
 *   PKEY   the partition (default 0xffff); the broadcast MGID of IPoIB
 *          (ff12:401b:PKEY::ffff:ffff) unless -m names another
 *   MGID   the group, as saquery prints it (ff12:401b:ffff:0:0:0:ffff:ffff)
 *   STATE  JoinState bits: 1 full (default), 2 non-member, 4 send-only
 *          non-member, 8 send-only full member
 *   -c     create as IPoIB creates its other groups: MGID, PortGID,
 *          P_Key, JoinState plus Q_Key, MTU, TClass, rate, SL, FlowLabel
 *          and HopLimit copied from the partition's broadcast group,
 *          which it joins first (as ipoib does before any other group)
 *   -l     leave (Delete) instead of join
 *   -q     Get this port's membership record of the group, change nothing
 *
 * The broadcast join sends only MGID, PortGID, P_Key and JoinState in its
 * component mask: the group must exist already (the SM creates it).
 *
 * Prints "status 0xSSSS mlid 0xMMMM mgid MGID qkey 0xQ mtu M rate R sl S
 * state J" and exits 0 on status 0, 3 when the SA refused (status in the
 * line), 1 when nothing came back, 2 on a usage or port error.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define MAD_LEN		256
#define SA_HDR		56
#define QP1_QKEY	0x80010000u

#define BASE_MASK (IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | \
	IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_JOIN_STATE)
#define CREATE_MASK (IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_MTU_SEL | IB_MCR_COMPMASK_MTU | \
	IB_MCR_COMPMASK_TCLASS | IB_MCR_COMPMASK_RATE_SEL | IB_MCR_COMPMASK_RATE | \
	IB_MCR_COMPMASK_SL | IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_HOP)

struct port {
	int		fd, agent;
	unsigned	sm_lid;
	uint64_t	prefix, guid;	/* network order */
};

static void
usage(void)
{
	fprintf(stderr, "usage: mcast_join [-p PKEY] [-m MGID] [-s STATE] [-c] [-l] [-q]\n");
	exit(2);
}

static void
broadcast_mgid(uint16_t pkey, uint8_t mgid[16])
{
	static const uint8_t tmpl[16] = {
		0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};

	memcpy(mgid, tmpl, 16);
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
}

/* One SA request, its answer in ans (a whole MAD).  Returns the MAD
 * status, or -1 when nothing came back. */
static int
sa_call(const struct port *p, uint8_t method, uint64_t mask, const ib_member_rec_t *rec,
    ib_member_rec_t *ans)
{
	static uint32_t tid = 0x6d630000;
	void *umad = calloc(1, umad_size() + MAD_LEN);
	ib_sa_mad_t *sa = umad_get_mad(umad);
	int len = MAD_LEN, st;

	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = 2;
	sa->method = method;
	sa->trans_id = htobe64(++tid ^ (uint32_t)getpid() << 8);
	sa->attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
	sa->comp_mask = mask;
	memcpy(sa->data, rec, sizeof(*rec));
	umad_set_addr(umad, (int)p->sm_lid, 1, 0, QP1_QKEY);
	if (umad_send(p->fd, p->agent, umad, SA_HDR + (int)sizeof(*rec), 1000, 2) < 0 ||
	    umad_recv(p->fd, umad, &len, 5000) < 0 || umad_status(umad) != 0) {
		free(umad);
		return -1;
	}
	sa = umad_get_mad(umad);
	st = be16toh(sa->status);
	memcpy(ans, sa->data, sizeof(*ans));
	free(umad);
	return st;
}

static void
print_answer(int st, const ib_member_rec_t *r)
{
	char mgid[INET6_ADDRSTRLEN];
	uint8_t sl;
	uint32_t flow;
	uint8_t hop;

	ib_member_get_sl_flow_hop(r->sl_flow_hop, &sl, &flow, &hop);
	inet_ntop(AF_INET6, &r->mgid, mgid, sizeof(mgid));
	printf("status 0x%04x mlid 0x%04x mgid %s qkey 0x%08x mtu %u rate %u sl %u state %u\n",
	    st, st ? 0 : be16toh(r->mlid), mgid, be32toh(r->qkey), r->mtu & 0x3F,
	    r->rate & 0x3F, sl, r->scope_state & 0x0F);
}

static int
open_port(struct port *p)
{
	umad_port_t up;

	if (umad_init() < 0 || umad_get_port(NULL, 0, &up) < 0)
		return -1;
	p->sm_lid = up.sm_lid;
	p->prefix = up.gid_prefix;
	p->guid = up.port_guid;
	umad_release_port(&up);
	if ((p->fd = umad_open_port(NULL, 0)) < 0 ||
	    (p->agent = umad_register(p->fd, IB_MCLASS_SUBN_ADM, 2, 1, NULL)) < 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	struct port p;
	ib_member_rec_t rec, ans, bc;
	uint8_t mgid[16];
	unsigned pkey = 0xffff, state = 1;
	bool create = false, leave = false, query = false, have_mgid = false;
	uint64_t mask = BASE_MASK;
	int c, st;

	while ((c = getopt(argc, argv, "p:m:s:clq")) != -1) {
		switch (c) {
		case 'p': pkey = (unsigned)strtoul(optarg, NULL, 0) & 0xFFFF; break;
		case 'm':
			if (inet_pton(AF_INET6, optarg, mgid) != 1)
				usage();
			have_mgid = true;
			break;
		case 's': state = (unsigned)strtoul(optarg, NULL, 0) & 0x0F; break;
		case 'c': create = true; break;
		case 'l': leave = true; break;
		case 'q': query = true; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (open_port(&p) < 0) {
		fprintf(stderr, "mcast_join: cannot open the port or register for class 0x03\n");
		return 2;
	}
	if (!have_mgid)
		broadcast_mgid((uint16_t)pkey, mgid);
	memset(&rec, 0, sizeof(rec));
	memcpy(&rec.mgid, mgid, 16);
	rec.port_gid.unicast.prefix = p.prefix;
	rec.port_gid.unicast.interface_id = p.guid;
	rec.pkey = htobe16((uint16_t)pkey);
	rec.scope_state = (uint8_t)(0x20 | state);
	if (create) {
		/* ipoib joins the broadcast group first and takes the new
		 * group's parameters from its record */
		ib_member_rec_t q = rec;

		broadcast_mgid((uint16_t)pkey, (uint8_t *)&q.mgid);
		q.scope_state = 0x21;
		if ((st = sa_call(&p, IB_MAD_METHOD_SET, BASE_MASK, &q, &bc)) != 0) {
			fprintf(stderr, "mcast_join: broadcast group of 0x%04x: %s 0x%04x\n", pkey,
			    st < 0 ? "no answer" : "status", st);
			return st < 0 ? 1 : 3;
		}
		rec.qkey = bc.qkey;
		rec.mtu = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | (bc.mtu & 0x3F));
		rec.tclass = bc.tclass;
		rec.rate = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | (bc.rate & 0x3F));
		rec.sl_flow_hop = bc.sl_flow_hop;
		mask |= CREATE_MASK;
	}
	if (query)
		st = sa_call(&p, IB_MAD_METHOD_GET, IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID,
		    &rec, &ans);
	else
		st = sa_call(&p, leave ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET, mask, &rec, &ans);
	if (st < 0) {
		printf("no answer\n");
		return 1;
	}
	print_answer(st, &ans);
	umad_close_port(p.fd);
	umad_done();
	return st == 0 ? 0 : 3;
}
