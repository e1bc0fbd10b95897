-- issue 43: one daemon for several subnets.  Every SM table's rows carry
-- the subnet they describe (sm.subnets' name; '' where the daemon serves
-- one subnet, as before), since two planes of one tree hold the same
-- GUIDs.  SQLite cannot change a primary key in place: the keyed tables
-- are built again with the subnet first in their keys, their rows copied
-- as subnet ''.
DROP VIEW sm_links;

CREATE TABLE sm_lids_new (
	subnet    TEXT NOT NULL DEFAULT '',
	guid      TEXT NOT NULL,                 -- port GUID (switch: port 0)
	lid       INTEGER NOT NULL CHECK (lid BETWEEN 1 AND 49151),
	time_ms   INTEGER NOT NULL,              -- when it was assigned
	PRIMARY KEY (subnet, guid),
	UNIQUE (subnet, lid)
);
INSERT INTO sm_lids_new (guid, lid, time_ms) SELECT guid, lid, time_ms FROM sm_lids;
DROP TABLE sm_lids;
ALTER TABLE sm_lids_new RENAME TO sm_lids;

-- sm_ports refers to sm_nodes, and foreign keys are on (a table dropped
-- under them would cascade): its rows wait in a plain copy meanwhile.
CREATE TABLE sm_ports_save AS SELECT * FROM sm_ports;
DROP TABLE sm_ports;

CREATE TABLE sm_nodes_new (
	subnet    TEXT NOT NULL DEFAULT '',
	guid      TEXT NOT NULL,
	type      TEXT NOT NULL CHECK (type IN ('ca', 'switch', 'router')),
	nports    INTEGER NOT NULL,
	description TEXT NOT NULL,
	lid       INTEGER NOT NULL,
	hops      INTEGER NOT NULL,              -- directed-route distance from the SM
	path      TEXT NOT NULL,                 -- directed route, "0,1,3"
	PRIMARY KEY (subnet, guid)
);
INSERT INTO sm_nodes_new (guid, type, nports, description, lid, hops, path)
    SELECT guid, type, nports, description, lid, hops, path FROM sm_nodes;
DROP TABLE sm_nodes;
ALTER TABLE sm_nodes_new RENAME TO sm_nodes;

CREATE TABLE sm_ports (
	subnet    TEXT NOT NULL DEFAULT '',
	node_guid TEXT NOT NULL,
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
	PRIMARY KEY (subnet, node_guid, num),
	FOREIGN KEY (subnet, node_guid) REFERENCES sm_nodes(subnet, guid) ON DELETE CASCADE
);
INSERT INTO sm_ports (node_guid, num, guid, lid, state, phys_state, width_active,
    speed_active, ext_speed_active, degraded, peer_guid, peer_port)
    SELECT node_guid, num, guid, lid, state, phys_state, width_active, speed_active,
    ext_speed_active, degraded, peer_guid, peer_port FROM sm_ports_save;
DROP TABLE sm_ports_save;

CREATE VIEW sm_links AS
SELECT a.subnet AS subnet, a.node_guid AS a_guid, a.num AS a_port, a.peer_guid AS b_guid,
       a.peer_port AS b_port, (a.degraded OR b.degraded) AS degraded
FROM sm_ports a
JOIN sm_ports b ON b.subnet = a.subnet AND b.node_guid = a.peer_guid AND b.num = a.peer_port
WHERE a.node_guid < a.peer_guid OR (a.node_guid = a.peer_guid AND a.num < a.peer_port);

ALTER TABLE sm_sweeps ADD COLUMN subnet TEXT NOT NULL DEFAULT '';

CREATE TABLE sm_mkeys_new (
	subnet    TEXT NOT NULL DEFAULT '',
	port_guid INTEGER NOT NULL,        -- CA port, or a switch's port 0
	mkey      INTEGER NOT NULL,
	set_ms    INTEGER NOT NULL,
	PRIMARY KEY (subnet, port_guid)
);
INSERT INTO sm_mkeys_new (port_guid, mkey, set_ms) SELECT port_guid, mkey, set_ms FROM sm_mkeys;
DROP TABLE sm_mkeys;
ALTER TABLE sm_mkeys_new RENAME TO sm_mkeys;

CREATE TABLE sm_disabled_ports_new (
	subnet    TEXT    NOT NULL DEFAULT '',
	node_guid INTEGER NOT NULL,
	port      INTEGER NOT NULL CHECK (port BETWEEN 1 AND 254),
	desc      TEXT    NOT NULL,
	set_ms    INTEGER NOT NULL,
	PRIMARY KEY (subnet, node_guid, port)
);
INSERT INTO sm_disabled_ports_new (node_guid, port, desc, set_ms)
    SELECT node_guid, port, desc, set_ms FROM sm_disabled_ports;
DROP TABLE sm_disabled_ports;
ALTER TABLE sm_disabled_ports_new RENAME TO sm_disabled_ports;
