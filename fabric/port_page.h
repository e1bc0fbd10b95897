/*
 * One page of the model's ports (or nodes), for a control reply that must
 * not hold the loop however large the fabric (`ports`: 7,776 rows in one
 * reply held it 70 ms at 1,296 hosts; `links` 3,888 rows).  Ports are
 * walked in key order, node GUID then port number, which is the order the
 * model keeps its nodes in (fabric_sort), so a page starts with a binary
 * search, not a walk.  A link is keyed by its lower end's port (the end
 * `links` has always listed it under), so links page as ports do; nodes
 * by their GUID alone.
 *
 * A page resumes after a key, not at a position: a model swept again
 * between two pages cannot make the next page repeat a row or go back,
 * since every key it returns is above the last one the client saw.  A
 * port added or removed meanwhile is in the listing or not by its key.
 *
 * The cursor on the wire is "0x<node GUID, 16 hex digits>:<port, 3
 * digits>" ("0x<node GUID>" for nodes): fixed width, so that byte order is
 * key order and a client can check, without knowing the key, that each
 * page moves forward.
 */
#ifndef FABRICD_FABRIC_PORT_PAGE_H
#define FABRICD_FABRIC_PORT_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

struct port_key {
	uint64_t	 node_guid;
	uint8_t		 port;
};

#define PORT_CURSOR_LEN	24	/* "0x" 16 ":" 3 NUL, rounded up */

/* The cursor text of k into buf (at least PORT_CURSOR_LEN bytes). */
void port_cursor_format(const struct port_key *k, char *buf, size_t len);
/* 0, or -1 when s is not a cursor (hex GUID of 1-16 digits after "0x",
 * ':', a port number 0-255; nothing else). */
int port_cursor_parse(const char *s, struct port_key *k);

/* The node cursor text of guid into buf (at least PORT_CURSOR_LEN bytes). */
void guid_cursor_format(uint64_t guid, char *buf, size_t len);
/* 0, or -1 when s is not "0x" and a hex GUID of 1-16 digits, nothing else. */
int guid_cursor_parse(const char *s, uint64_t *guid);

typedef bool (*port_keep_fn)(const struct fabric_port *p, void *arg);

struct port_page {
	/* in */
	const struct fabric_port **rows;	/* room for max rows */
	size_t		 max;			/* rows a page holds */
	size_t		 scan_max;		/* ports a page looks at, kept or not */
	/* out */
	size_t		 n;			/* rows filled */
	bool		 more;			/* a later page may hold rows */
	struct port_key	 next;			/* it starts after this key (when more) */
};

/*
 * Fill pg->rows with the external ports (1..nports of every node) after
 * *after (NULL: from the first) that keep() accepts, in key order.  The
 * walk stops at max rows, when one more accepted port is seen (more: next
 * is the last row's key), or after scan_max ports (more: next is the last
 * port looked at), so that a filter keeping few ports of a large model
 * costs bounded work per page as well.
 */
void port_page_fill(const struct fabric *f, const struct port_key *after,
    port_keep_fn keep, void *arg, struct port_page *pg);

/* The lower end of a cabled link, as `links` lists each cable once: the
 * end on the lower node GUID, or the lower port of a node cabled to
 * itself.  A port_keep_fn (arg unused). */
bool port_is_link_end(const struct fabric_port *p, void *arg);

struct node_page {
	/* in */
	const struct fabric_node **rows;	/* room for max rows */
	size_t		 max;			/* rows a page holds */
	/* out */
	size_t		 n;			/* rows filled */
	bool		 more;			/* a later page may hold rows */
	uint64_t	 next;			/* it starts after this GUID (when more) */
};

/* Fill pg->rows with the nodes whose GUID is above *after (NULL: from
 * the first), in GUID order, at most max; more when one is left. */
void node_page_fill(const struct fabric *f, const uint64_t *after, struct node_page *pg);

#endif
