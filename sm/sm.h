/*
 * The subnet manager's public door for the rest of fabricd.
 *
 * Partitions and health do not run their own sweeps or open their own
 * MAD channels: they register hooks that the SM calls at fixed points of
 * each sweep, and send MADs through the SM's engine.
 */
#ifndef FABRICD_SM_SM_H
#define FABRICD_SM_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "sm/fabric.h"
#include "sm/mad.h"

/* NULL while the SM is disabled or not started. */
struct fabric *sm_fabric(void);
struct mad_engine *sm_mad_engine(void);
bool sm_subnet_up(void);
/* Only the master SM writes to the fabric: while another SM is master (we
 * are STANDBY) or before the first discovery has decided, modules send no
 * Set and keep their changes for the first sweep as master. */
bool sm_is_master(void);
uint16_t sm_own_lid(void);
uint64_t sm_own_port_guid(void);

/*
 * Sweep hooks.  before_activate runs after discovery and LID assignment,
 * before ports are moved to ARMED/ACTIVE (partitions program P_Key tables
 * here); after_sweep runs when a sweep has finished.  A hook that starts
 * MADs calls done() when they have all completed; the sweep waits for it.
 */
enum sm_hook_point { SM_HOOK_BEFORE_ACTIVATE, SM_HOOK_AFTER_SWEEP };
typedef void (*sm_hook_fn)(struct fabric *f, bool topology_changed,
    void (*done)(void *token), void *token, void *arg);
void sm_add_hook(enum sm_hook_point point, sm_hook_fn fn, void *arg);

#endif
