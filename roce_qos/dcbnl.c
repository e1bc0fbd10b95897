/*
 * dcbnl messages through libmnl.  Requests look exactly like iproute2
 * dcb's (flags REQUEST|ACK, IFNAME with its NUL, IEEE nest with
 * NLA_F_NESTED) so that tests can compare them byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "roce_qos/dcbnl.h"

#define DCB_BUFSZ	8192

static ssize_t
mnl_t_send(void *ctx, const void *buf, size_t len)
{
	return mnl_socket_sendto(ctx, buf, len);
}

static ssize_t
mnl_t_recv(void *ctx, void *buf, size_t len)
{
	return mnl_socket_recvfrom(ctx, buf, len);
}

static void
mnl_t_close(void *ctx)
{
	mnl_socket_close(ctx);
}

int
dcb_transport_mnl(struct dcb_transport *t, bool subscribe, int *fd_out)
{
	struct mnl_socket *nl;
	unsigned groups = 0;

	if ((nl = mnl_socket_open(NETLINK_ROUTE)) == NULL)
		return -1;
	if (mnl_socket_bind(nl, groups, MNL_SOCKET_AUTOPID) == -1)
		goto fail;
	if (subscribe) {
		int grp = RTNLGRP_DCB;
		if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) == -1)
			goto fail;
	}
	t->send = mnl_t_send;
	t->recv = mnl_t_recv;
	t->close = mnl_t_close;
	t->ctx = nl;
	if (fd_out)
		*fd_out = mnl_socket_get_fd(nl);
	return 0;
fail:
	mnl_socket_close(nl);
	return -1;
}

void
dcb_conn_init(struct dcb_conn *c, const struct dcb_transport *t)
{
	memset(c, 0, sizeof(*c));
	c->t = *t;
	c->seq = 1;
}

void
dcb_conn_close(struct dcb_conn *c)
{
	if (c->t.close)
		c->t.close(c->t.ctx);
	c->t.close = NULL;
}

static struct nlmsghdr *
dcb_msg_start(void *buf, size_t len, uint32_t seq, int type, int cmd, const char *ifname)
{
	struct nlmsghdr *nlh;
	struct dcbmsg *d;

	memset(buf, 0, len);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	d->dcb_family = AF_UNSPEC;
	d->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	return nlh;
}

size_t
dcb_build_ieee(void *buf, size_t len, uint32_t seq, int cmd, const char *ifname,
    int attr, const void *payload, size_t plen)
{
	int type = cmd == DCB_CMD_IEEE_GET ? RTM_GETDCB : RTM_SETDCB;
	struct nlmsghdr *nlh = dcb_msg_start(buf, len, seq, type, cmd, ifname);
	struct nlattr *nest;

	if (payload) {
		nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
		mnl_attr_put(nlh, attr, plen, payload);
		mnl_attr_nest_end(nlh, nest);
	}
	return nlh->nlmsg_len;
}

size_t
dcb_build_apps(void *buf, size_t len, uint32_t seq, bool del, const char *ifname,
    const struct dcb_app *apps, size_t n)
{
	struct nlmsghdr *nlh = dcb_msg_start(buf, len, seq, RTM_SETDCB,
	    del ? DCB_CMD_IEEE_DEL : DCB_CMD_IEEE_SET, ifname);
	struct nlattr *ieee, *table;

	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	for (size_t i = 0; i < n; i++)
		mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(apps[i]), &apps[i]);
	mnl_attr_nest_end(nlh, table);
	mnl_attr_nest_end(nlh, ieee);
	return nlh->nlmsg_len;
}

size_t
dcb_build_dcbx(void *buf, size_t len, uint32_t seq, const char *ifname, uint8_t mode)
{
	struct nlmsghdr *nlh = dcb_msg_start(buf, len, seq, RTM_SETDCB, DCB_CMD_SDCBX, ifname);

	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, mode);
	return nlh->nlmsg_len;
}

static void
dcb_copy(void *dst, size_t dlen, const struct nlattr *a)
{
	size_t n = mnl_attr_get_payload_len(a);

	memset(dst, 0, dlen);
	memcpy(dst, mnl_attr_get_payload(a), n < dlen ? n : dlen);
}

static int
dcb_app_cb(const struct nlattr *a, void *data)
{
	struct dcb_state *st = data;
	const struct dcb_app *app;

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE_APP ||
	    mnl_attr_get_payload_len(a) < sizeof(*app))
		return MNL_CB_OK;
	app = mnl_attr_get_payload(a);
	if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP && app->protocol < ROCE_NDSCP)
		st->dscp_prio[app->protocol] = app->priority;
	return MNL_CB_OK;
}

static int
dcb_ieee_cb(const struct nlattr *a, void *data)
{
	struct dcb_state *st = data;
	size_t n = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case DCB_ATTR_IEEE_ETS:
		if (n >= sizeof(st->ets)) {
			dcb_copy(&st->ets, sizeof(st->ets), a);
			st->has_ets = true;
		}
		break;
	case DCB_ATTR_IEEE_PFC:
		if (n >= sizeof(st->pfc)) {
			dcb_copy(&st->pfc, sizeof(st->pfc), a);
			st->has_pfc = true;
		}
		break;
	case DCB_ATTR_IEEE_MAXRATE:
		if (n >= sizeof(st->maxrate)) {
			dcb_copy(&st->maxrate, sizeof(st->maxrate), a);
			st->has_maxrate = true;
		}
		break;
	case DCB_ATTR_DCB_BUFFER:
		if (n >= sizeof(st->buffer)) {
			dcb_copy(&st->buffer, sizeof(st->buffer), a);
			st->has_buffer = true;
		}
		break;
	case DCB_ATTR_IEEE_APP_TABLE:
		mnl_attr_parse_nested(a, dcb_app_cb, st);
		break;
	}
	return MNL_CB_OK;
}

static int
dcb_top_cb(const struct nlattr *a, void *data)
{
	struct dcb_state *st = data;

	switch (mnl_attr_get_type(a)) {
	case DCB_ATTR_IEEE:
		mnl_attr_parse_nested(a, dcb_ieee_cb, st);
		break;
	case DCB_ATTR_DCBX:
		if (mnl_attr_get_payload_len(a) >= 1) {
			st->dcbx = mnl_attr_get_u8(a);
			st->has_dcbx = true;
		}
		break;
	}
	return MNL_CB_OK;
}

int
dcb_parse_ieee(const void *msg, size_t len, struct dcb_state *st)
{
	const struct nlmsghdr *nlh = msg;

	if (!mnl_nlmsg_ok(nlh, (int)len) ||
	    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct dcbmsg)))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct dcbmsg), dcb_top_cb, st) == MNL_CB_ERROR ? -1 : 0;
}

/* What one exchange brought back besides the ACK. */
struct dcb_reply {
	int			 cmd;		/* the request's */
	struct dcb_state	*st;		/* GET: where to decode */
	bool			 seen;		/* a reply message arrived */
	int			 status;	/* SET: the driver's status, negated errno */
};

static int
dcb_status_cb(const struct nlattr *a, void *data)
{
	struct dcb_reply *r = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_get_payload_len(a) < 1)
		return MNL_CB_OK;
	/* The kernel truncates a negative errno into this u8. */
	if (type == DCB_ATTR_IEEE)
		r->status = (int8_t)mnl_attr_get_u8(a);
	else if (type == DCB_ATTR_DCBX && r->cmd == DCB_CMD_SDCBX)
		r->status = mnl_attr_get_u8(a) ? -EIO : 0;
	else if (type == DCB_ATTR_DCBX && r->cmd == DCB_CMD_GDCBX) {
		r->st->dcbx = mnl_attr_get_u8(a);
		r->st->has_dcbx = true;
	}
	return MNL_CB_OK;
}

static int
dcb_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dcb_reply *r = data;

	if (nlh->nlmsg_type != RTM_GETDCB && nlh->nlmsg_type != RTM_SETDCB)
		return MNL_CB_OK;
	r->seen = true;
	if (r->cmd == DCB_CMD_IEEE_GET)
		return dcb_parse_ieee(nlh, nlh->nlmsg_len, r->st) == 0 ? MNL_CB_OK : MNL_CB_ERROR;
	mnl_attr_parse(nlh, sizeof(struct dcbmsg), dcb_status_cb, r);
	return MNL_CB_OK;
}

/* Send one request and read until its ACK; fills r. */
static int
dcb_exchange(struct dcb_conn *c, void *buf, size_t len, struct dcb_reply *r)
{
	char rbuf[DCB_BUFSZ];
	uint32_t seq = ((struct nlmsghdr *)buf)->nlmsg_seq;
	ssize_t n;
	int ret;

	if (c->t.send(c->t.ctx, buf, len) < 0) {
		snprintf(c->err, sizeof(c->err), "send: %s", strerror(errno));
		return -1;
	}
	do {
		n = c->t.recv(c->t.ctx, rbuf, sizeof(rbuf));
		if (n <= 0) {
			if (n == 0)
				errno = EPROTO;
			snprintf(c->err, sizeof(c->err), "receive: %s", strerror(errno));
			return -1;
		}
		ret = mnl_cb_run(rbuf, n, seq, 0, dcb_reply_cb, r);
	} while (ret > MNL_CB_STOP);
	if (ret < 0) {
		snprintf(c->err, sizeof(c->err), "%s", strerror(errno));
		return -1;
	}
	return 0;
}

int
dcb_get_state(struct dcb_conn *c, const char *ifname, struct dcb_state *st)
{
	char buf[256];
	struct dcb_reply r = { .cmd = DCB_CMD_IEEE_GET, .st = st };
	size_t len;

	memset(st, 0, sizeof(*st));
	memset(st->dscp_prio, ROCE_NO_PRIO, sizeof(st->dscp_prio));
	len = dcb_build_ieee(buf, sizeof(buf), c->seq++, DCB_CMD_IEEE_GET, ifname, 0, NULL, 0);
	if (dcb_exchange(c, buf, len, &r) == -1)
		return -1;
	if (!r.seen) {
		errno = EPROTO;
		snprintf(c->err, sizeof(c->err), "no IEEE_GET reply");
		return -1;
	}
	len = dcb_build_ieee(buf, sizeof(buf), c->seq++, DCB_CMD_GDCBX, ifname, 0, NULL, 0);
	((struct nlmsghdr *)buf)->nlmsg_type = RTM_GETDCB;
	r = (struct dcb_reply){ .cmd = DCB_CMD_GDCBX, .st = st };
	return dcb_exchange(c, buf, len, &r);
}

/* A write: the ACK must be 0 and so must the driver's status. */
static int
dcb_write(struct dcb_conn *c, void *buf, size_t len, int cmd)
{
	struct dcb_reply r = { .cmd = cmd };

	if (dcb_exchange(c, buf, len, &r) == -1)
		return -1;
	if (r.status != 0) {
		errno = -r.status;
		snprintf(c->err, sizeof(c->err), "driver: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int
dcb_set_one(struct dcb_conn *c, const char *ifname, int attr, const void *p, size_t plen)
{
	char buf[512];
	size_t len = dcb_build_ieee(buf, sizeof(buf), c->seq++, DCB_CMD_IEEE_SET, ifname, attr, p, plen);

	return dcb_write(c, buf, len, DCB_CMD_IEEE_SET);
}

int
dcb_set_ets(struct dcb_conn *c, const char *ifname, const struct ieee_ets *ets)
{
	return dcb_set_one(c, ifname, DCB_ATTR_IEEE_ETS, ets, sizeof(*ets));
}

int
dcb_set_pfc(struct dcb_conn *c, const char *ifname, const struct ieee_pfc *pfc)
{
	return dcb_set_one(c, ifname, DCB_ATTR_IEEE_PFC, pfc, sizeof(*pfc));
}

int
dcb_set_maxrate(struct dcb_conn *c, const char *ifname, const struct ieee_maxrate *mr)
{
	return dcb_set_one(c, ifname, DCB_ATTR_IEEE_MAXRATE, mr, sizeof(*mr));
}

int
dcb_set_buffer(struct dcb_conn *c, const char *ifname, const struct dcbnl_buffer *b)
{
	return dcb_set_one(c, ifname, DCB_ATTR_DCB_BUFFER, b, sizeof(*b));
}

int
dcb_set_apps(struct dcb_conn *c, const char *ifname, bool del, const struct dcb_app *apps, size_t n)
{
	char buf[1024];
	size_t len;

	if (n > ROCE_NDSCP) {
		errno = EINVAL;
		return -1;
	}
	len = dcb_build_apps(buf, sizeof(buf), c->seq++, del, ifname, apps, n);
	return dcb_write(c, buf, len, del ? DCB_CMD_IEEE_DEL : DCB_CMD_IEEE_SET);
}

int
dcb_set_dcbx(struct dcb_conn *c, const char *ifname, uint8_t mode)
{
	char buf[128];
	size_t len = dcb_build_dcbx(buf, sizeof(buf), c->seq++, ifname, mode);

	return dcb_write(c, buf, len, DCB_CMD_SDCBX);
}
