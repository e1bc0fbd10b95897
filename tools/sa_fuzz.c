/*
 * sa_fuzz: throw malformed SubnAdm (class 0x03) MADs at the SA of the
 * subnet, as a raw libibumad client would, and count the answers.
 *
 * usage: sa_fuzz [-n COUNT] [-s SEED] [-d DLID]
 *
 * Each MAD has a random length (24..256 bytes) and random contents; half
 * of them get a plausible header (base version 1, class version 2, a
 * request method, a known SA attribute, SM_Key 0) so that they reach the
 * SA's checks beyond the first.  The class byte is always 0x03: an answer of
 * another class would find no agent here (and under umad2sim that kills
 * the receiving process).  At most 32 MADs are outstanding at once.  The
 * destination is the SM LID of the port (or DLID).
 *
 * Prints "sent N answered M errors E" (E: answers with a non-zero status)
 * and exits 0; 2 when the port cannot be opened.  Used by
 * tests/integration/sm_sa.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <infiniband/umad.h>

#define MAD_LEN		256
#define BATCH		32
#define QP1_QKEY	0x80010000u

static uint32_t seed = 1;

static uint8_t
rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (uint8_t)(seed >> 16);
}

static size_t
make_mad(uint8_t *mad, unsigned i)
{
	static const uint8_t methods[] = { 0x01, 0x12, 0x02, 0x14, 0x13, 0x15, 0x7E };
	static const uint8_t attrs[] = { 0x01, 0x11, 0x12, 0x18, 0x20, 0x35, 0x99 };
	size_t len = 24 + rnd() % (MAD_LEN - 24 + 1);

	for (size_t j = 0; j < MAD_LEN; j++)
		mad[j] = rnd();
	mad[1] = 0x03;
	mad[3] &= 0x7F;			/* a request: a response would not be answered */
	if (i % 2) {
		mad[0] = 1;
		mad[2] = 2;
		mad[3] = methods[rnd() % sizeof(methods)];
		mad[16] = 0;
		mad[17] = attrs[rnd() % sizeof(attrs)];
		memset(mad + 24, 0, 8);	/* SM_Key 0: a wrong one is dropped unanswered */
	}
	return len;
}

int
main(int argc, char **argv)
{
	unsigned count = 200, sent = 0, answered = 0, errors = 0;
	int dlid = -1, c, fd, agent;
	umad_port_t port;
	void *umad;

	while ((c = getopt(argc, argv, "n:s:d:")) != -1) {
		switch (c) {
		case 'n': count = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': seed = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': dlid = (int)strtol(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: sa_fuzz [-n COUNT] [-s SEED] [-d DLID]\n");
			return 2;
		}
	}
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "sa_fuzz: no umad port\n");
		return 2;
	}
	if (dlid < 0)
		dlid = port.sm_lid;
	umad_release_port(&port);
	if ((fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, 0x03, 2, 1, NULL)) < 0) {
		fprintf(stderr, "sa_fuzz: cannot open the port or register for class 0x03\n");
		return 2;
	}
	umad = calloc(1, umad_size() + MAD_LEN);
	while (sent < count) {
		unsigned batch = 0;

		for (; batch < BATCH && sent < count; batch++, sent++) {
			size_t len = make_mad(umad_get_mad(umad), sent);

			umad_set_addr(umad, dlid, 1, 0, QP1_QKEY);
			if (umad_send(fd, agent, umad, (int)len, 100, 0) < 0)
				fprintf(stderr, "sa_fuzz: send: %s\n", strerror(errno));
		}
		/* Drain what comes back before the next batch. */
		for (;;) {
			int len = MAD_LEN;

			if (umad_recv(fd, umad, &len, 300) < 0)
				break;
			if (umad_status(umad) != 0)
				continue;	/* the transport gave up: no answer */
			answered++;
			if (((uint8_t *)umad_get_mad(umad))[4] || ((uint8_t *)umad_get_mad(umad))[5])
				errors++;
		}
	}
	printf("sent %u answered %u errors %u\n", sent, answered, errors);
	free(umad);
	umad_close_port(fd);
	umad_done();
	return 0;
}
