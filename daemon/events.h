/*
 * Events: what happened on the fabric and in the daemon, for operators.
 * Every module records through event_post(); the event is pushed to every
 * `fabricctl events --follow` client at once and queued; the rows go to
 * the store's writer thread in batches (events.c, daemon/store_writer.h),
 * so that posting never costs the caller a database write.
 */
#ifndef FABRICD_EVENTS_H
#define FABRICD_EVENTS_H

#include <stdint.h>
#include <jansson.h>

struct event_base;
struct store;

enum event_severity { EV_INFO, EV_WARNING, EV_ERROR, EV_CRITICAL };

const char *event_severity_name(enum event_severity s);
int event_severity_parse(const char *name, enum event_severity *out);

/* source: module name ("sm", "health"...); object: what it is about
 * (a node, "node:port", a partition) or NULL. */
void event_post(enum event_severity sev, const char *source, const char *object,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Milliseconds since the epoch, the time base of every stored record. */
int64_t event_now_ms(void);

/* "10m", "2h", "1d", epoch milliseconds or "YYYY-MM-DD[ HH:MM[:SS]]" (local)
 * to epoch milliseconds; -1 if unparseable.  Shared by every --since. */
int event_parse_since(const char *s, int64_t *out_ms);

/* Where events are written (the durable record) and the loop whose timer
 * hands them over; until then, or with NULL, they wait in memory. */
void events_attach(struct event_base *base, struct store *store);
/* End all follow streams (daemon shutdown); flush_ev is freed, later
 * events are written at once. */
void events_shutdown(void);
/* Write every queued event now and wait for it (shutdown). */
void events_flush_all(void);
/* When the newest stored event about the node named desc (an object
 * "desc (0x...)", as the SM names nodes) with this message was posted,
 * among the last EVENTS_RECALL_ROWS; 0 when none: what an error can tell
 * of a node no longer in the fabric ("node gone"). */
#define EVENTS_RECALL_ROWS	10000
int64_t events_recall_node(const char *desc, const char *message);

/* {unwritten, posted, batches} for status. */
json_t *events_status(void);

#endif
