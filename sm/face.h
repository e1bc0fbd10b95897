/*
 * What the files of sm/'s face share (module.c, ctl*.c, metrics.c,
 * qos_reread.c, instance.c): the face serves the daemon and the other
 * modules from the SM the daemon holds (struct fabricd's sm); every
 * function below the face, in sm/core, sm/audit, sm/sa, sm/qos and
 * sm/mcast, is handed its SM.
 */
#ifndef FABRICD_SM_FACE_H
#define FABRICD_SM_FACE_H

#include "sm/core/sm_internal.h"

struct ctl_req;

/* instance.c: the SM a daemon runs, the SM a control request is for;
 * NULL when the SM is off. */
struct sm *sm_of_daemon(const struct fabricd *fd);
struct sm *sm_of_req(const struct ctl_req *req);
/* The SM of the subnet called name, from first along the daemon's chain
 * (sm.subnets), or NULL. */
struct sm *sm_named(struct sm *first, const char *name);
/* ctl.c: answers `sweep --wait` when its sweep has finished. */
extern const struct sm_listener sm_ctl_listener;

#endif
