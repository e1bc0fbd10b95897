/*
 * fabricctl preflight --local (local.c) and --fanout (fanout.c): the host
 * checks fabricctl runs itself, on each host of a job, without the daemon.
 */
#ifndef FABRICCTL_FANOUT_H
#define FABRICCTL_FANOUT_H

#include <jansson.h>

#include "cli/fabricctl.h"

/* 0 pass, 1 fail, 2 inconclusive: the one exit contract. */
const char *fanout_verdict_name(int code);
/* Append a fault {check: "local", code, host, hca, port, message} to res.faults. */
void fanout_fault(json_t *res, const char *host, const char *hca, unsigned port,
    const char *code, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* This host's ports, as a preflight result object (exit_code, verdict, ports, faults). */
json_t *local_check(void);
int cli_preflight_local(json_t *args, int json_out);
/* Run `fabricctl preflight --local --json` on every host through a launcher. */
int cli_preflight_fanout(json_t *args, int json_out);

#endif
