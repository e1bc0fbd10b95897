-- Health alarms (health/alarm_store.c): each (object, check) as last seen,
-- raised (cleared_ms = 0) or cleared, so that a restart keeps what the
-- pre-flight relies on: the raised alarms with their quiet time, and the
-- cleared ones inside the pre-flight window.  last_seen_ms of a raised
-- alarm is written again at most once a minute.
CREATE TABLE health_alarms (
	object        TEXT NOT NULL,            -- NODE:PORT, as in events
	check_name    TEXT NOT NULL,            -- symbol_errors, ber, ...
	node_guid     INTEGER NOT NULL,
	port          INTEGER NOT NULL,
	severity      INTEGER NOT NULL,
	first_seen_ms INTEGER NOT NULL,
	last_seen_ms  INTEGER NOT NULL,
	failures      INTEGER NOT NULL,
	detail        TEXT NOT NULL,
	cleared_ms    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (object, check_name)
);
