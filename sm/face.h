/*
 * What the files of sm/'s face share (module.c, ctl*.c, metrics.c,
 * qos_reread.c, instance.c): the face serves the daemon and the other
 * modules from the one running SM; every function below the face, in
 * sm/core, sm/audit, sm/sa, sm/qos and sm/mcast, is handed its SM.
 */
#ifndef FABRICD_SM_FACE_H
#define FABRICD_SM_FACE_H

#include "sm/core/sm_internal.h"

/* instance.c: the running SM; NULL when none.  Set by module.c. */
struct sm *sm_current(void);
void sm_instance_set(struct sm *sm);
/* ctl.c: answers `sweep --wait` when its sweep has finished. */
extern const struct sm_listener sm_ctl_listener;

#endif
