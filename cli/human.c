/*
 * Readable times, durations and sizes, told by a field's name as the
 * protocol spells them (schemas/protocol.md): "*_ms" is a time since the
 * epoch when it is one (after 2001) and a duration otherwise, "*_s" a
 * duration, "bytes" and "*_bytes" a size.  Tables and the generic printer
 * show them this way; --json keeps every raw value and adds the readable
 * one beside it ("started_ms" -> "started_iso", "elapsed_ms" ->
 * "elapsed_human", "stdout_bytes" -> "stdout_bytes_human").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "common/clock.h"

#define EPOCH_MS_MIN 1000000000000LL	/* 2001-09-09: anything less is a duration */

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum human_kind { HUMAN_NONE, HUMAN_TIME, HUMAN_DURATION_MS, HUMAN_DURATION_S, HUMAN_SIZE };

static enum human_kind
kind_of(const char *key, json_t *v)
{
	long long n;

	if (key == NULL || !json_is_integer(v))
		return HUMAN_NONE;
	n = (long long)json_integer_value(v);
	if (ends_with(key, "_ms"))
		return n >= EPOCH_MS_MIN ? HUMAN_TIME : HUMAN_DURATION_MS;
	if (ends_with(key, "_s") && !ends_with(key, "_per_s"))
		return HUMAN_DURATION_S;
	if (strcmp(key, "bytes") == 0 || ends_with(key, "_bytes"))
		return HUMAN_SIZE;
	return HUMAN_NONE;
}

const char *
cli_time_text(long long ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char zone[8];
	size_t n;

	localtime_r(&t, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	/* ISO 8601's extended offset, +01:00, where strftime writes +0100 */
	if (strftime(zone, sizeof(zone), "%z", &tm) == 5)
		snprintf(buf + n, len - n, "%.3s:%.2s", zone, zone + 3);
	return buf;
}

const char *
cli_duration_text(long long ms, char *buf, size_t len)
{
	return clock_duration_text(ms, buf, len);
}

const char *
cli_size_text(long long bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%lld B", bytes);
		return buf;
	}
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

const char *
cli_value_text(const char *key, json_t *v, char *buf, size_t len)
{
	long long n = (long long)json_integer_value(v);

	switch (kind_of(key, v)) {
	case HUMAN_TIME:	return cli_time_text(n, buf, len);
	case HUMAN_DURATION_MS:	return cli_duration_text(n, buf, len);
	case HUMAN_DURATION_S:	return cli_duration_text(n * 1000, buf, len);
	case HUMAN_SIZE:	return cli_size_text(n, buf, len);
	case HUMAN_NONE:	break;
	}
	return cli_scalar_text(v, buf, len);
}

const char *
cli_key_label(const char *key, json_t *v, char *buf, size_t len)
{
	enum human_kind k = kind_of(key, v);
	size_t n = strlen(key);

	/* "created_ms" shown as a time is "created"; "interval_ms" as "10.0 s" is "interval" */
	if (k == HUMAN_TIME || k == HUMAN_DURATION_MS)
		n -= 3;
	else if (k == HUMAN_DURATION_S)
		n -= 2;
	snprintf(buf, len, "%.*s", (int)n, key);
	return buf;
}

/* The readable twin of key: "started_ms" -> "started_iso", else +"_human". */
static void
twin_key(const char *key, enum human_kind k, char *buf, size_t len)
{
	size_t n = strlen(key);

	if (k == HUMAN_TIME)
		snprintf(buf, len, "%.*s_iso", (int)(n - 3), key);
	else if (k == HUMAN_DURATION_MS || k == HUMAN_DURATION_S)
		snprintf(buf, len, "%.*s_human", (int)(n - (k == HUMAN_DURATION_MS ? 3 : 2)), key);
	else
		snprintf(buf, len, "%s_human", key);
}

void
cli_humanize(json_t *v)
{
	const char *key;
	json_t *e, *add;
	size_t i;
	void *tmp;

	if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			cli_humanize(e);
		return;
	}
	if (!json_is_object(v))
		return;
	add = json_object();
	json_object_foreach_safe(v, tmp, key, e) {
		enum human_kind k = kind_of(key, e);
		char twin[128], text[64];

		if (k == HUMAN_NONE) {
			cli_humanize(e);
			continue;
		}
		twin_key(key, k, twin, sizeof(twin));
		if (json_object_get(v, twin) == NULL)
			json_object_set_new(add, twin, json_string(cli_value_text(key, e, text, sizeof(text))));
	}
	json_object_update_missing(v, add);
	json_decref(add);
}

/* A scalar as a person reads it (a list of names as a1,a2); the other
 * outputs and cli_value_text build on it. */
const char *
cli_scalar_text(json_t *v, char *buf, size_t len)
{
	switch (json_typeof(v)) {
	case JSON_STRING: snprintf(buf, len, "%s", json_string_value(v)); break;
	case JSON_INTEGER: snprintf(buf, len, "%lld", (long long)json_integer_value(v)); break;
	case JSON_REAL: snprintf(buf, len, "%.3f", json_real_value(v)); break;
	case JSON_TRUE: snprintf(buf, len, "yes"); break;
	case JSON_FALSE: snprintf(buf, len, "no"); break;
	case JSON_NULL: snprintf(buf, len, "-"); break;
	default: {
		char *s;
		size_t i, off = 0;
		json_t *e;
		/* a list of names ("hosts") as a person writes it: a1,a2 */
		if (json_is_array(v) && json_array_size(v) > 0) {
			bool names = true;
			json_array_foreach(v, i, e)
				names = names && json_is_string(e);
			if (names) {
				buf[0] = '\0';
				json_array_foreach(v, i, e)
					if (off < len)
						off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
						    json_string_value(e));
				break;
			}
		}
		s = json_dumps(v, JSON_COMPACT);
		snprintf(buf, len, "%s", s ? s : "?");
		free(s);
	}
	}
	return buf;
}
