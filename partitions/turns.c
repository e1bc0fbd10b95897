/* Steps of a partition change on turns of the loop: see turns.h. */
#include <stdlib.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "partitions/turns.h"

struct step {
	void	(*fn)(void *);
	void	*arg;
};

/* A first-in first-out queue: one change runs at a time (pt_state.busy),
 * so it seldom holds more than one step. */
static struct {
	struct event	*ev;
	struct step	*q;
	size_t		 head, n, cap;
	bool		 stopping;
} turns;

static void
arm(void)
{
	struct timeval now = { 0, 0 };

	evtimer_add(turns.ev, &now);
}

static bool
pop(struct step *out)
{
	if (turns.n == 0)
		return false;
	*out = turns.q[turns.head];
	turns.head = (turns.head + 1) % turns.cap;
	turns.n--;
	return true;
}

/* One step a turn: a step that asks for the next one queues it behind
 * anything else waiting, and the loop polls between them. */
static void
on_turn(evutil_socket_t fd, short what, void *arg)
{
	struct step s;

	(void)fd;
	(void)what;
	(void)arg;
	if (!pop(&s))
		return;
	if (turns.n > 0)
		arm();
	s.fn(s.arg);
}

static void
push(void (*fn)(void *), void *arg)
{
	if (turns.n == turns.cap) {
		size_t cap = turns.cap ? turns.cap * 2 : 8;
		struct step *q = xcalloc(cap, sizeof(*q));

		for (size_t i = 0; i < turns.n; i++)
			q[i] = turns.q[(turns.head + i) % turns.cap];
		free(turns.q);
		turns.q = q;
		turns.head = 0;
		turns.cap = cap;
	}
	turns.q[(turns.head + turns.n) % turns.cap] = (struct step){ fn, arg };
	turns.n++;
}

void
pt_next_turn(void (*fn)(void *), void *arg)
{
	if (turns.ev == NULL || turns.stopping) {
		fn(arg);
		return;
	}
	push(fn, arg);
	if (!evtimer_pending(turns.ev, NULL))
		arm();
}

int
pt_turns_start(struct event_base *base)
{
	turns.stopping = false;
	if ((turns.ev = evtimer_new(base, on_turn, NULL)) == NULL) {
		log_warnx("partitions: cannot make the loop's step timer");
		return -1;
	}
	return 0;
}

void
pt_turns_stop(void)
{
	struct step s;

	turns.stopping = true;
	/* what a step asks for now runs at once (pt_next_turn) */
	while (pop(&s))
		s.fn(s.arg);
	if (turns.ev != NULL)
		event_free(turns.ev);
	free(turns.q);
	turns.ev = NULL;
	turns.q = NULL;
	turns.head = turns.n = turns.cap = 0;
}

bool
pt_turns_stopping(void)
{
	return turns.stopping;
}
