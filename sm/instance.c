/*
 * What other modules may ask of an SM (sm/sm.h), and how the face finds
 * the SM a request or a callback serves: the daemon holds it (struct
 * fabricd's sm, set by module.c's start); nothing here is global, so a
 * second instance needs only a second pointer.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/control.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

struct sm *sm_of_daemon(const struct fabricd *fd) { return fd ? fd->sm : NULL; }

/* The SM of the subnet the request names (daemon/control.c checked the
 * name against sm.subnets), else the daemon's first. */
struct sm *
sm_of_req(const struct ctl_req *req)
{
	struct sm *sm = sm_of_daemon(ctl_req_daemon(req));
	const char *name = ctl_req_subnet(req);
	struct sm *named = name ? sm_named(sm, name) : NULL;

	return named ? named : sm;
}

struct sm *
sm_named(struct sm *first, const char *name)
{
	for (struct sm *s = first; s; s = s->next_subnet)
		if (strcmp(s->subnet, name) == 0)
			return s;
	return NULL;
}

struct fabric *sm_fabric(const struct sm *sm) { return sm ? sm->fabric : NULL; }
struct sm *sm_next_subnet(const struct sm *sm) { return sm ? sm->next_subnet : NULL; }
const char *sm_subnet_name(const struct sm *sm) { return sm ? sm->subnet : ""; }
const char *sm_subnet_group(const struct sm *sm) { return sm ? sm->group : ""; }
struct mad_io sm_mad_io(const struct sm *sm) { return mad_io_engine(sm ? sm->me : NULL); }
bool sm_subnet_up(const struct sm *sm) { return sm && sm->subnet_up; }
bool sm_is_master(const struct sm *sm) { return sm && sm->state == SM_STATE_MASTER; }
uint16_t sm_own_lid(const struct sm *sm) { return sm ? sm->own_lid : 0; }

const char *
sm_fabric_write_refusal(const struct sm *sm, char *buf, size_t len)
{
	if (sm == NULL) {
		snprintf(buf, len, "the subnet manager is not running");
		return buf;
	}
	return sm_write_refusal(sm, buf, len);
}

void
sm_master_seen(const struct sm *sm, uint64_t *guid, uint16_t *lid)
{
	bool known = sm && sm->polling && sm->polled.info.guid != 0;

	if (sm && sm->observer) {
		sm_observer_master(sm, guid, lid);
		return;
	}
	*guid = known ? sm->polled.info.guid : 0;
	*lid = known ? sm->polled.info.lid : 0;
}

const char *
sm_observer_refusal(const struct sm *sm, char *buf, size_t len)
{
	uint64_t guid;
	uint16_t lid;

	if (sm == NULL || sm->observer == NULL)
		return NULL;
	sm_observer_master(sm, &guid, &lid);
	if (lid == 0)
		snprintf(buf, len, "observer mode: the SM runs elsewhere (no master SM known yet)");
	else if (guid == 0)
		snprintf(buf, len, "observer mode: the SM is LID %u elsewhere", lid);
	else
		snprintf(buf, len, "observer mode: the SM is " GUID_FMT " (LID %u) elsewhere",
		    guid, lid);
	return buf;
}
uint64_t sm_own_port_guid(const struct sm *sm) { return sm ? sm->own_guid : 0; }
void sm_reroute(struct sm *sm) { if (sm && !sm->observer) sm_sweep_request(sm, true); }
