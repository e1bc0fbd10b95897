/*
 * The core's announcements to the parts above it (sm_listen: the audit's
 * heavy-started, sweep-ended and trap-about-a-LID), and the sweep hooks
 * (sm/sm.h): other modules' steps at fixed points of a sweep.
 *
 * The registry is the SM's one piece of state outside struct sm, on
 * purpose: modules register when they start, and the SM may start later,
 * restart, or not run at all (sm.enabled: false) without losing them.
 */
#include "common/log.h"
#include "sm/core/sm_internal.h"

bool
sm_listen(struct sm *sm, const struct sm_listener *l)
{
	if (sm->nlisteners == SM_MAX_LISTENERS)
		return false;
	sm->listeners[sm->nlisteners++] = l;
	return true;
}

void
sm_tell_heavy_started(struct sm *sm)
{
	for (size_t i = 0; i < sm->nlisteners; i++)
		if (sm->listeners[i]->heavy_started)
			sm->listeners[i]->heavy_started(sm);
}

void
sm_tell_sweep_finished(struct sm *sm)
{
	for (size_t i = 0; i < sm->nlisteners; i++)
		if (sm->listeners[i]->sweep_finished)
			sm->listeners[i]->sweep_finished(sm);
}

void
sm_tell_sweeps_idle(struct sm *sm)
{
	for (size_t i = 0; i < sm->nlisteners; i++)
		if (sm->listeners[i]->sweeps_idle)
			sm->listeners[i]->sweeps_idle(sm);
}

void
sm_tell_trap_about(struct sm *sm, uint16_t lid)
{
	for (size_t i = 0; i < sm->nlisteners; i++)
		if (sm->listeners[i]->trap_about)
			sm->listeners[i]->trap_about(sm, lid);
}

static void run_hook(struct sm *sm);

static void
hook_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	run_hook(arg);
}

/* Each hook, and what follows the last, on a turn of its own: a hook
 * that finishes inside another's callback (health's link checks end in
 * the isolation review and its events) would add its time to that one's,
 * and the SM's step that started the hooks to both (8 ms in a storm). */
static void
run_hook_later(struct sm *sm)
{
	struct timeval zero = { 0, 0 };

	if (sm->hook_ev == NULL && sm->fd && sm->fd->base)
		sm->hook_ev = evtimer_new(sm->fd->base, hook_cb, sm);
	if (sm->hook_ev == NULL) {
		run_hook(sm);
		return;
	}
	evtimer_add(sm->hook_ev, &zero);
}

static void
hook_done(void *token)
{
	struct sm *sm = token;

	sm->hook_next++;
	run_hook_later(sm);
}

static void
run_hook(struct sm *sm)
{
	enum sm_hook_point pt = sm->hook_point;
	struct sm_hook *h;

	if (sm->hook_next >= sm->nhooks[pt]) {
		sm->hooks_then(sm);
		return;
	}
	h = &sm->hooks[pt][sm->hook_next];
	h->fn(pt == SM_HOOK_BEFORE_ACTIVATE ? sm->next : sm->fabric,
	    sm->topology_changed, hook_done, sm, h->arg);
}

void
sm_run_hooks(struct sm *sm, enum sm_hook_point pt, void (*then)(struct sm *))
{
	sm->hook_point = pt;
	sm->hook_next = 0;
	sm->hooks_then = then;
	run_hook_later(sm);
}

void
sm_add_hook(struct sm *sm, enum sm_hook_point point, sm_hook_fn fn, void *arg)
{
	size_t i;

	if (sm == NULL)
		return;		/* no SM: no sweep to hook into */
	if (sm->nhooks[point] >= SM_MAX_HOOKS) {
		log_warnx("sm: too many hooks");
		return;
	}
	for (i = 0; i < sm->nhooks[point]; i++)
		if (sm->hooks[point][i].fn == fn && sm->hooks[point][i].arg == arg)
			return;		/* a module restarted: already there */
	sm->hooks[point][sm->nhooks[point]].fn = fn;
	sm->hooks[point][sm->nhooks[point]++].arg = arg;
}
