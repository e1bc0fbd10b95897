-- Job partitions (issue 26): a partition made for one scheduler job, its
-- owner and hosts.  No row: an operator's partition.  Written in the same
-- transaction as the partition set (pstore.c).
CREATE TABLE pt_jobs (
	partition  TEXT PRIMARY KEY REFERENCES pt_partitions(name) ON DELETE CASCADE,
	job_id     TEXT NOT NULL UNIQUE,   -- SLURM_JOB_ID
	user       TEXT NOT NULL,          -- SLURM_JOB_USER ('' when not given)
	account    TEXT NOT NULL,          -- SLURM_JOB_ACCOUNT ('' when not given)
	hosts      TEXT NOT NULL,          -- the job's hosts, one Slurm hostlist
	created_ms INTEGER NOT NULL        -- wall clock
);
