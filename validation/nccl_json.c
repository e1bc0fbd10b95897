/*
 * nccl-tests -J report (JSON_FILE_VERSION 3, nccl-tests >= 2.17.3).
 * Quirks handled: booleans are the strings "true"/"false", "okay" may be
 * "unchecked", root is a padded string, nwrong is a float or null (-c 0),
 * NaN is the string "nan", and on error the document is closed early so
 * any member may be missing.  The environment array is never kept: it is
 * the whole process environment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "validation/parse.h"

/* A number that may arrive as a JSON number or as a string ("nan", "  -1"). */
static bool
json_num(json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return isfinite(*out);
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char buf[64];
		while (*s == ' ')
			s++;
		parse_copy(buf, sizeof(buf), s, strcspn(s, " "));
		return parse_double(buf, out);
	}
	return false;
}

/* A size or a count: a number from 0 up to what 64 bits hold (a bigger
 * one, 5e19 say, is not a count: converting it is undefined). */
static bool
json_count(json_t *v, uint64_t *out)
{
	double d;

	if (!json_num(v, &d) || d < 0 || d >= 18446744073709551616.0)
		return false;
	*out = (uint64_t)d;
	return true;
}

static void
json_side(json_t *o, struct nccl_side *s)
{
	double d;

	s->nwrong = NCCL_NWRONG_NA;
	if (!json_is_object(o))
		return;
	if (!json_num(json_object_get(o, "time"), &s->time_us))
		(void)json_num(json_object_get(o, "cpu_time"), &s->time_us);
	(void)json_num(json_object_get(o, "alg_bw"), &s->algbw);
	(void)json_num(json_object_get(o, "bus_bw"), &s->busbw);
	if (json_num(json_object_get(o, "nwrong"), &d) && d >= 0 && d < 9.2e18)
		s->nwrong = (long long)d;
}

static void
json_str(json_t *v, char *dst, size_t len)
{
	if (json_is_string(v))
		parse_copy(dst, len, json_string_value(v), strlen(json_string_value(v)));
}

static void
json_results(struct nccl_parsed *p, json_t *results)
{
	size_t i;
	json_t *r;

	if (!json_is_array(results) || json_array_size(results) == 0)
		return;
	size_t n = json_array_size(results);
	if (n > NCCL_MAX_ROWS)
		n = NCCL_MAX_ROWS;
	if ((p->rows = calloc(n, sizeof(*p->rows))) == NULL)
		return;
	json_array_foreach(results, i, r) {
		struct nccl_row *row = &p->rows[p->nrows];
		double d;

		if (i >= n)
			break;
		if (!json_is_object(r) || !json_count(json_object_get(r, "size"), &row->size))
			continue;
		if (!json_count(json_object_get(r, "count"), &row->count))
			row->count = 0;
		json_str(json_object_get(r, "type"), row->type, sizeof(row->type));
		json_str(json_object_get(r, "redop"), row->redop, sizeof(row->redop));
		row->root = json_num(json_object_get(r, "root"), &d) && fabs(d) < 1e9 ? (int)d : -1;
		json_side(json_object_get(r, "out_of_place"), &row->oop);
		json_side(json_object_get(r, "in_place"), &row->ip);
		p->nrows++;
	}
}

static void
json_devices(struct nccl_parsed *p, json_t *devs)
{
	size_t i, n;
	json_t *d;

	if (!json_is_array(devs) || (n = json_array_size(devs)) == 0)
		return;
	if (n > NCCL_MAX_DEVICES)
		n = NCCL_MAX_DEVICES;
	if ((p->devices = calloc(n, sizeof(*p->devices))) == NULL)
		return;
	json_array_foreach(devs, i, d) {
		struct nccl_device *dev = &p->devices[p->ndevices];
		double v;

		if (i >= n)
			break;
		if (!json_is_object(d))
			continue;
		dev->rank = json_num(json_object_get(d, "rank"), &v) && fabs(v) < 1e9 ? (int)v : -1;
		dev->pid = json_num(json_object_get(d, "pid"), &v) && fabs(v) < 1e9 ? (int)v : 0;
		dev->device = json_num(json_object_get(d, "device"), &v) && fabs(v) < 1e9 ? (int)v : 0;
		json_str(json_object_get(d, "hostname"), dev->host, sizeof(dev->host));
		json_str(json_object_get(d, "device_hex"), dev->pci, sizeof(dev->pci));
		p->ndevices++;
	}
}

static int
okay_value(json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "okay"));

	if (s == NULL || strcmp(s, "unchecked") == 0)
		return -1;
	return strcmp(s, "true") == 0;
}

static void
json_footer(struct nccl_parsed *p, json_t *root)
{
	json_t *oob = json_object_get(root, "out_of_bounds");
	json_t *avg = json_object_get(root, "average_bus_bandwidth");
	json_t *errs = json_object_get(root, "errors"), *e;
	double d;
	size_t i;

	if (json_is_object(oob)) {
		p->oob_seen = true;
		if (json_num(json_object_get(oob, "count"), &d) && d >= 0 && d < 9.2e18)
			p->oob_count = (long long)d;
	}
	if (json_is_object(avg)) {
		p->avg_seen = true;
		(void)json_num(json_object_get(avg, "bandwidth"), &p->avg_busbw);
		p->avg_gate = okay_value(avg);
	}
	p->concluded = json_object_get(root, "end_time") != NULL;
	/* a non-empty "errors" entry is the last NCCL error text; like the
	 * "# error:" line it is not a failure by itself, so keep it as a WARN */
	json_array_foreach(errs, i, e) {
		const char *s = json_string_value(e);
		if (s != NULL && *s != '\0' && p->nfailures < NCCL_MAX_FAILURES) {
			void *nf = realloc(p->failures, (p->nfailures + 1) * sizeof(*p->failures));
			if (nf == NULL)
				break;
			p->failures = nf;
			memset(&p->failures[p->nfailures], 0, sizeof(*p->failures));
			p->failures[p->nfailures].kind = NCCL_FAIL_WARN;
			p->failures[p->nfailures].status = -1;
			parse_copy(p->failures[p->nfailures].message, PARSE_MSG_LEN, s, strlen(s));
			p->nfailures++;
		}
	}
}

int
nccl_parse_json(const char *buf, size_t len, struct nccl_parsed *out)
{
	json_error_t err;
	json_t *root, *v, *config;

	nccl_parsed_reset(out);
	root = json_loadb(buf, len, JSON_DISABLE_EOF_CHECK | JSON_DECODE_INT_AS_REAL, &err);
	if (root == NULL)
		return -1;
	if (!json_is_object(root) || !json_is_array(json_object_get(root, "results"))) {
		json_decref(root);
		return -1;
	}
	v = json_object_get(root, "nccl_version");
	if (json_is_number(v)) {
		/* NCCL_VERSION_CODE: major*10000 + minor*100 + patch */
		long c = (long)json_number_value(v);
		snprintf(out->nccl_version, sizeof(out->nccl_version), "%ld.%ld.%ld",
		    c / 10000, (c / 100) % 100, c % 100);
	}
	json_str(json_object_get(root, "version"), out->tests_version, sizeof(out->tests_version));
	if (out->tests_version[0] == '\0' && json_is_number(json_object_get(root, "version")))
		snprintf(out->tests_version, sizeof(out->tests_version), "json-v%d",
		    (int)json_number_value(json_object_get(root, "version")));
	v = json_object_get(root, "args");
	if (json_is_array(v))
		json_str(json_array_get(v, 0), out->test_name, sizeof(out->test_name));
	config = json_object_get(root, "config");
	if (json_is_object(config))
		json_devices(out, json_object_get(config, "devices"));
	json_results(out, json_object_get(root, "results"));
	json_footer(out, root);
	json_decref(root);
	return 0;
}
