/*
 * SMI/GSI pairs (mad/port_pair.h): which device of a plane carries QP0.
 *
 * Why at run time (dlsym) and not at build time: rdma-core added
 * umad_get_smi_gsi_pair_by_ca_name() in v56; Debian 12 ships v44.  The
 * same fabricd binary runs on both, so it asks the libibumad it was
 * loaded with, and reads sysfs itself where that one has no such call.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <umad.h>

#include "common/log.h"
#include "mad/port_pair.h"

#define CAP_SM_DISABLED	(1u << 10)	/* PortInfo CapabilityMask IsSMDisabled */

/* rdma-core v56's struct umad_ca_pair, which a v44 umad.h does not have:
 * the layout of its man page, under our own name so that no header's
 * declaration can clash. */
struct v56_ca_pair {
	char		smi_name[UMAD_CA_NAME_LEN];
	uint32_t	smi_preferred_port;
	char		gsi_name[UMAD_CA_NAME_LEN];
	uint32_t	gsi_preferred_port;
};
typedef int (*pair_by_name_fn)(const char *devname, uint8_t portnum, struct v56_ca_pair *ca);

/* libibumad's answer: 1 a pair, 0 none, -1 no such call here. */
static int
pair_libumad(const char *ca, unsigned port, struct mad_port_pair *out)
{
	pair_by_name_fn fn;
	struct v56_ca_pair p;

	*(void **)&fn = dlsym(RTLD_DEFAULT, "umad_get_smi_gsi_pair_by_ca_name");
	if (fn == NULL)
		return -1;
	memset(&p, 0, sizeof(p));
	if (fn(ca, (uint8_t)port, &p) != 0)
		return 0;	/* its "no such device or port": the caller opens it as named */
	p.smi_name[UMAD_CA_NAME_LEN - 1] = p.gsi_name[UMAD_CA_NAME_LEN - 1] = 0;
	if (p.smi_name[0] == 0 || p.gsi_name[0] == 0 || strcmp(p.smi_name, p.gsi_name) == 0)
		return 0;	/* a legacy HCA: one device is both */
	snprintf(out->smi, sizeof(out->smi), "%s", p.smi_name);
	snprintf(out->gsi, sizeof(out->gsi), "%s", p.gsi_name);
	out->smi_port = p.smi_preferred_port ? p.smi_preferred_port : port;
	out->gsi_port = p.gsi_preferred_port ? p.gsi_preferred_port : port;
	return 1;
}

int
mad_port_pair_find(const char *ca, unsigned port, struct mad_port_pair *out)
{
	int rc = pair_libumad(ca, port, out);

	if (rc >= 0)
		return rc;
	return mad_port_pair_sysfs("/sys", ca, port, out);
}

/* ---- sysfs ---- */

/* The first line of root/class/infiniband/DEV/ports/PORT/FILE into buf. */
static int
read_port_file(const char *root, const char *dev, const char *port, const char *file,
    char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int rc = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/%s", root, dev,
	    port, file) >= sizeof(path) || (f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, (int)len, f) != NULL) {
		buf[strcspn(buf, "\n")] = 0;
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* A port's GUID (the low 64 bits of GID 0, "fe80:0000:0000:0000:0002:c903:
 * 00f0:0001") and its CapabilityMask ("0x0251086a"); -1 unreadable. */
static int
port_ids(const char *root, const char *dev, const char *port, uint64_t *guid, uint32_t *cap)
{
	char gid[64], capmask[32], *end;
	unsigned g[8];

	if (read_port_file(root, dev, port, "gids/0", gid, sizeof(gid)) < 0 ||
	    read_port_file(root, dev, port, "cap_mask", capmask, sizeof(capmask)) < 0 ||
	    sscanf(gid, "%x:%x:%x:%x:%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5],
	    &g[6], &g[7]) != 8)
		return -1;
	*guid = (uint64_t)g[4] << 48 | (uint64_t)g[5] << 32 | (uint64_t)g[6] << 16 | g[7];
	*cap = (uint32_t)strtoul(capmask, &end, 0);
	return *guid != 0 && end != capmask ? 0 : -1;
}

struct sysfs_port {
	char		dev[MAD_CA_NAME_LEN];
	unsigned	port;
	uint32_t	cap;
};

/* Another device's port with GUID guid: 1 found into *found, 0 none. */
static int
find_twin(const char *root, const char *self, uint64_t guid, struct sysfs_port *found)
{
	char dir[PATH_MAX];
	struct dirent **devs = NULL;
	int n, i, rc = 0;

	snprintf(dir, sizeof(dir), "%s/class/infiniband", root);
	if ((n = scandir(dir, &devs, NULL, alphasort)) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		const char *d = devs[i]->d_name;
		char num[12];

		/* ports are numbered from 1 on: the first one missing ends them */
		for (unsigned p = 1; rc == 0 && d[0] != '.' && strcmp(d, self) != 0 &&
		    strlen(d) < MAD_CA_NAME_LEN && p <= 255; p++) {
			uint64_t g;
			uint32_t cap;

			snprintf(num, sizeof(num), "%u", p);
			if (port_ids(root, d, num, &g, &cap) < 0)
				break;
			if (g != guid)
				continue;
			memcpy(found->dev, d, strlen(d) + 1);	/* shorter: checked above */
			found->port = p;
			found->cap = cap;
			rc = 1;
		}
		free(devs[i]);
	}
	free(devs);
	return rc;
}

int
mad_port_pair_sysfs(const char *root, const char *ca, unsigned port, struct mad_port_pair *out)
{
	struct sysfs_port self = { .port = port }, twin;
	const struct sysfs_port *smi, *gsi;
	char num[12];
	uint64_t guid;
	bool self_gsi, twin_gsi;

	snprintf(num, sizeof(num), "%u", port);
	snprintf(self.dev, sizeof(self.dev), "%s", ca);
	if (port_ids(root, ca, num, &guid, &self.cap) < 0 || !find_twin(root, ca, guid, &twin))
		return 0;
	self_gsi = self.cap & CAP_SM_DISABLED;
	twin_gsi = twin.cap & CAP_SM_DISABLED;
	if (self_gsi == twin_gsi) {
		log_warnx("mad: %s port %u and %s port %u share GUID 0x%016" PRIx64 " but IsSMDisabled "
		    "is %s on both: cannot tell the SMI from the GSI", ca, port, twin.dev, twin.port,
		    guid, self_gsi ? "set" : "clear");
		return -1;
	}
	smi = self_gsi ? &twin : &self;
	gsi = self_gsi ? &self : &twin;
	snprintf(out->smi, sizeof(out->smi), "%s", smi->dev);
	snprintf(out->gsi, sizeof(out->gsi), "%s", gsi->dev);
	out->smi_port = smi->port;
	out->gsi_port = gsi->port;
	return 1;
}

/* ---- both ports at once ---- */

/* The readable one of the two ports, the other first next time; -1 none. */
static int
pair_wait(int fd_a, int fd_b, int timeout_ms, unsigned *turn)
{
	struct pollfd p[2] = {
		{ .fd = umad_get_fd(fd_a), .events = POLLIN },
		{ .fd = umad_get_fd(fd_b), .events = POLLIN },
	};
	unsigned first = *turn & 1;

	if (poll(p, 2, timeout_ms) <= 0)
		return -1;
	for (unsigned i = 0; i < 2; i++) {
		unsigned k = (first + i) & 1;

		if (p[k].revents & (POLLIN | POLLERR | POLLHUP)) {
			*turn = k + 1;
			return k == 0 ? fd_a : fd_b;
		}
	}
	return -1;
}

int
mad_port_pair_recv(int fd, int smi_fd, void *umad, int *length, int timeout_ms,
    unsigned *turn, int *from)
{
	*from = fd;
	if (smi_fd < 0)
		return umad_recv(fd, umad, length, timeout_ms);
	if ((*from = pair_wait(fd, smi_fd, timeout_ms, turn)) < 0) {
		*from = fd;
		return -ETIMEDOUT;
	}
	/* poll() said readable: no wait (a MAD no agent takes: -EAGAIN) */
	return umad_recv(*from, umad, length, 0);
}

void
mad_port_pair_close(int fd, int smi_fd)
{
	if (fd >= 0)
		umad_close_port(fd);
	if (smi_fd >= 0)
		umad_close_port(smi_fd);
}

/* ---- opening ---- */

int
mad_port_pair_open(const char *ca, unsigned port, int *fd, int *smi_fd)
{
	struct mad_port_pair pp;
	int rc = mad_port_pair_find(ca, port, &pp);

	*fd = *smi_fd = -1;
	if (rc < 0)
		return -1;
	if (rc == 0) {
		if ((*fd = umad_open_port(ca, (int)port)) < 0) {
			log_warnx("mad: cannot open %s port %u", ca, port);
			return -1;
		}
		return 0;
	}
	if ((*fd = umad_open_port(pp.gsi, (int)pp.gsi_port)) < 0 ||
	    (*smi_fd = umad_open_port(pp.smi, (int)pp.smi_port)) < 0) {
		log_warnx("mad: %s port %u is an SMI/GSI pair: cannot open %s port %u",
		    ca, port, *fd < 0 ? pp.gsi : pp.smi, *fd < 0 ? pp.gsi_port : pp.smi_port);
		if (*fd >= 0)
			umad_close_port(*fd);
		*fd = *smi_fd = -1;
		return -1;
	}
	log_info("mad: %s port %u is an SMI/GSI pair: SMPs through %s port %u, the other "
	    "classes through %s port %u", ca, port, pp.smi, pp.smi_port, pp.gsi, pp.gsi_port);
	return 0;
}
