-- roce_qos: every setting fabricd changed on a NIC, and why.
CREATE TABLE roce_writes (
	id		INTEGER PRIMARY KEY,
	time_ms		INTEGER NOT NULL,
	interface	TEXT NOT NULL,
	setting		TEXT NOT NULL,
	expected	TEXT NOT NULL,
	found		TEXT NOT NULL,
	reason		TEXT NOT NULL CHECK (reason IN ('apply', 'remediate'))
);
CREATE INDEX roce_writes_time ON roce_writes(time_ms);
