-- An operator's `health unisolate` while the alarms that isolated the port
-- still stand (health/isolate.c): the alarm is marked, so that the port is
-- not isolated again before it clears, after a restart too (and, with ha,
-- after a failover: health/alarm_replica.c carries the mark).
ALTER TABLE health_alarms ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
