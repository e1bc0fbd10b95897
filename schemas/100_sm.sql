-- Subnet manager state.  GUIDs are stored as '0x%016x' text so that the
-- sqlite3 CLI shows them as operators and infiniband-diags write them.

-- GUID -> LID, kept forever: a port that comes back gets its LID back.
CREATE TABLE sm_lids (
	guid      TEXT PRIMARY KEY,              -- port GUID (switch: port 0)
	lid       INTEGER NOT NULL UNIQUE CHECK (lid BETWEEN 1 AND 49151),
	time_ms   INTEGER NOT NULL               -- when it was assigned
);

-- The model as of the last heavy sweep (replaced by each).
CREATE TABLE sm_nodes (
	guid      TEXT PRIMARY KEY,
	type      TEXT NOT NULL CHECK (type IN ('ca', 'switch', 'router')),
	nports    INTEGER NOT NULL,
	description TEXT NOT NULL,
	lid       INTEGER NOT NULL,
	hops      INTEGER NOT NULL,              -- directed-route distance from the SM
	path      TEXT NOT NULL                  -- directed route, "0,1,3"
);

CREATE TABLE sm_ports (
	node_guid TEXT NOT NULL REFERENCES sm_nodes(guid) ON DELETE CASCADE,
	num       INTEGER NOT NULL,
	guid      TEXT NOT NULL,
	lid       INTEGER NOT NULL,
	state     INTEGER NOT NULL,              -- 1 down .. 4 active
	phys_state INTEGER NOT NULL,             -- 5 LinkUp
	width_active INTEGER NOT NULL,
	speed_active INTEGER NOT NULL,
	ext_speed_active INTEGER NOT NULL,
	degraded  INTEGER NOT NULL,              -- active below what both ends support
	peer_guid TEXT,
	peer_port INTEGER,
	PRIMARY KEY (node_guid, num)
);

CREATE TABLE sm_links (
	a_guid    TEXT NOT NULL,
	a_port    INTEGER NOT NULL,
	b_guid    TEXT NOT NULL,
	b_port    INTEGER NOT NULL,
	degraded  INTEGER NOT NULL,
	PRIMARY KEY (a_guid, a_port)
);

CREATE TABLE sm_sweeps (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	kind      TEXT NOT NULL CHECK (kind IN ('light', 'heavy')),
	start_ms  INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL,
	mads      INTEGER NOT NULL,              -- MADs sent
	retries   INTEGER NOT NULL,
	timeouts  INTEGER NOT NULL,
	changes   INTEGER NOT NULL,              -- events raised
	lft_blocks INTEGER NOT NULL,             -- LFT blocks written
	port_sets INTEGER NOT NULL,              -- PortInfo Sets sent
	unreachable INTEGER NOT NULL,            -- probes that failed
	unreachable_what TEXT NOT NULL,          -- which ones (first few)
	ok        INTEGER NOT NULL               -- routed and activated everything
);
CREATE INDEX sm_sweeps_start ON sm_sweeps(start_ms);
