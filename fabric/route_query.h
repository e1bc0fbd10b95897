/*
 * `route SRC DST`: name the two ends, then walk the forwarding tables the
 * switches hold as programmed (the model's fabric_node.lft, never a fresh
 * computation), hop by hop.  Pure: reads the model, builds the reply.
 */
#ifndef FABRICD_FABRIC_ROUTE_QUERY_H
#define FABRICD_FABRIC_ROUTE_QUERY_H

#include <stddef.h>
#include <jansson.h>

#include "common/proto.h"
#include "fabric/fabric.h"

/*
 * The port NAME stands for: a NodeDescription (first match), a LID, a
 * node GUID or a port GUID, tried in that order.  A switch is its port 0;
 * a CA named as a node is its first cabled port with a LID; a port named
 * by its GUID or LID is that port.  NULL when none, with *why saying so.
 */
const struct fabric_port *route_endpoint(const struct fabric *f, const char *name,
    const char **why);

/*
 * The reply of `route`: {src, dst, status, message, hops[], exit_code}.
 * A walk that fails is still a reply (status other than "ok", the hops so
 * far, exit_code 1).  NULL when an end cannot be named: *code and err
 * ("src: ..." or "dst: ...") say why.
 */
json_t *route_query(const struct fabric *f, const char *src, const char *dst,
    enum proto_error *code, char *err, size_t errlen);

/* A description as a JSON string, bytes that are not UTF-8 made '?'. */
json_t *route_text_json(const char *s);

#endif
