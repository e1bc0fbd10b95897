-- M_Key: the key each port was given (derived from the configured secret
-- with HMAC-SHA256, sm/mkey.c), so that a restart, or a secret changed in
-- the configuration, still reaches ports with the key they hold.
CREATE TABLE sm_mkeys (
	port_guid INTEGER PRIMARY KEY,     -- CA port, or a switch's port 0
	mkey      INTEGER NOT NULL,
	set_ms    INTEGER NOT NULL
);
