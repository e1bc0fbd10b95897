-- Partitions: the committed partition set, the P_Key index of each key,
-- the P_Key table every port was last verified to hold, and the history
-- of every change.  Written only after a change has been verified on the
-- fabric (or, with no SM running, stored for the next sweep).
CREATE TABLE pt_meta (
	key       TEXT PRIMARY KEY,        -- 'seeded': the file was taken once; 'default_membership'
	value     TEXT NOT NULL
);
CREATE TABLE pt_partitions (
	name      TEXT PRIMARY KEY,
	tenant    TEXT NOT NULL,
	pkey      INTEGER NOT NULL UNIQUE CHECK (pkey BETWEEN 1 AND 32766),
	position  INTEGER NOT NULL         -- declaration order, kept for export
);
CREATE TABLE pt_members (
	partition TEXT NOT NULL REFERENCES pt_partitions(name) ON DELETE CASCADE,
	member    TEXT NOT NULL,           -- 0x<port guid>, node name or glob, all-cas, switches
	full      INTEGER NOT NULL CHECK (full IN (0, 1)),
	position  INTEGER NOT NULL,
	PRIMARY KEY (partition, member)
);
CREATE TABLE pt_index (
	pkey      INTEGER PRIMARY KEY,     -- the same index on every port holding the key
	pindex    INTEGER NOT NULL
);
CREATE TABLE pt_port_tables (
	node_guid INTEGER NOT NULL,
	port      INTEGER NOT NULL,
	port_guid INTEGER NOT NULL,
	switch_ext INTEGER NOT NULL,       -- 1: enforcement table of a switch external port
	label     TEXT NOT NULL,           -- "NodeDescription/port"
	entries   BLOB NOT NULL,           -- big-endian 16-bit P_Keys, membership bit included
	PRIMARY KEY (node_guid, port)
);
CREATE TABLE pt_history (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	time_ms   INTEGER NOT NULL,
	uid       INTEGER,                 -- NULL: the daemon itself (config, sweep)
	action    TEXT NOT NULL,           -- create, delete, member add, import, sweep...
	detail    TEXT NOT NULL,           -- the request, as JSON
	result    TEXT NOT NULL CHECK (result IN ('ok', 'rejected', 'failed', 'stored')),
	message   TEXT NOT NULL            -- why, and which ports failed
);
CREATE INDEX pt_history_time ON pt_history(time_ms);
