-- Health isolation (health/isolate.c): one row per port taken out of the
-- routing (or, dry_run = 1, that would have been), closed when it is back.
CREATE TABLE health_isolations (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	node_guid   INTEGER NOT NULL,
	port        INTEGER NOT NULL,
	object      TEXT NOT NULL,              -- NODE:PORT, as in events
	check_name  TEXT NOT NULL,              -- ber, flapping
	reason      TEXT NOT NULL,              -- the alarm's detail
	dry_run     INTEGER NOT NULL DEFAULT 0,
	isolated_ms INTEGER NOT NULL,
	restored_ms INTEGER,                    -- NULL while isolated
	restored_by TEXT                        -- "its alarms cleared ...", "unisolated by uid N"
);
CREATE INDEX health_isolations_port ON health_isolations(node_guid, port);
