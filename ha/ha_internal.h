/* What the files of ha/ share: the client's state. */
#ifndef FABRICD_HA_HA_INTERNAL_H
#define FABRICD_HA_HA_INTERNAL_H

#include <event2/event.h>

#include "ha/ha.h"

#define HA_ROOT_LEN	192

struct ha_watch {
	char		*key;
	ha_watch_fn	 fn;
	void		*arg;
	int64_t		 seen_rev;	/* -1: never read */
	bool		 out;		/* a read in flight */
};

struct ha {
	struct event_base	*base;
	struct ha_config	 cfg;		/* a copy: endpoints and prefix only */
	struct etcd		*etcd;
	char			 root[HA_ROOT_LEN];	/* prefix + subnet + "/" */
	struct event		*poll_ev;
	unsigned		 polls_out;
	uint64_t		 npolls;
	bool			 stopping, draining;

	/* the cluster, as the last status poll saw it */
	bool			 quorum;
	char			 why[224];	/* !quorum: the reason */
	uint64_t		 leader;
	int64_t			 revision, lag, last_ok_ms;
	size_t			 members;

	/* the writer lease (lease.c) */
	char			 id[24];	/* our name: the SM port GUID in hex */
	bool			 wanted, writer, claim_out, keepalive_out, revoke_out;
	int64_t			 lease;		/* etcd lease ID; 0: none */
	int64_t			 lease_from_ms;	/* sent: the grant or keepalive etcd last
						 * answered alive; the lease lasts at
						 * least its TTL from then */
	int64_t			 lease_ttl_ms;	/* as etcd granted it */
	int64_t			 grant_sent_ms, keepalive_sent_ms;
	int64_t			 keepalive_lease;	/* the lease the one in flight renews */
	char			 holder[32];	/* who holds "writer", as last read */
	bool			(*still)(void *arg);
	void			*still_arg;
	struct {
		void		(*fn)(void *arg);
		void		*arg;
	}			 gained[4];	/* each claimer's, told in turn */
	size_t			 ngained;
	struct {
		void		(*fn)(void *arg);
		void		*arg;
	}			 lost[4];	/* told when the lease is lost */
	size_t			 nlost;
	uint64_t		 writes;	/* transactions that wrote */

	struct ha_watch		 watches[HA_MAX_WATCHES];
	size_t			 nwatches;
};

struct ha *ha_new(struct event_base *base, const struct ha_config *cfg);
void ha_free(struct ha *ha);
char *ha_key64(const struct ha *ha, const char *key);
char *ha_first_kv(json_t *reply, size_t *len, int64_t *mod_rev);

/* lease.c */
void ha_lease_tick(struct ha *ha);
void ha_lease_lost(struct ha *ha, const char *why);
#define HA_REVOKE_WAIT_MS	500
void ha_lease_flush(struct ha *ha);

/* watch.c */
void ha_watch_poll(struct ha *ha);

#endif
