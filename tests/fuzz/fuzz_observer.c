/*
 * libFuzzer target: the SA records an observer reads from the master SM
 * (sm/core/observer_records.c), as the fabric answers them: NodeRecords
 * (a node's type, ports and GUIDs), PortInfoRecords, LinkRecords (far ends
 * to query and to link), SwitchInfoRecords (the LFT's top) and LFTRecords,
 * then the read finished as observer.c finishes it (links, hops, degraded
 * links, the model sorted).  A master that is wrong, or a port that
 * answers as the SA, must not crash an observer on every node.
 *
 * Input: records one after another, each a kind byte (0-4: node, port,
 * link, switch, LFT), the LID and argument (port or block) of the query it
 * answers (2 + 2 bytes, big-endian), then the record, as long as its kind's
 * record is (the last may be short: zero padded).
 */
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t rec[256] __attribute__((aligned(8)));
	struct sm_observer o;

	memset(&o, 0, sizeof(o));
	o.next = fabric_new();
	o.asked = calloc(FABRIC_MAX_LID + 1, 1);
	o.table = size > 0 && (data[0] & 0x80);	/* table mode: no follow-up queries */
	while (size >= 5) {
		enum obs_kind kind = (enum obs_kind)(data[0] % 5);
		uint16_t lid = (uint16_t)(data[1] << 8 | data[2]);
		uint16_t arg = (uint16_t)((data[3] << 8 | data[4]) & 0xFFF);
		size_t len = record_size[kind];

		data += 5;
		size -= 5;
		if (len > size)
			len = size;
		memset(rec, 0, sizeof(rec));
		memcpy(rec, data, len);
		obs_record_take(&o, kind, rec, lid, arg);
		data += len;
		size -= len;
	}
	obs_links_apply(&o);
	obs_hops(o.next, 1);
	sm_mark_degraded(o.next);
	fabric_sort(o.next);
	fabric_free(o.next);
	free(o.asked);
	free(o.links);
	free(o.q);
	return 0;
}
