/* Shared between the roce_qos module's files; not a door for others. */
#ifndef ROCE_QOS_INTERNAL_H
#define ROCE_QOS_INTERNAL_H

#include <jansson.h>

#include "roce_qos/config.h"
#include "roce_qos/plan.h"

/* The running configuration, or NULL when the module is not running. */
const struct roce_qos_config *roce_cfg(void);
/* The request connection (opened on first use); NULL with err set. */
struct dcb_conn *roce_conn(char *err, size_t errlen);
/* The ethtool door (opened on first use); NULL with err set. */
struct roce_tun *roce_tun(char *err, size_t errlen);
/* The interfaces to manage (ifname NULL) or the one named; count. */
size_t roce_ports(const char *ifname, struct roce_port *out, size_t max);
/* Apply to one port and record what changed; 0 or -1 with err. */
int roce_apply_record(const struct roce_port *port, const char *reason, size_t *writes,
    json_t *diffs, char *err, size_t errlen);
json_t *roce_diffs_json(const struct roce_plan *plan);

#endif
