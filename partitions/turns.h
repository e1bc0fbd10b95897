/*
 * One partition change as a row of separate steps of the event loop.
 *
 * A change of a 512-host job at 1,296 hosts is a plan (1.5-2.5 ms here),
 * an intent of 1,024 rows (2-2.6 ms), a write phase's first window, and a
 * commit of 1,024 tables (3.4-3.9 ms) and the model (2 ms): run back to
 * back from one reply's callback they held the loop 5-9 ms, and over the
 * 10 ms gate on a slower machine.  Each of them now waits for its own
 * turn: pt_next_turn() runs it from a zero timer, after the loop has
 * polled its sockets again.
 *
 * Without a loop (the unit tests, which drive apply.c through a fake mad
 * io) the step runs at once.  At stop, pt_turns_stop() runs what still
 * waits, with pt_turns_stopping() true, so that every step can free its
 * run instead of going on: nothing is left behind for the leak checker.
 */
#ifndef FABRICD_PARTITIONS_TURNS_H
#define FABRICD_PARTITIONS_TURNS_H

#include <stdbool.h>

struct event_base;

int pt_turns_start(struct event_base *base);
void pt_turns_stop(void);
bool pt_turns_stopping(void);
/* fn(arg) on a later turn of the loop, in the order asked. */
void pt_next_turn(void (*fn)(void *), void *arg);

#endif
