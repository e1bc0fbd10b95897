-- IPoIB on a partition (issue 14): the SM creates the partition's IPoIB
-- broadcast group with these parameters.  No row: no IPoIB group.
CREATE TABLE pt_ipoib (
	partition TEXT PRIMARY KEY REFERENCES pt_partitions(name) ON DELETE CASCADE,
	mtu       INTEGER NOT NULL CHECK (mtu BETWEEN 1 AND 5),     -- IB MTU code: 4 = 2048
	rate      INTEGER NOT NULL CHECK (rate BETWEEN 2 AND 22),   -- IB rate code: 3 = 10 Gb/s
	sl        INTEGER NOT NULL CHECK (sl BETWEEN 0 AND 15),
	qkey      INTEGER NOT NULL
);
