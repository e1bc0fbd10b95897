/*
 * smi_set: send one SubnSet(SMInfo) to an SM, as another SM would, and
 * print what it answers.  No infiniband-diags tool sends SMInfo Sets, so
 * the SM_Key and state-machine tests need this raw libibumad client.
 *
 * usage: smi_set -m MOD [-d DLID] [-k SM_KEY] [-g GUID] [-p PRIORITY] [-s STATE]
 *
 *   MOD     AttributeModifier: 1 HANDOVER, 2 ACKNOWLEDGE, 3 DISABLE,
 *           4 STANDBY, 5 DISCOVER
 *   DLID    the SM's LID (default: this port's SM LID)
 *   SM_KEY  the key the Set carries (default 1, OpenSM's)
 *   GUID, PRIORITY, STATE  who we say we are (default GUID 0x1, priority
 *           0, state 3 MASTER, which the Sets other than ACKNOWLEDGE need)
 *
 * Prints "status 0xSSSS state N priority P guid 0xG" from the GetResp and
 * exits 0; 1 when nothing came back; 2 on a usage or port error.
 *
 * usage: smi_set -A ATTR -M MOD -d DLID -b OFFSET=BYTE[,OFFSET=BYTE...]
 *
 *   Any other attribute, as a host that is not the SM could: SubnGet it
 *   (LID routed, no M_Key), change the given bytes of the 64-byte SMP
 *   payload, SubnSet it back.  The audit tests tamper with LFT blocks
 *   (0x19) and P_Key tables (0x16) this way.  Prints "status 0xSSSS" of
 *   the Set's GetResp, then "OFFSET=0xBB" for each changed byte as that
 *   GetResp reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define MAD_LEN		256

static void
usage(void)
{
	fprintf(stderr, "usage: smi_set -m MOD [-d DLID] [-k SM_KEY] [-g GUID] [-p PRIORITY] "
	    "[-s STATE]\n       smi_set -A ATTR -M MOD -d DLID -b OFFSET=BYTE[,...]\n");
	exit(2);
}

static int
transact(int fd, int agent, void *umad, long dlid)
{
	int len = MAD_LEN;

	int rc;

	umad_set_addr(umad, (int)dlid, 0, 0, 0);
	if ((rc = umad_send(fd, agent, umad, MAD_LEN, 500, 2)) < 0 ||
	    (rc = umad_recv(fd, umad, &len, 3000)) < 0 || umad_status(umad) != 0)
		return -1;
	return 0;
}

/* -A mode: Get, patch bytes, Set. */
static int
patch_attr(unsigned attr, uint32_t mod, long dlid, char *patches)
{
	int fd, agent;
	void *umad;
	ib_smp_t *smp;
	char *tok, *save = NULL;
	uint8_t changed[IB_SMP_DATA_SIZE] = { 0 };

	if ((fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_MCLASS_SUBN_LID, 1, 0, NULL)) < 0) {
		fprintf(stderr, "smi_set: cannot open the port or register for class 0x01\n");
		return 2;
	}
	/* only now: the umad header's size is settled when the port opens */
	umad = calloc(1, umad_size() + MAD_LEN);
	smp = umad_get_mad(umad);
	memset(smp, 0, MAD_LEN);
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_LID;
	smp->class_ver = 1;
	smp->method = IB_MAD_METHOD_GET;
	smp->trans_id = htobe64(0x6e7u);
	smp->attr_id = htobe16((uint16_t)attr);
	smp->attr_mod = htobe32(mod);
	if (transact(fd, agent, umad, dlid) < 0 || (be16toh(smp->status) & 0x7FFF) != 0) {
		printf("no answer to the Get (umad status %d, MAD status 0x%04x)\n",
		    umad_status(umad), be16toh(smp->status));
		return 1;
	}
	for (tok = strtok_r(patches, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		long off = strtol(tok, NULL, 0);

		if (eq == NULL || off < 0 || off >= IB_SMP_DATA_SIZE)
			usage();
		smp->data[off] = (uint8_t)strtoul(eq + 1, NULL, 0);
		changed[off] = 1;
	}
	smp->method = IB_MAD_METHOD_SET;
	smp->trans_id = htobe64(0x6e8u);
	smp->status = 0;
	if (transact(fd, agent, umad, dlid) < 0) {
		printf("no answer\n");
		return 1;
	}
	/* what the port answered it holds now, at the bytes we changed */
	printf("status 0x%04x", be16toh(smp->status) & 0x7FFF);
	for (int i = 0; i < IB_SMP_DATA_SIZE; i++)
		if (changed[i])
			printf(" %d=0x%02x", i, smp->data[i]);
	printf("\n");
	free(umad);
	umad_close_port(fd);
	return 0;
}

static void
build(uint8_t *mad, uint32_t mod, uint64_t key, uint64_t guid, unsigned pri, unsigned state)
{
	ib_smp_t *smp = (ib_smp_t *)mad;
	ib_sm_info_t *si = (ib_sm_info_t *)smp->data;

	memset(mad, 0, MAD_LEN);
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_LID;
	smp->class_ver = 1;
	smp->method = IB_MAD_METHOD_SET;
	smp->trans_id = htobe64(0x5e7u);
	smp->attr_id = IB_MAD_ATTR_SM_INFO;
	smp->attr_mod = htobe32(mod);
	si->guid = htobe64(guid);
	si->sm_key = htobe64(key);
	si->pri_state = (uint8_t)((pri << 4) | (state & 0x0F));
}

int
main(int argc, char **argv)
{
	uint64_t key = 1, guid = 1;
	unsigned pri = 0, state = IB_SMINFO_STATE_MASTER;
	long mod = -1, dlid = -1, attr = -1, amod = 0;
	char *patches = NULL;
	int c, fd, agent, len = MAD_LEN;
	umad_port_t port;
	void *umad;
	const ib_smp_t *smp;
	const ib_sm_info_t *si;

	while ((c = getopt(argc, argv, "m:d:k:g:p:s:A:M:b:")) != -1) {
		switch (c) {
		case 'A': attr = strtol(optarg, NULL, 0); break;
		case 'M': amod = strtol(optarg, NULL, 0); break;
		case 'b': patches = optarg; break;
		case 'm': mod = strtol(optarg, NULL, 0); break;
		case 'd': dlid = strtol(optarg, NULL, 0); break;
		case 'k': key = strtoull(optarg, NULL, 0); break;
		case 'g': guid = strtoull(optarg, NULL, 0); break;
		case 'p': pri = (unsigned)strtoul(optarg, NULL, 0) & 0x0F; break;
		case 's': state = (unsigned)strtoul(optarg, NULL, 0) & 0x0F; break;
		default: usage();
		}
	}
	if (attr >= 0) {
		if (dlid < 0 || patches == NULL || optind != argc || umad_init() < 0)
			usage();
		return patch_attr((unsigned)attr, (uint32_t)amod, dlid, patches);
	}
	if (mod < 0 || optind != argc)
		usage();
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "smi_set: no umad port\n");
		return 2;
	}
	if (dlid < 0)
		dlid = port.sm_lid;
	umad_release_port(&port);
	if ((fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_MCLASS_SUBN_LID, 1, 0, NULL)) < 0) {
		fprintf(stderr, "smi_set: cannot open the port or register for class 0x01\n");
		return 2;
	}
	umad = calloc(1, umad_size() + MAD_LEN);
	build(umad_get_mad(umad), (uint32_t)mod, key, guid, pri, state);
	umad_set_addr(umad, (int)dlid, 0, 0, 0);
	if (umad_send(fd, agent, umad, MAD_LEN, 500, 2) < 0 ||
	    umad_recv(fd, umad, &len, 3000) < 0 || umad_status(umad) != 0) {
		printf("no answer\n");
		return 1;
	}
	smp = umad_get_mad(umad);
	si = (const ib_sm_info_t *)smp->data;
	printf("status 0x%04x state %u priority %u guid 0x%016llx\n",
	    be16toh(smp->status) & 0x7FFF, ib_sminfo_get_state(si), ib_sminfo_get_priority(si),
	    (unsigned long long)be64toh(si->guid));
	free(umad);
	umad_close_port(fd);
	umad_done();
	return 0;
}
