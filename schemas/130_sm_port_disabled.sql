-- issue 29 item 8: the ports an operator disabled (`fabricctl port
-- disable`), by the node's GUID and the port's number, so that a restart
-- keeps them down: the SM never activates them and the audit disables
-- again one that came back up.  desc is the node's description when it
-- was disabled, so that `port enable` still finds a node the disabled
-- link cut off the fabric.
CREATE TABLE sm_disabled_ports (
	node_guid INTEGER NOT NULL,
	port      INTEGER NOT NULL CHECK (port BETWEEN 1 AND 254),
	desc      TEXT    NOT NULL,
	set_ms    INTEGER NOT NULL,
	PRIMARY KEY (node_guid, port)
);
