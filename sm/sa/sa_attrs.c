/*
 * The SA's attribute table, made from sa_attrs.def: the one place an
 * attribute is registered (its size, methods, builder, whether it wants
 * the SA key), read by the request check, the answer and the counters.
 */
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/sa/sa.h"

static const struct sa_attr attrs[] = {
#define SA_ATTR(id, name, size, methods, key, build, change) \
	{ id, name, size, methods, key, build, change },
#include "sm/sa/sa_attrs.def"
#undef SA_ATTR
};

_Static_assert(sizeof(attrs) / sizeof(attrs[0]) + 1 == SA_NATTR, "SA_NATTR counts sa_attrs.def");

/* A Set or Delete on an attribute that takes neither never reaches here
 * (the methods refuse it first). */
uint16_t
sa_no_change(const struct sa_ctx *ctx, const struct sa_query *q, bool set, void *rec)
{
	(void)ctx, (void)q, (void)set, (void)rec;
	return be16toh(IB_MAD_STATUS_UNSUP_METHOD_ATTR);
}

uint16_t
sa_no_build(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	(void)ctx, (void)q, (void)out;
	return be16toh(IB_SA_MAD_STATUS_REQ_INVALID);
}

const struct sa_attr *
sa_attr_of(uint16_t attr_id)
{
	unsigned i = sa_attr_index(attr_id);

	return i + 1 < SA_NATTR ? &attrs[i] : NULL;
}

unsigned
sa_attr_index(uint16_t attr_id)
{
	for (unsigned i = 0; i + 1 < SA_NATTR; i++)
		if (be16toh(attrs[i].id) == attr_id)
			return i;
	return SA_NATTR - 1;
}

const char *
sa_attr_name(unsigned idx)
{
	return idx + 1 < SA_NATTR ? attrs[idx].name : "other";
}

uint16_t
sa_attr_id(unsigned idx)
{
	return idx + 1 < SA_NATTR ? be16toh(attrs[idx].id) : 0;
}

size_t
sa_record_size(uint16_t attr_id)
{
	const struct sa_attr *a = sa_attr_of(attr_id);

	return a ? a->rec_size : 0;
}

uint8_t
sa_method_bit(uint8_t method)
{
	switch (method) {
	case IB_MAD_METHOD_GET:			return SA_M_GET;
	case IB_MAD_METHOD_GETTABLE:		return SA_M_GETTABLE;
	case IB_MAD_METHOD_GETMULTI:		return SA_M_GETMULTI;
	case IB_MAD_METHOD_SET:			return SA_M_SET;
	case IB_MAD_METHOD_DELETE:		return SA_M_DELETE;
	case IB_MAD_METHOD_GETTRACETABLE:	return SA_M_GETTRACETABLE;
	}
	return 0;
}

uint16_t
sa_build_records(const struct sa_ctx *ctx, uint16_t attr_id, const struct sa_query *q,
    struct sa_sink *out)
{
	const struct sa_attr *a = sa_attr_of(attr_id);

	if (a == NULL || (a->needs_key && !q->trusted))
		return be16toh(IB_SA_MAD_STATUS_REQ_INVALID);
	return a->build(ctx, q, out);
}
