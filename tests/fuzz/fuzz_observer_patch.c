/*
 * libFuzzer target: what an observer does with a Report (sm/core/
 * observer_patch.c), as the fabric sends it: the Notice's fields (trap 128's
 * switch LID, 64/65's port GID) looked up in the view, then the SA's
 * answers for that switch (PortInfoRecords into its ports, LinkRecords'
 * far ends), then the view patched in place.  A Report comes from any
 * port that answers as the SA, so nothing in it may crash an observer.
 *
 * Input: a count byte, then that many view records as fuzz_observer.c
 * reads them (kind byte, LID and argument big-endian, the record); the view
 * is finished as a read finishes it.  Then a trap byte (64, 65 or 128 by
 * its value mod 3) and a Notice (80 bytes, zero padded).  Then answers,
 * each: a kind byte (even: PortInfoRecord, odd: LinkRecord), the port, a
 * status byte (0 answered, 1 timed out, 2 no records, 3 an SA error), a
 * length byte (the reply's bytes after the SA header) and those bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "fabric/fabric.h"
#include "sm/core/model.h"
#include "sm/core/observer_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t record_size[] = {
	[Q_NODE] = sizeof(ib_node_record_t), [Q_PORT] = sizeof(ib_portinfo_record_t),
	[Q_LINK] = sizeof(ib_link_record_t), [Q_SWITCH] = sizeof(ib_switch_info_record_t),
	[Q_LFT] = sizeof(ib_lft_record_t),
};

static unsigned whole_reads;

static void
read_soon(struct sm *sm)
{
	(void)sm;
	whole_reads++;
}

/* Takes n bytes (zero padded past the end) into buf; returns those taken. */
static size_t
take(const uint8_t **data, size_t *size, uint8_t *buf, size_t n)
{
	size_t got = n < *size ? n : *size;

	memset(buf, 0, n);
	memcpy(buf, *data, got);
	*data += got;
	*size -= got;
	return got;
}

static void
view_from(struct sm_observer *o, const uint8_t **data, size_t *size)
{
	uint8_t rec[256] __attribute__((aligned(8))), hdr[5];
	unsigned count = *size > 0 ? **data : 0;

	if (*size > 0) {
		(*data)++;
		(*size)--;
	}
	for (unsigned i = 0; i < count && *size >= 5; i++) {
		enum obs_kind kind;

		take(data, size, hdr, 5);
		kind = (enum obs_kind)(hdr[0] % 5);
		take(data, size, rec, record_size[kind]);
		obs_record_take(o, kind, rec, (uint16_t)(hdr[1] << 8 | hdr[2]),
		    (uint16_t)((hdr[3] << 8 | hdr[4]) & 0xFFF));
	}
	obs_links_apply(o);
	obs_hops(o->next, 1);
	sm_mark_degraded(o->next);
	fabric_sort(o->next);
}

static void
answers_from(struct sm *sm, const uint8_t *data, size_t size)
{
	static const int status[] = { 0, -ETIMEDOUT, 0, 0 };
	static const uint16_t mad_status[] = { 0, 0, SA_NO_RECORDS, 0x0200 };
	uint8_t mad[256] __attribute__((aligned(8))), hdr[4];

	while (size >= 4) {
		struct mad_result res = { 0 };
		size_t len;

		take(&data, &size, hdr, 4);
		len = SA_REC_OFFSET + take(&data, &size, mad + SA_REC_OFFSET,
		    hdr[3] < sizeof(mad) - SA_REC_OFFSET ? hdr[3] : sizeof(mad) - SA_REC_OFFSET);
		memset(mad, 0, SA_REC_OFFSET);
		res.status = status[hdr[2] % 4];
		res.mad_status = mad_status[hdr[2] % 4];
		if (res.status == 0) {
			res.mad = mad;
			res.len = len;
		}
		obs_patch_answer(&res, sm, OBS_PATCH_ARG(hdr[0] % 2 ? Q_LINK : Q_PORT, hdr[1]));
	}
	obs_patch_done(sm);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t traps[] = { 64, 65, 128 };
	uint8_t notice[sizeof(ib_mad_notice_attr_t)] __attribute__((aligned(8))), trap = 0;
	struct sm *sm = calloc(1, sizeof(*sm));
	struct sm_observer o;

	memset(&o, 0, sizeof(o));
	o.sm = sm;
	o.read_soon = read_soon;
	o.next = fabric_new();
	o.asked = calloc(FABRIC_MAX_LID + 1, 1);
	o.table = true;		/* the view's records only: no follow-up queries */
	sm->observer = &o;
	view_from(&o, &data, &size);
	sm->fabric = o.next;
	o.next = NULL;
	take(&data, &size, &trap, 1);
	take(&data, &size, notice, sizeof(notice));
	o.patch_lid = obs_reported_switch(sm->fabric, traps[trap % 3], notice);
	if (o.patch_lid != 0 && o.patch_lid <= FABRIC_MAX_LID)
		answers_from(sm, data, size);
	fabric_free(sm->fabric);
	free(o.asked);
	free(o.links);
	free(o.q);
	free(sm);
	return 0;
}
