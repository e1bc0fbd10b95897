/*
 * Validation's metrics: the jobs the database holds, by kind, state and
 * verdict (each a short fixed list, so the series stay few), read with
 * one prepared GROUP BY; and the pre-flights answered since start, by verdict.
 */
#include <sqlite3.h>

#include "common/prom.h"
#include "daemon/fabricd.h"
#include "daemon/store.h"
#include "validation/validation.h"

void
validation_metrics(struct fabricd *fd, struct prom *p)
{
	sqlite3_stmt *s = store_prepare(fd->store, "SELECT kind, state, coalesce(verdict, 'none'), "
	    "count(*) FROM validation_jobs GROUP BY 1, 2, 3 ORDER BY 1, 2, 3");
	struct prom_label l[3];

	prom_family(p, "fabricd_validation_jobs", "gauge",
	    "validation jobs in the database by kind, state and verdict (none: not judged yet)");
	if (s == NULL)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		l[0] = (struct prom_label){ "kind", (const char *)sqlite3_column_text(s, 0) };
		l[1] = (struct prom_label){ "state", (const char *)sqlite3_column_text(s, 1) };
		l[2] = (struct prom_label){ "verdict", (const char *)sqlite3_column_text(s, 2) };
		prom_sample_u64(p, "fabricd_validation_jobs", l, 3, (uint64_t)sqlite3_column_int64(s, 3));
	}
	sqlite3_reset(s);
	prom_family(p, "fabricd_validation_preflights_total", "counter",
	    "pre-flight checks answered, by verdict (pass, fail, inconclusive)");
	for (int v = 0; v < 3; v++) {
		static const char *const names[] = { "pass", "fail", "inconclusive" };
		l[0] = (struct prom_label){ "verdict", names[v] };
		prom_sample_u64(p, "fabricd_validation_preflights_total", l, 1, preflight_count(v));
	}
	prom_family(p, "fabricd_validation_preflight_walk_restarts_total", "counter",
	    "pre-flight route walks begun again because a heavy sweep replaced the fabric model "
	    "between two of their slices");
	prom_sample_u64(p, "fabricd_validation_preflight_walk_restarts_total", NULL, 0,
	    preflight_walk_restarts());
}
