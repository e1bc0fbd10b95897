/* PerfMgt payloads through libibmad's field tables: see pma.h. */
#include <string.h>
#include <infiniband/mad.h>

#include "health/pma.h"

static const int pc_field[HC_COUNT] = {
	[HC_SYMBOL_ERRORS] = IB_PC_ERR_SYM_F,
	[HC_LINK_RECOVERIES] = IB_PC_LINK_RECOVERS_F,
	[HC_LINK_DOWNED] = IB_PC_LINK_DOWNED_F,
	[HC_RCV_ERRORS] = IB_PC_ERR_RCV_F,
	[HC_RCV_REMOTE_PHYS_ERRORS] = IB_PC_ERR_PHYSRCV_F,
	[HC_RCV_SWITCH_RELAY_ERRORS] = IB_PC_ERR_SWITCH_REL_F,
	[HC_XMIT_DISCARDS] = IB_PC_XMT_DISCARDS_F,
	[HC_XMIT_CONSTRAINT_ERRORS] = IB_PC_ERR_XMTCONSTR_F,
	[HC_RCV_CONSTRAINT_ERRORS] = IB_PC_ERR_RCVCONSTR_F,
	[HC_LOCAL_LINK_INTEGRITY_ERRORS] = IB_PC_ERR_LOCALINTEG_F,
	[HC_EXCESSIVE_BUFFER_OVERRUNS] = IB_PC_ERR_EXCESS_OVR_F,
	[HC_VL15_DROPPED] = IB_PC_VL15_DROPPED_F,
	[HC_XMIT_WAIT] = IB_PC_XMT_WAIT_F,
	[HC_XMIT_DATA] = IB_PC_XMT_BYTES_F,
	[HC_RCV_DATA] = IB_PC_RCV_BYTES_F,
	[HC_XMIT_PKTS] = IB_PC_XMT_PKTS_F,
	[HC_RCV_PKTS] = IB_PC_RCV_PKTS_F,
};

static const int ext_field[HC_COUNT] = {
	[HC_XMIT_DATA] = IB_PC_EXT_XMT_BYTES_F,
	[HC_RCV_DATA] = IB_PC_EXT_RCV_BYTES_F,
	[HC_XMIT_PKTS] = IB_PC_EXT_XMT_PKTS_F,
	[HC_RCV_PKTS] = IB_PC_EXT_RCV_PKTS_F,
};

void
pma_encode_select(uint8_t data[PMA_DATA_LEN], uint8_t port_select)
{
	uint32_t v = port_select;

	memset(data, 0, PMA_DATA_LEN);
	mad_encode_field(data, IB_PC_PORT_SELECT_F, &v);
}

void
pma_encode_clear(uint8_t data[PMA_DATA_LEN], uint8_t port_select, uint32_t which)
{
	uint32_t v;

	pma_encode_select(data, port_select);
	v = hc_counter_select(which);
	mad_encode_field(data, IB_PC_COUNTER_SELECT_F, &v);
	v = hc_counter_select2(which);
	mad_encode_field(data, IB_PC_COUNTER_SELECT2_F, &v);
}

void
pma_encode_clear_extended(uint8_t data[PMA_DATA_LEN], uint8_t port_select)
{
	uint32_t v = PMA_EXT_SELECT_ALL;

	pma_encode_select(data, port_select);
	mad_encode_field(data, IB_PC_EXT_COUNTER_SELECT_F, &v);
}

void
pma_decode_counters(const uint8_t *data, uint64_t out[HC_COUNT])
{
	uint8_t buf[IB_PC_DATA_SZ];

	/* libibmad's getters take a non-const buffer. */
	memcpy(buf, data, sizeof(buf));
	for (int c = 0; c < HC_COUNT; c++)
		out[c] = mad_get_field(buf, 0, pc_field[c]);
}

void
pma_decode_extended(const uint8_t *data, uint64_t out[HC_COUNT])
{
	uint8_t buf[IB_PC_DATA_SZ];

	memcpy(buf, data, sizeof(buf));
	for (int c = HC_FIRST_TRAFFIC; c < HC_COUNT; c++)
		out[c] = mad_get_field64(buf, 0, ext_field[c]);
}
