/*
 * Opening the MAD engine's port (mad/ only): which device and port has the
 * GUID, and one agent per class that can arrive (port_open.c).
 */
#ifndef FABRICD_MAD_PORT_OPEN_H
#define FABRICD_MAD_PORT_OPEN_H

#include <stdbool.h>
#include <stdint.h>

/* The port whose GUID is want (0: the first with a GUID): its device name
 * (ca_out, UMAD_CA_NAME_LEN bytes), number and GUID; -1 when none (logged,
 * at debug level only when optional and there is no device at all). */
int mad_find_port(uint64_t want, bool optional, char *ca_out, int *port_out,
    uint64_t *guid_out);
/* The same for a device named ca and its port number. */
int mad_find_ca_port(const char *ca, int port, char *ca_out, int *port_out, uint64_t *guid_out);
/* Registers the agents on the umad port fd (the SMP classes on smi_fd
 * instead where it is an SMI/GSI pair's SMI port, -1 none): agent[class]
 * is its id on its port, -1 none; serve: they take the requests an SM and its SA answer (else only
 * the SA's Reports, an observer's); *kernel_rmpp says whether the kernel
 * segments and reassembles the SA class's RMPP transfers.  -1 when a
 * class the SM needs is refused. */
int mad_register_agents(int fd, int smi_fd, bool serve, int agent[256],
    bool *kernel_rmpp);

#endif
