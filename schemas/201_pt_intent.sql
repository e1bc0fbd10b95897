-- A partition change (or a sweep's P_Key tables) on its way to the
-- fabric: one row per port about to be written, stored before the first
-- Set and removed in the transaction that commits the change (or records
-- its rollback).  Rows found at start belong to a change a crash
-- interrupted: those ports are read back and put back to `before`.
CREATE TABLE pt_intent (
	node_guid  INTEGER NOT NULL,
	port       INTEGER NOT NULL,
	port_guid  INTEGER NOT NULL,
	switch_ext INTEGER NOT NULL,
	label      TEXT NOT NULL,
	action     TEXT NOT NULL,          -- the change: create, member add, sweep...
	time_ms    INTEGER NOT NULL,
	before     BLOB NOT NULL,          -- big-endian P_Keys the port held before the first Set
	PRIMARY KEY (node_guid, port)
);
