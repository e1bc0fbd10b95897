-- issue 43: partitions over a plane group (sm.subnets' group), one tenant
-- space on several subnets.  A port's verified table and a change's
-- intent carry the subnet they are on (sm.subnets' name; '' where the
-- daemon serves one subnet, as before): two planes of one tree hold the
-- same GUIDs.  SQLite cannot change a primary key in place: both tables
-- are built again with the subnet first in their keys, their rows copied
-- as subnet ''.
CREATE TABLE pt_port_tables_new (
	subnet    TEXT NOT NULL DEFAULT '',
	node_guid INTEGER NOT NULL,
	port      INTEGER NOT NULL,
	port_guid INTEGER NOT NULL,
	switch_ext INTEGER NOT NULL,       -- 1: enforcement table of a switch external port
	label     TEXT NOT NULL,           -- "NodeDescription/port"
	entries   BLOB NOT NULL,           -- big-endian 16-bit P_Keys, membership bit included
	PRIMARY KEY (subnet, node_guid, port)
);
INSERT INTO pt_port_tables_new (node_guid, port, port_guid, switch_ext, label, entries)
	SELECT node_guid, port, port_guid, switch_ext, label, entries FROM pt_port_tables;
DROP TABLE pt_port_tables;
ALTER TABLE pt_port_tables_new RENAME TO pt_port_tables;

CREATE TABLE pt_intent_new (
	subnet     TEXT NOT NULL DEFAULT '',
	node_guid  INTEGER NOT NULL,
	port       INTEGER NOT NULL,
	port_guid  INTEGER NOT NULL,
	switch_ext INTEGER NOT NULL,
	label      TEXT NOT NULL,
	action     TEXT NOT NULL,          -- the change: create, member add, sweep...
	time_ms    INTEGER NOT NULL,
	before     BLOB NOT NULL,          -- big-endian P_Keys the port held before the first Set
	PRIMARY KEY (subnet, node_guid, port)
);
INSERT INTO pt_intent_new (node_guid, port, port_guid, switch_ext, label, action, time_ms, before)
	SELECT node_guid, port, port_guid, switch_ext, label, action, time_ms, before FROM pt_intent;
DROP TABLE pt_intent;
ALTER TABLE pt_intent_new RENAME TO pt_intent;
