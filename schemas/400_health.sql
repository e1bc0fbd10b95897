-- Health: per-port counter history, downsampled (health/history.c).
-- A port is a (node GUID, port number); its id keys the samples.
CREATE TABLE health_ports (
	id        INTEGER PRIMARY KEY,
	node_guid INTEGER NOT NULL,            -- node GUID as a signed 64-bit value
	port      INTEGER NOT NULL,
	node_desc TEXT,
	UNIQUE (node_guid, port)
);
-- Counter increments over (t_ms - span_ms, t_ms].  tier 0: one row per
-- polling round (kept 1 h by default); tier 1: 5-minute sums (kept 24 h);
-- tier 2: 1-hour sums (kept 30 days).  WITHOUT ROWID and the primary key
-- ordered by port keep a port's history together and each row small.
CREATE TABLE health_samples (
	port_id   INTEGER NOT NULL REFERENCES health_ports(id) ON DELETE CASCADE,
	tier      INTEGER NOT NULL CHECK (tier BETWEEN 0 AND 2),
	t_ms      INTEGER NOT NULL,
	span_ms   INTEGER NOT NULL,
	symbol_errors INTEGER NOT NULL, link_error_recoveries INTEGER NOT NULL,
	link_downed INTEGER NOT NULL, rcv_errors INTEGER NOT NULL,
	rcv_remote_physical_errors INTEGER NOT NULL, rcv_switch_relay_errors INTEGER NOT NULL,
	xmit_discards INTEGER NOT NULL, xmit_constraint_errors INTEGER NOT NULL,
	rcv_constraint_errors INTEGER NOT NULL, local_link_integrity_errors INTEGER NOT NULL,
	excessive_buffer_overruns INTEGER NOT NULL, vl15_dropped INTEGER NOT NULL,
	xmit_wait INTEGER NOT NULL,
	xmit_data_words INTEGER NOT NULL, rcv_data_words INTEGER NOT NULL,
	xmit_packets INTEGER NOT NULL, rcv_packets INTEGER NOT NULL,
	PRIMARY KEY (port_id, tier, t_ms)
) WITHOUT ROWID;
