/*
 * topogen: write an ibsim net file for a test fabric.
 *
 *   topogen [-o FILE] [-P RADIX] [-w W] [-S S] [-x NODE:PORT]... TOPOLOGY
 *   2-level fat tree:  -k LEAVES -h HOSTS_PER_LEAF -s SPINES
 *   3-level fat tree:  -p PODS [-k LEAVES_PER_POD] [-h HOSTS] [-a AGGS_PER_POD] [-c CORES]
 *   random irregular:  -r SEED -n SWITCHES [-e EXTRA_LINKS] [-h HOSTS_PER_SWITCH]
 *   ring of switches:  -R SWITCHES [-h HOSTS_PER_SWITCH]   (credit loops for minhop)
 *   -G RAILS (2-level): rail-optimised, as GPU clusters are cabled: the
 *   leaves in groups of RAILS, each host of a group with RAILS HCAs, HCA i
 *   cabled to leaf i of the group; -h is then HCAs per leaf.  HCA 1 of a
 *   host is named hostN, the others hostN-r2.. (the rail after "-r").
 *   -u N: the last N leaves of a fat tree (of its last pod) get no hosts,
 *   still cabled up as the others: leaves waiting for their hosts.
 *
 * Every port is cabled explicitly at width mask W and speed mask S
 * (default 8 and 4: 12X QDR, the most ibsim's ports support), because
 * ibsim otherwise enables less than a port supports and every link would
 * look degraded.  -x NODE:PORT cables that one link at 4X SDR on both ends
 * (ibsim needs a common bit at both ends), so it is a deliberately
 * degraded link.  Names: switches sw-l1 (leaf), sw-s1 (spine), sw-p1-l1 /
 * sw-p1-a1 / sw-c1 (pods), sw-r1 (random); hosts host1..hostN, so that
 * tests can address nodes by name.  Node GUIDs are explicit and stable.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_LEN	32
#define MAX_SLOW	16

struct node {
	char		 name[NAME_LEN];
	int		 sw;		/* switch, else a host */
	int		 nports;
	int		*peer;		/* [nports + 1] node index, -1 free */
	int		*peer_port;
	int		*slow;
};

static struct node *nodes;
static int nnodes, radix = 36, width = 8, speed = 4, empty_leaves, rails = 1;
static char *slow_spec[MAX_SLOW];
static int nslow;

static int
add_node(const char *name, int sw)
{
	struct node *n;

	nodes = realloc(nodes, (size_t)(nnodes + 1) * sizeof(*nodes));
	if (nodes == NULL)
		err(1, "realloc");
	n = &nodes[nnodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->sw = sw;
	n->nports = sw ? radix : 1;
	n->peer = malloc((size_t)(n->nports + 1) * sizeof(int));
	n->peer_port = calloc((size_t)n->nports + 1, sizeof(int));
	n->slow = calloc((size_t)n->nports + 1, sizeof(int));
	if (!n->peer || !n->peer_port || !n->slow)
		err(1, "malloc");
	for (int p = 0; p <= n->nports; p++)
		n->peer[p] = -1;
	return nnodes++;
}

static int
free_port(int i)
{
	for (int p = 1; p <= nodes[i].nports; p++)
		if (nodes[i].peer[p] < 0)
			return p;
	return 0;
}

static void
cable(int a, int b)
{
	int pa = free_port(a), pb = free_port(b);

	if (!pa || !pb)
		errx(1, "no free port to cable %s to %s (radix %d)", nodes[a].name,
		    nodes[b].name, radix);
	nodes[a].peer[pa] = b;
	nodes[a].peer_port[pa] = pb;
	nodes[b].peer[pb] = a;
	nodes[b].peer_port[pb] = pa;
}

static int nhosts;

static void
add_hosts(int sw, int n)
{
	char name[NAME_LEN];

	for (int h = 0; h < n; h++) {
		snprintf(name, sizeof(name), "host%d", ++nhosts);
		cable(add_node(name, 0), sw);
	}
}

/* Hosts of a rail-optimised tree: per group of `rails` leaves, `hosts`
 * hosts, HCA i of each on leaf i of the group. */
static void
add_rail_hosts(const int *lf, int leaves, int hosts)
{
	char name[NAME_LEN];

	if (leaves % rails)
		errx(1, "rails: %d leaves are not groups of %d", leaves, rails);
	for (int g = 0; g < leaves / rails; g++)
		for (int h = 0; h < hosts; h++) {
			++nhosts;
			for (int r = 0; r < rails; r++) {
				if (r == 0)
					snprintf(name, sizeof(name), "host%d", nhosts);
				else
					snprintf(name, sizeof(name), "host%d-r%d", nhosts, r + 1);
				cable(add_node(name, 0), lf[g * rails + r]);
			}
		}
}

static void
gen_fat2(int leaves, int hosts, int spines)
{
	int *sp = calloc((size_t)spines, sizeof(int)), *lf = calloc((size_t)leaves, sizeof(int));
	int per_pair = spines ? (radix - hosts) / spines : 0;
	char name[NAME_LEN];

	if (leaves < 1 || spines < 0 || hosts < 0 || (spines && per_pair < 1))
		errx(1, "fat tree: need 1+ leaves and hosts + spines <= radix %d", radix);
	if (leaves * per_pair > radix)
		per_pair = radix / leaves;
	if (spines && per_pair < 1)
		errx(1, "fat tree: %d leaves do not fit a %d-port spine", leaves, radix);
	for (int l = 0; l < leaves; l++) {
		snprintf(name, sizeof(name), "sw-l%d", l + 1);
		lf[l] = add_node(name, 1);
	}
	for (int s = 0; s < spines; s++) {
		snprintf(name, sizeof(name), "sw-s%d", s + 1);
		sp[s] = add_node(name, 1);
	}
	/* hosts first so that host ports are 1..hosts on every leaf */
	if (rails > 1)
		add_rail_hosts(lf, leaves, hosts);
	else
		for (int l = 0; l < leaves; l++)
			add_hosts(lf[l], l >= leaves - empty_leaves ? 0 : hosts);
	for (int l = 0; l < leaves; l++)
		for (int s = 0; s < spines; s++)
			for (int k = 0; k < per_pair; k++)
				cable(lf[l], sp[s]);
	free(sp);
	free(lf);
}

/*
 * Pods of `leaves` leaves and `aggs` aggregation switches (every leaf to
 * every aggregation switch of its pod); each aggregation switch spends its
 * remaining ports on uplinks spread round-robin over the cores.
 */
static void
gen_fat3(int pods, int leaves, int hosts, int aggs, int cores)
{
	int up = radix - leaves, *core, k = 0;
	char name[NAME_LEN];

	if (pods < 1 || leaves < 1 || aggs < 1 || up < 1 || hosts + aggs > radix)
		errx(1, "3-level fat tree: need hosts + aggs <= radix and leaves < radix");
	if (cores == 0)
		cores = (pods * aggs * up + radix - 1) / radix;
	core = calloc((size_t)cores, sizeof(int));
	for (int c = 0; c < cores; c++) {
		snprintf(name, sizeof(name), "sw-c%d", c + 1);
		core[c] = add_node(name, 1);
	}
	for (int p = 0; p < pods; p++) {
		int first_leaf = nnodes;
		for (int l = 0; l < leaves; l++) {
			snprintf(name, sizeof(name), "sw-p%d-l%d", p + 1, l + 1);
			add_node(name, 1);
		}
		int first_agg = nnodes;
		for (int a = 0; a < aggs; a++) {
			snprintf(name, sizeof(name), "sw-p%d-a%d", p + 1, a + 1);
			add_node(name, 1);
		}
		for (int l = 0; l < leaves; l++)
			add_hosts(first_leaf + l, p == pods - 1 && l >= leaves - empty_leaves ? 0 : hosts);
		for (int l = 0; l < leaves; l++)
			for (int a = 0; a < aggs; a++)
				cable(first_leaf + l, first_agg + a);
		for (int a = 0; a < aggs; a++)
			for (int u = 0; u < up; u++)
				cable(first_agg + a, core[k++ % cores]);
	}
	free(core);
}

/* Random connected graph: a random spanning tree, then extra random
 * cables (parallel ones allowed), then hosts. */
static void
gen_random(unsigned seed, int nsw, int extra, int hosts)
{
	char name[NAME_LEN];
	int first = nnodes;

	if (nsw < 1 || hosts >= radix)
		errx(1, "random: need 1+ switches and hosts < radix");
	srandom(seed);
	for (int s = 0; s < nsw; s++) {
		snprintf(name, sizeof(name), "sw-r%d", s + 1);
		add_node(name, 1);
	}
	for (int s = 0; s < nsw; s++)
		add_hosts(first + s, hosts);
	for (int s = 1; s < nsw; s++) {
		int tries = 0, t;
		do
			t = first + (int)(random() % s);
		while (!free_port(t) && ++tries < 1000);
		cable(first + s, t);
	}
	for (int e = 0, tries = 0; e < extra && tries < 100 * (extra + 1); tries++) {
		int a = first + (int)(random() % nsw), b = first + (int)(random() % nsw);
		if (a != b && free_port(a) && free_port(b)) {
			cable(a, b);
			e++;
		}
	}
}

/* A ring: each switch cabled to the next, the last to the first.  Shortest
 * paths on a ring of 5 or more go round it in both directions, and the
 * clockwise ones alone close a cycle of channel dependencies. */
static void
gen_ring(int nsw, int hosts)
{
	char name[NAME_LEN];
	int first = nnodes;

	if (nsw < 3 || hosts + 2 > radix)
		errx(1, "ring: need 3+ switches and hosts + 2 <= radix");
	for (int s = 0; s < nsw; s++) {
		snprintf(name, sizeof(name), "sw-r%d", s + 1);
		add_node(name, 1);
	}
	for (int s = 0; s < nsw; s++)
		add_hosts(first + s, hosts);
	for (int s = 0; s < nsw; s++)
		cable(first + s, first + (s + 1) % nsw);
}

static int
find_node(const char *name)
{
	for (int i = 0; i < nnodes; i++)
		if (strcmp(nodes[i].name, name) == 0)
			return i;
	return -1;
}

static void
mark_slow(const char *spec)
{
	char name[NAME_LEN];
	const char *colon = strrchr(spec, ':');
	int i, p;

	if (colon == NULL || colon - spec >= NAME_LEN)
		errx(1, "-x %s: expected NODE:PORT", spec);
	snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	p = atoi(colon + 1);
	if ((i = find_node(name)) < 0)
		errx(1, "-x %s: no node %s", spec, name);
	if (p < 1 || p > nodes[i].nports || nodes[i].peer[p] < 0)
		errx(1, "-x %s: port %d of %s is not cabled", spec, p, name);
	nodes[i].slow[p] = 1;
	nodes[nodes[i].peer[p]].slow[nodes[i].peer_port[p]] = 1;
}

static void
emit(FILE *out)
{
	int nsw = 0, ca = 0, links = 0;

	for (int i = 0; i < nnodes; i++) {
		nsw += nodes[i].sw;
		for (int p = 1; p <= nodes[i].nports; p++)
			links += nodes[i].peer[p] >= 0;
	}
	fprintf(out, "# ibsim net file written by topogen: %d switches, %d hosts, %d links\n",
	    nsw, nhosts, links / 2);
	/* CA nodes: a host of a rail-optimised tree has several */
	fprintf(out, "# ibsim needs -N >= %d, -S >= %d, -P >= %d\n\n", nnodes, nsw,
	    nsw * (radix + 1) + (nnodes - nsw) * 2);
	for (int i = 0, s = 0; i < nnodes; i++) {
		const struct node *n = &nodes[i];
		if (n->sw)
			fprintf(out, "switchguid=0x%016llx\nSwitch %d \"%s\" # \"%s\" enhanced port 0\n",
			    0x0002000000000000ULL + (unsigned long long)++s, n->nports, n->name, n->name);
		else
			fprintf(out, "caguid=0x%016llx\nHca 1 \"%s\" # \"%s\"\n",
			    0x0001000000000000ULL + 16ULL * (unsigned long long)++ca, n->name, n->name);
		for (int p = 1; p <= n->nports; p++) {
			if (n->peer[p] < 0)
				continue;
			fprintf(out, "[%d] \"%s\"[%d] w=%d s=%d\n", p, nodes[n->peer[p]].name,
			    n->peer_port[p], n->slow[p] ? 2 : width, n->slow[p] ? 1 : speed);
		}
		fprintf(out, "\n");
	}
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: topogen [-o FILE] [-P RADIX] [-w WIDTHMASK] [-S SPEEDMASK] [-x NODE:PORT]...\n"
	    "               [-u EMPTY_LEAVES] [-G RAILS]\n"
	    "         -k LEAVES -h HOSTS -s SPINES              2-level fat tree\n"
	    "         -p PODS [-k L] [-h H] [-a AGGS] [-c CORES] 3-level fat tree\n"
	    "         -r SEED -n SWITCHES [-e EXTRA] [-h HOSTS]  random irregular\n"
	    "         -R SWITCHES [-h HOSTS]                    ring\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	int leaves = 18, hosts = -1, spines = 18, pods = 0, aggs = 18, cores = 0;
	int nsw = 0, extra = -1, rnd = 0, ring = 0, c;
	unsigned seed = 0;
	const char *outpath = NULL;
	FILE *out = stdout;

	while ((c = getopt(argc, argv, "o:P:w:S:x:k:h:s:p:a:c:r:n:e:u:R:G:")) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'P': radix = atoi(optarg); break;
		case 'w': width = atoi(optarg); break;
		case 'S': speed = atoi(optarg); break;
		case 'x':
			if (nslow == MAX_SLOW)
				errx(1, "at most %d -x", MAX_SLOW);
			slow_spec[nslow++] = optarg;
			break;
		case 'k': leaves = atoi(optarg); break;
		case 'h': hosts = atoi(optarg); break;
		case 's': spines = atoi(optarg); break;
		case 'p': pods = atoi(optarg); break;
		case 'a': aggs = atoi(optarg); break;
		case 'c': cores = atoi(optarg); break;
		case 'r': seed = (unsigned)strtoul(optarg, NULL, 0); rnd = 1; break;
		case 'n': nsw = atoi(optarg); break;
		case 'e': extra = atoi(optarg); break;
		case 'u': empty_leaves = atoi(optarg); break;
		case 'R': ring = atoi(optarg); break;
		case 'G': rails = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || radix < 2 || radix > 254)
		usage();
	if (ring)
		gen_ring(ring, hosts < 0 ? 2 : hosts);
	else if (rnd)
		gen_random(seed, nsw, extra < 0 ? nsw : extra, hosts < 0 ? 2 : hosts);
	else if (pods)
		gen_fat3(pods, leaves, hosts < 0 ? 18 : hosts, aggs, cores);
	else
		gen_fat2(leaves, hosts < 0 ? 18 : hosts, spines);
	for (int i = 0; i < nslow; i++)
		mark_slow(slow_spec[i]);
	if (outpath && (out = fopen(outpath, "w")) == NULL)
		err(1, "%s", outpath);
	emit(out);
	if (fflush(out) != 0 || (outpath && fclose(out) != 0))
		err(1, "%s", outpath ? outpath : "stdout");
	return 0;
}
