/*
 * State: one sqlite3 database in state_dir (WAL, foreign keys on).
 *
 * The schema is the list of numbered migrations in schemas/NNN_name.sql, compiled
 * in; store_open() applies those above the recorded version, each in its own
 * transaction, and records it in schema_version.  SQL runs only through
 * prepared statements (store_prepare caches them by the SQL text's address,
 * so pass string literals).  Writes go inside store_begin/store_commit,
 * which nest through savepoints.
 */
#ifndef FABRICD_STORE_H
#define FABRICD_STORE_H

#include <sqlite3.h>

struct store_migration {
	int		 version;
	const char	*name;
	const char	*sql;
};
extern const struct store_migration store_migrations[];

struct store;

int store_open(const char *state_dir, struct store **out);
void store_close(struct store *st);
sqlite3 *store_db(struct store *st);
int store_schema_version(struct store *st);

/* A reset prepared statement for sql (a literal), or NULL (logged). */
sqlite3_stmt *store_prepare(struct store *st, const char *sql);
/* Step a write statement to completion and reset it: 0 or -1 (logged). */
int store_step_done(struct store *st, sqlite3_stmt *stmt);

int store_begin(struct store *st);
int store_commit(struct store *st);
void store_rollback(struct store *st);

#endif
