/*
 * SMI/GSI pairs (mad/ only): a plane of a multi-plane HCA (Linux 6.11,
 * mlx5) is an SMI sub-device carrying QP0 beside its parent carrying QP1,
 * both with the port's GUID.  The engine sends SMPs through the SMI
 * device and every other class through the GSI device (port_pair.c;
 * docs/sm.md "SMI/GSI pairs").
 */
#ifndef FABRICD_MAD_PORT_PAIR_H
#define FABRICD_MAD_PORT_PAIR_H

#include "mad/mad.h"

struct mad_port_pair {
	char		smi[MAD_CA_NAME_LEN];	/* QP0: SMPs */
	unsigned	smi_port;
	char		gsi[MAD_CA_NAME_LEN];	/* QP1: SA, PerfMgt, the rest */
	unsigned	gsi_port;
};

/*
 * The pair of device ca's port (ca may be either member): 1 with *out
 * filled, 0 where the port is no pair's (a legacy HCA: one device carries
 * both QPs).  Asks libibumad's umad_get_smi_gsi_pair_by_ca_name() where
 * the process has one (rdma-core v56 and later), else sysfs.
 */
int mad_port_pair_find(const char *ca, unsigned port, struct mad_port_pair *out);

/*
 * The same from sysfs under root ("/sys"): the device whose port shares
 * ca's port GUID, the one of the two with IsSMDisabled set (PortInfo
 * CapabilityMask bit 10) the GSI.  1, 0 as above; -1 (logged) where two
 * devices share it but the bit does not tell them apart.
 */
int mad_port_pair_sysfs(const char *root, const char *ca, unsigned port,
    struct mad_port_pair *out);

/* Opens device ca's port for the engine: *fd the GSI port of its pair, or
 * the port itself where it is no pair's, and *smi_fd the pair's SMI port
 * (-1: none).  0, or -1 logged (nothing left open). */
int mad_port_pair_open(const char *ca, unsigned port, int *fd, int *smi_fd);

/* The port a MAD of class mclass leaves by: an SMI/GSI pair's SMPs by its
 * SMI port smi_fd, all else (and everything without a pair) by fd. */
static inline int
mad_port_pair_fd(int fd, int smi_fd, uint8_t mclass)
{
	return smi_fd >= 0 && (mclass == 0x01 || mclass == 0x81) ? smi_fd : fd;
}

/*
 * umad_recv() for the engine's receive thread: on fd alone, exactly as
 * umad_recv(fd, umad, length, timeout_ms), where smi_fd < 0; with a pair,
 * poll() on both (real fds: umad2sim, whose are not, never gives a pair)
 * for at most timeout_ms, then a read of the readable one, taking turns
 * when both are (-ETIMEDOUT when neither is).  *from: the port read.
 */
int mad_port_pair_recv(int fd, int smi_fd, void *umad, int *length, int timeout_ms,
    unsigned *turn, int *from);

/* umad_close_port() of both (either may be -1: not open). */
void mad_port_pair_close(int fd, int smi_fd);

#endif
