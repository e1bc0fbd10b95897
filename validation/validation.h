/*
 * The validation module's internal contracts, shared by its files:
 * configuration, the job runner (job.c), the job records (jobstore.c),
 * launcher command lines (launch.c), localisation campaigns (campaign.c),
 * the NCCL environment (nccl_env.c) and pre-flight (preflight.c).
 * Other modules never include this; they have nothing to ask of us.
 */
#ifndef FABRICD_VALIDATION_VALIDATION_H
#define FABRICD_VALIDATION_VALIDATION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "daemon/config.h"
#include "validation/verdict.h"

struct fabricd;
struct ctl_req;

/* ---- configuration (fabricd.yaml "validation:") ---- */

struct validation_profile {
	char		*name;
	double		 min_busbw;	/* GB/s on the largest size: below = fail */
	double		 warn_busbw;	/* GB/s: below = warn (0 none) */
	double		 rdma_min_gbps;	/* ib_write_bw average, Gb/s */
};

struct validation_config {
	bool		 enabled;
	char		*nccl_tests_dir;	/* holds all_reduce_perf ... */
	char		*perftest_dir;		/* holds ib_write_bw ... */
	char		*mpirun;		/* launcher paths */
	char		*srun;
	char		*default_launcher;	/* "mpirun" | "srun" | "local" */
	char		*default_sizes;		/* "1G:16G" or "16G" */
	char		*default_profile;
	uint64_t	 gpus_per_host;
	uint64_t	 job_timeout_ms;
	uint64_t	 kill_grace_ms;		/* SIGTERM -> SIGKILL */
	uint64_t	 max_parallel;		/* probes of one campaign at once */
	uint64_t	 rdma_port;		/* first TCP port of perftest pairs */
	bool		 json_report;		/* pass -J (nccl-tests >= 2.17.3) */
	uint64_t	 preflight_window_ms;	/* a failure this recent fails a pre-flight */
	struct validation_profile *profiles;
	size_t		 nprofiles;
};

/* ctl.c: --partition, or the deprecated --tenant alias. */
const char *validation_partition_arg(json_t *args);

#define VALIDATION_MAX_HOSTS 4096

/* vconfig.c: the section's parser (for the module table in module.c)
 * and the accessors. */
extern const struct cfg_field validation_fields[];
void validation_config_init(void *p);
void validation_config_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *p);
void validation_config_free(void *p);
const struct validation_config *validation_config(void);
const struct validation_profile *validation_profile(const char *name);
/* Job files live under <state_dir>/validation/jobs/<id>/. */
const char *validation_state_dir(void);
/* Another module is running (its checks are not "skipped"). */
bool validation_module_up(enum module_id m);

/* ---- one job: a launcher process and its records ---- */

enum job_kind { JOB_NCCL, JOB_RDMA };

struct job_spec {
	enum job_kind	 kind;
	char		*test;		/* all_reduce_perf, ib_write_bw ... */
	char		*launcher;	/* mpirun | srun | local */
	char		*sizes;
	char		*tenant;
	char		*profile;
	char		*strategy;	/* single | pairwise | bisect (campaign only) */
	char		**hosts;
	size_t		 nhosts;
	struct threshold threshold;
	uint64_t	 timeout_ms;
	int64_t		 parent;	/* campaign job id, 0 none */
	char		*hca;		/* rdma: device name */
	uint64_t	 rdma_size;
	uint64_t	 rdma_port;	/* rdma: TCP port of the pair */
	char		**env;		/* extra "K=V" for the child, NULL-terminated */
};

struct job;
typedef void (*job_done_fn)(struct job *job, void *arg);

void job_spec_free(struct job_spec *s);
void job_spec_copy(struct job_spec *dst, const struct job_spec *src);

/*
 * When a job of timeout_ms is stopped, counted from its start: SIGTERM
 * to its process group at *term_ms, SIGKILL at *kill_ms.  The grace
 * between them is part of the timeout, not added to it: *kill_ms is the
 * timeout itself, and SIGTERM goes kill_grace_ms before it, at most
 * half-way through (a short timeout still gives the job most of its time).
 */
void job_kill_plan(uint64_t timeout_ms, uint64_t kill_grace_ms, uint64_t *term_ms,
    uint64_t *kill_ms);

/*
 * Record and start a job: the launcher runs in its own process group with
 * stdout/stderr in the job's folder.  done (may be NULL) runs once after
 * the process group has ended and the result is recorded.  Returns the job
 * id (> 0), or -1 with err set when it could not even be recorded.  A
 * launcher that cannot be executed still yields a job (inconclusive).
 */
int64_t job_start(const struct job_spec *spec, job_done_fn done, void *arg,
    char *err, size_t errlen);
/* Cancel a running job, or every running probe of a campaign: how many. */
int job_cancel(int64_t id);
bool job_running(int64_t id);
int64_t job_id(const struct job *j);
enum verdict job_verdict(const struct job *j);
const struct verdict_result *job_result(const struct job *j);
const struct job_spec *job_spec_of(const struct job *j);
/* Progress of a running job for --follow: rows parsed so far etc. */
json_t *job_progress(int64_t id);
void jobs_init(struct fabricd *fd);

/* tools.c: {launcher, launcher_found, launcher_path, missing[]}: what a
 * job would run that is not there ("launcher mpirun: not found on PATH"). */
json_t *validation_tools_check(const struct validation_config *c);
void jobs_shutdown(void);

/* ---- launcher command lines (launch.c, pure) ---- */

/* argv (NULL-terminated, heap) for spec run from dir; env additions
 * ("K=V", NULL-terminated, heap) the child gets. */
char **launch_argv(const struct validation_config *c, const struct job_spec *s,
    const char *dir, char **env);
void launch_free(char **v);
/* "1G:16G" -> bytes (1024-based suffixes); -1 on error. */
int launch_parse_sizes(const char *s, uint64_t *min, uint64_t *max);

/* ---- job records (jobstore.c) ---- */

int64_t jobstore_create(const struct job_spec *s, bool campaign);
void jobstore_started(int64_t id, pid_t pid, char *const *argv, char *const *env,
    const char *dir, const char *out, const char *err);
void jobstore_finished(int64_t id, const struct run_outcome *o, const struct verdict_result *r,
    const struct nccl_parsed *np, const struct perftest_parsed *pp, json_t *summary);
void jobstore_campaign_finished(int64_t id, const struct verdict_result *r, json_t *summary);
/* The jobs with id < before, newest first, n at most: `jobs`'s pages. */
json_t *jobstore_page(int64_t before, size_t n);
json_t *jobstore_show(int64_t id);
/* stdout/stderr paths of a job; NULL when unknown (caller frees). */
char *jobstore_log_path(int64_t id, bool err);
/* Jobs left "running" by a previous daemon are marked as such. */
void jobstore_recover(void);

/* ---- campaigns: a strategy over several jobs (campaign.c) ---- */

typedef void (*campaign_done_fn)(int64_t id, const struct verdict_result *r, json_t *summary,
    void *arg);
int64_t campaign_start(const struct job_spec *spec, campaign_done_fn done, void *arg,
    char *err, size_t errlen);
/* Start no further probe of a running campaign (its running probes are
 * cancelled with job_cancel); false when no such campaign runs. */
bool campaign_cancel(int64_t id);

/* --hosts as a NULL-terminated heap list of names a launcher can take
 * verbatim; replies invalid_argument and returns NULL otherwise. */
char **validation_hosts_arg(struct ctl_req *req, json_t *args, size_t *n);

/* ---- NCCL environment and pre-flight ---- */

/* nccl_env.c: {"env": {...}, "faults": [...], "notes": [...]} for hosts/tenant;
 * ifname (may be NULL) names the RoCE interface for the GID index. */
json_t *nccl_env_compute(char *const *hosts, size_t nhosts, const char *tenant,
    const char *ifname);
/* Pre-flights answered with verdict 0 (pass), 1 (fail), 2 (inconclusive). */
uint64_t preflight_count(int verdict);
/* Route walks begun again: the model was replaced between two slices. */
uint64_t preflight_walk_restarts(void);
void preflight_run(struct ctl_req *req, char *const *hosts, size_t nhosts, const char *tenant,
    bool nccl, const char *launcher, uint64_t timeout_ms, bool slurm, int sl);
/* At the module's stop: the runs still walking their routes (a slice a
 * turn of the loop) are answered "unavailable" and freed. */
void preflights_stop(void);

/* metrics.c: the module's metrics callback (jobs by kind, state, verdict) */
struct prom;
void validation_metrics(struct fabricd *fd, struct prom *p);

#endif
