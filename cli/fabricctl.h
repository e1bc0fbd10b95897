/*
 * fabricctl internals.  The command table itself is common/commands.def;
 * this header adds human-readable output.  A command without a formatter
 * is printed by the generic one: arrays of objects as aligned tables,
 * other values as "key: value" lines.  --json prints the daemon's reply.
 */
#ifndef FABRICCTL_H
#define FABRICCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

struct cli_formatter {
	const char	*cmd;				/* wire name */
	void		(*result)(json_t *result);	/* final reply */
	void		(*stream)(json_t *item);	/* each stream item */
};

/* Per-module formatter lists (cli/fmt_<module>.c), each ending with {NULL}. */
extern const struct cli_formatter fmt_core[], fmt_sm[], fmt_partitions[],
    fmt_roce_qos[], fmt_health[], fmt_validation[];

/* Print rows (array of objects) as an aligned table with the given columns
 * (NULL-terminated; NULL columns: the first row's keys in order). */
void cli_print_table(FILE *out, json_t *rows, const char *const *columns);
/* Print any JSON value readably (the generic formatter). */
void cli_print_generic(FILE *out, json_t *value, int indent);
/* Render one scalar as text into buf. */
const char *cli_scalar_text(json_t *v, char *buf, size_t len);
/* o's string member key, or dflt when it is absent or not a string. */
const char *cli_str(json_t *o, const char *key, const char *dflt);
/* Milliseconds since the epoch as ISO 8601 with the zone,
 * "2026-12-01T14:05:09+01:00" (cli/human.c). */
const char *cli_time_text(long long ms, char *buf, size_t len);
/* "350 ms", "12.3 s", "4m 05s", "3h 02m", "2d 04h". */
const char *cli_duration_text(long long ms, char *buf, size_t len);
/* "512 B", "1.5 MiB". */
const char *cli_size_text(long long bytes, char *buf, size_t len);
/* A field as a person reads it, told by its name (times, durations,
 * sizes; see cli/human.c), else as cli_scalar_text. */
const char *cli_value_text(const char *key, json_t *v, char *buf, size_t len);
/* The field's name as shown beside such a value: "created_ms" -> "created". */
const char *cli_key_label(const char *key, json_t *v, char *buf, size_t len);
/* Add the readable twin of every such field, keeping the raw ones. */
void cli_humanize(json_t *v);

/* Paged replies (cli/paging.c): the page's "next" cursor or NULL; whether
 * next moves forward from prev (NULL: the first page); fold a page into
 * *acc (NULL: the first page, copied without "next"), -1 when its arrays
 * do not match the first page's. */
const char *cli_page_next(json_t *result);
bool cli_page_advances(const char *prev, const char *next);
int cli_page_fold(json_t **acc, json_t *page);

/* Text sent in parts (cli/paging.c; `topology`): a stream item
 * {"text_part": "..."} is kept, not printed (1; -1 out of memory; 0 for
 * any other message), and the final result's "text" is the parts joined,
 * then its own (-1 out of memory). */
struct cli_text_parts {
	char	*buf;
	size_t	 len, cap;
};
int cli_text_part_take(json_t *msg, struct cli_text_parts *t);
int cli_text_parts_join(json_t *msg, struct cli_text_parts *t);

#endif
