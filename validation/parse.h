/*
 * Parsers for the output of the validation tools: nccl-tests (text of
 * every format generation from 2.12 on, and the -J JSON) and perftest
 * (ib_*_bw, ib_*_lat).  Pure functions over a buffer: no I/O, no globals,
 * never trusting the input (truncated lines, NULs, CRLF, interleaved
 * output of several processes, garbage).  Results are plain structs the
 * verdict (validation/verdict.h) and the job store consume.
 */
#ifndef FABRICD_VALIDATION_PARSE_H
#define FABRICD_VALIDATION_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PARSE_HOST_LEN		64
#define PARSE_NAME_LEN		32
#define PARSE_MSG_LEN		256
#define PARSE_UNKNOWN_KEEP	8	/* first unknown lines kept verbatim */

/* Caps so that garbage cannot make a parser allocate without bound. */
#define NCCL_MAX_ROWS		8192
#define NCCL_MAX_DEVICES	65536
#define NCCL_MAX_FAILURES	512

#define NCCL_NWRONG_NA		(-1LL)	/* "-c 0": no check was made */
#define NCCL_ROOT_NONE		(-2)	/* legacy format without a root column */

/* One placement (out-of-place or in-place) of one row. */
struct nccl_side {
	double		 time_us;
	double		 algbw;		/* GB/s, GB = 1e9 */
	double		 busbw;
	long long	 nwrong;	/* NCCL_NWRONG_NA when not checked */
	double		 max_error;	/* <= 2.12: max delta instead of #wrong */
};

struct nccl_row {
	uint64_t	 size;		/* bytes */
	uint64_t	 count;		/* elements */
	char		 type[PARSE_NAME_LEN];
	char		 redop[PARSE_NAME_LEN];
	int		 root;		/* -1 rootless, NCCL_ROOT_NONE legacy */
	struct nccl_side oop, ip;
};

/* "# Rank N Group G Pid P on HOST device D [PCI] NAME": rank -> host. */
struct nccl_device {
	int		 rank;
	int		 pid;
	int		 device;
	char		 host[PARSE_HOST_LEN];
	char		 pci[PARSE_NAME_LEN];
};

enum nccl_failure_kind {
	NCCL_FAIL_NCCL,		/* "host: Test NCCL failure file:line '...'" */
	NCCL_FAIL_CUDA,		/* "host: Test CUDA failure ..." */
	NCCL_FAIL_TIMEOUT,	/* "host: Test timeout (Ns) ..." */
	NCCL_FAIL_IB,		/* NCCL WARN "NET/IB: Got completion ... with status/error" */
	NCCL_FAIL_WARN,		/* any other NCCL WARN (kept for attribution) */
};

struct nccl_failure {
	enum nccl_failure_kind kind;
	char		 host[PARSE_HOST_LEN];
	char		 hca[PARSE_NAME_LEN];	/* IB completion errors */
	char		 peer[PARSE_HOST_LEN];	/* IB completion errors: peer address */
	int		 status;		/* ibv_wc_status, -1 unknown */
	char		 message[PARSE_MSG_LEN];
};

struct nccl_parsed {
	char		 tests_version[PARSE_NAME_LEN];	/* "# nccl-tests version" (>= 2.17.4) */
	char		 nccl_version[PARSE_NAME_LEN];	/* "NCCL version" line or JSON */
	char		 test_name[PARSE_NAME_LEN];	/* "Collective test starting: X" */
	bool		 legacy_format;	/* rows without root, with max error */

	struct nccl_row	*rows;
	size_t		 nrows;
	size_t		 partial_rows;	/* row starts that were cut short */
	struct nccl_device *devices;
	size_t		 ndevices;
	struct nccl_failure *failures;
	size_t		 nfailures;

	bool		 oob_seen;	/* "# Out of bounds values : N OK|FAILED" */
	long long	 oob_count;
	bool		 avg_seen;	/* "# Avg bus bandwidth : X [OK|FAILED]" */
	double		 avg_busbw;
	int		 avg_gate;	/* 1 OK, 0 FAILED, -1 not gated */
	bool		 concluded;	/* "# Collective test concluded" */
	bool		 usage_seen;	/* the tool printed its usage: bad flags */
	bool		 memory_limited; /* "Reducing maxBytes" */

	int		 mpi_failed_rank;	/* Open MPI banner, -1 none */
	int		 mpi_exit_code;		/* idem, -1 none */

	size_t		 lines;
	size_t		 unknown_lines;
	char		*unknown[PARSE_UNKNOWN_KEEP];
};

/* Parse nccl-tests stdout (any version).  Always returns a usable result
 * (possibly empty); -1 only when memory ran out. */
int nccl_parse_text(const char *buf, size_t len, struct nccl_parsed *out);
/* Parse a -J JSON report into the same shape; -1 when it is not a report
 * (bad JSON, wrong top-level shape).  Rows may be missing (closed early). */
int nccl_parse_json(const char *buf, size_t len, struct nccl_parsed *out);
void nccl_parsed_free(struct nccl_parsed *p);
/* An empty result (both parsers start from it). */
void nccl_parsed_reset(struct nccl_parsed *p);

/* Host of a rank from the device lines, or NULL. */
const char *nccl_rank_host(const struct nccl_parsed *p, int rank);
/* True when the output shows the footer: the test ran to its end. */
bool nccl_footer_seen(const struct nccl_parsed *p);

/* ---- perftest ---- */

#define PERFTEST_MAX_ROWS	1024

struct perftest_row {
	uint64_t	 bytes;
	uint64_t	 iterations;
	/* bandwidth tests */
	double		 bw_peak, bw_avg, msg_rate;	/* unit in perftest_parsed.unit */
	/* latency tests (µs) */
	double		 t_min, t_max, t_typical, t_avg, t_stdev, t_p99, t_p999;
};

enum perftest_error {
	PERFTEST_OK,
	PERFTEST_ERR_SOCKET,	/* could not reach the peer's daemon over TCP: harness */
	PERFTEST_ERR_LINK,	/* "Unable to Connect the HCA's through the link" */
	PERFTEST_ERR_GID,	/* GID type incompatibility */
	PERFTEST_ERR_OTHER,	/* any other error text */
};

struct perftest_parsed {
	char		 test[PARSE_NAME_LEN * 2];	/* "RDMA_Write BW Test" */
	char		 device[PARSE_NAME_LEN];
	char		 link_type[PARSE_NAME_LEN];	/* IB | Ethernet */
	char		 unit[PARSE_NAME_LEN];		/* "Gb/sec" | "MiB/sec" | "MB/sec" */
	bool		 latency;			/* latency table rather than bandwidth */
	bool		 header_seen;
	struct perftest_row *rows;
	size_t		 nrows;
	enum perftest_error error;
	char		 error_text[PARSE_MSG_LEN];
	size_t		 unknown_lines;
};

int perftest_parse(const char *buf, size_t len, struct perftest_parsed *out);
void perftest_parsed_free(struct perftest_parsed *p);
/* Bandwidth in Gb/s whatever unit was printed (MiB/sec, MB/sec, Gb/sec). */
double perftest_gbits(const struct perftest_parsed *p, double value);

/* ---- shared helpers (validation/parse_util.c) ---- */

/* Split a text buffer into lines: calls fn for each (NUL-terminated copy,
 * CR and trailing blanks stripped, NULs replaced by spaces, at most
 * maxline bytes kept).  Stops when fn returns non-zero. */
int parse_lines(const char *buf, size_t len, size_t maxline,
    int (*fn)(char *line, void *arg), void *arg);
/* Whitespace tokens of line (modified in place); returns the count. */
size_t parse_tokens(char *line, char **tok, size_t max);
bool parse_u64(const char *s, uint64_t *out);
bool parse_int(const char *s, int *out);
/* A float as nccl-tests prints it (fixed or exponent); "N/A" fails. */
bool parse_double(const char *s, double *out);
void parse_copy(char *dst, size_t dstlen, const char *src, size_t srclen);

#endif
