/*
 * The running SM, for sm/sm.h's accessors (what other modules may ask of
 * the SM) and the control handlers of sm/'s face only: every function
 * below them is handed its SM.  module.c sets it at start and clears it
 * at stop.
 */
#include "sm/core/sm_internal.h"
#include "sm/face.h"

static struct sm *the_sm;

void sm_instance_set(struct sm *sm) { the_sm = sm; }
struct sm *sm_current(void) { return the_sm; }

struct fabric *sm_fabric(void) { return the_sm ? the_sm->fabric : NULL; }
bool sm_subnet_up(void) { return the_sm && the_sm->subnet_up; }
bool sm_is_master(void) { return the_sm && the_sm->state == SM_STATE_MASTER; }
uint16_t sm_own_lid(void) { return the_sm ? the_sm->own_lid : 0; }
uint64_t sm_own_port_guid(void) { return the_sm ? the_sm->own_guid : 0; }
void sm_reroute(void) { if (the_sm) sm_sweep_request(the_sm, true); }
