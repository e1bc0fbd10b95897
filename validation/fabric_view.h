/* Validation's read-only view of the SM's fabric model (fabric_view.c). */
#ifndef FABRICD_VALIDATION_FABRIC_VIEW_H
#define FABRICD_VALIDATION_FABRIC_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "fabric/fabric.h"
#include "fabric/routing.h"

#define VIEW_NAME_LEN	32
#define VIEW_MAX_PORTS	16	/* ports of one host we look at */

struct view_port {
	const struct fabric_port *port;
	char		 hca[VIEW_NAME_LEN];	/* "" when the description has none */
};

/* The SM the view reads: the daemon's, handed over at validation's
 * start (whether validation runs jobs or not: the pre-flight and the
 * NCCL environment read it too), NULL at its stop. */
struct sm;
void view_attach(struct sm *sm);
struct sm *view_sm(void);
/* That SM's fabric, or NULL: SM disabled or not swept yet. */
struct fabric *view_fabric(void);
size_t view_host_ports(struct fabric *f, const char *host, struct view_port *out, size_t max);
/* The same for many hosts of one request: the nodes indexed by host name
 * once (view_hosts_new), each lookup then a hash probe. */
struct view_hosts;
struct view_hosts *view_hosts_new(struct fabric *f);
size_t view_hosts_ports(const struct view_hosts *vh, const char *host, struct view_port *out,
    size_t max);
void view_hosts_free(struct view_hosts *vh);
void view_port_name(const struct fabric_port *p, char *buf, size_t len);
/* routing_walk from src to dst's LID over the programmed tables. */
int view_walk(const struct fabric_port *src, const struct fabric_port *dst,
    struct routing_hop *hops, size_t max, size_t *nhops);

/* A host port no longer on the fabric, as it was last cabled. */
struct view_lost {
	uint8_t		 port;
	char		 hca[VIEW_NAME_LEN];
	char		 peer_desc[FABRIC_NODE_DESC_LEN + 1];
	uint8_t		 peer_port;
	const struct fabric_port *peer;	/* the switch port now, NULL if gone too */
};

/* Remember where every host port is cabled (after each SM sweep once the
 * hook is installed, and on demand). */
void view_remember(struct fabric *f);
size_t view_recall(struct fabric *f, const char *host, struct view_lost *out, size_t max);
void view_hook_install(void);
/* Forgets the memory and the SM. */
void view_forget(void);
/* The egress ports on the route from host a's first port to host b's:
 * [{node, port, state, degraded, health}], empty without fabric state. */
json_t *view_route_json(struct fabric *f, const char *a, const char *b,
    const char *(*port_health)(const struct fabric_port *));

#endif
