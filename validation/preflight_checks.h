/*
 * What the pre-flight's checks share (validation/ only): a check and its
 * faults, a host's ports, and the checks over the SM's fabric model
 * (preflight_checks.c).  The run, the RoCE, QoS and NCCL checks and the
 * answer are in preflight.c.
 */
#ifndef FABRICD_VALIDATION_PREFLIGHT_CHECKS_H
#define FABRICD_VALIDATION_PREFLIGHT_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sm/sm.h"
#include "validation/fabric_view.h"

#define PAIRS_EXHAUSTIVE_MAX	32	/* above: a ring and a star of pairs */
#define MAX_HOPS		FABRIC_MAX_HOPS

enum check_status { CHECK_PASS, CHECK_FAIL, CHECK_SKIPPED, CHECK_INCONCLUSIVE };

struct check {
	const char	*name;
	enum check_status status;
	char		 detail[400];
	json_t		*faults;
	json_t		*seen;		/* the faults' keys (preflight_checks.c) */
	json_t		*tally;		/* faults per code, for the fabric-wide ones */
};

struct host_view {
	const char	*host;
	struct view_port ports[VIEW_MAX_PORTS];
	size_t		 nports;
	const struct fabric_port *first_active;
};

/* The ports packets leave by on the routes, with the port they came in
 * by: the pre-flight's QoS check reads their tables. */
struct route_ports {
	struct sm_qos_target	*t;
	size_t			 n, cap;
};

void pf_check_init(struct check *c, const char *name);
/* Names a code found on many ports once (a fabric-wide fault) and frees
 * what the check keeps for itself (its faults are the caller's). */
void pf_check_done(struct check *c);
/* Frees a check that is not added (a walk started again): its faults too. */
void pf_check_discard(struct check *c);
/* Adds a fault to the check; false when an equal one was there (one per
 * code, host and port) or when it is only counted, one of a fabric-wide
 * condition's many. */
bool pf_fault(struct check *c, const char *host, const char *hca, const struct fabric_port *p,
    const char *code, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void pf_host_lost(struct check *c, struct fabric *f, const char *host);
void pf_check_hosts(struct check *c, struct fabric *f, struct host_view *hv, size_t n);
void pf_check_ports(struct check *c, struct host_view *hv, size_t n);
/* The hosts' ports on another subnet of the daemon (sm.subnets: a plane
 * or a rail), f that subnet's model (NULL: not swept yet): each host
 * needs an ACTIVE port there too; its faults name the subnet. */
void pf_check_plane(struct check *c, const char *subnet, struct fabric *f, char *const *hosts,
    size_t n);
void pf_health_port(struct check *c, const char *host, const char *hca, const struct fabric_port *p,
    const char *role);
/*
 * The routes between the hosts, walked over the programmed forwarding
 * tables a slice at a time (3,884 routes at 1,296 hosts held the loop
 * 7-14 ms in one step): begin, then step until it says done (true), each
 * step walking until the monotonic clock (clock_mono_us) passes until_us,
 * then end (the routes check's detail; frees the walk).  The pointers into
 * the model (hv, the faults' ports) hold only while the model does: the
 * caller starts again when fabric_serial() changed between steps.  The
 * ports the routes leave by go into rp, the ports' health into health
 * (either NULL: not asked).
 */
struct route_walk;
struct route_walk *pf_routes_begin(struct check *c, struct check *health, struct host_view *hv,
    size_t n, struct route_ports *rp);
bool pf_routes_step(struct route_walk *w, int64_t until_us);
void pf_routes_end(struct route_walk *w);
void pf_skipped(struct check *c, const char *why);
/*
 * An observer's copy of the tables may be older than the master's last
 * repair of them: the tables the switches hold now for the hosts' LIDs are
 * read first (sm_lft_read_live).  pf_tables_live starts that read, -1 when
 * there is nothing to read (done is not called); pf_check_tables says what
 * it read.
 */
int pf_tables_live(struct sm *sm, struct fabric *f, char *const *hosts, size_t n,
    sm_lft_done_fn done, void *arg);
void pf_check_tables(struct check *c, const struct sm_lft_live *r);
/*
 * Then the ports the routes leave by, each once (sm_ports_read_live):
 * pf_ports_live starts the read, -1 when there is nothing to read that
 * way (no port, or not an observer: done is not called); pf_check_live
 * fails c naming each port not Active (RouteLinkDown) or silent
 * (RouteLinkUnreadable), found in f, the model the routes were walked on.
 */
int pf_ports_live(struct sm *sm, const struct route_ports *rp, sm_live_done_fn done, void *arg);
void pf_check_live(struct check *c, const struct fabric *f, const struct sm_port_live *res,
    size_t n);

#endif
