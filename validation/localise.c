/*
 * Localisation planning: the round-robin pair schedule and the bisection
 * state machine (validation/localise.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "validation/localise.h"

/* ---- pairwise: the circle method ---- */

size_t
pairwise_round_count(size_t n)
{
	if (n < 2)
		return 0;
	return n % 2 ? n : n - 1;
}

/*
 * Seat the hosts in a row of m = n (even) or n + 1 (odd: the extra seat
 * is a rest) folded in two, seat k facing seat m-1-k.  Host 0 keeps seat
 * 0; the others rotate one seat per round, so after m-1 rounds every
 * pair has faced each other exactly once.
 */
static size_t
seat_host(size_t m, size_t round, size_t seat)
{
	if (seat == 0)
		return 0;
	return 1 + (seat - 1 + round) % (m - 1);
}

size_t
pairwise_round(size_t n, size_t round, struct host_pair *out)
{
	size_t m = n % 2 ? n + 1 : n, k, w = 0;

	if (n < 2 || round >= pairwise_round_count(n))
		return 0;
	for (k = 0; k < m / 2; k++) {
		size_t a = seat_host(m, round, k), b = seat_host(m, round, m - 1 - k);
		if (a >= n || b >= n)
			continue;	/* the resting seat */
		out[w].a = a < b ? a : b;
		out[w].b = a < b ? b : a;
		w++;
	}
	return w;
}

/* ---- bisection ---- */

enum group_state { G_PENDING, G_RUNNING, G_DONE };

struct group {
	size_t		*idx;		/* suspect host indices */
	size_t		 n;
	int		 parent;	/* group index, -1 for the root */
	int		 sibling;	/* the other half, -1 for the root */
	enum group_state state;
	enum verdict	 v;
	const char	**probe;	/* hosts of the probe, padding included */
	size_t		 nprobe;
};

struct bisect {
	char		**hosts;
	size_t		 nhosts;
	char		**good;		/* known good: given, then proven */
	size_t		 ngood;
	struct group	*groups;
	size_t		 ngroups, cap;
	const char	**culprits;
	size_t		 nculprits;
	char		**unresolved;
	size_t		 nunresolved;
	size_t		 probes;
};

static bool
is_good(const struct bisect *b, const char *h)
{
	size_t i;

	for (i = 0; i < b->ngood; i++)
		if (strcmp(b->good[i], h) == 0)
			return true;
	return false;
}

static void
add_good(struct bisect *b, const char *h)
{
	if (is_good(b, h))
		return;
	b->good = xreallocarray(b->good, b->ngood + 1, sizeof(*b->good));
	b->good[b->ngood++] = xstrdup(h);
}

static int
add_group(struct bisect *b, const size_t *idx, size_t n, int parent)
{
	struct group *g;

	if (b->ngroups == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 8;
		b->groups = xreallocarray(b->groups, b->cap, sizeof(*b->groups));
	}
	g = &b->groups[b->ngroups];
	memset(g, 0, sizeof(*g));
	g->idx = xreallocarray(NULL, n, sizeof(*g->idx));
	memcpy(g->idx, idx, n * sizeof(*idx));
	g->n = n;
	g->parent = parent;
	g->sibling = -1;
	g->state = G_PENDING;
	return (int)b->ngroups++;
}

struct bisect *
bisect_new(const char *const *hosts, size_t nhosts, const char *const *good, size_t ngood)
{
	struct bisect *b = xcalloc(1, sizeof(*b));
	size_t i, *all;

	b->hosts = xreallocarray(NULL, nhosts ? nhosts : 1, sizeof(*b->hosts));
	for (i = 0; i < nhosts; i++)
		b->hosts[i] = xstrdup(hosts[i]);
	b->nhosts = nhosts;
	for (i = 0; i < ngood; i++)
		add_good(b, good[i]);
	if (nhosts > 0) {
		all = xreallocarray(NULL, nhosts, sizeof(*all));
		for (i = 0; i < nhosts; i++)
			all[i] = i;
		add_group(b, all, nhosts, -1);
		free(all);
	}
	return b;
}

void
bisect_free(struct bisect *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->nhosts; i++)
		free(b->hosts[i]);
	for (i = 0; i < b->ngood; i++)
		free(b->good[i]);
	for (i = 0; i < b->ngroups; i++) {
		free(b->groups[i].idx);
		free(b->groups[i].probe);
	}
	for (i = 0; i < b->nunresolved; i++)
		free(b->unresolved[i]);
	free(b->hosts);
	free(b->good);
	free(b->groups);
	free(b->culprits);
	free(b->unresolved);
	free(b);
}

/* The probe's host list: the group, padded to two hosts with a proven
 * good host not in it, when one is known. */
static void
build_probe(struct bisect *b, struct group *g)
{
	size_t i, j;

	g->probe = xreallocarray(NULL, g->n + 1, sizeof(*g->probe));
	for (i = 0; i < g->n; i++)
		g->probe[i] = b->hosts[g->idx[i]];
	g->nprobe = g->n;
	for (j = 0; g->nprobe < 2 && j < b->ngood; j++) {
		for (i = 0; i < g->n; i++)
			if (strcmp(b->good[j], g->probe[i]) == 0)
				break;
		if (i == g->n)
			g->probe[g->nprobe++] = b->good[j];
	}
}

int
bisect_next(struct bisect *b, const char *const **hosts, size_t *nhosts)
{
	size_t i;

	for (i = 0; i < b->ngroups; i++) {
		struct group *g = &b->groups[i];
		if (g->state != G_PENDING)
			continue;
		build_probe(b, g);
		g->state = G_RUNNING;
		b->probes++;
		*hosts = g->probe;
		*nhosts = g->nprobe;
		return (int)i + 1;
	}
	return 0;
}

static void
add_unresolved(struct bisect *b, const struct group *g, const char *why)
{
	size_t i, len = strlen(why) + 3;
	char *s;

	for (i = 0; i < g->n; i++)
		len += strlen(b->hosts[g->idx[i]]) + 1;
	s = xmalloc(len);
	s[0] = '\0';
	for (i = 0; i < g->n; i++) {
		if (i > 0)
			strcat(s, ",");
		strcat(s, b->hosts[g->idx[i]]);
	}
	strcat(s, ": ");
	strcat(s, why);
	b->unresolved = xreallocarray(b->unresolved, b->nunresolved + 1, sizeof(*b->unresolved));
	b->unresolved[b->nunresolved++] = s;
}

static void
split(struct bisect *b, int gi)
{
	size_t n = b->groups[gi].n, half = n / 2;
	size_t *idx = xreallocarray(NULL, n, sizeof(*idx));
	int l, r;

	memcpy(idx, b->groups[gi].idx, n * sizeof(*idx));
	l = add_group(b, idx, half, gi);
	r = add_group(b, idx + half, n - half, gi);
	b->groups[l].sibling = r;
	b->groups[r].sibling = l;
	free(idx);
}

void
bisect_done(struct bisect *b, int probe, enum verdict v)
{
	struct group *g;
	int gi = probe - 1;
	size_t i;

	if (gi < 0 || (size_t)gi >= b->ngroups || b->groups[gi].state != G_RUNNING)
		return;
	g = &b->groups[gi];
	g->state = G_DONE;
	g->v = v;
	switch (v) {
	case VERDICT_PASS:
		for (i = 0; i < g->n; i++)
			add_good(b, b->hosts[g->idx[i]]);
		if (g->sibling >= 0 && b->groups[g->sibling].state == G_DONE &&
		    b->groups[g->sibling].v == VERDICT_PASS)
			add_unresolved(b, &b->groups[g->parent], "fails together, halves pass");
		break;
	case VERDICT_INCONCLUSIVE:
		add_unresolved(b, g, "inconclusive");
		break;
	case VERDICT_WARN:
	case VERDICT_FAIL:
		if (g->n == 1) {
			b->culprits = xreallocarray(b->culprits, b->nculprits + 1, sizeof(*b->culprits));
			b->culprits[b->nculprits++] = b->hosts[g->idx[0]];
		} else
			split(b, gi);
		break;
	}
}

bool
bisect_finished(const struct bisect *b)
{
	size_t i;

	for (i = 0; i < b->ngroups; i++)
		if (b->groups[i].state != G_DONE)
			return false;
	return true;
}

size_t
bisect_probes(const struct bisect *b)
{
	return b->probes;
}

size_t
bisect_culprits(const struct bisect *b, const char *const **out)
{
	*out = b->culprits;
	return b->nculprits;
}

size_t
bisect_unresolved(const struct bisect *b, const char *const **out)
{
	*out = (const char *const *)b->unresolved;
	return b->nunresolved;
}
