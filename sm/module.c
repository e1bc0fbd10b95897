/*
 * The sm module: configuration, start/stop, status, and the public door
 * (sm/sm.h) the other modules use.
 *
 *   sm:
 *     enabled: true
 *     port_guid: 0x0002c90300000001   # default: the first port found
 *     priority: 15                    # SMInfo priority, 0..15
 *     sweep_interval: 10s             # light sweep period
 *     routing: auto                   # ftree on a fat tree, else updn; or minhop, updn, ftree
 *     max_outstanding: 64             # MAD window, 1..64
 *     mad_timeout: 200ms              # per try
 *     mad_retries: 3
 *     updn_roots: [0x0002c90300000a01]  # updn: root switches (default: detected)
 *     standby_poll: 10s               # standby: poll the master (default: sweep_interval)
 *     standby_misses: 3               # polls missed in a row before taking over
 *     sm_key: 0x1                     # SM_Key shared with the other SMs (OpenSM's default)
 *     subnet_prefix: 0xfe80000000000000  # GIDPrefix of every port (the IBA default)
 *     mkey_secret: "..."              # M_Key on: per-port keys derived from it (never logged)
 *     mkey_protect: 2                 # M_KeyProtectBits 0..3
 *     mkey_lease: 60s                 # M_KeyLeasePeriod (0: never lapses)
 *     audit: true                     # read back what was programmed, put back what differs
 *     audit_interval: 60s             # one slice of the audit pass per interval
 *     audit_mad_budget: 5000          # MADs (Gets and repairs) per interval
 *     ipoib_broadcast: true           # IPoIB broadcast group of the default partition
 *     rebalance_window: "Sat,Sun 02:00-04:00"  # local time; undo repair drift (default: never)
 *     observer:                       # with enabled: false, the fabric from the master's SA
 *       enabled: true
 *       refresh: 4h                   # read it all again every period (jittered)
 *       max_outstanding: 32           # SA queries in flight
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "ha/ha.h"
#include "sm/sa/sa.h"
#include "sm/mcast/mcast.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"
#include "sm/subnets.h"

/* sm_test_use_io(): a fake fabric in place of the engine. */
static struct {
	bool		 on;
	struct mad_io	 io;
	uint64_t	 port_guid;
	uint8_t		 port_num;
} test_io;

void
sm_test_use_io(const struct mad_io *io, uint64_t port_guid, uint8_t port_num)
{
	test_io.on = io != NULL;
	if (io)
		test_io.io = *io;
	test_io.port_guid = port_guid;
	test_io.port_num = port_num;
}

/* What the SM sends through, and as which port. */
static void
sm_attach_io(struct sm *sm, struct fabricd *fd, struct mad_engine *me)
{
	struct mad_io io = test_io.on ? test_io.io : mad_io_engine(me);

	sm->me = test_io.on ? NULL : me;
	mad_batch_init(&sm->batch, &io, sm);
	mad_batch_set_base(&sm->batch, fd->base);
	mad_batch_init(&sm->side, &io, sm);
	mad_batch_init(&sm->admin, &io, sm);
	sm->own_guid = test_io.on ? test_io.port_guid : mad_engine_port_guid(sm->me);
	sm->own_port = test_io.on ? test_io.port_num : mad_engine_port_num(sm->me);
	if (sm->me)
		mad_engine_set_handler(sm->me, sm_handle_mad, sm);
}

/* In enum routing_engine order. */
static const char *const routing_names[] = { "minhop", "updn", "ftree", "auto", NULL };

static bool
parse_guid(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t *guid)
{
	const char *s = cfg_scalar(ctx, node, "a switch node GUID");

	if (s == NULL)
		return false;
	if (guid_parse(s, guid) != 0) {
		cfg_error(ctx, node, "expected a switch node GUID such as 0x0002c90300000a01, "
		    "found \"%s\"", s);
		return false;
	}
	return true;
}

/* updn_roots: a sequence of switch node GUIDs, each once. */
static bool
parse_roots(struct cfg_ctx *ctx, yaml_node_t *seq, void *field)
{
	struct sm_config *c = (struct sm_config *)((char *)field -
	    offsetof(struct sm_config, updn_roots));
	yaml_node_item_t *it;

	c->nupdn_roots = 0;
	if (!cfg_expect_sequence(ctx, seq, "updn_roots"))
		return false;
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *node = cfg_node(ctx, *it);
		uint64_t guid;
		size_t i;

		if (!parse_guid(ctx, node, &guid))
			continue;
		for (i = 0; i < c->nupdn_roots && c->updn_roots[i] != guid; i++)
			;
		if (i < c->nupdn_roots) {
			cfg_error(ctx, node, "root " GUID_FMT " is listed twice",
			    guid);
			continue;
		}
		if (c->nupdn_roots == SM_MAX_ROOTS) {
			cfg_error(ctx, node, "at most %d roots", SM_MAX_ROOTS);
			return false;
		}
		c->updn_roots[c->nupdn_roots++] = guid;
	}
	return true;
}

/* rebalance_window: "[DAYS ]HH:MM-HH:MM" (sm/core/rebalance_window.h). */
static bool
parse_rebalance_window(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "a window such as \"Sat,Sun 02:00-04:00\"");
	char err[200];

	if (s == NULL)
		return false;
	if (!rebalance_window_parse(s, field, err, sizeof(err))) {
		cfg_error(ctx, node, "rebalance_window \"%s\": %s", s, err);
		return false;
	}
	return true;
}

static const struct cfg_field observer_fields[] = {
	CFG_F_BOOL("enabled", struct sm_observer_config, enabled),
	CFG_F_DURATION("refresh", struct sm_observer_config, refresh_ms, 1000, 86400000),
	CFG_F_UINT("max_outstanding", struct sm_observer_config, max_outstanding, 1, MAD_WINDOW_MAX),
	CFG_F_END
};

/* observer: a mapping of its own (observer_fields). */
static bool
parse_observer(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	if (!cfg_expect_mapping(ctx, node, "observer"))
		return false;
	cfg_parse_fields(ctx, node, observer_fields, field);
	return true;
}

static const struct cfg_field sm_fields[] = {
	CFG_F_BOOL("enabled", struct sm_config, enabled),
	CFG_F_UINT("port_guid", struct sm_config, port_guid, 0, UINT64_MAX),
	CFG_F_UINT("priority", struct sm_config, priority, 0, 15),
	CFG_F_DURATION("sweep_interval", struct sm_config, sweep_interval_ms, 100, 86400000),
	CFG_F_ENUM("routing", struct sm_config, routing, routing_names),
	CFG_F_UINT("max_outstanding", struct sm_config, max_outstanding, 1, MAD_WINDOW_MAX),
	CFG_F_DURATION("mad_timeout", struct sm_config, timeout_ms, 1, 60000),
	CFG_F_UINT("mad_retries", struct sm_config, retries, 0, 20),
	CFG_F_CUSTOM("updn_roots", struct sm_config, updn_roots, parse_roots),
	CFG_F_DURATION("standby_poll", struct sm_config, standby_poll_ms, 100, 86400000),
	CFG_F_UINT("standby_misses", struct sm_config, standby_misses, 1, 100),
	CFG_F_UINT("sm_key", struct sm_config, sm_key, 0, UINT64_MAX),
	CFG_F_UINT("subnet_prefix", struct sm_config, subnet_prefix, 1, UINT64_MAX),
	CFG_F_CUSTOM("qos", struct sm_config, qos, sm_qos_parse),
	CFG_F_STR("mkey_secret", struct sm_config, mkey_secret),
	CFG_F_UINT("mkey_protect", struct sm_config, mkey_protect, 0, 3),
	CFG_F_DURATION("mkey_lease", struct sm_config, mkey_lease_ms, 0, 65535000),
	CFG_F_BOOL("audit", struct sm_config, audit),
	CFG_F_DURATION("audit_interval", struct sm_config, audit_interval_ms, 100, 86400000),
	CFG_F_UINT("audit_mad_budget", struct sm_config, audit_mad_budget, 1, 1000000),
	CFG_F_BOOL("ipoib_broadcast", struct sm_config, ipoib_default),
	CFG_F_CUSTOM("rebalance_window", struct sm_config, rebalance_window,
	    parse_rebalance_window),
	CFG_F_CUSTOM("observer", struct sm_config, observer, parse_observer),
	CFG_F_CUSTOM("subnets", struct sm_config, subnets, sm_subnets_parse),
	CFG_F_END
};

/* The fields, then what sm.subnets cannot go with. */
static void
sm_config_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *cfg)
{
	cfg_parse_fields(ctx, section, sm_fields, cfg);
	sm_subnets_check(ctx, section, cfg);
}

static void
sm_config_init(void *p)
{
	struct sm_config *c = p;

	c->enabled = false;
	c->port_guid = 0;
	c->priority = 15;
	c->sweep_interval_ms = 10000;
	c->routing = ROUTING_AUTO;
	c->max_outstanding = MAD_WINDOW_DEFAULT;
	c->timeout_ms = 200;
	c->retries = 3;
	c->standby_poll_ms = 0;
	c->standby_misses = 3;
	c->sm_key = 1;		/* OpenSM's default: the two recognise each other */
	c->subnet_prefix = 0xfe80000000000000ULL;	/* link-local, IB_DEFAULT_SUBNET_PREFIX */
	qos_policy_init(&c->qos);
	c->mkey_protect = 2;	/* Gets answer, Sets need the key */
	c->mkey_lease_ms = 60000;
	c->audit = true;
	c->audit_interval_ms = 60000;
	c->audit_mad_budget = 5000;	/* a 64-host 3-level tree (2,000-3,000 reads) in one interval */
	c->ipoib_default = true;	/* as OpenSM's Default=0x7fff,ipoib */
	/* on: a node whose SM is off has a fabric.  A read asks the SA ~3
	 * Gets a port (21,709 at 1,296 hosts), so the period is long: 1,296
	 * observers at 4 h ask ~2,000 queries a second of the master, and
	 * their first reads take turns by LID (docs/sm.md, Observer mode) */
	c->observer.enabled = true;
	c->observer.refresh_ms = 4 * 3600 * 1000;
	c->observer.max_outstanding = 32;	/* half the engine's window: health polls beside */
}

/* For `fabricd -n`: which routing engine the configuration asks for and
 * how it is chosen, one line; with the SM off, whether it observes ("" when
 * not). */
static const char *
sm_routing_note(const void *cfgp, char *buf, size_t len)
{
	const struct sm_config *c = cfgp;

	if (c && !c->enabled && c->observer.enabled)
		snprintf(buf, len, "sm: off; observer mode: the fabric is read from the master SM's "
		    "SA every %llu s (docs/sm.md), nothing is written to it",
		    (unsigned long long)(c->observer.refresh_ms / 1000));
	else if (c == NULL || !c->enabled)
		snprintf(buf, len, "%s", "");
	else if (c->routing == ROUTING_AUTO)
		snprintf(buf, len, "sm: routing auto: ftree when the fabric is a fat tree (the "
		    "switches with CAs as leaves), else updn; decided at each heavy sweep, "
		    "the choice and its reason in status and events");
	else if (c->routing == ROUTING_FTREE)
		snprintf(buf, len, "sm: routing ftree (updn, with a warning, on a fabric that is "
		    "not a fat tree)");
	else
		snprintf(buf, len, "sm: routing %s", routing_engine_name(c->routing));
	return buf;
}

/* The engine's settings live in the sm section (port, window, timeout,
 * retries), where operators have always set them. */
static bool
sm_mad_config(const void *cfgp, struct mad_engine_config *mc)
{
	const struct sm_config *cfg = cfgp;

	if (cfg->nsubnets > 0) {	/* the daemon's engine: the first subnet's */
		sm_subnet_engine_config(cfg, 0, mc);
		return cfg->enabled || cfg->observer.enabled;
	}
	*mc = (struct mad_engine_config){
		.port_guid = cfg->port_guid, .window = (unsigned)cfg->max_outstanding,
		.timeout_ms = (unsigned)cfg->timeout_ms, .retries = (unsigned)cfg->retries,
		/* an observer reads; it is not the port's SM, and a host
		 * without InfiniBand (RoCE only) is not an error */
		.no_issm = !cfg->enabled, .optional = !cfg->enabled,
	};
	return cfg->enabled || cfg->observer.enabled;
}

/* The engine asks which key an SMP carries: the port it reaches, in the
 * model being built or the published one. */
static uint64_t
mkey_for(const struct mad_addr *a, void *arg)
{
	struct sm *sm = arg;
	const struct fabric_port *p = sm_mkey_port_of(sm->next, sm->own_guid, a);

	if (p == NULL)
		p = sm_mkey_port_of(sm->fabric, sm->own_guid, a);
	return p ? sm_mkey_of(&sm->mkey, p->guid) : 0;
}

/* M_Key from the configuration; the secret lives only in sm->mkey. */
static void
mkey_configure(struct sm *sm, const struct sm_config *cfg)
{
	size_t len = cfg->mkey_secret ? strlen(cfg->mkey_secret) : 0;

	sm->cfg.mkey_secret = NULL;
	sm->mkey.enabled = len > 0;
	if (len > sizeof(sm->mkey.secret))
		len = sizeof(sm->mkey.secret);
	explicit_bzero(sm->mkey.secret, sizeof(sm->mkey.secret));
	memcpy(sm->mkey.secret, cfg->mkey_secret ? cfg->mkey_secret : "", len);
	sm->mkey.secret_len = len;
	sm->mkey.protect = (uint8_t)cfg->mkey_protect;
	sm->mkey.lease_s = (uint16_t)(cfg->mkey_lease_ms / 1000);
	if (sm->me)
		mad_engine_set_mkey(sm->me, sm->mkey.enabled ? mkey_for : NULL, sm);
}

/* For the remote control channel: a standby sends clients to its master. */
static void
mastership(void *arg, struct ctl_sm_state *out)
{
	const struct sm *sm = arg;

	out->master = sm_is_master(sm);
	sm_master_seen(sm, &out->master_guid, &out->master_lid);
}

/* The SM off, observer on: an instance that only publishes the fabric
 * the master's SA describes (observer.c), on me, for the subnet called
 * name ("" without sm.subnets). */
static struct sm *
observer_instance_start(struct fabricd *fd, const struct sm_config *cfg, struct mad_engine *me,
    const char *name)
{
	struct sm *sm = xcalloc(1, sizeof(*sm));

	sm->fd = fd;
	sm->cfg = *cfg;
	snprintf(sm->subnet, sizeof(sm->subnet), "%s", name);
	snprintf(sm->source, sizeof(sm->source), "sm%s%s", name[0] ? "/" : "", name);
	sm->cfg.mkey_secret = NULL;
	sm_attach_io(sm, fd, me);
	/* the SA's Reports are ours to answer, nothing else */
	sm_observer_reports_start(sm, sm_observer_patch);
	sm->state = SM_STATE_NOTACTIVE;		/* never sweeps, never master */
	/* empty, for the readers that look (mcast, qos, the SA's counters) */
	sm->mc = mc_db_new();
	sm->sa = sa_state_new();
	sm->qos_tables = qos_tables_new();
	if (fd->sm == NULL)
		fd->sm = sm;
	sm_observer_start(sm);
	return sm;
}

/* Without a port (a RoCE host) there is nothing to observe: the module
 * stays off, as before.  Under sm.subnets, an observer a subnet. */
static int
observer_start(struct fabricd *fd, const struct sm_config *cfg)
{
	if (!cfg->observer.enabled || (fd->me == NULL && !test_io.on))
		return 0;
	observer_instance_start(fd, cfg, fd->me, cfg->nsubnets ? cfg->subnets[0].name : "");
	if (cfg->nsubnets > 1)
		sm_subnets_start(fd, cfg, observer_instance_start);
	return 0;
}

static void
observer_instance_stop(struct sm *sm)
{
	sm_observer_reports_stop(sm);
	sm_observer_stop(sm);
	if (sm->hook_ev)
		event_free(sm->hook_ev);
	fabric_free(sm->fabric);
	mad_batch_free(&sm->batch);
	mad_batch_free(&sm->side);
	mad_batch_free(&sm->admin);
	sm_mcast_free(sm);
	sa_state_free(sm->sa);
	free(sm->qos_tables);
	sm_ports_seen_free(sm);
	if (sm->me)
		mad_engine_set_handler(sm->me, NULL, NULL);	/* its engine is closed after */
	if (sm->fd->sm == sm)
		sm->fd->sm = NULL;
	free(sm);
}

/* One SM, on me, for the subnet called name ("" without sm.subnets). */
static struct sm *
sm_instance_start(struct fabricd *fd, const struct sm_config *cfg, struct mad_engine *me,
    const char *name)
{
	struct sm *sm = xcalloc(1, sizeof(*sm));

	sm->fd = fd;
	sm->cfg = *cfg;
	snprintf(sm->subnet, sizeof(sm->subnet), "%s", name);
	snprintf(sm->source, sizeof(sm->source), "sm%s%s", name[0] ? "/" : "", name);
	for (size_t i = 0; i < cfg->nsubnets; i++)
		if (strcmp(cfg->subnets[i].name, name) == 0)
			snprintf(sm->group, sizeof(sm->group), "%s", cfg->subnets[i].group);
	sm_attach_io(sm, fd, me);
	if (fd->sm == NULL) {		/* the daemon's: what other modules serve */
		fd->sm = sm;
		ha_scope(fd->ha, cfg->subnet_prefix);	/* the intent's keys are this subnet's */
	}
	sm->state = SM_STATE_DISCOVERING;	/* until the first discovery decides */
	sm->window_done = -1;			/* no window's rebalance yet */
	sm->mc = mc_db_new();
	sm->sa = sa_state_new();
	sm->qos_tables = qos_tables_new();
	sm_mcast_ensure_groups(sm);
	sm->mc->nevents = 0;	/* made before anyone could subscribe */
	if (sm_lids_load(&sm->lids, fd->store, sm->subnet) < 0)
		log_warnx("sm: persisted LIDs not loaded; assigning afresh");
	if (fd->store)
		sm->writer = model_writer_new(fd->base, fd->store, sm->subnet);
	mkey_configure(sm, cfg);
	if (sm->mkey.enabled && sm_mkey_load(&sm->mkey, fd->store, sm->subnet) < 0)
		log_warnx("sm: stored M_Keys not loaded");
	if (pds_load(&sm->disabled, fd->store, sm->subnet) < 0)
		log_warnx("sm: stored disabled ports not loaded");
	else if (sm->disabled.n)
		log_info("sm: %zu port%s disabled by an operator stay disabled", sm->disabled.n,
		    sm->disabled.n == 1 ? "" : "s");
	sm_replica_start(sm);
	sm_fence_start(sm);
	event_post(EV_INFO, sm_source(sm), NULL, "subnet manager started on port " GUID_FMT "%s%s, "
	    "priority %llu", sm->own_guid, name[0] ? " for subnet " : "", name,
	    (unsigned long long)cfg->priority);
	sm_sweep_start_timer(sm);
	(void)sm_listen(sm, &sm_ctl_listener);	/* the first: room is always there */
	if (fd->sm == sm)
		control_set_sm_probe(mastership, sm);
	sm_audit_start(sm);
	sm_sweep_request(sm, true);
	return sm;
}

static int
sm_start(struct fabricd *fd, const void *cfgp)
{
	const struct sm_config *cfg = cfgp;
	bool others = cfg->nsubnets > 1;

	if (!cfg->enabled)
		return observer_start(fd, cfg);
	if (fd->me == NULL && !test_io.on)
		return -1;	/* the daemon could not open the port (logged) */
	if (others && fd->ha) {
		event_post(EV_ERROR, "sm", NULL, "sm.subnets with ha: the etcd intent is kept "
		    "for one subnet; the SM serves the first subnet, %s, only", cfg->subnets[0].name);
		others = false;
	}
	sm_instance_start(fd, cfg, fd->me, cfg->nsubnets ? cfg->subnets[0].name : "");
	if (others)
		sm_subnets_start(fd, cfg, sm_instance_start);
	return 0;
}

/* Turning the SM or the observer on or off, or moving it to another port,
 * opens or closes the daemon's MAD engine and the port's IsSM: only a
 * restart does that. */
static const struct cfg_restart_key sm_restart_keys[] = {
	CFG_RESTART("sm.enabled", CFG_BOOL, struct sm_config, enabled),
	CFG_RESTART("sm.port_guid", CFG_UINT, struct sm_config, port_guid),
	CFG_RESTART("sm.observer.enabled", CFG_BOOL, struct sm_config, observer.enabled),
	CFG_RESTART_CUSTOM("sm.subnets"),	/* sm_reload_check */
	CFG_RESTART_END
};

/* sm.subnets: each port's engine and SM start with the daemon. */
static enum reload_result
sm_reload_check(struct fabricd *fd, const void *cfgp, char *why, size_t len)
{
	const struct sm_config *now = fabricd_module_config(fd, MOD_SM), *cfg = cfgp;

	if (!sm_subnets_same(now, cfg)) {
		snprintf(why, len, "sm.subnets changes only at restart");
		return RELOAD_RESTART_NEEDED;
	}
	return RELOAD_APPLIED;
}

static void
sm_instance_reload(struct sm *sm, const struct sm_config *cfg)
{
	sm->cfg.priority = cfg->priority;
	sm->cfg.routing = cfg->routing;
	memcpy(sm->cfg.updn_roots, cfg->updn_roots, sizeof(sm->cfg.updn_roots));
	sm->cfg.nupdn_roots = cfg->nupdn_roots;
	sm->roots_warned = false;
	sm->cfg.retries = cfg->retries;
	sm->cfg.timeout_ms = cfg->timeout_ms;
	if (sm->me)
		mad_engine_set_timing(sm->me, (unsigned)cfg->timeout_ms, (unsigned)cfg->retries);
	sm->cfg.standby_misses = cfg->standby_misses;
	sm->cfg.sm_key = cfg->sm_key;
	sm->cfg.subnet_prefix = cfg->subnet_prefix;	/* ports get it at the sweep below */
	sm->cfg.qos = cfg->qos;		/* the tables follow at that sweep */
	sm->cfg.ipoib_default = cfg->ipoib_default;	/* a group made stays till restart */
	sm_rebalance_window_set(sm, &cfg->rebalance_window);	/* looked at every sweep */
	if (cfg->max_outstanding != sm->cfg.max_outstanding) {
		sm->cfg.max_outstanding = cfg->max_outstanding;
		if (sm->me)
			mad_engine_set_window(sm->me, (unsigned)cfg->max_outstanding);
	}
	if (cfg->sweep_interval_ms != sm->cfg.sweep_interval_ms) {
		sm->cfg.sweep_interval_ms = cfg->sweep_interval_ms;
		sm_sweep_start_timer(sm);
	}
	sm->cfg.standby_poll_ms = cfg->standby_poll_ms;
	mkey_configure(sm, cfg);	/* new ports get keys from a new secret */
	sm->cfg.audit = cfg->audit;
	sm->cfg.audit_mad_budget = cfg->audit_mad_budget;
	if (cfg->audit_interval_ms != sm->cfg.audit_interval_ms) {
		sm->cfg.audit_interval_ms = cfg->audit_interval_ms;
		sm_audit_reload(sm);
	}
	sm_standby_reload(sm);		/* the poll period may follow the sweep's */
	sm_replica_config_changed(sm);	/* the QoS policy, as other SM nodes see it */
	sm_sweep_request(sm, true);	/* routing may have changed */
}

static int
sm_reload(struct fabricd *fd, const void *cfgp)
{
	const struct sm_config *cfg = cfgp;

	if (fd->sm == NULL)
		return 0;	/* disabled, and staying so (sm_restart_keys) */
	if (fd->sm->observer) {
		sm_observer_reload(fd->sm, &cfg->observer);
		return 0;
	}
	for (struct sm *sm = fd->sm; sm; sm = sm->next_subnet)
		sm_instance_reload(sm, cfg);
	return 0;
}

static void
sm_instance_stop(struct sm *sm)
{
	struct fabricd *fd = sm->fd;
	size_t i;

	if (fd->sm == sm)
		control_set_sm_probe(NULL, NULL);
	for (i = 0; i < sm->nwaiters; i++)
		ctl_reply_error(sm->waiters[i], PERR_UNAVAILABLE, "the subnet manager stopped");
	sm->nwaiters = 0;
	for (i = 0; i < sm->nrebal_waiters; i++)
		ctl_reply_error(sm->rebal_waiters[i], PERR_UNAVAILABLE, "the subnet manager stopped");
	sm->nrebal_waiters = 0;
	/* The sweep must not go on: its MADs' replies reach nobody. */
	sm_phase_cancel(sm);
	sm_fence_stop(sm);
	sm_replica_stop(sm);
	sm_audit_stop(sm);
	sm_port_admin_stop(sm);
	sa_qos_lazy_stop(sm);
	if (sm->me)
		mad_engine_set_mkey(sm->me, NULL, NULL);
	sm_mkey_free(&sm->mkey);
	if (sm->me)
		mad_engine_set_handler(sm->me, NULL, NULL);	/* the daemon closes it */
	sm_standby_stop(sm);
	if (sm->sweep_timer)
		event_free(sm->sweep_timer);
	if (sm->kick)
		event_free(sm->kick);
	if (sm->step_ev)
		event_free(sm->step_ev);
	if (sm->hook_ev)
		event_free(sm->hook_ev);
	sm_lft_abandon(sm);		/* before the model it reads is freed */
	model_writer_free(sm->writer);	/* what is queued is written first */
	routing_table_free(sm->rt);
	routing_memory_free(sm->route_mem);
	fabric_free(sm->fabric);
	fabric_free(sm->next);
	mad_batch_free(&sm->batch);
	mad_batch_free(&sm->side);
	sm_lids_free(&sm->lids);
	sm_mcast_free(sm);
	sa_state_free(sm->sa);
	free(sm->qos_tables);
	if (fd->sm == sm)
		fd->sm = NULL;
	free(sm);
}

static void
sm_stop(struct fabricd *fd)
{
	if (fd->sm == NULL)
		return;
	if (fd->sm->observer) {
		sm_subnets_stop(fd, observer_instance_stop);
		observer_instance_stop(fd->sm);
		return;
	}
	sm_subnets_stop(fd, sm_instance_stop);
	sm_instance_stop(fd->sm);
}

static json_t *observer_json(struct sm *sm) { return sm_observer_json(sm); }

static json_t *
sm_status(struct fabricd *fd)
{
	const struct sm_config *c = fabricd_module_config(fd, MOD_SM);

	if (fd->sm == NULL)
		return json_pack("{s:s}", "state", c->enabled ? "error" : "disabled");
	if (fd->sm->observer && c->nsubnets > 0) {
		json_t *st = sm_observer_json(fd->sm);

		json_object_set_new(st, "subnets", sm_subnets_status(fd->sm, observer_json));
		return st;
	}
	if (fd->sm->observer)
		return sm_observer_json(fd->sm);
	if (c->nsubnets > 0) {
		json_t *st = sm_status_json(fd->sm);

		json_object_set_new(st, "subnets", sm_subnets_status(fd->sm, sm_status_json));
		return st;
	}
	return sm_status_json(fd->sm);
}

/* status --subnet NAME: that subnet's SM in full, the rows of all beside. */
static json_t *
sm_status_of(struct fabricd *fd, const char *subnet)
{
	struct sm *sm;
	json_t *st;

	if ((sm = sm_named(fd->sm, subnet)) == NULL)
		return sm_status(fd);
	if (sm->observer) {
		st = sm_observer_json(sm);
		json_object_set_new(st, "subnets", sm_subnets_status(fd->sm, observer_json));
		return st;
	}
	st = sm_status_json(sm);
	json_object_set_new(st, "subnets", sm_subnets_status(fd->sm, sm_status_json));
	return st;
}

/* fabricd -n: the routing engine the configuration asks for. */
static void
sm_config_notes(const void *cfg, FILE *out, FILE *err)
{
	char note[200];

	(void)err;
	if (sm_routing_note(cfg, note, sizeof(note))[0])
		fprintf(out, "%s\n", note);
}

const struct fabricd_module sm_module = {
	.name = "sm",
	.config_size = sizeof(struct sm_config),
	.config_init = sm_config_init,
	.config_fields = sm_fields,
	.config_parse = sm_config_parse,
	.mad_config = sm_mad_config,
	.start = sm_start,
	.restart_keys = sm_restart_keys,
	.reload_check = sm_reload_check,
	.reload = sm_reload,
	.stop = sm_stop,
	.status = sm_status,
	.status_of = sm_status_of,
	.metrics = sm_metrics,
	.config_notes = sm_config_notes,
};
