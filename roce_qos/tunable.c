/*
 * The PFC storm prevention tunable over ioctl(SIOCETHTOOL).  The request is
 * laid out the way ethtool(8) lays it out: struct ethtool_tunable followed
 * by the u16, all fields set, so the kernel's ethtool_tunable_valid()
 * (len == 2, type U16) accepts it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

#include "roce_qos/profile.h"
#include "roce_qos/tunable.h"

_Static_assert(ROCE_STORM_AUTO == PFC_STORM_PREVENTION_AUTO, "auto value");
_Static_assert(sizeof(struct ethtool_tunable) == 16, "ethtool_tunable layout");

/* mlx5 resolves "auto" to this critical timeout and reports it on read. */
#define MLX5_STORM_AUTO_MS	100
#define STORM_MIN_MS		80
#define STORM_MAX_MS		8000

/* The socket is only a handle for the ioctl; its family does not matter. */
static int
sock_ioctl(void *ctx, struct ifreq *ifr)
{
	return ioctl((int)(intptr_t)ctx, SIOCETHTOOL, ifr);
}

static void
sock_close(void *ctx)
{
	close((int)(intptr_t)ctx);
}

int
roce_tun_open(struct roce_tun *t)
{
	int fd;

	memset(t, 0, sizeof(*t));
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	t->ioctl = sock_ioctl;
	t->close = sock_close;
	t->ctx = (void *)(intptr_t)fd;
	return 0;
}

void
roce_tun_close(struct roce_tun *t)
{
	if (t->close)
		t->close(t->ctx);
	t->close = NULL;
	t->ioctl = NULL;
}

size_t
roce_tun_build(void *buf, size_t len, uint32_t cmd, uint16_t value)
{
	struct ethtool_tunable h = {
		.cmd = cmd,
		.id = ETHTOOL_PFC_PREVENTION_TOUT,
		.type_id = ETHTOOL_TUNABLE_U16,
		.len = sizeof(uint16_t),
	};

	if (len < ROCE_TUN_REQLEN)
		return 0;
	memset(buf, 0, ROCE_TUN_REQLEN);
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), &value, sizeof(value));
	return ROCE_TUN_REQLEN;
}

static const char *
errno_hint(int e)
{
	switch (e) {
	case EOPNOTSUPP:
		return " (the driver or firmware has no PFC stall detection)";
	case EPERM:
		return " (needs CAP_NET_ADMIN)";
	case EINVAL:
		return " (value or request rejected by the driver)";
	case ENODEV:
		return " (no such interface)";
	}
	return "";
}

static int
tun_call(struct roce_tun *t, const char *ifname, uint32_t cmd, uint16_t *value)
{
	union {
		struct ethtool_tunable	h;	/* alignment */
		unsigned char		b[ROCE_TUN_REQLEN + 8];
	} req;
	struct ifreq ifr;
	int e;

	t->err[0] = '\0';
	if (t->ioctl == NULL) {
		snprintf(t->err, sizeof(t->err), "no ethtool access");
		errno = ENOTCONN;
		return -1;
	}
	roce_tun_build(req.b, sizeof(req.b), cmd, *value);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)req.b;
	if (t->ioctl(t->ctx, &ifr) == -1) {
		e = errno;
		snprintf(t->err, sizeof(t->err), "ethtool %s pfc-prevention-tout: %s%s",
		    cmd == ETHTOOL_GTUNABLE ? "get-tunable" : "set-tunable", strerror(e), errno_hint(e));
		errno = e;
		return -1;
	}
	if (cmd == ETHTOOL_GTUNABLE)
		memcpy(value, req.b + sizeof(struct ethtool_tunable), sizeof(*value));
	return 0;
}

int
roce_storm_get(struct roce_tun *t, const char *ifname, uint16_t *ms)
{
	*ms = 0;
	return tun_call(t, ifname, ETHTOOL_GTUNABLE, ms);
}

int
roce_storm_set(struct roce_tun *t, const char *ifname, uint16_t ms)
{
	return tun_call(t, ifname, ETHTOOL_STUNABLE, &ms);
}

bool
roce_storm_matches(int want, uint16_t found)
{
	if (want == ROCE_STORM_AUTO)
		return found == PFC_STORM_PREVENTION_AUTO || found == MLX5_STORM_AUTO_MS;
	return want == found;
}

const char *
roce_storm_text(int ms, char *buf, size_t len)
{
	if (ms == ROCE_STORM_AUTO)
		snprintf(buf, len, "auto");
	else if (ms == PFC_STORM_PREVENTION_DISABLE)
		snprintf(buf, len, "disabled");
	else
		snprintf(buf, len, "%d", ms);
	return buf;
}

bool
roce_storm_valid(int v)
{
	return v == PFC_STORM_PREVENTION_DISABLE || v == ROCE_STORM_AUTO ||
	    (v >= STORM_MIN_MS && v <= STORM_MAX_MS);
}
