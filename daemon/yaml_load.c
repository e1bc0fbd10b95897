/*
 * YAML from outside, loaded within bounds.  libyaml alone can be made to
 * stall the event loop: its scanner's time grows with the square of the
 * nesting depth (a file of "[" blocks for minutes), and its loader keeps an
 * alias as a shared node, so a few kilobytes of aliases walk as millions
 * of nodes (or forever, for an alias inside its own anchor).  So, before a
 * document reaches a parser of ours:
 *   1. an event pass stops at CFG_MAX_DEPTH levels of nesting;
 *   2. both passes read through a handler that gives up once they have
 *      spent CFG_PARSE_BUDGET_MS of the thread's CPU time (CPU, not the
 *      wall clock: a file that parses on an idle machine must parse on a
 *      loaded one, where a sanitized 240 KB file once ran past 500 ms of
 *      wall time);
 *   3. the loaded tree is measured as it would be walked, aliases
 *      expanded: over CFG_MAX_NODES nodes, or a cycle, is an error.
 * Then a key given twice in one mapping is an error (libyaml keeps both
 * pairs and a walk would silently take the last one), found by sorting
 * each mapping's keys so that a mapping of many keys stays cheap.
 * Errors say file:line:column like every other config error.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/config.h"

/* Every config error, here or in the field walkers, is one line with the
 * file:line:column of its node; past CFG_MAX_ERRORS they are only counted. */
void
cfg_error(struct cfg_ctx *ctx, const yaml_node_t *node, const char *fmt, ...)
{
	char *msg, *line;
	va_list ap;

	if (ctx->nerrors >= CFG_MAX_ERRORS) {
		ctx->ndropped++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		fatal("cfg_error");
	va_end(ap);
	if (node != NULL)
		xasprintf(&line, "%s:%zu:%zu: %s", ctx->file, node->start_mark.line + 1,
		    node->start_mark.column + 1, msg);
	else
		xasprintf(&line, "%s: %s", ctx->file, msg);
	free(msg);
	ctx->errors = xreallocarray(ctx->errors, ctx->nerrors + 1, sizeof(char *));
	ctx->errors[ctx->nerrors++] = line;
}

void
cfg_errors_finish(struct cfg_ctx *ctx)
{
	char *line;

	if (ctx->ndropped == 0)
		return;
	xasprintf(&line, "%s: and %zu more error%s", ctx->file, ctx->ndropped,
	    ctx->ndropped == 1 ? "" : "s");
	ctx->errors = xreallocarray(ctx->errors, ctx->nerrors + 1, sizeof(char *));
	ctx->errors[ctx->nerrors++] = line;
	ctx->ndropped = 0;
}

struct budget_reader {
	const unsigned char	*text;
	size_t			 len, off;
	int64_t			 deadline_us;
	bool			 expired;
};

static bool
past(int64_t deadline_us)
{
	return clock_thread_cpu_us() >= deadline_us;
}

/* libyaml read handler: small chunks, so the clock is looked at often. */
static int
read_chunk(void *data, unsigned char *buf, size_t size, size_t *size_read)
{
	struct budget_reader *r = data;
	size_t n = r->len - r->off;

	if (past(r->deadline_us)) {
		r->expired = true;
		return 0;
	}
	if (n > size)
		n = size;
	if (n > 4096)
		n = 4096;
	memcpy(buf, r->text + r->off, n);
	r->off += n;
	*size_read = n;
	return 1;
}

static void
reader_init(struct budget_reader *r, const char *text, size_t len, int64_t deadline_us)
{
	*r = (struct budget_reader){ (const unsigned char *)text, len, 0, deadline_us, false };
}

static void
record_at(struct cfg_ctx *ctx, yaml_mark_t mark, const char *msg)
{
	yaml_node_t at = { .start_mark = mark };

	cfg_error(ctx, &at, "%s", msg);
}

static void
parser_error(struct cfg_ctx *ctx, yaml_parser_t *p, const struct budget_reader *r)
{
	char msg[256];

	if (r->expired) {
		snprintf(msg, sizeof(msg), "parsing took more than %d ms of CPU; refused",
		    CFG_PARSE_BUDGET_MS);
		record_at(ctx, p->mark, msg);
		return;
	}
	snprintf(msg, sizeof(msg), "%s%s%s", p->problem ? p->problem : "syntax error",
	    p->context ? " " : "", p->context ? p->context : "");
	record_at(ctx, p->problem_mark, msg);
}

/* Pass 1: nesting depth, on events, before any tree exists. */
static bool
check_depth(struct cfg_ctx *ctx, const char *text, size_t len, int64_t deadline_us)
{
	struct budget_reader r;
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0;
	bool ok = true, done = false;

	reader_init(&r, text, len, deadline_us);
	yaml_parser_initialize(&p);
	yaml_parser_set_input(&p, read_chunk, &r);
	while (ok && !done) {
		if (!yaml_parser_parse(&p, &ev)) {
			parser_error(ctx, &p, &r);
			ok = false;
			break;
		}
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > CFG_MAX_DEPTH) {
				char msg[96];
				snprintf(msg, sizeof(msg), "nested deeper than %d levels; refused",
				    CFG_MAX_DEPTH);
				record_at(ctx, ev.start_mark, msg);
				ok = false;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ok;
}

/*
 * Pass 3: how many nodes a walk of the tree visits, aliases expanded,
 * counted with a memo per node (so the count itself is linear) and an
 * explicit stack (an alias chain may be long).  Saturates past the limit.
 */
enum { UNSEEN, OPEN, DONE };

static size_t
children(yaml_node_t *n, int **kids)
{
	if (n->type == YAML_SEQUENCE_NODE) {
		*kids = n->data.sequence.items.start;
		return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	}
	if (n->type == YAML_MAPPING_NODE) {
		/* a pair is two ints, key then value: walk them as one array */
		*kids = (int *)n->data.mapping.pairs.start;
		return 2 * (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	}
	*kids = NULL;
	return 0;
}

static int
check_expansion(struct cfg_ctx *ctx, yaml_document_t *doc)
{
	size_t nnodes = (size_t)(doc->nodes.top - doc->nodes.start);
	struct frame { int node; size_t next; } *stack;
	unsigned char *state;
	uint64_t *size;
	size_t sp = 0;
	int rc = 0;
	_Static_assert(sizeof(yaml_node_pair_t) == 2 * sizeof(int), "pairs walk as ints");

	if (nnodes == 0)
		return 0;
	state = xcalloc(nnodes + 1, 1);
	size = xcalloc(nnodes + 1, sizeof(*size));
	stack = xcalloc(nnodes + 1, sizeof(*stack));
	stack[sp++] = (struct frame){ 1, 0 };
	state[1] = OPEN;
	while (sp > 0 && rc == 0) {
		struct frame *f = &stack[sp - 1];
		yaml_node_t *n = yaml_document_get_node(doc, f->node);
		int *kids;
		size_t nk = children(n, &kids);

		if (f->next < nk) {
			int k = kids[f->next++];
			if (k < 1 || (size_t)k > nnodes)
				continue;
			if (state[k] == OPEN) {
				record_at(ctx, yaml_document_get_node(doc, k)->start_mark,
				    "an alias refers to a node that contains it; refused");
				rc = -1;
			} else if (state[k] == UNSEEN) {
				state[k] = OPEN;
				stack[sp++] = (struct frame){ k, 0 };
			}
			continue;
		}
		size[f->node] = 1;
		for (size_t i = 0; i < nk; i++)
			if (kids[i] >= 1 && (size_t)kids[i] <= nnodes &&
			    (size[f->node] += size[kids[i]]) > CFG_MAX_NODES)
				size[f->node] = CFG_MAX_NODES + 1;
		state[f->node] = DONE;
		sp--;
	}
	if (rc == 0 && size[1] > CFG_MAX_NODES) {
		char msg[128];
		snprintf(msg, sizeof(msg), "aliases expand the document past %d nodes; refused",
		    CFG_MAX_NODES);
		record_at(ctx, yaml_document_get_node(doc, 1)->start_mark, msg);
		rc = -1;
	}
	free(stack);
	free(size);
	free(state);
	return rc;
}

/* A mapping's scalar key, with its place among the mapping's pairs. */
struct keyref {
	const yaml_node_t	*node;
	size_t			 order;
};

static int
keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	size_t lx = x->node->data.scalar.length, ly = y->node->data.scalar.length;
	int c = memcmp(x->node->data.scalar.value, y->node->data.scalar.value, lx < ly ? lx : ly);

	if (c != 0)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void
check_mapping_keys(struct cfg_ctx *ctx, yaml_document_t *doc, const yaml_node_t *map)
{
	size_t npairs = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	struct keyref *keys;
	size_t n = 0;

	if (npairs < 2)
		return;
	keys = xcalloc(npairs, sizeof(*keys));
	for (size_t i = 0; i < npairs; i++) {
		const yaml_node_t *k = yaml_document_get_node(doc,
		    map->data.mapping.pairs.start[i].key);
		if (k != NULL && k->type == YAML_SCALAR_NODE)
			keys[n++] = (struct keyref){ k, i };
	}
	qsort(keys, n, sizeof(*keys), keyref_cmp);
	for (size_t i = 1, first = 0; i < n; i++) {
		if (keyref_cmp(&(struct keyref){ keys[first].node, 0 },
		    &(struct keyref){ keys[i].node, 0 }) != 0) {
			first = i;
			continue;
		}
		cfg_error(ctx, keys[i].node, "duplicate key \"%.*s\" (first given at line %zu)",
		    (int)(keys[i].node->data.scalar.length > 64 ? 64 :
		    keys[i].node->data.scalar.length), (const char *)keys[i].node->data.scalar.value,
		    keys[first].node->start_mark.line + 1);
	}
	free(keys);
}

/* Pass 4: every mapping of the document (each node once, aliases or not). */
static void
check_duplicate_keys(struct cfg_ctx *ctx, yaml_document_t *doc)
{
	for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++)
		if (n->type == YAML_MAPPING_NODE)
			check_mapping_keys(ctx, doc, n);
}

bool
cfg_yaml_load(struct cfg_ctx *ctx, const char *text, size_t len, yaml_document_t *doc)
{
	struct budget_reader r;
	int64_t deadline_us = clock_thread_cpu_us() + (int64_t)CFG_PARSE_BUDGET_MS * 1000;
	yaml_parser_t p;
	bool ok;

	if (!check_depth(ctx, text, len, deadline_us))
		return false;
	reader_init(&r, text, len, deadline_us);
	yaml_parser_initialize(&p);
	yaml_parser_set_input(&p, read_chunk, &r);
	ok = yaml_parser_load(&p, doc);
	if (!ok)
		parser_error(ctx, &p, &r);
	yaml_parser_delete(&p);
	if (ok && check_expansion(ctx, doc) != 0) {
		yaml_document_delete(doc);
		ok = false;
	}
	if (ok)		/* recorded, not fatal: the caller lists every error */
		check_duplicate_keys(ctx, doc);
	return ok;
}
