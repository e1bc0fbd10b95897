/*
 * The health module's state, shared by its files (module.c, ctl.c,
 * metrics.c, ib.c) and nobody else.
 */
#ifndef FABRICD_HEALTH_HSTATE_H
#define FABRICD_HEALTH_HSTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <event2/event.h>

#include "ha/ha.h"
#include "health/alarms.h"
#include "health/checks.h"
#include "health/counters.h"
#include "health/history.h"
#include "health/roce.h"

struct health_config {
	bool		enabled;
	uint64_t	interval_ms;		/* IB polling round, default 10 s */
	uint64_t	symbol_errors_per_min;
	uint64_t	link_recoveries_per_hour;
	uint64_t	rcv_errors_per_min;
	uint64_t	xmit_discards_per_min;
	uint64_t	xmit_wait_per_sec;
	uint64_t	flap_count;
	uint64_t	flap_window_ms;
	uint64_t	clear_after;
	uint64_t	quiet_ms;		/* no failure this long before a clear */
	double		ber_warning, ber_critical;
	uint64_t	ber_window_ms;
	bool		isolate_enabled, isolate_dry_run;	/* health.isolate */
	uint64_t	isolate_max;		/* 0: max(10, 0.5 % of links) */
	uint64_t	keep_raw_ms, keep_5m_ms, keep_1h_ms;
	uint64_t	max_outstanding;	/* PerfMgt MADs in flight at once */
	bool		clear_near_saturation;
	char		*roce_sysfs_root;
	uint64_t	roce_interval_ms;
	uint64_t	pfc_storm_window_ms;
	int		observer_ports;		/* enum health_observer_ports */
};

/* The ports an observer's health polls (the master polls every port). */
enum health_observer_ports {
	HEALTH_OBS_LOCAL,	/* this host's own ports */
	HEALTH_OBS_SWITCH,	/* and the switch ports cabled to them */
	HEALTH_OBS_ALL,		/* every port: the fabric's monitor */
};

/* One monitored fabric port. */
struct hport {
	struct hport		*next;		/* hash chain */
	uint64_t		 node_guid;
	uint8_t			 port;
	bool			 is_switch;
	char			 desc[65];
	char			 object[80];	/* "desc:port", the events' object */
	uint16_t		 lid;		/* where PerfMgt MADs go (switch: port 0 LID) */
	uint8_t			 state;		/* PortState at the last sweep, 0 unknown */
	bool			 present;	/* in the fabric at the last sweep */
	bool			 was_active;	/* ever ACTIVE with a peer: should be up */
	bool			 linked;	/* has a peer now */
	uint64_t		 peer_guid;	/* the remote end at the last sweep (0: none) */
	uint8_t			 peer_port;
	char			 peer_desc[65];
	struct flap_history	 flaps;
	double			 line_bps;	/* active width x speed at the last sweep */
	struct ber_window	 ber;
	bool			 isolated, iso_dry;	/* routed around (or would be) */
	bool			 iso_refused;	/* refusal announced */
	int64_t			 isolated_ms;
	/* its active alarms by the status they give the port (down, degraded,
	 * warning), kept by hport_alarm_noted(): a port's status without
	 * walking the alarm table (a storm's `health` asked it 9,000 times) */
	uint16_t		 alarms_of[3];

	struct hc_counter_state	 c[HC_COUNT];
	uint64_t		 raw[HC_COUNT];		/* last readings, as perfquery shows them */
	uint64_t		 delta[HC_COUNT];	/* this round */
	bool			 valid[HC_COUNT];	/* read this round */
	double			 rate[HC_COUNT];	/* per second over the last round */
	int64_t			 last_eval_ms;
	uint32_t		 resets, saturations, clears;
	bool			 no_ext;		/* PortCountersExtended refused */
	struct history_port	 hist;
	bool			 hist_open;
};

#define HPORT_BUCKETS 4096

struct health {
	struct fabricd		*fd;
	struct sm		*sm;	/* the SM whose model it watches (fd's); NULL: off */
	struct health_config	 cfg;
	struct health_thresholds th;
	struct history_cfg	 hcfg;
	struct alarm_table	*alarms;
	struct roce_monitor	 roce;
	struct event		*roce_timer;
	struct hport		*buckets[HPORT_BUCKETS];
	size_t			 nports;
	struct hpoll		*poll;		/* ib.c; NULL until the SM is up */
	/* figures for status and metrics */
	uint64_t		 sweeps_seen;
	int64_t			 last_sweep_ms;
	uint64_t		 rounds;
	uint64_t		 round_mads, round_ports;	/* last complete round */
	uint64_t		 mads_total, mad_failures;
	double			 round_seconds;			/* last round, first send to last reply */
	uint64_t		 events_raised[EV_CRITICAL + 1];
	size_t			 nisolated;
	/* alarm_store.c: the raises and clears of this turn, to be written */
	struct store_batch	*alarm_batch;
	struct event		*alarm_flush_ev, *alarm_refresh_ev;
	/* alarm_replica.c: the table in etcd's intent */
	struct ha_mirror	*alarms_mirror;	/* alarm_replica.c; NULL without ha */
};

extern struct health *health;

struct hport *hport_find(uint64_t node_guid, uint8_t port);
struct hport *hport_get(uint64_t node_guid, uint8_t port, const char *desc);
/* An alarm of the port was raised (fresh: not a rise in severity) or
 * cleared: its status follows. */
void hport_alarm_noted(const struct alarm *a, bool raised);
/* The port's status from its alarms (HEALTH_PORT_OK without any). */
enum health_port_status hport_status(const struct hport *p);
/* By "NODE:PORT" with NODE a NodeDescription, a GUID (0x...) or a LID;
 * NULL when none, with why set when spec cannot name a port at all
 * (fabric_port_arg: an invalid_argument), "" when it names none monitored. */
struct hport *hport_lookup(const char *spec, char *why, size_t why_len);
#define HPORT_FOREACH(h, i, p) \
	for ((i) = 0; (i) < HPORT_BUCKETS; (i)++) for ((p) = (h)->buckets[i]; (p); (p) = (p)->next)

void hports_free(struct health *h);
/* Every port's alarm counts from the table again (it was replaced). */
void hports_recount(struct health *h);

/* Evaluate a port's counter checks after a round (ports.c). */
void health_eval_counters(struct hport *p, int64_t now_ms, uint64_t dt_ms);
/* event_hold.c: alarm transitions between hold and release are posted at
 * the release, many ports with one cause as one event (see there). */
struct held_event {
	enum hchk		 check;
	enum event_severity	 sev;
	bool			 raised;
	char			 object[80];
	char			 detail[160];
	int64_t			 first_seen_ms;
	uint32_t		 failures;
};
void health_events_hold(void);
void health_events_release(void);
void health_event_note(const struct held_event *e);
void health_events_forget(void);
/* isolate.c: isolate or restore ports after a round or a sweep; the cap in
 * force; unisolate (-1 when the port is not isolated). */
void health_isolate_review(int64_t now_ms);
size_t health_isolate_cap(void);
int health_unisolate(struct hport *p, const char *who);
/* metrics.c: the health module's metrics callback */
struct fabricd;
struct prom;
struct prom_cursor;
bool health_metrics(struct fabricd *fd, struct prom *p, struct prom_cursor *c);

/* ib.c: the SM side; no-ops when the SM is absent. */
int health_ib_start(struct health *h);
/* ib.c: counters of a port cleared by a Set (bit = enum hc_counter): the
 * next reading starts from zero, a clear and not a reset (no-op when the
 * port is not polled). */
void health_ib_cleared(uint64_t node_guid, uint8_t port, uint32_t mask);
void health_ib_stop(struct health *h);

#endif
