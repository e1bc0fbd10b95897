/*
 * routebench: the routing engines on fat trees built in memory (no
 * simulator, no MADs): time and peak memory of one full computation.
 *
 *   routebench [-e ENGINE] RADIX PODS...
 *
 * A 3-level fat tree of radix k with p pods, cabled as tools/topogen -p
 * cables it: per pod k/2 leaves of k/2 hosts and k/2 aggregation
 * switches, every leaf cabled to every aggregation switch of its pod;
 * p*k/4 cores (full ports), the aggregation switches' k/2 uplinks dealt
 * round-robin over them.  p = k is the full tree (k^3/4 hosts).
 * LIDs: hosts first, then switches; the unicast LID space
 * (49151) bounds the size: radix 64 holds at most 44 pods.
 * Prints one line per size: hosts, switches, engine, seconds, peak RSS.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"
#include "fabric/routing.h"

struct model {
	struct fabric_node	**nodes;
	size_t			  n, cap;
	uint16_t		  next_lid;
};

static struct fabric_node *
add_node(struct model *m, enum fabric_node_type type, unsigned nports)
{
	struct fabric_node *nd = calloc(1, sizeof(*nd));

	if (nd == NULL || (nd->ports = calloc(nports + 1u, sizeof(*nd->ports))) == NULL)
		err(1, "calloc");
	nd->type = type;
	nd->nports = (uint8_t)nports;
	nd->guid = (type == FABRIC_SWITCH ? 0x0002000000000000ULL : 0x0001000000000000ULL) + m->n;
	for (unsigned p = 0; p <= nports; p++) {
		nd->ports[p].node = nd;
		nd->ports[p].num = (uint8_t)p;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		if ((m->nodes = realloc(m->nodes, m->cap * sizeof(*m->nodes))) == NULL)
			err(1, "realloc");
	}
	m->nodes[m->n++] = nd;
	return nd;
}

static void
cable(struct fabric_node *a, struct fabric_node *b)
{
	unsigned pa = 1, pb = 1;

	while (pa <= a->nports && a->ports[pa].peer)
		pa++;
	while (pb <= b->nports && b->ports[pb].peer)
		pb++;
	if (pa > a->nports || pb > b->nports)
		errx(1, "out of ports");
	a->ports[pa].peer = &b->ports[pb];
	b->ports[pb].peer = &a->ports[pa];
}

static void
build(struct model *m, unsigned k, unsigned pods)
{
	unsigned h = k / 2, ncore = (pods * h * h + k - 1) / k, next = 0;
	struct fabric_node **core = calloc(ncore, sizeof(*core));
	struct fabric_node **agg = calloc(h, sizeof(*agg)), **leaf = calloc(h, sizeof(*leaf));

	if (!core || !agg || !leaf)
		err(1, "calloc");
	memset(m, 0, sizeof(*m));
	m->next_lid = 1;
	for (unsigned c = 0; c < ncore; c++)
		core[c] = add_node(m, FABRIC_SWITCH, k);
	for (unsigned p = 0; p < pods; p++) {
		for (unsigned a = 0; a < h; a++) {
			agg[a] = add_node(m, FABRIC_SWITCH, k);
			for (unsigned u = 0; u < h; u++)
				cable(agg[a], core[next++ % ncore]);
		}
		for (unsigned l = 0; l < h; l++) {
			leaf[l] = add_node(m, FABRIC_SWITCH, k);
			for (unsigned a = 0; a < h; a++)
				cable(leaf[l], agg[a]);
			for (unsigned x = 0; x < h; x++) {
				struct fabric_node *ca = add_node(m, FABRIC_CA, 1);
				ca->ports[1].lid = ca->lid = m->next_lid++;
				cable(ca, leaf[l]);
			}
		}
	}
	for (size_t i = 0; i < m->n; i++)
		if (m->nodes[i]->type == FABRIC_SWITCH)
			m->nodes[i]->lid = m->next_lid++;
	free(core);
	free(agg);
	free(leaf);
}

static void
model_free(struct model *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->nodes[i]->ports);
		free(m->nodes[i]);
	}
	free(m->nodes);
}

/*
 * The same fabric after one leaf uplink fails, then returns: the time of
 * a routing that repairs from the route memory (what a heavy sweep does
 * after a change), and of the memory's upkeep.
 */
static void
repair_once(struct model *m, const struct routing_params *prm, const struct routing_table *t0)
{
	struct routing_memory *mem = routing_memory_new();
	struct routing_params p = *prm;
	struct fabric_port *a = NULL, *b;
	struct routing_table *t;
	char errbuf[256];
	double upkeep;
	struct rusage ru;

	for (size_t j = 0; j < m->n && a == NULL; j++) {
		struct fabric_node *n = m->nodes[j];

		for (unsigned q = 1; n->type == FABRIC_SWITCH && q <= n->nports && a == NULL; q++)
			if (n->ports[q].peer && n->ports[q].peer->node->type == FABRIC_CA)
				for (unsigned u = 1; u <= n->nports; u++)	/* a leaf: its uplink */
					if (n->ports[u].peer &&
					    n->ports[u].peer->node->type == FABRIC_SWITCH) {
						a = &n->ports[u];
						break;
					}
	}
	if (mem == NULL || a == NULL || routing_memory_update(mem, t0) < 0)
		errx(1, "route memory");
	/* the switches hold the first tables, as after bring-up */
	for (size_t s = 0; s < t0->nswitches; s++) {
		struct fabric_node *n = (struct fabric_node *)t0->lfts[s].sw;

		n->lft_len = (size_t)t0->lfts[s].nblocks * ROUTING_BLOCK_SIZE;
		if ((n->lft = malloc(n->lft_len)) == NULL)
			err(1, "malloc");
		memcpy(n->lft, t0->lfts[s].port, n->lft_len);
		n->lft_known = true;
	}
	p.mem = mem;
	b = a->peer;
	a->peer = b->peer = NULL;
	if ((t = routing_compute(m->nodes, m->n, &p, errbuf, sizeof(errbuf))) == NULL)
		errx(1, "routing: %s", errbuf);
	upkeep = (double)clock_mono_us();
	if (routing_memory_update(mem, t) < 0)
		errx(1, "route memory");
	upkeep = ((double)clock_mono_us() - upkeep) / 1e6;
	getrusage(RUSAGE_SELF, &ru);
	printf("  a leaf uplink down: repaired in %.3f s (%zu entries rerouted, %zu CA pairs "
	    "moved, hottest %llu, bound %llu), memory kept in %.3f s, peak RSS %.0f MiB\n",
	    t->usec / 1e6, t->repair.rerouted, t->repair.pairs_moved,
	    (unsigned long long)t->repair.hottest, (unsigned long long)t->repair.bound, upkeep,
	    ru.ru_maxrss / 1024.0);
	routing_table_free(t);
	a->peer = b;
	b->peer = a;
	if ((t = routing_compute(m->nodes, m->n, &p, errbuf, sizeof(errbuf))) == NULL)
		errx(1, "routing: %s", errbuf);
	printf("  and back: %.3f s, %zu entries put back\n", t->usec / 1e6, t->repair.reverted);
	fflush(stdout);
	routing_table_free(t);
	routing_memory_free(mem);
	for (size_t j = 0; j < m->n; j++) {
		free(m->nodes[j]->lft);
		m->nodes[j]->lft = NULL;
		m->nodes[j]->lft_known = false;
	}
}

int
main(int argc, char **argv)
{
	struct routing_params prm = { .engine = ROUTING_FTREE };
	char errbuf[256];
	int c;

	while ((c = getopt(argc, argv, "e:")) != -1) {
		if (c != 'e' || routing_engine_parse(optarg) < 0)
			errx(2, "usage: routebench [-e minhop|updn|ftree|auto] RADIX PODS...");
		prm.engine = routing_engine_parse(optarg);
	}
	if (argc - optind < 2)
		errx(2, "usage: routebench [-e ENGINE] RADIX PODS...");
	unsigned k = (unsigned)atoi(argv[optind]);
	for (int i = optind + 1; i < argc; i++) {
		struct model m;
		struct routing_table *t;
		struct rusage ru;
		size_t nsw = 0;

		build(&m, k, (unsigned)atoi(argv[i]));
		for (size_t j = 0; j < m.n; j++)
			nsw += m.nodes[j]->type == FABRIC_SWITCH;
		if ((t = routing_compute(m.nodes, m.n, &prm, errbuf, sizeof(errbuf))) == NULL)
			errx(1, "routing: %s", errbuf);
		getrusage(RUSAGE_SELF, &ru);
		printf("radix %u pods %s: %zu hosts, %zu switches, %s, %.3f s, unreachable %zu, "
		    "peak RSS %.0f MiB\n", k, argv[i], m.n - nsw, nsw, routing_engine_name(t->engine),
		    t->usec / 1e6, t->unreachable, ru.ru_maxrss / 1024.0);
		fflush(stdout);
		repair_once(&m, &prm, t);
		routing_table_free(t);
		model_free(&m);
	}
	return 0;
}
