/*
 * PFC storm prevention: the ethtool tunable ETHTOOL_PFC_PREVENTION_TOUT, a
 * u16 in milliseconds after which a NIC stuck sending PAUSE stops honouring
 * PFC (0 disables, PFC_STORM_PREVENTION_AUTO lets the driver choose; mlx5
 * takes 80..8000 and reads "auto" back as 100).  Read and written with
 * ioctl(SIOCETHTOOL) ETHTOOL_GTUNABLE / ETHTOOL_STUNABLE, exactly as
 * ethtool --get-tunable / --set-tunable pass it, so that tests can compare
 * the two byte for byte.
 *
 * The ioctl is a seam like dcbnl's transport: the daemon uses a datagram
 * socket, tests put the mlx5 double behind it (in process, or LD_PRELOAD).
 */
#ifndef ROCE_QOS_TUNABLE_H
#define ROCE_QOS_TUNABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <linux/ethtool.h>

#ifndef PFC_STORM_PREVENTION_AUTO
#define PFC_STORM_PREVENTION_AUTO	0xffff
#endif
#ifndef PFC_STORM_PREVENTION_DISABLE
#define PFC_STORM_PREVENTION_DISABLE	0
#endif

/* What SIOCETHTOOL carries for a u16 tunable: the header, then the value. */
#define ROCE_TUN_REQLEN	(sizeof(struct ethtool_tunable) + sizeof(uint16_t))

/*
 * The seam: one SIOCETHTOOL on ifr (ifr_name set, ifr_data pointing at the
 * request).  0, or -1 with errno as the kernel would set it.
 */
struct roce_tun {
	int	(*ioctl)(void *ctx, struct ifreq *ifr);
	void	(*close)(void *ctx);
	void	*ctx;
	char	 err[160];	/* last failure, human-readable */
};

/* The kernel door: an AF_INET datagram socket, as ethtool uses.  0 or -1. */
int roce_tun_open(struct roce_tun *t);
void roce_tun_close(struct roce_tun *t);

/* Encoding alone (tests): GTUNABLE or STUNABLE request for the timeout. */
size_t roce_tun_build(void *buf, size_t len, uint32_t cmd, uint16_t value);

/* Read / write the timeout of ifname.  0, or -1 with errno and t->err. */
int roce_storm_get(struct roce_tun *t, const char *ifname, uint16_t *ms);
int roce_storm_set(struct roce_tun *t, const char *ifname, uint16_t ms);

/* Does what the NIC reports satisfy the wanted value?  (auto reads back
 * as the driver's resolved timeout on mlx5.) */
bool roce_storm_matches(int want, uint16_t found);
/* "auto", "disabled" or the milliseconds, for diffs and events. */
const char *roce_storm_text(int ms, char *buf, size_t len);
/* Is v a value the kernel and mlx5 accept (0, 80..8000, auto)? */
bool roce_storm_valid(int v);

#endif
