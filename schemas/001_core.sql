-- Core schema: the event log shared by every module.
-- Migration numbering: 001-099 core, 100-199 sm, 200-299 partitions,
-- 300-399 roce_qos, 400-499 health, 500-599 validation.
CREATE TABLE events (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	time_ms   INTEGER NOT NULL,              -- milliseconds since the epoch
	severity  INTEGER NOT NULL CHECK (severity BETWEEN 0 AND 3),  -- info..critical
	source    TEXT NOT NULL,                 -- module: daemon, sm, health...
	object    TEXT,                          -- node, node:port, partition...
	message   TEXT NOT NULL
);
CREATE INDEX events_time ON events(time_ms);
