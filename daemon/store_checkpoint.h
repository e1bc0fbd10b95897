/*
 * The store's WAL checkpoints, on a thread of their own (see
 * store_checkpoint.c for why).
 */
#ifndef FABRICD_STORE_CHECKPOINT_H
#define FABRICD_STORE_CHECKPOINT_H

struct store_checkpointer;

/* A thread with its own connection to the database at path; NULL when it
 * cannot start (logged: the loop's connection then checkpoints itself). */
struct store_checkpointer *store_checkpointer_start(const char *path);
/* Stops the thread and closes its connection. */
void store_checkpointer_stop(struct store_checkpointer *c);

#endif
