/*
 * dcbnl over rtnetlink, as mlx5 speaks it: the NIC's DCB state, the
 * messages that read and change it, and the transport they travel on.
 *
 * Every write carries exactly one attribute (the kernel stops at the first
 * failing handler, so one per message attributes an error to one setting),
 * and a write succeeds only when both the ACK and the status byte the
 * driver puts in the reply say so.  The transport is a seam: the daemon
 * uses a libmnl socket, tests put a double of the kernel side behind it.
 */
#ifndef ROCE_QOS_DCBNL_H
#define ROCE_QOS_DCBNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/dcbnl.h>

/* Newer than bookworm's uapi headers; numbers from the kernel's enum. */
#ifndef DCB_ATTR_DCB_APP_TRUST_TABLE
#define DCB_ATTR_DCB_APP_TRUST_TABLE	11
#endif
#ifndef DCB_ATTR_DCB_REWR_TABLE
#define DCB_ATTR_DCB_REWR_TABLE		12
#endif
#ifndef RTNLGRP_DCB
#define RTNLGRP_DCB			23
#endif

_Static_assert(sizeof(struct ieee_ets) == 59, "ieee_ets layout");
_Static_assert(sizeof(struct ieee_pfc) == 136, "ieee_pfc layout");
_Static_assert(offsetof(struct ieee_pfc, delay) == 4, "ieee_pfc delay");
_Static_assert(offsetof(struct ieee_pfc, requests) == 8, "ieee_pfc requests");
_Static_assert(sizeof(struct ieee_maxrate) == 64, "ieee_maxrate layout");
_Static_assert(sizeof(struct dcbnl_buffer) == 44, "dcbnl_buffer layout");
_Static_assert(sizeof(struct dcb_app) == 4, "dcb_app layout");

#define ROCE_NPRIO	8
#define ROCE_NTC	8
#define ROCE_NDSCP	64
#define ROCE_NO_PRIO	0xff	/* dscp_prio[] entry without an APP entry */

/* What one IEEE_GET + GDCBX shows; has_* false when the driver left it out. */
struct dcb_state {
	bool			has_ets, has_pfc, has_maxrate, has_buffer, has_dcbx;
	struct ieee_ets		ets;
	struct ieee_pfc		pfc;
	struct ieee_maxrate	maxrate;
	struct dcbnl_buffer	buffer;
	uint8_t			dscp_prio[ROCE_NDSCP];	/* ROCE_NO_PRIO: none */
	uint8_t			dcbx;
};

/*
 * The transport seam: send one request, receive one datagram.  recv
 * returns bytes received, 0 when nothing more will come, -1 with errno.
 */
struct dcb_transport {
	ssize_t	(*send)(void *ctx, const void *buf, size_t len);
	ssize_t	(*recv)(void *ctx, void *buf, size_t len);
	void	(*close)(void *ctx);
	void	*ctx;
};

struct dcb_conn {
	struct dcb_transport	 t;
	uint32_t		 seq;
	uint32_t		 portid;
	char			 err[160];	/* last failure, human-readable */
};

/* The libmnl socket on NETLINK_ROUTE; groups: also join RTNLGRP_DCB. */
int dcb_transport_mnl(struct dcb_transport *t, bool subscribe, int *fd_out);
void dcb_conn_init(struct dcb_conn *c, const struct dcb_transport *t);
void dcb_conn_close(struct dcb_conn *c);

/* Read everything: IEEE_GET then GDCBX.  0, or -1 with errno and c->err. */
int dcb_get_state(struct dcb_conn *c, const char *ifname, struct dcb_state *st);

/* Writes: one attribute each; 0 or -1 with errno (ACK or driver status). */
int dcb_set_ets(struct dcb_conn *c, const char *ifname, const struct ieee_ets *ets);
int dcb_set_pfc(struct dcb_conn *c, const char *ifname, const struct ieee_pfc *pfc);
int dcb_set_maxrate(struct dcb_conn *c, const char *ifname, const struct ieee_maxrate *mr);
int dcb_set_buffer(struct dcb_conn *c, const char *ifname, const struct dcbnl_buffer *b);
int dcb_set_apps(struct dcb_conn *c, const char *ifname, bool del, const struct dcb_app *apps, size_t n);
int dcb_set_dcbx(struct dcb_conn *c, const char *ifname, uint8_t mode);

/* Encoding alone (for tests and dry runs): build into buf, return length. */
size_t dcb_build_ieee(void *buf, size_t len, uint32_t seq, int cmd, const char *ifname,
    int attr, const void *payload, size_t plen);
size_t dcb_build_apps(void *buf, size_t len, uint32_t seq, bool del, const char *ifname,
    const struct dcb_app *apps, size_t n);
size_t dcb_build_dcbx(void *buf, size_t len, uint32_t seq, const char *ifname, uint8_t mode);
/* Decode one IEEE_GET reply (the whole nlmsghdr) into st; 0 or -1. */
int dcb_parse_ieee(const void *msg, size_t len, struct dcb_state *st);

#endif
