/* RoCE host counters and PFC storm detection: see roce.h. */
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "health/roce.h"

/* Bounded formatting for paths and names: truncation is an error the
 * caller sees (an overlong name simply is not found), not a warning. */
static bool __attribute__((format(printf, 3, 4)))
fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

static const char *const roce_hw_names[ROCE_HW_COUNT] = {
	[ROCE_CNP_SENT] = "np_cnp_sent",
	[ROCE_CNP_HANDLED] = "rp_cnp_handled",
	[ROCE_ECN_MARKED] = "np_ecn_marked_roce_packets",
	[ROCE_OUT_OF_SEQUENCE] = "out_of_sequence",
	[ROCE_PACKET_SEQ_ERR] = "packet_seq_err",
};

const char *
roce_hw_name(enum roce_hw c)
{
	return roce_hw_names[c];
}

const char *
pfc_stat_name(enum pfc_kind k, unsigned prio, char *buf, size_t len)
{
	static const char *const fmts[PFC_KIND_COUNT] = {
		"rx_prio%u_pause", "tx_prio%u_pause",
		"rx_prio%u_pause_duration", "tx_prio%u_pause_duration",
	};
	snprintf(buf, len, fmts[k], prio);
	return buf;
}

void
roce_monitor_init(struct roce_monitor *m, const char *root, uint64_t storm_window_ms)
{
	memset(m, 0, sizeof(*m));
	m->root = xstrdup(root ? root : "/sys");
	m->storm_window_ms = storm_window_ms;
}

void
roce_monitor_free(struct roce_monitor *m)
{
	for (size_t i = 0; i < m->nports; i++)
		free(m->ports[i].ethtool_index);
	free(m->ports);
	free(m->root);
	memset(m, 0, sizeof(*m));
}

/* Read a small text file into buf, trailing newline removed; -1 if absent. */
static int
read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int
read_u64(const char *path, uint64_t *out)
{
	char buf[32], *end;

	if (read_text(path, buf, sizeof(buf)) < 0 || buf[0] == '\0')
		return -1;
	errno = 0;
	*out = strtoull(buf, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static bool
port_is_roce(const char *root, const char *dev, const char *port)
{
	char path[512], ll[32];

	fmt(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/link_layer", root, dev, port);
	return read_text(path, ll, sizeof(ll)) == 0 && !strcmp(ll, "Ethernet");
}

static void
port_add(struct roce_monitor *m, const char *dev, unsigned port)
{
	struct roce_port *rp;
	char path[512];

	m->ports = xreallocarray(m->ports, m->nports + 1, sizeof(*m->ports));
	rp = &m->ports[m->nports++];
	memset(rp, 0, sizeof(*rp));
	fmt(rp->dev, sizeof(rp->dev), "%s", dev);
	rp->port = port;
	/* GID 0's netdev is the port's own interface. */
	fmt(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
	    m->root, dev, port);
	if (read_text(path, rp->netdev, sizeof(rp->netdev)) < 0)
		rp->netdev[0] = '\0';
}

size_t
roce_discover(struct roce_monitor *m)
{
	char path[512];
	DIR *devs, *ports;
	struct dirent *d, *p;

	for (size_t i = 0; i < m->nports; i++)
		free(m->ports[i].ethtool_index);
	m->nports = 0;
	fmt(path, sizeof(path), "%s/class/infiniband", m->root);
	if ((devs = opendir(path)) == NULL)
		return 0;
	while ((d = readdir(devs)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		fmt(path, sizeof(path), "%s/class/infiniband/%s/ports", m->root, d->d_name);
		if ((ports = opendir(path)) == NULL)
			continue;
		while ((p = readdir(ports)) != NULL)
			if (p->d_name[0] != '.' && port_is_roce(m->root, d->d_name, p->d_name))
				port_add(m, d->d_name, (unsigned)atoi(p->d_name));
		closedir(ports);
	}
	closedir(devs);
	return m->nports;
}

/* Number of ethtool statistics of the netdev, 0 when none / no such device. */
static uint32_t
ethtool_count(int s, struct ifreq *ifr)
{
	struct ethtool_sset_info *si = xcalloc(1, sizeof(*si) + sizeof(uint32_t));
	uint32_t n = 0;

	si->cmd = ETHTOOL_GSSET_INFO;
	si->sset_mask = 1ULL << ETH_SS_STATS;
	ifr->ifr_data = (void *)si;
	if (ioctl(s, SIOCETHTOOL, ifr) == 0 && si->sset_mask)
		memcpy(&n, (const char *)si + sizeof(*si), sizeof(n));
	free(si);
	return n;
}

/* Indices of the pause counters in the netdev's ethtool statistics. */
static void
ethtool_map(struct roce_port *rp)
{
	struct ethtool_gstrings *gs = NULL;
	struct ifreq ifr;
	uint32_t n;
	int s;

	rp->ethtool_index = xcalloc(PFC_PRIOS * PFC_KIND_COUNT, sizeof(int));
	for (int i = 0; i < PFC_PRIOS * PFC_KIND_COUNT; i++)
		rp->ethtool_index[i] = -1;
	if (rp->netdev[0] == '\0' || (s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	fmt(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", rp->netdev);
	if ((n = ethtool_count(s, &ifr)) == 0)
		goto out;
	gs = xcalloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	ifr.ifr_data = (void *)gs;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = (const char *)gs + sizeof(*gs) + (size_t)i * ETH_GSTRING_LEN;
		for (unsigned prio = 0; prio < PFC_PRIOS; prio++)
			for (int k = 0; k < PFC_KIND_COUNT; k++) {
				char want[ETH_GSTRING_LEN];
				if (!strncmp(name, pfc_stat_name(k, prio, want, sizeof(want)), ETH_GSTRING_LEN))
					rp->ethtool_index[prio * PFC_KIND_COUNT + k] = (int)i;
			}
	}
out:
	free(gs);
	close(s);
}

/* Every ethtool statistic of the netdev in one ioctl; NULL on failure. */
static uint64_t *
ethtool_stats(const struct roce_port *rp, uint32_t *n_out)
{
	struct ethtool_stats *st;
	struct ifreq ifr;
	uint64_t *v = NULL;
	int s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return NULL;
	memset(&ifr, 0, sizeof(ifr));
	fmt(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", rp->netdev);
	if ((*n_out = ethtool_count(s, &ifr)) > 0) {
		st = xcalloc(1, sizeof(*st) + (size_t)*n_out * sizeof(uint64_t));
		st->cmd = ETHTOOL_GSTATS;
		st->n_stats = *n_out;
		ifr.ifr_data = (void *)st;
		if (ioctl(s, SIOCETHTOOL, &ifr) == 0) {
			v = xcalloc(*n_out, sizeof(uint64_t));
			memcpy(v, (const char *)st + sizeof(*st), (size_t)*n_out * sizeof(uint64_t));
		}
		free(st);
	}
	close(s);
	return v;
}

static void
sample_hw(struct roce_monitor *m, struct roce_port *rp, uint64_t delta[ROCE_HW_COUNT])
{
	char path[512];
	uint64_t raw;

	for (int c = 0; c < ROCE_HW_COUNT; c++) {
		fmt(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/hw_counters/%s",
		    m->root, rp->dev, rp->port, roce_hw_names[c]);
		delta[c] = 0;
		rp->hw_valid[c] = read_u64(path, &raw) == 0;
		if (rp->hw_valid[c])
			delta[c] = hc_accumulate(&rp->hw[c], raw, 64, NULL);
	}
}

static void
sample_pfc(struct roce_monitor *m, struct roce_port *rp, uint64_t delta[PFC_PRIOS][PFC_KIND_COUNT])
{
	uint64_t *stats = NULL, raw;
	uint32_t nstats = 0;
	char path[512], name[48];
	bool tried_ioctl = false;

	for (unsigned prio = 0; prio < PFC_PRIOS; prio++)
		for (int k = 0; k < PFC_KIND_COUNT; k++) {
			bool ok;
			(void)fmt(path, sizeof(path), "%s/class/net/%s/statistics/%s", m->root,
			    rp->netdev, pfc_stat_name(k, prio, name, sizeof(name)));
			delta[prio][k] = 0;
			ok = rp->netdev[0] && read_u64(path, &raw) == 0;
			if (!ok && rp->netdev[0]) {
				int idx;
				if (!tried_ioctl) {
					tried_ioctl = true;
					if (rp->ethtool_index == NULL)
						ethtool_map(rp);
					stats = ethtool_stats(rp, &nstats);
				}
				idx = rp->ethtool_index[prio * PFC_KIND_COUNT + k];
				if (stats && idx >= 0 && (uint32_t)idx < nstats) {
					raw = stats[idx];
					ok = true;
				}
			}
			rp->pfc_valid[prio][k] = ok;
			if (ok)
				delta[prio][k] = hc_accumulate(&rp->pfc[prio][k], raw, 64, NULL);
		}
	free(stats);
}

static void
check_storm(struct roce_monitor *m, struct roce_port *rp, unsigned prio,
    const uint64_t delta[PFC_KIND_COUNT], int64_t now_ms, struct alarm_table *alarms)
{
	char object[96], detail[160];
	bool rising = false, failing;

	for (int k = 0; k < PFC_KIND_COUNT; k++)
		if (rp->pfc_valid[prio][k] && delta[k] > 0)
			rising = true;
	if (!rising)
		rp->rising_since_ms[prio] = 0;
	else if (rp->rising_since_ms[prio] == 0)
		/* Rising since the previous sample, not since this one. */
		rp->rising_since_ms[prio] = m->last_ms ? m->last_ms : now_ms;
	failing = rising && now_ms - rp->rising_since_ms[prio] >= (int64_t)m->storm_window_ms;
	fmt(object, sizeof(object), "%s/%u prio %u", rp->dev, rp->port, prio);
	fmt(detail, sizeof(detail), "PFC pause counters on %s priority %u rising for %" PRId64
	    " ms (rx +%" PRIu64 ", tx +%" PRIu64 ")", rp->netdev[0] ? rp->netdev : rp->dev, prio,
	    rising ? now_ms - rp->rising_since_ms[prio] : 0,
	    delta[PFC_RX_PAUSE], delta[PFC_TX_PAUSE]);
	if (alarms)
		alarm_update(alarms, object, 0, 0, HCHK_PFC_STORM, failing, EV_ERROR, now_ms,
		    failing ? detail : NULL);
}

static void
check_loss(struct roce_port *rp, const uint64_t delta[ROCE_HW_COUNT], int64_t now_ms,
    struct alarm_table *alarms)
{
	char object[96], detail[160];
	uint64_t lost = delta[ROCE_OUT_OF_SEQUENCE] + delta[ROCE_PACKET_SEQ_ERR];

	fmt(object, sizeof(object), "%s/%u", rp->dev, rp->port);
	fmt(detail, sizeof(detail), "loss on a lossless class: out_of_sequence +%" PRIu64
	    ", packet_seq_err +%" PRIu64, delta[ROCE_OUT_OF_SEQUENCE], delta[ROCE_PACKET_SEQ_ERR]);
	if (alarms)
		alarm_update(alarms, object, 0, 0, HCHK_ROCE_LOSS, lost > 0, EV_WARNING, now_ms,
		    lost ? detail : NULL);
}

void
roce_sample(struct roce_monitor *m, int64_t now_ms, struct alarm_table *alarms)
{
	for (size_t i = 0; i < m->nports; i++) {
		struct roce_port *rp = &m->ports[i];
		uint64_t hw[ROCE_HW_COUNT], pfc[PFC_PRIOS][PFC_KIND_COUNT];

		sample_hw(m, rp, hw);
		sample_pfc(m, rp, pfc);
		check_loss(rp, hw, now_ms, alarms);
		for (unsigned prio = 0; prio < PFC_PRIOS; prio++)
			check_storm(m, rp, prio, pfc[prio], now_ms, alarms);
	}
	m->last_ms = now_ms;
}

void
roce_metrics(const struct roce_monitor *m, struct prom *p)
{
	char portbuf[16], priobuf[8], metric[96], name[48];

	for (int c = 0; c < ROCE_HW_COUNT; c++) {
		fmt(metric, sizeof(metric), "fabricd_roce_%s_total", roce_hw_names[c]);
		fmt(name, sizeof(name), "RDMA hw_counters/%s since fabricd started", roce_hw_names[c]);
		prom_family(p, metric, "counter", name);
		for (size_t i = 0; i < m->nports; i++) {
			const struct roce_port *rp = &m->ports[i];
			struct prom_label l[3] = { { "device", rp->dev }, { "port", portbuf }, { "netdev", rp->netdev } };
			if (!rp->hw_valid[c])
				continue;
			fmt(portbuf, sizeof(portbuf), "%u", rp->port);
			prom_sample_u64(p, metric, l, 3, rp->hw[c].total);
		}
	}
	for (int k = 0; k < PFC_KIND_COUNT; k++) {
		static const char *const fam[PFC_KIND_COUNT] = {
			"fabricd_roce_pfc_rx_pause_frames_total", "fabricd_roce_pfc_tx_pause_frames_total",
			"fabricd_roce_pfc_rx_pause_duration_microseconds_total",
			"fabricd_roce_pfc_tx_pause_duration_microseconds_total",
		};
		prom_family(p, fam[k], "counter", "PFC pause counters per priority (ethtool prio statistics)");
		for (size_t i = 0; i < m->nports; i++) {
			const struct roce_port *rp = &m->ports[i];
			struct prom_label l[4] = { { "device", rp->dev }, { "port", portbuf },
			    { "netdev", rp->netdev }, { "priority", priobuf } };
			fmt(portbuf, sizeof(portbuf), "%u", rp->port);
			for (unsigned prio = 0; prio < PFC_PRIOS; prio++) {
				if (!rp->pfc_valid[prio][k])
					continue;
				fmt(priobuf, sizeof(priobuf), "%u", prio);
				prom_sample_u64(p, fam[k], l, 4, rp->pfc[prio][k].total);
			}
		}
	}
}
