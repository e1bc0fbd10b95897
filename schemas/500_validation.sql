-- Validation jobs (nccl-tests, perftest) and localisation campaigns.
-- A campaign (strategy single/pairwise/bisect over several probes) is a
-- job whose probes point at it through parent_id.  Raw output stays in
-- files (stdout_path, stderr_path); the database holds what was run and
-- the parsed facts, so logs can be re-parsed after a parser fix.
CREATE TABLE validation_jobs (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	parent_id    INTEGER REFERENCES validation_jobs(id) ON DELETE CASCADE,
	kind         TEXT NOT NULL CHECK (kind IN ('nccl', 'rdma', 'campaign')),
	test         TEXT NOT NULL,              -- all_reduce_perf, ib_write_bw...
	launcher     TEXT NOT NULL,              -- mpirun | srun | local
	strategy     TEXT,                       -- campaigns: single | pairwise | bisect
	hosts        TEXT NOT NULL,              -- JSON array
	tenant       TEXT,
	profile      TEXT,
	min_ok       REAL,                       -- threshold applied (GB/s or Gb/s)
	min_warn     REAL,
	command      TEXT,                       -- JSON argv as executed
	environment  TEXT,                       -- JSON object of the variables we set
	dir          TEXT,                       -- the job's folder in state_dir
	stdout_path  TEXT,
	stderr_path  TEXT,
	pid          INTEGER,
	state        TEXT NOT NULL CHECK (state IN ('running', 'done', 'cancelled', 'lost')),
	created_ms   INTEGER NOT NULL,
	started_ms   INTEGER,
	ended_ms     INTEGER,
	exit_status  INTEGER,                    -- NULL when killed by a signal
	term_signal  INTEGER,
	timed_out    INTEGER NOT NULL DEFAULT 0,
	verdict      TEXT CHECK (verdict IN ('pass', 'warn', 'fail', 'inconclusive')),
	code         TEXT,                       -- IBPerformance, DataCorruption, HarnessError...
	reason       TEXT,
	culprit_host TEXT,
	culprit_hca  TEXT,
	measured     REAL,                       -- busbw GB/s or Gb/s judged
	judged_size  INTEGER,
	summary      TEXT                        -- JSON: versions, footer, failures, culprits...
);
CREATE INDEX validation_jobs_parent ON validation_jobs(parent_id);

CREATE TABLE validation_nccl_rows (
	job_id    INTEGER NOT NULL REFERENCES validation_jobs(id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,              -- row order (sizes repeat with -N)
	in_place  INTEGER NOT NULL CHECK (in_place IN (0, 1)),
	size      INTEGER NOT NULL,
	count     INTEGER,
	type      TEXT,
	redop     TEXT,
	root      INTEGER,
	time_us   REAL,
	algbw     REAL,
	busbw     REAL,
	nwrong    INTEGER,                       -- NULL: not checked (-c 0, <= 2.12)
	PRIMARY KEY (job_id, seq, in_place)
);

CREATE TABLE validation_perftest_rows (
	job_id     INTEGER NOT NULL REFERENCES validation_jobs(id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	bytes      INTEGER NOT NULL,
	iterations INTEGER,
	bw_peak    REAL,
	bw_avg     REAL,                         -- in unit
	unit       TEXT,
	msg_rate   REAL,
	t_typical  REAL,
	t_p99      REAL,
	PRIMARY KEY (job_id, seq)
);
