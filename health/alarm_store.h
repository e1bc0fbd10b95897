/* Health alarms across a restart (alarm_store.c). */
#ifndef FABRICD_HEALTH_ALARM_STORE_H
#define FABRICD_HEALTH_ALARM_STORE_H

#include <stdbool.h>

struct health;
struct alarm;

/* At start, after the alarm table is made: the stored alarms read back. */
void health_alarms_load(struct health *h);
/* From the alarm notifier: a raise (or a rise in severity) or a clear. */
void health_alarm_stored(struct health *h, const struct alarm *a, bool raised);
/* What is queued is handed to the writer. */
void health_alarms_stop(struct health *h);
/* alarm_replica.c: with ha, the master publishes its alarms, a standby
 * takes the master's. */
void health_alarms_replica_start(struct health *h);
void health_alarms_replica_stop(struct health *h);

#endif
